/* test_output_errors.c: a run whose output files cannot be written to the end (the file size
 * limit RLIMIT_FSIZE, which fails every write past it with EFBIG, as a full disk fails them with
 * ENOSPC; this needs no root, tests/cli/full_disk.sh fills a real file system):
 *   - the run stops with HG_SIM_ERR_OUTPUT and a message that names the file and the reason;
 *   - summary.txt (small enough to be written) says "status: failed: " with that message, not
 *     "completed";
 *   - a run whose files fit ends with HG_SIM_OK and "status: completed" (the same checks pass
 *     when nothing fails).
 * The runs are made in a child process, so that the limit stays there. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "files.h"
#include "output.h"
#include "sims.h"

/* the double pendulum for 2 s (200 rows of ~900 bytes: 180 kB of trajectory.csv) into dir,
 * its files limited to limit bytes each (0: none); in a child, which writes the run's status
 * and message into dir/result.txt */
static void run_limited(const char *dir, long limit) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead of killing */
    hg_scene *s = hg_test_shipped("pendulum");
    hg_error err;
    hg_sim_options opt;
    hg_output_options oo;
    hg_sim_default_options(&opt);
    opt.t_end = 2;
    opt.out_dir = dir;
    hg_sim *sim = hg_sim_new(s, &opt, &err);
    hg_output_default_options(&oo);
    oo.dir = dir;
    oo.plots = 0;
    if (!sim || hg_output_attach(sim, &oo, &err)) _exit(3);
    if (limit > 0) {
      struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
      if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(4);
    }
    int rc = hg_sim_run(sim, INFINITY);
    int fin = hg_sim_finish(sim);
    char msg[1024];
    snprintf(msg, sizeof msg, "%d %d %s\n", rc, fin, hg_sim_error(sim) ? hg_sim_error(sim) : "");
    /* the result, written with the limit lifted */
    struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &rl);
    char path[512];
    snprintf(path, sizeof path, "%s/result.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) _exit(5);
    fputs(msg, f);
    fclose(f);
    hg_sim_free(sim);
    hg_scene_free(s);
    _exit(0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static char *read_in(const char *dir, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return hg_test_read_file(path, NULL);
}

static void a_write_that_fails_names_its_file_and_fails_the_run(void **state) {
  (void)state;
  char dir[256], want[600];
  assert_int_equal(hg_test_temp_dir("output_errors", dir, sizeof dir), 0);
  run_limited(dir, 64 * 1024);
  char *result = read_in(dir, "result.txt"), *summary = read_in(dir, "summary.txt");
  assert_non_null(result);
  printf("result: %s", result);
  /* the run stopped on the write, and the finish reports it too */
  assert_int_equal(atoi(result), HG_SIM_ERR_OUTPUT);
  snprintf(want, sizeof want, "cannot write %s/trajectory.csv: %s", dir, strerror(EFBIG));
  assert_non_null(strstr(result, want));
  /* summary.txt: small enough to be written under the limit; its status is the failure */
  assert_non_null(summary);
  char *status = strstr(summary, "status: ");
  assert_non_null(status);
  printf("%.*s\n", (int)strcspn(status, "\n"), status);
  assert_true(!strncmp(status, "status: failed: ", strlen("status: failed: ")));
  assert_non_null(strstr(status, want));
  assert_null(strstr(summary, "status: completed"));
  free(result);
  free(summary);
  hg_test_remove_dir(dir);
}

static void files_that_fit_complete(void **state) {
  (void)state;
  char dir[256];
  assert_int_equal(hg_test_temp_dir("output_errors_fit", dir, sizeof dir), 0);
  run_limited(dir, 0);
  char *result = read_in(dir, "result.txt"), *summary = read_in(dir, "summary.txt");
  assert_non_null(result);
  assert_non_null(summary);
  assert_int_equal(atoi(result), HG_SIM_OK);
  assert_non_null(strstr(summary, "status: completed\n"));
  free(result);
  free(summary);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_write_that_fails_names_its_file_and_fails_the_run),
      cmocka_unit_test(files_that_fit_complete),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
