/* fuzz_mjcf.c: the MJCF reader on any bytes: MuJoCo's compiler parses them (a MuJoCo 2.2.2 run
 * of 4500 mutated models gave no crash and no exit from its error handler, so its parser is
 * fuzzed in-process), then the reader builds hinge's bodies, and what compiles is run through
 * ABA once. The first byte picks the options (verbose notes, a prefix and a parent pose).
 * Compiled meshes are written under TMPDIR (mjcf.c): the harness points TMPDIR at a folder of
 * its own and empties it after each input. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "hinge.h"
#include "mjcf.h"

/* removes the files of the folders under dir (one level: hinge-mjcf-UID/mesh-*.obj) */
static void empty(const char *dir) {
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char tmp[256];
  hg_mjcf_options opt = {0};
  hg_mjcf_extras x;
  hg_error err;
  hg_se3 pose;
  const char *path;
  if (size < 1) return 0;
  if (!tmp[0]) {
    snprintf(tmp, sizeof tmp, "/tmp/hinge_fuzz_%ld_mjcf_tmp", (long)getpid());
    mkdir(tmp, 0700);
    setenv("TMPDIR", tmp, 1);
  }
  opt.verbose = data[0] & 1;
  hg_se3_identity(&pose);
  pose.p[2] = (data[0] >> 1) & 1;
  if (!(path = fuzz_file("mjcf", ".xml", data + 1, size - 1))) return 0;
  hg_builder *b = hg_builder_new();
  if (b && hg_mjcf_add(b, path, NULL, &pose, (data[0] & 4) ? "p_" : NULL, &opt, &x, &err) == 0) {
    hg_model *m = hg_builder_compile(b, &err);
    if (m) {
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
    hg_mjcf_extras_free(&x);
  }
  hg_builder_free(b);
  remove(path);
  empty(tmp);
  return 0;
}
