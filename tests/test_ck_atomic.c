/* test_ck_atomic.c: checkpoints are written whole or not at all (checkpoint.c's hg_ck_write
 * through outfile.h's replacement). A checkpoint that does not fit on a full file system (a
 * 200 KiB tmpfs, filled by a ballast file) leaves no cut file under its name, the checkpoint
 * already under a name stays as it was and a resumed run still reads it, and the run's error
 * names the file and the reason; a symbolic link planted under a checkpoint's name is replaced
 * by the checkpoint, its target left unchanged. Mounting the tmpfs needs root: without it the
 * full-disk case is skipped and the program exits 77 (CTest's SKIP_RETURN_CODE). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "sims.h"

static int skipped;

/* a simulation of s writing checkpoints every dt seconds into dir, and no other file */
static hg_sim *sim_ck_only(const hg_scene *s, const char *dir, double dt) {
  hg_sim_options opt;
  hg_error err;
  hg_sim_default_options(&opt);
  opt.out_dir = dir;
  opt.checkpoint_every = dt;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  if (!sim) fail_msg("%s: %s", s->path, err.msg);
  return sim;
}

/* fills the file system holding dir: a ballast file written until ENOSPC */
static void fill_disk(const char *dir) {
  char path[300], block[4096];
  memset(block, 0x5a, sizeof block);
  snprintf(path, sizeof path, "%s/ballast", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(fd >= 0);
  ssize_t w;
  while ((w = write(fd, block, sizeof block)) > 0) {
  }
  /* the last pages, smaller than a block */
  while ((w = write(fd, block, 1)) > 0) {
  }
  assert_int_equal(errno, ENOSPC);
  close(fd);
}

/* no file of dir is named like a replacement's temporary (NAME.tmp-XXXXXX) */
static void assert_no_temporaries(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d))) assert_null(strstr(e->d_name, ".tmp-"));
  closedir(d);
}

static void full_disk_keeps_the_earlier_checkpoint(void **state) {
  (void)state;
  char dir[64], disk[128], ck0[200], ck1[200];
  assert_int_equal(0, hg_test_temp_dir("ckfull", dir, sizeof dir));
  snprintf(disk, sizeof disk, "%s/disk", dir);
  assert_int_equal(0, mkdir(disk, 0755));
  if (mount("tmpfs", disk, "tmpfs", 0, "size=200k")) {
    printf("# skipped: cannot mount a tmpfs (%s)\n", strerror(errno));
    skipped = 1;
    hg_test_remove_dir(dir);
    skip();
  }
  hg_scene *s = hg_test_shipped("pendulum");
  hg_sim *sim = sim_ck_only(s, disk, 0.5);
  /* the first checkpoint at 0.5 s (checkpoint-0001.txt) */
  assert_int_equal(hg_sim_run(sim, 0.75), HG_SIM_OK);
  snprintf(ck0, sizeof ck0, "%s/checkpoint-0001.txt", disk);
  snprintf(ck1, sizeof ck1, "%s/checkpoint-0002.txt", disk);
  size_t len0;
  char *before = hg_test_read_file(ck0, &len0);
  assert_non_null(before);
  fill_disk(disk);

  /* the next checkpoint (1 s) does not fit: the run says which file and why, nothing is left
   * under its name */
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_ERR_OUTPUT);
  char want[300];
  snprintf(want, sizeof want, "cannot write %s: No space left on device", ck1);
  printf("# %s\n", hg_sim_error(sim));
  assert_non_null(strstr(hg_sim_error(sim), want));
  struct stat st;
  assert_int_equal(-1, lstat(ck1, &st));

  /* a checkpoint written over the earlier one does not fit either: that one stays whole */
  assert_int_equal(hg_sim_write_checkpoint(sim, ck0), HG_SIM_ERR_OUTPUT);
  size_t len_after;
  char *after = hg_test_read_file(ck0, &len_after);
  assert_non_null(after);
  assert_int_equal(len_after, len0);
  assert_memory_equal(after, before, len0);
  assert_no_temporaries(disk);
  hg_sim_free(sim);

  /* and a run resumes from it (written into the big folder: the tmpfs is full) */
  hg_error err;
  sim = sim_ck_only(s, dir, 0);
  if (hg_sim_resume(sim, ck0, &err)) fail_msg("%s", err.msg);
  assert_true(hg_sim_time(sim) == 0.5);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  hg_sim_free(sim);
  free(before);
  free(after);
  hg_scene_free(s);
  assert_int_equal(0, umount(disk));
  hg_test_remove_dir(dir);
}

static void link_under_the_name_is_replaced(void **state) {
  (void)state;
  char dir[64], target[200], link[200];
  assert_int_equal(0, hg_test_temp_dir("cklink", dir, sizeof dir));
  snprintf(target, sizeof target, "%s/precious.txt", dir);
  snprintf(link, sizeof link, "%s/checkpoint-0001.txt", dir);
  FILE *f = fopen(target, "w");
  assert_non_null(f);
  fputs("not a checkpoint\n", f);
  assert_int_equal(0, fclose(f));
  assert_int_equal(0, symlink("precious.txt", link));

  hg_scene *s = hg_test_shipped("pendulum");
  hg_sim *sim = sim_ck_only(s, dir, 0.5);
  assert_int_equal(hg_sim_run(sim, 0.75), HG_SIM_OK); /* checkpoint 1 at t = 0.5 s */
  struct stat st;
  assert_int_equal(0, lstat(link, &st));
  assert_true(S_ISREG(st.st_mode));
  char *ck = hg_test_read_file(link, NULL);
  assert_non_null(ck);
  assert_int_equal(0, strncmp(ck, "hinge-checkpoint", 16));
  char *kept = hg_test_read_file(target, NULL);
  assert_non_null(kept);
  assert_string_equal(kept, "not a checkpoint\n");
  free(ck);
  free(kept);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(link_under_the_name_is_replaced),
      cmocka_unit_test(full_disk_keeps_the_earlier_checkpoint),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  return rc ? rc : skipped ? 77 : 0;
}
