/* Meshes through assimp in a process of its own (sim/readers/mesh_assimp.c) and bounded file
 * reading (sim/readers/readfile.h): hostile files that crash, hang or swell assimp 5.2 become
 * errors of the mesh, quickly and without growing this process; a reader that misbehaves in any
 * way (tests/data/meshes_test/fake_reader.sh) is refused; devices and endless lines are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "mesh.h"
#include "readfile.h"

#define DATA "data/meshes_test/"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every test runs under a 4 GiB address-space limit and a 60 s alarm: assimp called in this
 * process (as before the reader process) would otherwise take the machine's memory or never
 * return; with them such a failure ends the test instead (an error or SIGALRM). */
#if defined(__SANITIZE_ADDRESS__)
#define HG_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HG_TEST_ASAN 1
#endif
#endif
static int limit_self(void **state) {
#ifndef HG_TEST_ASAN /* AddressSanitizer's shadow memory already holds terabytes of addresses */
  struct rlimit as = {(rlim_t)4 << 30, (rlim_t)4 << 30};
  setrlimit(RLIMIT_AS, &as);
#endif
  alarm(60);
  return 0;
}

/* hg_mesh_load(path) fails, within max_s seconds, with "path: cannot read mesh (" and why */
static void refused(const char *path, const char *why, double max_s) {
  hg_mesh m;
  hg_error err;
  char want[512];
  double t0 = now();
  int rc = hg_mesh_load(path, &m, &err);
  double dt = now() - t0;
  if (rc == 0) fail_msg("%s: loaded", path);
  snprintf(want, sizeof want, "%s: cannot read mesh (", path);
  if (!strstr(err.msg, want) || !strstr(err.msg, why))
    fail_msg("%s: message '%s', expected '%s...%s'", path, err.msg, want, why);
  if (dt > max_s) fail_msg("%s: refused after %.1f s (at most %.0f s)", path, dt, max_s);
  assert_null(m.vert);
  assert_null(m.tri);
}

/* this process's peak resident memory, bytes */
static double peak_rss(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return 1024.0 * (double)u.ru_maxrss;
}

/* The three hostile files assimp 5.2 fails on: a Collada float_array without a count crashed
 * hinge (SIGSEGV); an index "3e9" in a Collada <p> grew hinge for 52 s to 12.6 GB before the
 * mesh was refused; a 21-byte PLY without end_header never returned. Each is now refused within
 * a few seconds (the reader hits its 1 GiB limit in about 1 s on this machine; 10 s leaves room
 * for a loaded machine), and this process does not grow by more than 64 MiB (it holds no more
 * than the reader's answer; the swelling is the reader's). */
static void hostile_files(void **state) {
  double rss0 = peak_rss();
  refused(DATA "hostile_float_array_no_count.dae", "assimp crashed: segmentation fault", 10);
  refused(DATA "hostile_bad_p_index.dae", "out of memory: assimp needed more than 1024 MiB", 10);
  refused(DATA "hostile_no_end_header.ply", "PLY header without an end_header line", 10);
  assert_true(peak_rss() - rss0 < 64.0 * (1 << 20));
}

/* the reader still reads a good file, and from any folder (it is found from this program) */
static void good_file(void **state) {
  hg_mesh m;
  hg_error err;
  if (hg_mesh_load(DATA "tetra.dae", &m, &err)) fail_msg("%s", err.msg);
  assert_int_equal(m.nvert, 4);
  assert_int_equal(m.ntri, 4);
  assert_int_equal(hg_mesh_check(&m, &err), 0);
  hg_mesh_free(&m);
  char path[512];
  assert_int_equal(hg_mesh_reader_path(path, sizeof path), 0);
  assert_non_null(strstr(path, "/libexec/hinge/hinge-mesh-reader"));
}

/* fake_reader.sh doing `what` on a 1 s wall limit and a 1 MiB output cap: an error holding why,
 * within 5 s (the 1 s limit, and the kill) */
static void fake(const char *dir, const char *what, const char *why) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s.dae", dir, what);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "%s\n", what);
  fclose(f);
  hg_mesh_isolation iso = {DATA "fake_reader.sh", (size_t)1 << 30, 1, 1, (size_t)1 << 20};
  hg_mesh m;
  hg_error err;
  double t0 = now();
  int rc = hg_mesh_load_isolated(path, &iso, &m, &err);
  double dt = now() - t0;
  if (!why) {
    if (rc) fail_msg("%s: %s", what, err.msg);
    assert_int_equal(m.nvert, 3);
    assert_int_equal(m.ntri, 1);
    assert_true(m.vert[3] == 1 && m.vert[7] == 1 && m.tri[2] == 2);
    hg_mesh_free(&m);
    return;
  }
  if (rc == 0) fail_msg("%s: loaded", what);
  if (!strstr(err.msg, "cannot read mesh (") || !strstr(err.msg, why))
    fail_msg("%s: message '%s', expected '%s'", what, err.msg, why);
  if (dt > 5) fail_msg("%s: refused after %.1f s", what, dt);
  assert_null(m.vert);
}

/* one thread's loads: the good mesh and the crashing one, alternately; *arg = failures */
static void *load_both(void *arg) {
  int *bad = arg;
  for (int k = 0; k < 8; k++) {
    hg_mesh m;
    hg_error err;
    if (hg_mesh_load(DATA "tetra.dae", &m, &err) || m.ntri != 4) (*bad)++;
    hg_mesh_free(&m);
    if (hg_mesh_load(DATA "hostile_float_array_no_count.dae", &m, &err) == 0 ||
        !strstr(err.msg, "assimp crashed: segmentation fault"))
      (*bad)++;
  }
  return NULL;
}

