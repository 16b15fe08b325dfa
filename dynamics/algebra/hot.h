/* hot.h: the speed macros of the dynamics core, in one place. Nothing here changes what a
 * function computes; each says how the compiler should build it.
 *   HG_HOT      two clones of a hot function, for any x86-64 and for x86-64-v3
 *   HG_INLINE   a static inline function that is always inlined (not forced under sanitizers)
 *   HG_OPAQUE   a pointer the compiler must hold in one register
 *   HG_UNROLL   unroll the loop that follows in full (n iterations at most)
 *   HG_BLOCK    a basic-block boundary the optimizer does not merge across
 *   HG_SEALED   a double the optimizer must hold, as it is, in one register
 * The lane types and helpers (several doubles in one vector register) are lanes.h's. */
#ifndef HINGE_HOT_H
#define HINGE_HOT_H

#ifdef __cplusplus
extern "C" {
#endif

/* HG_HOT marks the recursions' hot functions: gcc compiles each twice, for any x86-64 and for
 * x86-64-v3 (AVX2 with fused multiply-add, contracted from a * b + c by -ffp-contract=fast, see
 * CMakeLists.txt), and picks one when the program loads (target_clones). Results differ between
 * the two at round-off. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define HG_HOT __attribute__((target_clones("default", "arch=x86-64-v3")))
#else
#define HG_HOT
#endif

/* HG_SANITIZED: the build runs under AddressSanitizer (gcc's and clang's ways of saying so) */
#if defined(__SANITIZE_ADDRESS__)
#define HG_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HG_SANITIZED 1
#endif
#endif

/* HG_INLINE marks a static inline function that must be inlined wherever it is called, so that
 * its constant arguments fold each call's case (the joints' walks, joint.h). Sanitized builds
 * leave the choice to the compiler: the sanitizers instrument every inlined copy, and forcing
 * them made aba_local.c's per-kind passes one function the optimizer could not finish (over 20
 * min for clang, 530 s of CPU for gcc, against 3 s without forcing). The arithmetic is the same:
 * a call computes what its inlined copy computes. */
#if defined(__GNUC__) && !defined(HG_SANITIZED)
#define HG_INLINE static inline __attribute__((always_inline))
#else
#define HG_INLINE static inline
#endif

/* HG_OPAQUE(x): an empty asm through which the pointer x passes, so the compiler holds it as one
 * register. Otherwise gcc may keep it as base + index and spend a lea on each entry written
 * through it (the 21 + 6 of an articulated inertia and bias handed to a parent) */
#if defined(__GNUC__)
#define HG_OPAQUE(x) __asm__("" : "+r"(x))
#else
#define HG_OPAQUE(x) ((void)0)
#endif

/* HG_UNROLL(n): unroll the next loop, of at most n iterations, in full (gcc's pragma, which
 * clang ignores) */
#define HG_PRAGMA(x) _Pragma(#x)
#if defined(__GNUC__) && !defined(__clang__)
#define HG_UNROLL(n) HG_PRAGMA(GCC unroll n)
#else
#define HG_UNROLL(n)
#endif

/* HG_BLOCK(label): an empty asm goto to the label that follows it, so the code after it starts a
 * basic block of its own; code between two of them is scheduled, contracted (fused
 * multiply-adds) and vectorized as a unit, whatever surrounds it. HG_SEALED(x): the double x
 * passes through an empty asm in a vector register, so its value is computed before the asm and
 * used as it is after (no product of it is fused or vectorized across). Both compile to nothing;
 * they bound code whose rounding must not depend on where it is inlined (the body-local pass) */
#if defined(__GNUC__) && defined(__x86_64__)
#define HG_BLOCK(l) __asm__ goto("" :::: l); l:;
#define HG_SEALED(x) __asm__("" : "+x"(x))
#else
#define HG_BLOCK(l)
#define HG_SEALED(x) ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif
