/* test_controller_lib.c: users' controllers through the instance interface (controller_lib.h):
 * a library (tests/control/pd_ctl.c, built as a module) and an external process
 * (tests/control/pd_ctl.py) give the PD law bit for bit; a library that cannot load, an init or
 * step that fails, an output that is inf and a process that dies, hangs, or writes garbage give
 * the documented messages, within the timeout; set, save and load; instances on several
 * threads at once. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#include <cmocka.h>

#include "controller_lib.h"
#include "controller_proc.h"

#ifndef HG_PD_CTL
#error "HG_PD_CTL: the path of the pd_ctl module (tests/CMakeLists.txt)"
#endif

#define PD_LIB HG_PD_CTL
#define NOABI_LIB HG_NOABI_CTL
#define WRONGABI_LIB HG_WRONGABI_CTL
#define PD_PY "python3 " HG_CTL_DIR "/pd_ctl.py"

static double wall(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the PD setup: params kp, kd, target; inputs q, v; output tau (and a second output 'aux' when
 * nout is 2) */
typedef struct pd_setup {
  double kp, kd, target;
  hg_control_param param[3];
  hg_control_port input[2], output[2];
  hg_control_setup s;
} pd_setup;

static void pd_setup_make(pd_setup *p, const char *name, int nout)
{
  memset(p, 0, sizeof *p);
  p->kp = 12.5;
  p->kd = 0.7;
  p->target = 0.3;
  p->param[0] = (hg_control_param){"kp", 1, &p->kp, NULL};
  p->param[1] = (hg_control_param){"kd", 1, &p->kd, NULL};
  p->param[2] = (hg_control_param){"target", 1, &p->target, NULL};
  p->input[0] = (hg_control_port){"q", "encoder", 0, 1};
  p->input[1] = (hg_control_port){"v", "tachometer", 1, 1};
  p->output[0] = (hg_control_port){"tau", "motor", 0, 1};
  p->output[1] = (hg_control_port){"aux", "motor", 1, 1};
  p->s = (hg_control_setup){0,       name, 100.0, 0.0, 3, p->param, 2, p->input, 2,
                            nout,    p->output, nout};
}

