/* urdf_dynamics.c: loads a URDF model and runs the dynamics core's three recursions on it:
 *   ABA   qdd = M^-1 (tau - b(q, v))         (forward dynamics)
 *   RNEA  tau = M qdd + b(q, v)              (inverse dynamics)
 *   CRBA  M(q), the joint-space mass matrix
 * then checks that they agree: RNEA(q, v, ABA(q, v, tau)) returns tau. Prints the model's size,
 * qdd, M and the largest difference; exits non-zero when it exceeds 1e-10 N m (or N).
 * usage: urdf_dynamics FILE.urdf */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <hinge/hinge.h>
#include <hinge/urdf.h>

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: %s FILE.urdf\n", argv[0]), 2;
  hg_error err;
  hg_model *m = hg_urdf_load(argv[1], 0, NULL, &err);
  if (!m) return fprintf(stderr, "urdf_dynamics: %s\n", err.msg), 2;
  hg_data *d = hg_data_new(m);
  int nq = m->nq, nv = m->nv;
  double *q = calloc((size_t)nq, sizeof *q), *v = calloc((size_t)nv, sizeof *v);
  double *tau = calloc((size_t)nv, sizeof *tau), *qdd = calloc((size_t)nv, sizeof *qdd);
  double *tau2 = calloc((size_t)nv, sizeof *tau2), *M = calloc((size_t)nv * nv, sizeof *M);
  if (!d || !q || !v || !tau || !qdd || !tau2 || !M) return fprintf(stderr, "out of memory\n"), 1;

  /* a state away from rest: the neutral configuration turned by a few tenths of a radian where
   * every coordinate is a scalar joint's (nq == nv), some velocity and joint forces */
  hg_model_neutral(m, q);
  for (int i = 0; i < nv; i++) {
    if (nq == nv) q[i] += 0.3 * (i + 1);
    v[i] = 0.1 * (i + 1);
    tau[i] = 0.5 - 0.2 * i;
  }
  if (hg_aba(m, d, q, v, tau, NULL, qdd))
    return fprintf(stderr, "urdf_dynamics: ABA failed (a singular articulated inertia)\n"), 1;
  hg_rnea(m, d, q, v, qdd, NULL, tau2);
  hg_crba(m, d, q, M);

  printf("hinge %s: %s: %d bodies, nq %d, nv %d\n", hg_version(), argv[1], m->nbody, nq, nv);
  double worst = 0;
  for (int i = 0; i < nv; i++) {
    printf("qdd[%d] = % .12f   tau[%d] = % .6f   RNEA(ABA)[%d] = % .6f\n", i, qdd[i], i, tau[i],
           i, tau2[i]);
    /* the round trip's residual: the torque RNEA returns for ABA's accelerations */
    double e = fabs(tau2[i] - tau[i]);
    if (e > worst) worst = e;
  }
  printf("M (CRBA):\n");
  for (int i = 0; i < nv; i++) {
    for (int j = 0; j < nv; j++) printf(" % .6f", M[i * nv + j]);
    printf("\n");
  }
  /* 1e-10: the two recursions agree to round-off, a few ulps of |M| |qdd| + |b| (order 1e-15 for
   * a model of a few links with unit masses and lengths); 1e-10 leaves room for long chains */
  printf("max |RNEA(q, v, ABA(q, v, tau)) - tau| = %.3g\n", worst);
  int ok = worst <= 1e-10;
  free(q), free(v), free(tau), free(qdd), free(tau2), free(M);
  hg_data_free(d);
  hg_model_free(m);
  return ok ? 0 : 1;
}
