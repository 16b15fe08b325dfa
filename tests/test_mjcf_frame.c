/* test_mjcf_frame: hinge's side of the MJCF reader process (sim/readers/mjcf_frame.c, the
 * decoder of the reader's answer; mjcf_proc.c, which runs the reader). A frame cut short, too
 * long, with counts past any limit, with an index, a number or a name out of place, or with any
 * byte changed is refused or read into a model the converter takes without fault; a reader that
 * crashes, hangs, floods or answers badly (tests/data/mjcf/fake/fake_reader.sh) becomes an error
 * naming the file, and leaves no process behind. The frames are the reader's own answers for the
 * fuzz seeds (tests/fuzz/seeds/mjcf_frame/, one option byte first). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dynamics.h"
#include "files.h"
#include "mjcf.h"

#define SEEDS "fuzz/seeds/mjcf_frame/"
#define FAKE "data/mjcf/fake/fake_reader.sh"

/* offsets in a MODEL frame (mjcf_frame.h): the head, the option record, the bodies */
#define BODIES (HG_MJCF_HEAD_BYTES + HG_MJCF_OPTION_BYTES)
#define COUNT(k) (16 + 4 * (k))

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* a seed's frame (without its option byte), malloc'd, *len bytes */
static unsigned char *frame(const char *name, size_t *len) {
  char path[256];
  size_t n;
  snprintf(path, sizeof path, SEEDS "%s.frame", name);
  char *all = hg_test_read_file(path, &n);
  if (!all) fail_msg("cannot read %s", path);
  unsigned char *f = malloc(n);
  memcpy(f, all + 1, n - 1);
  free(all);
  *len = n - 1;
  return f;
}

static void put_u32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put_i32(unsigned char *p, int32_t v) { memcpy(p, &v, 4); }
static void put_f64(unsigned char *p, double v) { memcpy(p, &v, 8); }

/* decodes f; when it is accepted, builds, compiles and frees the model (the converter must take
 * whatever the decoder accepts). Returns the decoder's answer; why (may be NULL) its message. */
static int decode_and_build(const unsigned char *f, size_t len, char *why, size_t whylen) {
  hg_mjcf_compiled mj;
  char buf[1200];
  int kind = hg_mjcf_frame_decode(f, len, &mj, why ? why : buf, why ? whylen : sizeof buf);
  if (kind != 0) return kind;
  hg_builder *b = hg_builder_new();
  hg_mjcf_extras x;
  hg_error err;
  assert_non_null(b);
  hg_builder_allow_singular(b, 1);
  if (hg_mjcf_build(b, &mj, "frame.xml", NULL, NULL, NULL, NULL, &x, &err) == 0) {
    hg_model *m = hg_builder_compile(b, &err);
    hg_model_free(m);
    hg_mjcf_extras_free(&x);
  }
  hg_builder_free(b);
  hg_mjcf_compiled_free(&mj);
  return 0;
}

/* f with one change is refused with a message holding want */
static void refused(const unsigned char *f, size_t len, const char *want) {
  char why[1200];
  int kind = decode_and_build(f, len, why, sizeof why);
  if (kind != -1) fail_msg("accepted (%d) where '%s' was expected", kind, want);
  if (!strstr(why, want)) fail_msg("message '%s', expected '%s'", why, want);
}

/* the seeds' frames are read, and their models built */
static void good_frames(void **state) {
  static const char *names[] = {"chain", "free", "multi", "inline_mesh", "fourbar", "include"};
  (void)state;
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    size_t len;
    unsigned char *f = frame(names[k], &len);
    char why[1200];
    if (decode_and_build(f, len, why, sizeof why)) fail_msg("%s: %s", names[k], why);
    free(f);
  }
  /* the fourbar's model as MuJoCo compiled it: 6 bodies (the world first), 2 equalities, 2
   * actuators */
  size_t len;
  unsigned char *f = frame("fourbar", &len);
  hg_mjcf_compiled mj;
  char why[200];
  assert_int_equal(hg_mjcf_frame_decode(f, len, &mj, why, sizeof why), 0);
  assert_int_equal(mj.neq, 2);
  assert_int_equal(mj.nu, 2);
  assert_string_equal(mj.eq[0].name, "pin");
  assert_int_equal(mj.body[0].parent, 0);
  hg_mjcf_compiled_free(&mj);
  free(f);
}

