/* readfile.c: bounded reading of input files (readfile.h). */
#include "readfile.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* what a file of mode m is, for "not a regular file (...)" */
static const char *file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a pipe";
  if (S_ISSOCK(m)) return "a socket";
  return "not a plain file";
}

/* checks an open stream against the rules of hg_file_open; 0 or -1 with err */
static int check_stream(FILE *f, const char *path, size_t max, size_t *size, hg_error *err) {
  struct stat st;
  if (fstat(fileno(f), &st))
    return hg_error_fail(err, "%s: cannot open: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return hg_error_fail(err, "%s: not a regular file (%s)", path, file_kind(st.st_mode));
  if ((uintmax_t)st.st_size > (uintmax_t)max) {
    if (max >= (size_t)1 << 20)
      return hg_error_fail(err, "%s: larger than the limit of %zu MiB for this kind of file",
                           path, max >> 20);
    return hg_error_fail(err, "%s: larger than the limit of %zu bytes for this kind of file",
                         path, max);
  }
  if (size) *size = (size_t)st.st_size;
  return 0;
}

FILE *hg_file_open(const char *path, size_t max, size_t *size, hg_error *err) {
  /* a FIFO would block this open until a writer comes: O_NONBLOCK is not available through
   * fopen, so a FIFO is refused by stat first (a race with a rename only reaches the fstat) */
  struct stat st;
  if (stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
    hg_error_set(err, "%s: not a regular file (a pipe)", path);
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    hg_error_set(err, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  if (check_stream(f, path, max, size, err)) {
    fclose(f);
    return NULL;
  }
  return f;
}

int hg_file_check(const char *path, size_t max, hg_error *err) {
  FILE *f = hg_file_open(path, max, NULL, err);
  if (!f) return -1;
  fclose(f);
  return 0;
}

char *hg_file_read(const char *path, size_t max, size_t *len, hg_error *err) {
  size_t size = 0;
  FILE *f = hg_file_open(path, max, &size, err);
  if (!f) return NULL;
  /* the size fstat gave, plus one byte to see whether the file grew */
  char *buf = malloc(size + 2);
  if (!buf) {
    fclose(f);
    hg_error_set(err, "%s: out of memory", path);
    return NULL;
  }
  size_t n = fread(buf, 1, size + 1, f);
  int bad = ferror(f);
  fclose(f);
  if (bad || n > size) {
    free(buf);
    hg_error_set(err, "%s: %s", path, bad ? "read error" : "the file grew while it was read");
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

long hg_file_getline(char **line, size_t *cap, FILE *f, size_t max) {
  size_t n = 0;
  int ch;
  while ((ch = getc_unlocked(f)) != EOF) {
    /* too long: the rest is left unread (an endless line has no end to skip to) */
    if (n >= max) return -3;
    /* room for this byte and a NUL, doubling from 128 bytes */
    if (n + 2 > *cap) {
      size_t c = *cap ? *cap : 128;
      while (c < n + 2) c *= 2;
      char *p = realloc(*line, c);
      if (!p) return -2;
      *line = p;
      *cap = c;
    }
    (*line)[n++] = (char)ch;
    if (ch == '\n') break;
  }
  if (n == 0) return -1;
  (*line)[n] = '\0';
  return (long)n;
}
