/* allocs.c: counts heap allocations by interposing glibc's allocator (allocs.h). */
#include <stddef.h>

#include "allocs.h"
#include "hot.h" /* HG_SANITIZED */

static long allocations;

/* a sanitizer owns the allocator: then nothing is counted */
#ifndef HG_SANITIZED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
void *malloc(size_t n) { allocations++; return __libc_malloc(n); }
void *calloc(size_t n, size_t s) { allocations++; return __libc_calloc(n, s); }
void *realloc(void *p, size_t n) { allocations++; return __libc_realloc(p, n); }
int hg_allocs_counted(void) { return 1; }
#else
int hg_allocs_counted(void) { return 0; }
#endif

long hg_allocs(void) { return allocations; }
