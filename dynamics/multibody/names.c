/* names.c: the name index (names.h) and the string duplicator. */
#include "names.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

int hg_names_reset(hg_name_index *x, int n) {
  int nslot = 16;
  while (nslot < 2 * n + 2) nslot *= 2;
  int *slot = malloc((size_t)nslot * sizeof(int));
  if (!slot) return -1;
  for (int k = 0; k < nslot; k++) slot[k] = -1;
  free(x->slot);
  x->slot = slot;
  x->nslot = nslot;
  return 0;
}

void hg_names_free(hg_name_index *x) {
  free(x->slot);
  x->slot = NULL;
  x->nslot = 0;
}

/* the slot holding name, or the empty slot where it would go */
static int probe(const hg_name_index *x, hg_name_of get, const void *items, const char *name) {
  int k = (int)(name_hash(name) & (uint64_t)(x->nslot - 1));
  while (x->slot[k] >= 0 && strcmp(get(items, x->slot[k]), name) != 0) k = (k + 1) & (x->nslot - 1);
  return k;
}

int hg_names_find(const hg_name_index *x, hg_name_of get, const void *items, const char *name) {
  return x->slot ? x->slot[probe(x, get, items, name)] : -1;
}

int hg_names_insert(hg_name_index *x, hg_name_of get, const void *items, int i) {
  int k = probe(x, get, items, get(items, i));
  if (x->slot[k] >= 0) return x->slot[k];
  x->slot[k] = i;
  return -1;
}

const char *hg_name_of_string(const void *names, int i) { return ((char *const *)names)[i]; }

int hg_names_of_strings(hg_name_index *x, char *const *names, int first, int n) {
  if (hg_names_reset(x, n)) return -1;
  for (int i = first; i < n; i++) hg_names_insert(x, hg_name_of_string, names, i);
  return 0;
}

char *hg_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *c = malloc(n);
  if (c) memcpy(c, s, n);
  return c;
}