/* q, v of sample k: values of all magnitudes and signs */
static void sample(int k, double *q, double *v)
{
  *q = sin(1.3 * k) * pow(10.0, (k % 13) - 6);
  *v = cos(0.7 * k + 0.1) * pow(10.0, (k % 7) - 3) + 1.0 / 3.0;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* steps c through n samples and checks tau against the law, bit for bit */
static void check_pd(hg_ctl *c, const pd_setup *p, int n)
{
  char err[1024];
  double out[1] = {NAN};
  for (int k = 0; k < n; ++k) {
    double in[2];
    sample(k, &in[0], &in[1]);
    assert_int_equal(hg_ctl_step(c, 0.01 * k, in, out, err, sizeof err), 0);
    double tau = p->kp * (p->target - in[0]) + p->kd * (0.0 - in[1]);
    if (!same_bits(out[0], tau)) fail_msg("k = %d: %.17g != %.17g", k, out[0], tau);
  }
}

static hg_ctl_lib *open_lib(const char *path, const char *symbol)
{
  hg_ctl_lib *lib = NULL;
  char err[1024] = "";
  if (hg_ctl_lib_open(path, symbol, NULL, NULL, &lib, err, sizeof err) != 0)
    fail_msg("%s", err);
  return lib;
}

static void lib_pd_exact(void **state)
{
  (void)state;
  hg_ctl_lib *lib = open_lib(PD_LIB, "pd_step");
  pd_setup p;
  pd_setup_make(&p, "pd", 1);
  hg_ctl *c = NULL, *c2 = NULL;
  char err[1024] = "";
  assert_int_equal(hg_ctl_new(hg_ctl_lib_ops(lib), &p.s, &c, err, sizeof err), 0);
  /* a second instance of the same library has its own state */
  pd_setup p2;
  pd_setup_make(&p2, "pd2", 1);
  p2.kp = -3.0;
  assert_int_equal(hg_ctl_new(hg_ctl_lib_ops(lib), &p2.s, &c2, err, sizeof err), 0);
  check_pd(c, &p, 1000);
  check_pd(c2, &p2, 10);
  assert_string_equal(hg_ctl_name(c), "pd");
  assert_int_equal(hg_ctl_nin(c), 2);
  assert_int_equal(hg_ctl_nout(c), 1);
  hg_ctl_timing t = hg_ctl_get_timing(c);
  assert_int_equal(t.count, 1000);
  assert_true(t.total >= 0 && t.max >= 0 && t.max <= t.total);
  char line[256];
  hg_ctl_timing_line(c, line, sizeof line);
  assert_non_null(strstr(line, "controller 'pd': 1000 steps, mean "));
  hg_ctl_free(c);
  hg_ctl_free(c2);
  hg_ctl_lib_close(lib);
}

static void proc_pd_exact(void **state)
{
  (void)state;
  pd_setup p;
  pd_setup_make(&p, "pd", 1);
  hg_ctl *c = NULL;
  char err[1024] = "";
  if (hg_ctl_proc_new(PD_PY, NULL, 0, &p.s, &c, err, sizeof err) != 0) fail_msg("%s", err);
  check_pd(c, &p, 500);
  assert_int_equal(hg_ctl_get_timing(c).count, 500);
  /* protocol 1 takes no parameter changes */
  double kp = 1.0;
  assert_int_equal(hg_ctl_set(c, "kp", 1, &kp, err, sizeof err), -1);
  assert_non_null(strstr(err, "controller 'pd' takes no parameter changes"));
  double t0 = wall();
  hg_ctl_free(c);
  assert_true(wall() - t0 < 1.5);  /* it exits at `finish`, without the grace period */

  /* in a folder: the command's relative paths are the folder's */
  pd_setup_make(&p, "pd in dir", 1);
  if (hg_ctl_proc_new("python3 pd_ctl.py", HG_CTL_DIR, 0, &p.s, &c, err, sizeof err) != 0)
    fail_msg("%s", err);
  check_pd(c, &p, 5);
  hg_ctl_free(c);
}

/* a library written in C++ */
static void lib_cxx(void **state)
{
  (void)state;
  hg_ctl_lib *lib = open_lib(HG_CXX_CTL, "gain_step");
  pd_setup p;
  pd_setup_make(&p, "gain", 2);
  hg_ctl *c = NULL;
  char err[1024] = "";
  assert_int_equal(hg_ctl_new(hg_ctl_lib_ops(lib), &p.s, &c, err, sizeof err), 0);
  double in[2] = {2.0, -1.0 / 3.0}, out[2] = {NAN, NAN};
  assert_int_equal(hg_ctl_step(c, 0.0, in, out, err, sizeof err), 0);
  assert_true(same_bits(out[0], p.target * in[0]) && same_bits(out[1], p.target * in[1]));
  hg_ctl_free(c);
  hg_ctl_lib_close(lib);
}

static void lib_open_errors(void **state)
{
  (void)state;
  hg_ctl_lib *lib = NULL;
  char err[1024] = "";
  assert_int_equal(hg_ctl_lib_open("/nonexistent/libnope.so", "pd_step", NULL, NULL, &lib, err,
                                   sizeof err), -1);
  assert_null(lib);
  assert_non_null(strstr(err, "cannot open controller library '/nonexistent/libnope.so': "));
  assert_non_null(strstr(err, "No such file"));  /* dlerror's text */

  assert_int_equal(hg_ctl_lib_open(PD_LIB, "nosuch_step", NULL, NULL, &lib, err, sizeof err), -1);
  assert_non_null(strstr(err, "' has no function 'nosuch_step' ("));
  assert_non_null(strstr(err, "undefined symbol: nosuch_step"));
  /* an init named explicitly must exist; derived ones may be absent */
  assert_int_equal(hg_ctl_lib_open(PD_LIB, "pd_step", "nope_init", NULL, &lib, err, sizeof err),
                   -1);
  assert_non_null(strstr(err, "has no function 'nope_init'"));
  assert_int_equal(hg_ctl_lib_open(PD_LIB, "half_step", NULL, NULL, &lib, err, sizeof err), -1);
  assert_non_null(strstr(err, "has 'half_save' but no 'half_load' (a checkpoint needs both)"));

  char want[1024];
  snprintf(want, sizeof want,
           "'%s': not a hinge controller library (no hg_control_abi: build it with "
           "HG_CONTROL_DECLARE_ABI)",
           NOABI_LIB);
  assert_int_equal(hg_ctl_lib_open(NOABI_LIB, "pd_step", NULL, NULL, &lib, err, sizeof err), -1);
  assert_string_equal(err, want);
  snprintf(want, sizeof want,
           "'%s' was built for hinge controller ABI 2; this hinge loads ABI 1 (rebuild it "
           "against this hinge's <hinge/control.h>)",
           WRONGABI_LIB);
  assert_int_equal(hg_ctl_lib_open(WRONGABI_LIB, "pd_step", NULL, NULL, &lib, err, sizeof err),
                   -1);
  assert_string_equal(err, want);
  assert_null(lib);
}

static void lib_failures(void **state)
{
  (void)state;
  hg_ctl_lib *lib = open_lib(PD_LIB, "pd_step");
  char err[1024] = "";
  hg_ctl *c = NULL;
  /* init refuses a setup */
  pd_setup p;
  pd_setup_make(&p, "pd", 2);
  assert_int_equal(hg_ctl_new(hg_ctl_lib_ops(lib), &p.s, &c, err, sizeof err), -1);
  assert_string_equal(err, "controller 'pd': needs inputs q, v and one output (has 2 inputs, 2 "
                           "outputs)");
  assert_null(c);
  /* a port outside its vector */
  pd_setup_make(&p, "pd", 1);
  p.input[1].offset = 2;
  assert_int_equal(hg_ctl_new(hg_ctl_lib_ops(lib), &p.s, &c, err, sizeof err), -1);
  assert_non_null(strstr(err, "input 'v' (offset 2, 1 numbers) lies outside"));
  hg_ctl_lib_close(lib);

  /* a step that fails: no init and no finish in this library's fail_ functions */
  lib = open_lib(PD_LIB, "fail_step");
  pd_setup_make(&p, "fail", 1);
  assert_int_equal(hg_ctl_new(hg_ctl_lib_ops(lib), &p.s, &c, err, sizeof err), 0);
  double in[2] = {0, 0}, out[1] = {NAN};
  assert_int_equal(hg_ctl_step(c, 0.25, in, out, err, sizeof err), 0);
  assert_true(out[0] == 0.25);
  assert_int_equal(hg_ctl_step(c, 0.5, in, out, err, sizeof err), -1);
  assert_string_equal(err, "controller 'fail' at t = 0.5: deliberate failure at t = 0.5");
  hg_ctl_free(c);
  hg_ctl_lib_close(lib);

  /* NaN holds the command in force; inf stops */
  lib = open_lib(PD_LIB, "hold_step");
  pd_setup_make(&p, "hold", 2);
  assert_int_equal(hg_ctl_new(hg_ctl_lib_ops(lib), &p.s, &c, err, sizeof err), 0);
  double out2[2] = {NAN, NAN};
  assert_int_equal(hg_ctl_step(c, 0.25, in, out2, err, sizeof err), 0);
  assert_true(out2[0] == 0.25 && isnan(out2[1]));
  assert_int_equal(hg_ctl_step(c, 0.5, in, out2, err, sizeof err), 0);
  assert_true(out2[0] == 0.25 && isnan(out2[1]));
  hg_ctl_free(c);
  hg_ctl_lib_close(lib);
  lib = open_lib(PD_LIB, "inf_step");
  pd_setup_make(&p, "inf", 1);
  assert_int_equal(hg_ctl_new(hg_ctl_lib_ops(lib), &p.s, &c, err, sizeof err), 0);
  assert_int_equal(hg_ctl_step(c, 0.25, in, out, err, sizeof err), 0);
  assert_int_equal(hg_ctl_step(c, 0.5, in, out, err, sizeof err), -1);
  assert_string_equal(err, "controller 'inf' at t = 0.5: output 'tau'[0] is inf");
  hg_ctl_free(c);
  hg_ctl_lib_close(lib);
}

static void lib_set_save_load(void **state)
{
  (void)state;
  hg_ctl_lib *lib = open_lib(PD_LIB, "pd_step");
  pd_setup p;
  pd_setup_make(&p, "pd", 1);
  hg_ctl *a = NULL, *b = NULL;
  char err[1024] = "";
  assert_int_equal(hg_ctl_new(hg_ctl_lib_ops(lib), &p.s, &a, err, sizeof err), 0);
  check_pd(a, &p, 3);
  double kp = 7.25;
  assert_int_equal(hg_ctl_set(a, "kp", 1, &kp, err, sizeof err), 0);
  p.kp = kp;
  check_pd(a, &p, 2);
  assert_int_equal(hg_ctl_set(a, "ki", 1, &kp, err, sizeof err), -1);
  assert_string_equal(err, "controller 'pd': setting 'ki': unknown parameter 'ki' (kp, kd, "
                           "target)");
  /* save: the count first, then the numbers */
  int n = hg_ctl_save(a, NULL, 0, err, sizeof err);
  assert_int_equal(n, 4);
  double buf[4], buf2[4];
  assert_int_equal(hg_ctl_save(a, buf, 4, err, sizeof err), 4);
  assert_true(buf[0] == 7.25 && buf[3] == 5);
  /* a fresh instance from the scene's setup, loaded, steps as the first one */
  pd_setup q;
  pd_setup_make(&q, "pd", 1);
  assert_int_equal(hg_ctl_new(hg_ctl_lib_ops(lib), &q.s, &b, err, sizeof err), 0);
  assert_int_equal(hg_ctl_load(b, buf, 3, err, sizeof err), -1);
  assert_string_equal(err, "controller 'pd': loading its checkpointed state: a checkpoint of 4 "
                           "numbers expected, not 3");
  assert_int_equal(hg_ctl_load(b, buf, 4, err, sizeof err), 0);
  for (int k = 0; k < 20; ++k) {
    double in[2], oa[1] = {NAN}, ob[1] = {NAN};
    sample(k + 100, &in[0], &in[1]);
    assert_int_equal(hg_ctl_step(a, 0.01 * k, in, oa, err, sizeof err), 0);
    assert_int_equal(hg_ctl_step(b, 0.01 * k, in, ob, err, sizeof err), 0);
    assert_true(same_bits(oa[0], ob[0]));
  }
  assert_int_equal(hg_ctl_save(a, buf, 4, err, sizeof err), 4);
  assert_int_equal(hg_ctl_save(b, buf2, 4, err, sizeof err), 4);
  assert_memory_equal(buf, buf2, sizeof buf);
  hg_ctl_free(a);
  hg_ctl_free(b);
  hg_ctl_lib_close(lib);
}

/* a process controller in MODE steps at t = 0, 0.1, ...; the first failure's message in err and
 * its time in *t_fail; 0 when all n steps pass */
static int run_proc(const char *command, double timeout, int n, char *err, size_t errlen,
                    double *t_fail)
{
  pd_setup p;
  pd_setup_make(&p, "pd", 1);
  hg_ctl *c = NULL;
  *t_fail = -1;
  if (hg_ctl_proc_new(command, NULL, timeout, &p.s, &c, err, errlen) != 0) {
    print_message("%s: %s\n", command, err);
    return -1;
  }
  int rc = 0;
  double out[1] = {NAN};
  for (int k = 0; k < n && rc == 0; ++k) {
    double in[2] = {0.1 * k, -0.2};
    rc = hg_ctl_step(c, 0.1 * k, in, out, err, errlen);
    if (rc != 0) *t_fail = 0.1 * k;
  }
  hg_ctl_free(c);
  if (rc != 0) print_message("%s: %s\n", command, err);
  return rc;
}

static void proc_failures(void **state)
{
  (void)state;
  char err[2048];
  double t;
  double t0 = wall();
  assert_int_equal(run_proc(PD_PY " die", 0, 10, err, sizeof err, &t), -1);
  assert_non_null(strstr(err, "controller 'pd' at t = 0.3"));
  assert_non_null(strstr(err, "closed its output before answering the step (it exited with "
                              "status 3)"));

  assert_int_equal(run_proc(PD_PY " garbage", 0, 10, err, sizeof err, &t), -1);
  assert_non_null(strstr(err, "controller 'pd' at t = 0.3"));
  assert_non_null(strstr(err, "wrote 'hello' where 1 number was expected"));

  assert_int_equal(run_proc(PD_PY " few", 0, 10, err, sizeof err, &t), -1);
  assert_non_null(strstr(err, "wrote 0 numbers ('') where 1 was expected"));

  assert_int_equal(run_proc(PD_PY " error", 0, 10, err, sizeof err, &t), -1);
  assert_string_equal(err, "controller 'pd' at t = 0.3: too hot");

  assert_int_equal(run_proc(PD_PY " long", 0, 10, err, sizeof err, &t), -1);
  assert_non_null(strstr(err, "wrote a line longer than 1048576 bytes"));
  assert_true(wall() - t0 < 20);

  /* a process that stops answering: the timeout, and nothing left running */
  t0 = wall();
  assert_int_equal(run_proc(PD_PY " sleep", 0.5, 10, err, sizeof err, &t), -1);
  double dt = wall() - t0;
  assert_true(dt < 3.0);
  assert_non_null(strstr(err, "controller 'pd' at t = 0.3"));
  assert_non_null(strstr(err, "did not answer within 0.5 s (it was still running: hinge killed "
                              "it)"));

  /* a shell that exits at once: hinge's writes meet a closed pipe (EPIPE, never SIGPIPE) */
  int rc = run_proc("exit 7", 0, 10, err, sizeof err, &t);
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err, "it exited with status 7"));
  rc = run_proc("no_such_program_for_hinge", 0, 10, err, sizeof err, &t);
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err, "it exited with status 127"));
}

