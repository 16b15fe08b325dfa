/* lanes.h: four (or two) doubles in one vector, for the recursions that do the same arithmetic on
 * several numbers at once. GNU C vector extensions (gcc >= 12 or clang): one AVX2 register in the
 * x86-64-v3 clones of the hot functions (HG_HOT, spatial.h), two SSE2 registers otherwise.
 * rnea.c keeps a 3-vector in lanes 0..2 of an hg_v4; derivatives.c keeps four DoFs side by side.
 * A vector never crosses a function call by value (that would change the calling convention
 * between the clones): helpers take pointers, or are macros. */
#ifndef HINGE_LANES_H
#define HINGE_LANES_H

typedef double hg_v4 __attribute__((vector_size(32)));
typedef double hg_v2 __attribute__((vector_size(16)));

/* unaligned loads and stores of p[0..4) or p[0..2) that may alias the doubles they read or write */
typedef double hg_v4u __attribute__((vector_size(32), aligned(8), may_alias));
typedef double hg_v2u __attribute__((vector_size(16), aligned(8), may_alias));
#define HG_LD4(p) (*(const hg_v4u *)(p))
#define HG_LD2(p) (*(const hg_v2u *)(p))
#define HG_ST4(p, x) (*(hg_v4u *)(p) = (x))
#define HG_ST2(p, x) (*(hg_v2u *)(p) = (x))

#endif