/* every prefix of a frame, and a frame with bytes after its end mark, is refused */
static void truncated_and_trailing(void **state) {
  size_t len;
  unsigned char *f = frame("include", &len);
  (void)state;
  for (size_t n = 0; n < len; n++) assert_int_equal(decode_and_build(f, n, NULL, 0), -1);
  unsigned char *g = malloc(len + 5);
  memcpy(g, f, len);
  memcpy(g + len, "more!", 5);
  refused(g, len + 5, "do not end with the end mark");
  /* the end mark moved to the end of the longer frame: its counts do not make its length */
  memcpy(g + len - 3, HG_MJCF_FRAME_END, 8);
  refused(g, len + 5, "where its counts make");
  free(g);
  free(f);
}

/* counts past the limit, or larger than the frame, are refused before anything is allocated
 * for them (within 0.1 s, not after gigabytes) */
static void oversized_counts(void **state) {
  size_t len;
  unsigned char *f = frame("chain", &len), *g = malloc(len);
  (void)state;
  for (int k = 0; k < HG_MJCF_NCOUNT; k++) {
    static const uint32_t huge[] = {0xffffffffu, HG_MJCF_FRAME_COUNT + 1u, HG_MJCF_FRAME_COUNT};
    for (int h = 0; h < 3; h++) {
      memcpy(g, f, len);
      put_u32(g + COUNT(k), huge[h]);
      double t0 = now();
      char why[200];
      int counted = k != HG_MJCF_NSENSOR && k != HG_MJCF_NPAIR && k != HG_MJCF_NEXCLUDE;
      int kind = decode_and_build(g, len, why, sizeof why);
      /* the counts of what has no records (sensors, pairs, exclusions) are only noted: the
       * limit itself is allowed */
      if (counted || h < 2) assert_int_equal(kind, -1);
      assert_true(now() - t0 < 0.1);
    }
  }
  memcpy(g, f, len);
  put_u32(g + COUNT(HG_MJCF_NBODY), 0xffffffffu);
  refused(g, len, "count 0 is 4294967295");
  memcpy(g, f, len);
  put_u32(g + COUNT(HG_MJCF_NMESHVERT), HG_MJCF_FRAME_COUNT);
  refused(g, len, "where its counts make");
  free(g);
  free(f);
}

