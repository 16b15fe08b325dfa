/* cli_derivatives.c: the derivative actions of `hinge dynamics` (did, dfd, minv, dhybrid, d2id,
 * d2fd, d2id-sum, d2fd-sum): one state in (the numbers of one input line), the matrices of
 * dynamics/algorithms/derivatives.h out, each nv x nv row-major (row = output component, column =
 * perturbation direction), or the tensors of derivatives2.h, each nv x nv x nv with entry
 * [l, m, k] (output l, first direction m, second direction k) at (k nv + l) nv + m: nv slices,
 * slice k the first-order matrix's derivative along direction k, or their sums over the output
 * with weights lam (the last nv numbers of the line), each nv x nv with [m, k] at k nv + m. */
#include <string.h>

#include "cli.h"
#include "derivatives.h"
#include "derivatives2.h"
#include "dynamics.h"

int hg_cli_did(const hg_model *m, hg_data *d, hg_deriv *w, const double *in, double *out) {
  size_t n2 = (size_t)m->nv * (size_t)m->nv;
  const double *q = in, *v = in + m->nq, *vdot = v + m->nv;
  hg_rnea_derivatives(m, d, w, q, v, vdot, NULL, out, out + n2, NULL);
  return 0;
}

int hg_cli_dfd(const hg_model *m, hg_data *d, hg_deriv *w, const double *in, double *out) {
  size_t n2 = (size_t)m->nv * (size_t)m->nv;
  const double *q = in, *v = in + m->nq, *tau = v + m->nv;
  return hg_aba_derivatives(m, d, w, q, v, tau, NULL, NULL, out, out + n2, out + 2 * n2);
}

int hg_cli_minv(const hg_model *m, hg_data *d, hg_deriv *w, const double *in, double *out) {
  return hg_minv(m, d, w, in, out);
}

int hg_cli_dhybrid(const hg_model *m, hg_data *d, hg_deriv *w, const double *in, double *out) {
  size_t n2 = (size_t)m->nv * (size_t)m->nv;
  const double *q = in, *v = in + m->nq, *x = v + m->nv;
  return hg_hybrid_derivatives(m, d, w, q, v, x, NULL, NULL, out, out + n2, out + 2 * n2);
}

int hg_cli_d2id(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *in, double *out) {
  size_t n3 = (size_t)m->nv * (size_t)m->nv * (size_t)m->nv;
  const double *q = in, *v = in + m->nq, *vdot = v + m->nv;
  hg_rnea_second_derivatives(m, d, w, q, v, vdot, NULL, out, out + n3, out + 2 * n3,
                             out + 3 * n3);
  return 0;
}

int hg_cli_d2fd(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *in, double *out) {
  size_t n3 = (size_t)m->nv * (size_t)m->nv * (size_t)m->nv;
  const double *q = in, *v = in + m->nq, *tau = v + m->nv;
  return hg_aba_second_derivatives(m, d, w, q, v, tau, NULL, NULL, out, out + n3, out + 2 * n3,
                                   out + 3 * n3);
}

int hg_cli_d2id_sum(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *in, double *out) {
  size_t n2 = (size_t)m->nv * (size_t)m->nv;
  const double *q = in, *v = in + m->nq, *vdot = v + m->nv, *lam = vdot + m->nv;
  hg_rnea_second_derivatives_contract(m, d, w, q, v, vdot, NULL, lam, out, out + n2,
                                      out + 2 * n2, out + 3 * n2);
  return 0;
}

int hg_cli_d2fd_sum(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *in, double *out) {
  size_t n2 = (size_t)m->nv * (size_t)m->nv;
  const double *q = in, *v = in + m->nq, *tau = v + m->nv, *lam = tau + m->nv;
  return hg_aba_second_derivatives_contract(m, d, w, q, v, tau, NULL, lam, NULL, out, out + n2,
                                            out + 2 * n2, out + 3 * n2);
}

void hg_cli_derivatives_usage(FILE *f) {
  fprintf(f,
          "derivatives (each matrix nv*nv numbers, row-major: row = output component, column =\n"
          "perturbation direction; for q the direction is the tangent d of q (+) d = q exp(d),\n"
          "a body-frame rotation for spherical and free joints):\n"
          "  did     q v vdot  ->  dtau/dq dtau/dv           (2*nv*nv numbers)\n"
          "  dfd     q v tau   ->  dvdot/dq dvdot/dv dvdot/dtau = M^-1   (3*nv*nv numbers)\n"
          "  minv    q         ->  M^-1, by the articulated-body recursion (nv*nv numbers)\n"
          "  dhybrid q v x     ->  dy/dq dy/dv dy/dx          (3*nv*nv numbers), with x as for\n"
          "                        hybrid and y DoF by DoF: vdot of free joints, tau of the\n"
          "                        prescribed ones; columns of x at prescribed joints are the\n"
          "                        derivatives with respect to their vdot\n"
          "second-order derivatives (each tensor nv*nv*nv numbers: nv slices, slice k the\n"
          "nv*nv first-order matrix's derivative along direction k, row-major; entry [l, m, k]\n"
          "(output l, first direction m, second k) at (k*nv + l)*nv + m; docs/linearization.md):\n"
          "  d2id    q v vdot  ->  d2tau/dq2 d2tau/dv2 d2tau/dqdv dM/dq       (4*nv^3 numbers)\n"
          "  d2fd    q v tau   ->  d2vdot/dq2 d2vdot/dv2 d2vdot/dqdv d2vdot/dqdtau\n"
          "                                                                   (4*nv^3 numbers)\n"
          "                        (dqdv: m along q, k along v; dqdtau: m along q, k along tau)\n"
          "  d2id-sum q v vdot lam  ->  the four d2id tensors summed over tau with weights lam,\n"
          "  d2fd-sum q v tau lam   ->  the four d2fd tensors summed over vdot with weights lam:\n"
          "                        each nv*nv, entry [m, k] = sum_l lam_l T[l, m, k] at k*nv + m\n"
          "                        (4*nv^2 numbers; the tensors are not formed)\n");
}
