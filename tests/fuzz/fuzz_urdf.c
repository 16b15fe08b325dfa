/* fuzz_urdf.c: the URDF reader on any bytes; what loads is merged and run through ABA once.
 * The first byte picks the options (floating, fix_inertia). */
#include <stdlib.h>

#include "fuzz_common.h"
#include "hinge.h"
#include "urdf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hg_urdf_options opt = {0};
  hg_error err;
  const char *path;
  if (size < 1) return 0;
  opt.floating = data[0] & 1;
  opt.fix_inertia = (data[0] >> 1) & 1;
  if (!(path = fuzz_file("urdf", ".urdf", data + 1, size - 1))) return 0;
  hg_model *m = hg_urdf_load_opt(path, &opt, &err);
  remove(path);
  if (!m) return 0;
  hg_model *mm = hg_model_merge_fixed(m, NULL, NULL, &err);
  if (mm) {
    hg_data *d = hg_data_new(mm);
    double *q = calloc((size_t)mm->nq + 1, sizeof(double));
    double *v = calloc((size_t)mm->nv + 1, sizeof(double));
    double *a = calloc((size_t)mm->nv + 1, sizeof(double));
    if (d && q && v && a) {
      hg_model_neutral(mm, q);
      hg_aba(mm, d, q, v, v, NULL, a);
    }
    free(q), free(v), free(a);
    hg_data_free(d);
    hg_model_free(mm);
  }
  hg_model_free(m);
  return 0;
}
