/* complex_rnea.h: an inverse dynamics written independently of hinge's, in complex arithmetic,
 * the reference of the complex-step tests: with q_k + i h, Im tau / h is d tau / d q_k with no
 * subtractive cancellation, exact to rounding for h = 1e-20. RNEA in body frames, Featherstone's
 * form, for revolute joints only. */
#ifndef HG_TEST_COMPLEX_RNEA_H
#define HG_TEST_COMPLEX_RNEA_H

#include "hinge.h"
#include <complex.h>
/* complex.h's I would clash with the inertia's field I: the imaginary unit is _Complex_I */
#undef I

typedef double complex cplx;

/* tau = RNEA(q, v, qdd) of m in complex arithmetic (nv entries each); 0, or -1 when a joint of m
 * is not revolute or has a post-offset (this reference takes those only) */
int hg_test_rnea_complex(const hg_model *m, const cplx *q, const cplx *v, const double *qdd,
                          cplx *tau);

#endif