/* a child that takes longer to start than a step may take (an interpreter and its imports):
 * its first step is given HG_CTL_PROC_STARTUP, the later ones the timeout */
static void proc_slow_start(void **state)
{
  (void)state;
  char err[2048];
  double t;
  assert_int_equal(run_proc(PD_PY " slowstart", 0.5, 5, err, sizeof err, &t), 0);
  double t0 = wall();
  assert_int_equal(run_proc(PD_PY " slowstart-sleep", 0.5, 10, err, sizeof err, &t), -1);
  assert_true(wall() - t0 < 5.0);
  assert_non_null(strstr(err, "controller 'pd' at t = 0.3"));
  assert_non_null(strstr(err, "did not answer within 0.5 s"));
}

/* a child that stops reading after its first answer: a step line longer than the pipe holds
 * times out on the write (the first step, which includes the child's start-up, is given
 * HG_CTL_PROC_STARTUP) */
static void proc_write_timeout(void **state)
{
  (void)state;
  enum { N = 40000 };
  double *in = calloc(N, sizeof *in);
  assert_non_null(in);
  for (int i = 0; i < N; ++i) in[i] = 1.0 / 3.0 + i;
  hg_control_port port = {"big", "camera", 0, N}, outp = {"tau", "motor", 0, 1};
  hg_control_setup s = {0, "big", 10.0, 0.0, 0, NULL, 1, &port, N, 1, &outp, 1};
  hg_ctl *c = NULL;
  char err[1024] = "";
  const char *reads_once = "python3 -c 'import sys, time\n"
                           "for line in sys.stdin:\n"
                           "    if line.startswith(\"end\"): break\n"
                           "sys.stdin.readline()\n"
                           "print(0, flush=True)\n"
                           "time.sleep(30)'";
  assert_int_equal(hg_ctl_proc_new(reads_once, NULL, 0.3, &s, &c, err, sizeof err), 0);
  double out[1] = {NAN};
  if (hg_ctl_step(c, 0.0, in, out, err, sizeof err)) fail_msg("%s", err);
  assert_true(out[0] == 0);
  double t0 = wall();
  assert_int_equal(hg_ctl_step(c, 0.1, in, out, err, sizeof err), -1);
  assert_true(wall() - t0 < 2.0);
  assert_non_null(strstr(err, "did not read its input within 0.3 s"));
  hg_ctl_free(c);
  free(in);
}