/* readers started from four threads at once (campaigns load meshes on worker threads): each
 * thread gets its own answer, the crashes stay in their readers */
static void threads(void **state) {
  pthread_t th[4];
  int bad[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; k++) assert_int_equal(pthread_create(&th[k], NULL, load_both, &bad[k]), 0);
  for (int k = 0; k < 4; k++) pthread_join(th[k], NULL);
  for (int k = 0; k < 4; k++) assert_int_equal(bad[k], 0);
}

/* the parent side trusts nothing the reader sends or does */
static void misbehaving_reader(void **state) {
  char dir[256];
  assert_int_equal(hg_test_temp_dir("mesh_isolated", dir, sizeof dir), 0);
  fake(dir, "good", NULL);
  fake(dir, "sleep", "assimp took longer than 1 s");
  fake(dir, "segv", "assimp crashed: segmentation fault");
  fake(dir, "garbage", "the reader's answer is malformed");
  fake(dir, "flood", "the reader's answer is larger than 1 MiB");
  fake(dir, "index", "triangle 1 names vertex 8 of 3");
  fake(dir, "nan", "vertex 1 has a coordinate that is not a finite number");
  fake(dir, "short", "the reader's mesh is cut short or malformed");
  fake(dir, "trailing", "the reader's mesh is cut short or malformed");
  fake(dir, "error", "(oops!)");
  /* no reader at all */
  hg_mesh_isolation iso = {"/nonexistent/hinge-mesh-reader", (size_t)1 << 30, 1, 1, 1 << 20};
  hg_mesh m;
  hg_error err;
  char path[600];
  snprintf(path, sizeof path, "%s/good.dae", dir);
  assert_int_equal(hg_mesh_load_isolated(path, &iso, &m, &err), -1);
  assert_non_null(strstr(err.msg, "cannot read mesh (cannot start /nonexistent/hinge-mesh-reader"));
  hg_test_remove_dir(dir);
}

/* /dev/zero (an endless file) as a mesh of every kind, and a folder, are refused at once,
 * before any byte is read (before: OBJ and STL read /dev/zero until memory ran out) */
static void devices_refused(void **state) {
  char dir[256], path[600];
  const char *ext[] = {"obj", "stl", "dae", "ply"};
  assert_int_equal(hg_test_temp_dir("mesh_devices", dir, sizeof dir), 0);
  for (int k = 0; k < 4; k++) {
    hg_mesh m;
    hg_error err;
    snprintf(path, sizeof path, "%s/zero.%s", dir, ext[k]);
    assert_int_equal(symlink("/dev/zero", path), 0);
    double t0 = now();
    assert_int_equal(hg_mesh_load(path, &m, &err), -1);
    assert_true(now() - t0 < 1);
    if (!strstr(err.msg, "not a regular file (a character device)")) fail_msg("%s", err.msg);
  }
  hg_mesh m;
  hg_error err;
  snprintf(path, sizeof path, "%s/folder.obj", dir);
  assert_int_equal(mkdir(path, 0700), 0);
  assert_int_equal(hg_mesh_load(path, &m, &err), -1);
  assert_non_null(strstr(err.msg, "not a regular file (a folder)"));
  hg_test_remove_dir(dir);
}

/* the size limit and the bounded line reader */
static void bounded_reading(void **state) {
  char dir[256], path[600];
  hg_error err;
  size_t len;
  assert_int_equal(hg_test_temp_dir("readfile", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/ten.txt", dir);
  FILE *f = fopen(path, "w");
  fputs("0123456789", f);
  fclose(f);
  char *s = hg_file_read(path, 10, &len, &err);
  assert_non_null(s);
  assert_int_equal(len, 10);
  assert_string_equal(s, "0123456789");
  free(s);
  assert_null(hg_file_read(path, 9, &len, &err));
  assert_non_null(strstr(err.msg, "ten.txt: larger than the limit of 9 bytes"));
  assert_null(hg_file_read("/dev/zero", 1 << 20, &len, &err));
  assert_non_null(strstr(err.msg, "/dev/zero: not a regular file (a character device)"));
  /* a FIFO would block the open: refused before it */
  snprintf(path, sizeof path, "%s/fifo", dir);
  assert_int_equal(mkfifo(path, 0600), 0);
  assert_int_equal(hg_file_check(path, 1 << 20, &err), -1);
  assert_non_null(strstr(err.msg, "not a regular file (a pipe)"));
  /* lines: up to max bytes, the newline kept; a longer one is -3 */
  f = fopen("/dev/zero", "rb");
  char *line = NULL;
  size_t cap = 0;
  assert_int_equal(hg_file_getline(&line, &cap, f, 1000), -3);
  assert_true(cap <= 2048);
  fclose(f);
  f = tmpfile();
  fputs("ab\ncd", f);
  rewind(f);
  assert_int_equal(hg_file_getline(&line, &cap, f, 3), 3);
  assert_string_equal(line, "ab\n");
  assert_int_equal(hg_file_getline(&line, &cap, f, 3), 2);
  assert_string_equal(line, "cd");
  assert_int_equal(hg_file_getline(&line, &cap, f, 3), -1);
  fclose(f);
  free(line);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(hostile_files, limit_self),
      cmocka_unit_test_setup(good_file, limit_self),
      cmocka_unit_test_setup(threads, limit_self),
      cmocka_unit_test_setup(misbehaving_reader, limit_self),
      cmocka_unit_test_setup(devices_refused, limit_self),
      cmocka_unit_test_setup(bounded_reading, limit_self),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
