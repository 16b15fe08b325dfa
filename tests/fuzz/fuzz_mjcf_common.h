/* fuzz_mjcf_common.h: what the two MJCF harnesses share (fuzz_mjcf.c: MJCF text through the
 * reader process; fuzz_mjcf_frame.c: the reader's answer, decoded and converted in-process).
 * The first input byte picks the options (verbose notes, a prefix and a parent pose); what
 * compiles is run through ABA once. Compiled meshes are written under TMPDIR (mjcf.c): the
 * harnesses point TMPDIR at a folder of their own and empty it after each input. */
#ifndef HINGE_FUZZ_MJCF_COMMON_H
#define HINGE_FUZZ_MJCF_COMMON_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "hinge.h"
#include "mjcf.h"

/* the folder TMPDIR names for this process (made on the first call) */
static inline const char *fuzz_mjcf_tmp(void) {
  static char tmp[256];
  if (!tmp[0]) {
    snprintf(tmp, sizeof tmp, "/tmp/hinge_fuzz_%ld_mjcf_tmp", (long)getpid());
    mkdir(tmp, 0700);
    setenv("TMPDIR", tmp, 1);
  }
  return tmp;
}

/* removes the files of the folders under dir (one level: hinge-mjcf-UID/mesh-*.obj) */
static inline void fuzz_mjcf_empty(const char *dir) {
  char sub[512], file[1024];
  DIR *d = opendir(dir), *s;
  struct dirent *e, *f;
  if (!d) return;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
    if (!(s = opendir(sub))) continue;
    while ((f = readdir(s)) != NULL) {
      if (f->d_name[0] == '.') continue;
      snprintf(file, sizeof file, "%s/%s", sub, f->d_name);
      remove(file);
    }
    closedir(s);
  }
  closedir(d);
}

/* the options byte: verbose notes, the parent pose's height and a prefix */
static inline void fuzz_mjcf_options(uint8_t o, hg_mjcf_options *opt, hg_se3 *pose,
                                     const char **prefix) {
  memset(opt, 0, sizeof *opt);
  opt->verbose = o & 1;
  hg_se3_identity(pose);
  pose->p[2] = (o >> 1) & 1;
  *prefix = (o & 4) ? "p_" : NULL;
}

/* compiles what the builder holds and runs ABA once at the neutral configuration */
static inline void fuzz_mjcf_run(hg_builder *b) {
  hg_error err;
  hg_model *m = hg_builder_compile(b, &err);
  if (!m) return;
  hg_data *d = hg_data_new(m);
  double *q = calloc((size_t)m->nq + 1, sizeof(double));
  double *v = calloc((size_t)m->nv + 1, sizeof(double));
  double *a = calloc((size_t)m->nv + 1, sizeof(double));
  if (d && q && v && a) {
    hg_model_neutral(m, q);
    hg_aba(m, d, q, v, v, NULL, a);
  }
  free(q), free(v), free(a);
  hg_data_free(d);
  hg_model_free(m);
}

#endif
