/* grow.h: growable arrays (an array, its count and its capacity), grown by doubling. */
#ifndef HINGE_GROW_H
#define HINGE_GROW_H

#include <stddef.h>

/* makes room in *arr (capacity *cap items of size bytes) for item n: when n has reached *cap,
 * *arr is reallocated to twice *cap items (first items when *cap is 0) and *cap updated; 0, or -1
 * when out of memory (*arr and *cap are then unchanged) */
int hg_grow(void **arr, int n, int *cap, int first, size_t size);

#endif
