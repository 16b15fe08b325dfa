/* inertia_cmp.c: each moving body's mass, COM and inertia about the COM (body frame), hinge (URDF
 * read by hg_urdf_load, fixed links merged) against MuJoCo 2.2.2's URDF importer, by body name.
 * Not part of the build; from the repository's root after a CMake build:
 *   gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Idynamics/algebra -Idynamics/multibody \
 *       -Idynamics/algorithms -Isim/readers -o /tmp/inertia_cmp tests/bench/peers_robots/inertia_cmp.c \
 *       build/sim/libhinge_readers.a build/dynamics/libhinge.a build/dynamics/libhinge_multibody.a \
 *       build/dynamics/libhinge_algebra.a -lmujoco -lxml2 -lassimp -llapacke -lm
 *   /tmp/inertia_cmp assets/robots/ur5_style.urdf assets/robots/panda_style.urdf ... */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <mujoco/mujoco.h>
#include "hinge.h"
#include "urdf.h"
#include "merge.h"
int main(int argc, char** argv) {
  for (int a = 1; a < argc; a++) {
    hg_error err;
    hg_model* m0 = hg_urdf_load(argv[a], 0, NULL, &err);
    hg_model* m = hg_model_merge_fixed(m0, NULL, NULL, &err);
    char e[1000];
    mjModel* mj = mj_loadXML(argv[a], NULL, e, sizeof e);
    double dm = 0, dc = 0, dI = 0, rI = 0;
    const char* worst = "";
    for (int b = 1; b < mj->nbody; b++) {
      const char* name = mj_id2name(mj, mjOBJ_BODY, b);
      int i = -1;
      for (int k = 1; k < m->nbody; k++) if (!strcmp(m->body_name[k], name)) i = k;
      if (i < 0) { printf("no %s\n", name); continue; }
      hg_inertia_c G;
      hg_inertia_to_c(&m->inertia[i], &G);
      double R[9], I[9], H[9] = {G.Ic[0], G.Ic[3], G.Ic[4], G.Ic[3], G.Ic[1], G.Ic[5], G.Ic[4], G.Ic[5], G.Ic[2]};
      mju_quat2Mat(R, mj->body_iquat + 4 * b);
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          double s = 0;
          for (int k = 0; k < 3; k++) s += R[3 * r + k] * mj->body_inertia[3 * b + k] * R[3 * c + k];
          I[3 * r + c] = s;
        }
      double scale = 0, d = 0;
      for (int k = 0; k < 9; k++) scale = fmax(scale, fabs(H[k])), d = fmax(d, fabs(I[k] - H[k]));
      dm = fmax(dm, fabs(mj->body_mass[b] - G.m) / G.m);
      for (int k = 0; k < 3; k++) dc = fmax(dc, fabs(mj->body_ipos[3 * b + k] - G.c[k]));
      dI = fmax(dI, d);
      if (d / scale > rI) rI = d / scale, worst = name;
    }
    printf("%s: %d moving bodies; max rel mass diff %.1e, max |COM diff| %.1e m, max |I_c diff| %.1e kg m^2, "
           "max relative %.1e (%s)\n", argv[a], mj->nbody - 1, dm, dc, dI, rI, worst);
    mj_deleteModel(mj);
    hg_model_free(m);
    hg_model_free(m0);
  }
}
