/* readfile.h: bounded reading of input files. Every file hinge reads by name (meshes, scenes,
 * URDF, command files, checkpoints) is opened here: it must be a regular file (not a folder, a
 * device such as /dev/zero, a FIFO or a socket, which may never end) no larger than a stated
 * limit, and lines read from a stream (checkpoints, `hinge dynamics` standard input) are bounded
 * too, so that no input grows hinge's memory without bound. The limits are far above any real
 * input and are stated in docs/scene-format.md (Files). */
#ifndef HINGE_READFILE_H
#define HINGE_READFILE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

/* largest mesh file (OBJ, STL, and the formats read through assimp): 1 GiB */
#define HG_FILE_MESH_MAX ((size_t)1 << 30)
/* largest text input (scene, URDF, command file, checkpoint): 64 MiB */
#define HG_FILE_TEXT_MAX ((size_t)64 << 20)
/* longest line of `hinge dynamics` standard input (one state: a few kB for any real model) */
#define HG_LINE_MAX ((size_t)1 << 20)

/* Opens path for reading ("rb") and checks it: a regular file (fstat after the open, so the
 * file checked is the file read) of at most max bytes. Returns the stream, or NULL with
 * err = "path: cannot open: why", "path: not a regular file (a folder)", ... or
 * "path: larger than the limit of N MiB". *size (when not NULL) = the file's size. */
FILE *hg_file_open(const char *path, size_t max, size_t *size, hg_error *err);

/* The same check without keeping the file open (for libraries that open it themselves: libyaml
 * through a stream, libxml2 and assimp by name). 0, or -1 with err set as hg_file_open. */
int hg_file_check(const char *path, size_t max, hg_error *err);

/* The whole file (hg_file_open's checks) in new memory with a NUL after its *len bytes; reading
 * stops with an error past max bytes even if the file grows while it is read. NULL with err. */
char *hg_file_read(const char *path, size_t max, size_t *len, hg_error *err);

/* getline(3) with a bound: the next line of f (with its newline, if any) into *line (capacity
 * *cap, grown as needed). Returns its length; -1 at the end of the file or on a read error
 * (ferror tells which); -2 when out of memory; -3 when the line is longer than max bytes (the
 * rest of that line is left unread). The stream is read without locking it: one thread a stream. */
long hg_file_getline(char **line, size_t *cap, FILE *f, size_t max);

#endif