/* an index, a number, a name or a type out of place */
static void bad_fields(void **state) {
  size_t len;
  unsigned char *f = frame("chain", &len), *g = malloc(len);
  uint32_t nbody, njnt;
  (void)state;
  memcpy(&nbody, f + COUNT(HG_MJCF_NBODY), 4);
  memcpy(&njnt, f + COUNT(HG_MJCF_NJNT), 4);
  assert_true(nbody >= 3 && njnt >= 2);
  const size_t b1 = BODIES + HG_MJCF_BODY_BYTES, j0 = BODIES + nbody * HG_MJCF_BODY_BYTES;
  struct {
    size_t at;
    int i32; /* 1: an int32, 0: a double */
    double value;
    const char *want;
  } cases[] = {
      {b1 + 144, 1, 1, "body 1 has parent 1"},                 /* its own parent */
      {b1 + 144, 1, -1, "body 1 has parent -1"},
      {BODIES + HG_MJCF_BODY_BYTES * 2 + 144, 1, 7, "body 2 has parent 7"}, /* a later body */
      {b1 + 148, 1, 1000, "body 1 has 1000 joints"},
      {b1 + 152, 1, -5, "body 1 has 1 joints from joint -5"},
      {b1 + 56, 0, NAN, "body 1 has a number that is not finite"}, /* its mass */
      {b1 + 24, 0, 0, "not a unit quaternion"},                  /* quat w = 0 */
      {j0 + 72, 1, 9, "joint 0 has type 9"},
      {j0 + 76, 1, 0, "joint 0 is on body 0, which does not list it"},
      {j0 + 80, 1, 1 << 30, "joint 0 has qpos 1073741824"},
      {j0 + 0, 0, 2, "joint 0 has an axis that is not a unit vector"},
      {j0 + 48, 0, INFINITY, "joint 0 has a number that is not finite"},
      {8, 1, 2, "frame version 2"}, /* the version, after the 8-byte magic */
      {0, 1, 0x11223344, "not a frame of hinge's MJCF reader"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    memcpy(g, f, len);
    if (cases[k].i32)
      put_i32(g + cases[k].at, (int32_t)cases[k].value);
    else
      put_f64(g + cases[k].at, cases[k].value);
    refused(g, len, cases[k].want);
  }
  /* a control character in the first name (the world's, "world", after its u16 length) */
  uint32_t namebytes;
  memcpy(&namebytes, f + COUNT(HG_MJCF_NAMEBYTES), 4);
  memcpy(g, f, len);
  g[len - 8 - namebytes + 2] = '\n';
  refused(g, len, "its names are malformed");
  /* a name's length past the names' end */
  memcpy(g, f, len);
  g[len - 8 - namebytes] = 0xff;
  refused(g, len, "its names are malformed");
  free(g);
  free(f);
}

/* every byte of two frames changed in turn (to ~b, 0 and 0x7f) and 3000 random changes of a few
 * bytes each: each frame is refused or converted, never a fault (ASan and UBSan in the sanitizer
 * build); prints how many were converted */
static void garbage(void **state) {
  static const char *names[] = {"fourbar", "include"};
  unsigned seed = 12345u;
  (void)state;
  for (int s = 0; s < 2; s++) {
    size_t len;
    unsigned char *f = frame(names[s], &len), *g = malloc(len);
    int taken = 0, tried = 0;
    for (size_t at = 0; at < len; at++)
      for (int v = 0; v < 3; v++) {
        memcpy(g, f, len);
        g[at] = v == 0 ? (unsigned char)~f[at] : v == 1 ? 0 : 0x7f;
        taken += decode_and_build(g, len, NULL, 0) == 0;
        tried++;
      }
    for (int k = 0; k < 3000; k++) {
      memcpy(g, f, len);
      for (int c = 0; c < 4; c++) {
        seed = seed * 1103515245u + 12345u;
        g[(seed >> 8) % len] = (unsigned char)(seed >> 24);
      }
      taken += decode_and_build(g, len, NULL, 0) == 0;
      tried++;
    }
    fprintf(stderr, "%s: %d of %d changed frames converted, the rest refused\n", names[s], taken,
            tried);
    free(g);
    free(f);
  }
}

/* an ERROR frame: MuJoCo's message, control characters made spaces, at the line it names */
static void error_frame(void **state) {
  static const char msg[] = "XML Error: bad\x1b[2J value\nElement 'joint', line 4";
  size_t n = sizeof msg - 1, len = HG_MJCF_HEAD_BYTES + n + 8;
  unsigned char *g = calloc(1, len);
  char why[1200];
  hg_error err;
  (void)state;
  memcpy(g, HG_MJCF_FRAME_MAGIC, sizeof HG_MJCF_FRAME_MAGIC);
  put_u32(g + 8, HG_MJCF_FRAME_VERSION);
  put_u32(g + 12, HG_MJCF_FRAME_ERROR);
  put_u32(g + COUNT(0), (uint32_t)n);
  memcpy(g + HG_MJCF_HEAD_BYTES, msg, n);
  memcpy(g + len - 8, HG_MJCF_FRAME_END, 8);
  hg_mjcf_compiled mj;
  assert_int_equal(hg_mjcf_frame_decode(g, len, &mj, why, sizeof why), 1);
  assert_null(strchr(why, '\x1b'));
  hg_mjcf_error_text("arm.xml", why, &err);
  assert_string_equal(err.msg, "arm.xml:4: XML Error: bad [2J value");
  /* a message longer than it says, and a count set beside it */
  put_u32(g + COUNT(0), (uint32_t)n - 1);
  refused(g, len, "an error message of");
  put_u32(g + COUNT(0), (uint32_t)n);
  put_u32(g + COUNT(3), 1);
  refused(g, len, "an error frame with count 3 set");
  free(g);
}

/* hg_mjcf_compile with fake_reader.sh doing `what` on a 1 s wall and CPU limit and a 1 MiB
 * answer cap: an error naming the file and holding why (NULL: the model is read), within 5 s */
static void fake(const char *dir, const char *what, const char *why) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s.xml", dir, what);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "%s\n", what);
  fclose(f);
  hg_mjcf_isolation iso = {FAKE, (size_t)1 << 30, 1, 1, (size_t)1 << 20};
  hg_mjcf_compiled mj;
  hg_error err;
  double t0 = now();
  int rc = hg_mjcf_compile(path, &iso, &mj, &err);
  double dt = now() - t0;
  if (!why) {
    if (rc) fail_msg("%s: %s", what, err.msg);
    assert_int_equal(mj.nbody, 4);
    hg_mjcf_compiled_free(&mj);
    return;
  }
  if (rc == 0) fail_msg("%s: read", what);
  if (strncmp(err.msg, path, strlen(path)) || !strstr(err.msg, why))
    fail_msg("%s: message '%s', expected '%s: ...%s'", what, err.msg, path, why);
  if (dt > 5) fail_msg("%s: refused after %.1f s", what, dt);
  assert_null(mj.body);
}

