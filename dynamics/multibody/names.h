/* names.h: the one name index of hinge: names to item numbers, by open addressing (FNV-1a).
 *
 * The index stores only item numbers and reads names through a callback, so it indexes any array
 * whose items carry a name (body specs, joint specs, an array of strings) without copying it.
 * Lookups are O(1) on average; the builder, the compiler and the state mapping of topology
 * changes all use it. */
#ifndef HINGE_NAMES_H
#define HINGE_NAMES_H

#ifdef __cplusplus
extern "C" {
#endif

/* the name of item i of items */
typedef const char *(*hg_name_of)(const void *items, int i);

typedef struct hg_name_index {
  int nslot; /* a power of two, at least twice the items */
  int *slot; /* item number or -1 */
} hg_name_index;

/* an empty index with room for n items (any previous slots are freed); 0 or -1 (out of memory) */
int hg_names_reset(hg_name_index *x, int n);
void hg_names_free(hg_name_index *x);
/* the item named name, or -1 */
int hg_names_find(const hg_name_index *x, hg_name_of get, const void *items, const char *name);
/* adds item i; returns the item that already holds its name, or -1 when the name was new */
int hg_names_insert(hg_name_index *x, hg_name_of get, const void *items, int i);

/* the getter for an array of strings (char **), and an index of names[first .. n-1] of one */
const char *hg_name_of_string(const void *names, int i);
int hg_names_of_strings(hg_name_index *x, char *const *names, int first, int n);

/* a malloc'd copy of s, NULL for NULL (and when out of memory): hinge's one string duplicator */
char *hg_strdup(const char *s);

#ifdef __cplusplus
}
#endif

#endif
