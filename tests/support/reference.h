/* reference.h: a long double forward-dynamics oracle for tests (independent of hinge's
 * articulated-body passes). */
#ifndef HINGE_TEST_REFERENCE_H
#define HINGE_TEST_REFERENCE_H

#include <stdint.h>

#include "hinge.h"

/* qdd = M^-1 (tau - b) for a fixed-base model whose every joint is revolute or prismatic without
 * post-offset, in long double: b by the recursive Newton-Euler pass in body frames (gravity, fext
 * as hg_aba's: body frames, about body origins; or NULL), M by the composite-rigid-body pass in
 * body frames, then a Cholesky solve. Its error is ~1e-19 cond(M), where a double
 * pass working about far origins (hg_aba's tree frame) can lose digits: the test oracle for the
 * body-local ABA. Returns 0, or -1 for another joint type or a matrix that is not positive
 * definite. */
int hg_test_forward_ld(const hg_model *m, const double *q, const double *v, const double *tau,
                       const double *fext, double *qdd);

/* hg_hybrid's semantics the same way, with the joint modes in mode (nbody entries, as d->mode;
 * NULL: every joint free): on entry qdd holds the accelerations of prescribed joints and tau the
 * forces of free ones; on return both are complete (locked joints' qdd set to zero). v NULL is
 * hg_hybrid_impulse's form: no velocities, gravity or fext, qdd and tau are dv and the impulses,
 * locked joints' dv as given. Returns as hg_test_forward_ld. */
int hg_test_hybrid_ld(const hg_model *m, const uint8_t *mode, const double *q, const double *v,
                      double *qdd, double *tau, const double *fext);

#endif