/* the reader's every misbehaviour is an error of the file, and no process is left behind */
static void misbehaving_reader(void **state) {
  char dir[256];
  (void)state;
  assert_int_equal(hg_test_temp_dir("mjcf_frame", dir, sizeof dir), 0);
  fake(dir, "good", NULL);
  fake(dir, "segv", "MuJoCo's MJCF compiler crashed (signal 11)");
  fake(dir, "abort", "MuJoCo's MJCF compiler crashed (signal 6)");
  fake(dir, "late", "MuJoCo's MJCF compiler crashed (signal 11)");
  fake(dir, "sleep", "MuJoCo's MJCF compiler timed out (more than 1 s)");
  fake(dir, "linger", "MuJoCo's MJCF compiler timed out (more than 1 s)");
  fake(dir, "garbage", "MuJoCo's compiled model is larger than hinge's limit of 1 MiB");
  fake(dir, "silent", "the reader's answer is malformed");
  fake(dir, "short", "the reader's answer is malformed");
  fake(dir, "error", ":3: XML Error: Schema violation: unrecognized element");
  /* no reader at all */
  hg_mjcf_isolation iso = {"/nonexistent/hinge-mjcf-reader", (size_t)1 << 30, 1, 1, 1 << 20};
  hg_mjcf_compiled mj;
  hg_error err;
  char path[600];
  snprintf(path, sizeof path, "%s/good.xml", dir);
  assert_int_equal(hg_mjcf_compile(path, &iso, &mj, &err), -1);
  assert_non_null(strstr(err.msg, "(cannot start /nonexistent/hinge-mjcf-reader"));
  /* every reader was reaped: this process has no child left */
  errno = 0;
  assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
  assert_int_equal(errno, ECHILD);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(good_frames),        cmocka_unit_test(truncated_and_trailing),
      cmocka_unit_test(oversized_counts),   cmocka_unit_test(bad_fields),
      cmocka_unit_test(garbage),            cmocka_unit_test(error_frame),
      cmocka_unit_test(misbehaving_reader),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
