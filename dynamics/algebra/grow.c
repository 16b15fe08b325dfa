/* grow.c: hg_grow (grow.h). */
#include "grow.h"

#include <stdlib.h>

int hg_grow(void **arr, int n, int *cap, int first, size_t size) {
  if (n < *cap) return 0;
  int c = *cap ? 2 * *cap : first;
  void *p = realloc(*arr, (size_t)c * size);
  if (!p) return -1;
  *arr = p, *cap = c;
  return 0;
}
