/* local_oracle.h: the body-local articulated pass written plainly, the tests' second way to the
 * results of aba_local.h's sweeps on the same compiled frames (body_frames.h).
 *
 * Featherstone's articulated-body algorithm (RBDA, ch. 7; hybrid dynamics, ch. 9.2) in each
 * body's joint frame J_i, with dense 6x6 matrices: X_i = Ad_{P_i^-1} for the pose P_i = (R, p)
 * of J_i in its parent's (revolute: R_C Rz(q), p_C; prismatic: R_C, p_C + q R_C e_z), S = e_k
 * (k = 2 revolute, 5 prismatic), and the trees of prismatic and floating roots seen from the
 * same Galilean frames as the library's pass (aba_local.h). No factoring, no reduced forms, no
 * kinds: slow and short. */
#ifndef HINGE_TEST_LOCAL_ORACLE_H
#define HINGE_TEST_LOCAL_ORACLE_H

#include <stdint.h>

#include "body_frames.h"

/* as hg_local_aba (aba_local.h) */
int hg_test_local_aba(const hg_local_model *lm, const double *q, const double *v,
                      const double *tau, const double *fext, double *qdd);
/* as hg_local_hybrid */
int hg_test_local_hybrid(const hg_local_model *lm, const uint8_t *mode, const double *q,
                         const double *v, double *qdd, double *tau, const double *fext);
/* as hg_local_hybrid_impulse */
int hg_test_local_hybrid_impulse(const hg_local_model *lm, const uint8_t *mode, const double *q,
                                 double *dv, double *imp);

#endif
