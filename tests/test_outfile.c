/* test_outfile.c: the checked writes of the outputs (sim/readers/outfile.c):
 *   - a failing file injected into the writer (/dev/full, which fails every write with ENOSPC):
 *     the failure is found by the check after a row or by the close, its errno kept, and the
 *     message names the file and the reason;
 *   - a replacement that fails leaves the old file as it was and no temporary behind; one that
 *     succeeds is renamed whole over its name;
 *   - a link planted under an output's name is replaced, never written through (streams and
 *     replacements);
 *   - CSV fields are quoted as RFC 4180 says, and only when they must be;
 *   - a PNG is whole with its signature and its IEND chunk, not when cut or empty. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "outfile.h"

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

/* the number of entries of dir (without . and ..) */
static int entries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  assert_non_null(d);
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

static void full_device_found_by_the_row_check(void **state) {
  (void)state;
  hg_outfile o;
  char msg[512], row[1024];
  FILE *f = fopen("/dev/full", "w");
  if (!f) skip(); /* no /dev/full (not Linux) */
  hg_outfile_adopt(&o, f, "/out/trajectory.csv");
  memset(row, '1', sizeof row - 1);
  row[sizeof row - 1] = 0;
  /* rows past the stream's buffer: a write reaches the device and fails */
  for (int k = 0; k < 64; k++) fprintf(o.f, "%s\n", row);
  assert_int_equal(hg_outfile_check(&o), -1);
  assert_int_equal(o.err, ENOSPC);
  assert_true(hg_outfile_full(o.err));
  hg_outfile_message(&o, msg, sizeof msg);
  assert_string_equal(msg, "cannot write /out/trajectory.csv: No space left on device");
  /* the first failure stays, the close reports it */
  assert_int_equal(hg_outfile_close(&o), -1);
  assert_int_equal(o.err, ENOSPC);
  assert_null(o.f);
}

static void full_device_found_by_the_close(void **state) {
  (void)state;
  hg_outfile o;
  FILE *f = fopen("/dev/full", "w");
  if (!f) skip();
  hg_outfile_adopt(&o, f, "/out/summary.txt");
  fprintf(o.f, "status: completed\n"); /* buffered: the check after it sees nothing yet */
  assert_int_equal(hg_outfile_check(&o), 0);
  assert_int_equal(hg_outfile_close(&o), -1);
  assert_int_equal(o.err, ENOSPC);
}

static void failed_replacement_keeps_the_old_file(void **state) {
  (void)state;
  char dir[256], path[512];
  hg_outfile o;
  assert_int_equal(hg_test_temp_dir("outfile_keep", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/runs.csv", dir);
  write_text(path, "old\n");
  assert_int_equal(hg_outfile_replace(&o, path), 0);
  assert_int_equal(entries(dir), 2); /* the temporary beside it */
  /* the temporary's stream swapped for one that fails, as a full disk would */
  fclose(o.f);
  o.f = fopen("/dev/full", "w");
  if (!o.f) skip();
  fprintf(o.f, "new\n");
  assert_int_equal(hg_outfile_close(&o), -1);
  assert_int_equal(o.err, ENOSPC);
  char *text = hg_test_read_file(path, NULL);
  assert_string_equal(text, "old\n");
  free(text);
  assert_int_equal(entries(dir), 1); /* no temporary left */
  /* a replacement that succeeds: the whole new file under the name */
  assert_int_equal(hg_outfile_replace(&o, path), 0);
  fprintf(o.f, "new\n");
  assert_int_equal(hg_outfile_close(&o), 0);
  text = hg_test_read_file(path, NULL);
  assert_string_equal(text, "new\n");
  free(text);
  assert_int_equal(entries(dir), 1);
  hg_test_remove_dir(dir);
}

static void links_are_replaced_not_followed(void **state) {
  (void)state;
  char dir[256], victim[512], path[512];
  assert_int_equal(hg_test_temp_dir("outfile_links", dir, sizeof dir), 0);
  snprintf(victim, sizeof victim, "%s/victim", dir);
  write_text(victim, "keep\n");
  for (int replace = 0; replace < 2; replace++) {
    hg_outfile o;
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, replace ? "summary.txt" : "trajectory.csv");
    assert_int_equal(symlink(victim, path), 0);
    assert_int_equal(replace ? hg_outfile_replace(&o, path) : hg_outfile_stream(&o, path), 0);
    fprintf(o.f, "written\n");
    assert_int_equal(hg_outfile_close(&o), 0);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    char *text = hg_test_read_file(victim, NULL);
    assert_string_equal(text, "keep\n");
    free(text);
    text = hg_test_read_file(path, NULL);
    assert_string_equal(text, "written\n");
    free(text);
  }
  hg_test_remove_dir(dir);
}

static void csv_fields_quoted_as_rfc4180_says(void **state) {
  (void)state;
  static const char *const in[][2] = {
      {"arm.q.angle", ",arm.q.angle"},
      {"a,b", ",\"a,b\""},
      {"say \"hi\"", ",\"say \"\"hi\"\"\""},
      {"two\nlines", ",\"two\nlines\""},
      {"cr\rhere", ",\"cr\rhere\""},
      {"", ","},
  };
  for (size_t k = 0; k < sizeof in / sizeof in[0]; k++) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    hg_csv_field(f, 1, "%s", in[k][0]);
    fclose(f);
    assert_string_equal(buf, in[k][1]);
    free(buf);
  }
  /* a field longer than the formatting buffer, and no comma before the first field */
  char *buf = NULL, name[2000];
  size_t len = 0;
  memset(name, 'x', sizeof name - 1);
  name[sizeof name - 1] = 0;
  name[1000] = ',';
  FILE *f = open_memstream(&buf, &len);
  hg_csv_field(f, 0, "%s.%s", name, "q");
  fclose(f);
  assert_int_equal(len, sizeof name - 1 + 2 + 2);
  assert_true(buf[0] == '"' && buf[len - 1] == '"' && buf[len - 2] == 'q');
  free(buf);
}

static void png_whole_or_not(void **state) {
  (void)state;
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
  char dir[256], path[512];
  assert_int_equal(hg_test_temp_dir("outfile_png", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/x.png", dir);
  for (int cut = 0; cut < 4; cut++) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (cut < 3) fwrite(sig, 1, 8, f);
    if (cut < 2) fwrite("\0\0\0\0IDAT\0\0\0\0", 1, 12, f);
    if (cut < 1) fwrite(iend, 1, 12, f);
    fclose(f);
    assert_int_equal(hg_png_complete(path), cut == 0);
  }
  unlink(path);
  assert_int_equal(hg_png_complete(path), 0); /* missing */
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(full_device_found_by_the_row_check),
      cmocka_unit_test(full_device_found_by_the_close),
      cmocka_unit_test(failed_replacement_keeps_the_old_file),
      cmocka_unit_test(links_are_replaced_not_followed),
      cmocka_unit_test(csv_fields_quoted_as_rfc4180_says),
      cmocka_unit_test(png_whole_or_not),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