/* instances on several threads at once, as a campaign's runs make them: a library's and a
 * process's, each with its own gains; the number of wrong samples and errors of one thread */
typedef struct thread_job {
  hg_ctl_lib *lib;
  int id;
  int bad;
} thread_job;

static void *thread_run(void *arg)
{
  thread_job *job = arg;
  pd_setup p;
  pd_setup_make(&p, "pd", 1);
  p.kp = 1.0 + job->id;
  hg_ctl *c[2] = {NULL, NULL};
  char err[1024];
  if (hg_ctl_new(hg_ctl_lib_ops(job->lib), &p.s, &c[0], err, sizeof err) != 0 ||
      hg_ctl_proc_new(PD_PY, NULL, 0, &p.s, &c[1], err, sizeof err) != 0) {
    job->bad = -1;
    hg_ctl_free(c[0]);
    return NULL;
  }
  for (int k = 0; k < 200; ++k) {
    double in[2], out[2] = {NAN, NAN};
    sample(k + job->id, &in[0], &in[1]);
    double tau = p.kp * (p.target - in[0]) + p.kd * (0.0 - in[1]);
    for (int i = 0; i < 2; ++i)
      if (hg_ctl_step(c[i], 0.01 * k, in, &out[i], err, sizeof err) != 0 ||
          !same_bits(out[i], tau))
        job->bad++;
  }
  hg_ctl_free(c[0]);
  hg_ctl_free(c[1]);
  return NULL;
}

static void threads(void **state)
{
  (void)state;
  hg_ctl_lib *lib = open_lib(PD_LIB, "pd_step");
  enum { N = 4 };
  thread_job job[N];
  pthread_t th[N];
  for (int i = 0; i < N; ++i) {
    job[i] = (thread_job){lib, i, 0};
    assert_int_equal(pthread_create(&th[i], NULL, thread_run, &job[i]), 0);
  }
  for (int i = 0; i < N; ++i) {
    pthread_join(th[i], NULL);
    assert_int_equal(job[i].bad, 0);
  }
  hg_ctl_lib_close(lib);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lib_pd_exact),      cmocka_unit_test(proc_pd_exact),
      cmocka_unit_test(lib_cxx),           cmocka_unit_test(lib_open_errors),
      cmocka_unit_test(lib_failures),
      cmocka_unit_test(lib_set_save_load), cmocka_unit_test(proc_failures),
      cmocka_unit_test(proc_slow_start),
      cmocka_unit_test(proc_write_timeout), cmocka_unit_test(threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
