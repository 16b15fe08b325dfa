/* allocs.h: heap allocations counted for the benchmarks, which check that their timed calls make
 * none. Linking a program that calls hg_allocs interposes glibc's malloc, calloc and realloc
 * (allocs.c); under AddressSanitizer, which owns the allocator, nothing is counted. */
#ifndef HINGE_TEST_ALLOCS_H
#define HINGE_TEST_ALLOCS_H

/* the allocations so far, and 1 when they are counted at all */
long hg_allocs(void);
int hg_allocs_counted(void);

#endif
