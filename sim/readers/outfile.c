/* outfile.c: checked writes, files replaced rather than written through links, CSV quoting and
 * the PNG check (outfile.h). */
#define _GNU_SOURCE /* O_NOFOLLOW, mkstemp's feature test */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_path(hg_outfile *o, const char *path) {
  memset(o, 0, sizeof *o);
  snprintf(o->path, sizeof o->path, "%s", path);
}

/* the first failure only */
static int fail(hg_outfile *o, int e) {
  if (!o->err) o->err = e ? e : EIO;
  return -1;
}

int hg_outfile_stream(hg_outfile *o, const char *path) {
  set_path(o, path);
  /* a link (or anything) under the name goes; a link planted again before the open makes the
   * open fail (O_EXCL), it is never followed */
  if (unlink(path) && errno != ENOENT) return fail(o, errno);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return fail(o, errno);
  if (!(o->f = fdopen(fd, "w"))) {
    int e = errno;
    close(fd);
    return fail(o, e);
  }
  return 0;
}

int hg_outfile_replace(hg_outfile *o, const char *path) {
  set_path(o, path);
  if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof o->tmp)
    return o->tmp[0] = 0, fail(o, ENAMETOOLONG);
  int fd = mkstemp(o->tmp);
  if (fd < 0) return o->tmp[0] = 0, fail(o, errno);
  /* mkstemp makes it 0600; an output is as readable as any file the user makes */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) || !(o->f = fdopen(fd, "w"))) {
    int e = errno;
    close(fd);
    unlink(o->tmp);
    o->tmp[0] = 0;
    return fail(o, e);
  }
  return 0;
}

void hg_outfile_adopt(hg_outfile *o, FILE *f, const char *path) {
  set_path(o, path);
  o->f = f;
}

int hg_outfile_check(hg_outfile *o) {
  if (o->err) return -1;
  if (!o->f || !ferror(o->f)) return 0;
  int e = errno;
  /* the failed write's data is still buffered: flushing again gives its own errno */
  clearerr(o->f);
  if (fflush(o->f) == EOF) e = errno;
  return fail(o, e);
}

int hg_outfile_close(hg_outfile *o) {
  if (!o->f) return o->err ? -1 : 0;
  hg_outfile_check(o);
  if (!o->err && fflush(o->f) == EOF) fail(o, errno);
  if (!o->err && o->tmp[0] && fsync(fileno(o->f))) fail(o, errno);
  if (fclose(o->f) == EOF) fail(o, errno);
  o->f = NULL;
  if (!o->tmp[0]) return o->err ? -1 : 0;
  if (!o->err && rename(o->tmp, o->path)) fail(o, errno);
  if (o->err) unlink(o->tmp);
  o->tmp[0] = 0;
  return o->err ? -1 : 0;
}

void hg_outfile_discard(hg_outfile *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp[0]) unlink(o->tmp);
  o->tmp[0] = 0;
}

void hg_outfile_message(const hg_outfile *o, char *msg, size_t len) {
  snprintf(msg, len, "cannot write %s: %s", o->path, strerror(o->err ? o->err : EIO));
}

int hg_outfile_full(int e) {
#ifdef EDQUOT
  if (e == EDQUOT) return 1;
#endif
  return e == ENOSPC;
}

void hg_csv_field(FILE *f, int comma, const char *fmt, ...) {
  char small[512], *text = small;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0, small[0] = 0;
  if ((size_t)n >= sizeof small && (text = malloc((size_t)n + 1))) {
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  if (!text) text = small; /* out of memory: the field cut to fit */
  if (comma) fputc(',', f);
  if (!strpbrk(text, ",\"\r\n")) {
    fputs(text, f);
  } else {
    fputc('"', f);
    for (const char *p = text; *p; p++) {
      if (*p == '"') fputc('"', f);
      fputc(*p, f);
    }
    fputc('"', f);
  }
  if (text != small) free(text);
}

int hg_png_complete(const char *path) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  /* the last chunk: length 0, "IEND", its CRC (AE 42 60 82) */
  static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
  unsigned char head[8], tail[12];
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  int ok = fread(head, 1, 8, f) == 8 && !memcmp(head, sig, 8) && !fseek(f, -12, SEEK_END) &&
           fread(tail, 1, 12, f) == 12 && !memcmp(tail, iend, 12);
  fclose(f);
  return ok;
}
