/* outfile.h: how the files of a run and of a campaign are written (outfile.c), and the runtime's
 * checkpoints (it lives with readfile.h, below both the runtime and the outputs):
 *   - every write is checked: the first failure is kept with its errno, and the message names
 *     the file and the reason ("cannot write DIR/joints.csv: No space left on device");
 *   - no write goes through a link planted under an output's name: a file written as the run
 *     goes (a stream) is created anew under its name (the old name unlinked first, then
 *     O_CREAT | O_EXCL | O_NOFOLLOW), a file written at once (a replacement) goes to a temporary
 *     name in the same folder (mkstemp) renamed over its name when complete, so that a reader
 *     sees the old file or the whole new one, and a failed write leaves no part of it;
 *   - CSV fields that hold names are quoted as RFC 4180 says (a comma, a double quote, CR or LF
 *     inside: the field in double quotes, its quotes doubled);
 *   - a PNG is checked after PLplot wrote it (PLplot's cairo driver ignores cairo's write errors:
 *     cairo_surface_write_to_png's status is dropped in its end of page), by its signature and
 *     its final IEND chunk. */
#ifndef HINGE_OUTFILE_H
#define HINGE_OUTFILE_H

#include <stdio.h>

/* one output file being written; every field written by the functions below */
typedef struct hg_outfile {
  FILE *f;            /* the open file (NULL: closed or never opened) */
  char path[4096];    /* its name */
  char tmp[4096];     /* a replacement's temporary name ("" for a stream) */
  int err;            /* errno of the first failure (0: none) */
} hg_outfile;

/* Opens path to be written as the run goes: whatever was under that name (a file, a link) is
 * unlinked and a new file created, never opened through a link. 0, or -1 with o->err. */
int hg_outfile_stream(hg_outfile *o, const char *path);
/* Opens a temporary file beside path (PATH.tmp-XXXXXX) that hg_outfile_close renames over path.
 * 0, or -1 with o->err. */
int hg_outfile_replace(hg_outfile *o, const char *path);
/* Takes f (already open, named path) as a stream: what tests use to inject a failing file. */
void hg_outfile_adopt(hg_outfile *o, FILE *f, const char *path);
/* After writes: 0, or -1 when the file has failed (now or before), the first errno in o->err
 * (the buffer is flushed again to read the failure's own errno; EIO when none is left). */
int hg_outfile_check(hg_outfile *o);
/* Flushes and closes (a replacement: synced, then renamed over its name; on a failure the
 * temporary is removed and the old file left as it was). 0, or -1 with o->err (the first
 * failure, also one seen before). Closing a closed file does nothing. */
int hg_outfile_close(hg_outfile *o);
/* Closes without keeping anything new: a replacement's temporary is removed (nothing renamed). */
void hg_outfile_discard(hg_outfile *o);
/* "cannot write PATH: REASON" (strerror of o->err) into msg */
void hg_outfile_message(const hg_outfile *o, char *msg, size_t len);
/* 1 when errno e means the file system is full (ENOSPC, EDQUOT) */
int hg_outfile_full(int e);

/* Writes the printf-style text as one CSV field, preceded by a comma when comma is non-zero:
 * quoted (RFC 4180) when it holds a comma, a double quote, CR or LF, as is otherwise. */
void hg_csv_field(FILE *f, int comma, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* 1 when the file at path is a whole PNG: the 8-byte signature, and an IEND chunk at its end.
 * 0 otherwise (missing, empty, cut short). */
int hg_png_complete(const char *path);

#endif
