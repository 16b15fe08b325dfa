/* scene_inputs.c: the files a scene was read from and their content hashes (scene.h), so that a
 * checkpoint or a campaign's journal can tell when one was edited before its resume. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* 64-bit FNV-1a (Fowler, Noll and Vo): h = (h xor byte) * 1099511628211 for each byte, from the
 * offset basis 14695981039346656037. Not a cryptographic hash: it tells an edited file from the
 * one that was read (two different files collide with probability about 2^-64). */
uint64_t hg_hash_bytes(const void *bytes, size_t n, uint64_t h) {
  const unsigned char *p = bytes;
  for (size_t k = 0; k < n; k++) h = (h ^ p[k]) * 1099511628211ULL;
  return h;
}

int hg_hash_file(const char *path, uint64_t *hash, hg_error *err) {
  unsigned char buf[65536];
  uint64_t h = HG_HASH_START;
  size_t n;
  FILE *f = fopen(path, "rb");
  if (!f) return hg_error_set(err, "%s: cannot open: %s", path, strerror(errno)), -1;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) h = hg_hash_bytes(buf, n, h);
  int bad = ferror(f);
  fclose(f);
  if (bad) return hg_error_set(err, "%s: cannot read", path), -1;
  *hash = h;
  return 0;
}

int hg_sc_add_input(hg_scene *s, const char *path) {
  for (int k = 0; k < s->ninput; k++)
    if (strcmp(s->input[k].path, path) == 0) return 0;
  hg_scene_input *grown = realloc(s->input, ((size_t)s->ninput + 1) * sizeof *grown);
  if (!grown) return -1;
  s->input = grown;
  if (!(s->input[s->ninput].path = hg_strdup(path))) return -1;
  s->input[s->ninput++].hash = 0;
  return 0;
}

int hg_sc_model_inputs(hg_scene *s, const hg_model *m) {
  for (int g = 0; m && g < m->ngeom; g++)
    if (m->geom[g].mesh && hg_sc_add_input(s, m->geom[g].mesh)) return -1;
  return 0;
}

int hg_scene_hash_inputs(hg_scene *s, hg_error *err) {
  (void)err;
  /* a mesh a URDF file names may be missing (its display shape is then left out): hash 0 */
  for (int k = 1; k < s->ninput; k++) {
    hg_error ignored;
    if (hg_hash_file(s->input[k].path, &s->input[k].hash, &ignored)) s->input[k].hash = 0;
  }
  return 0;
}

void hg_sc_free_inputs(hg_scene *s) {
  for (int k = 0; k < s->ninput; k++) free(s->input[k].path);
  free(s->input);
  s->input = NULL, s->ninput = 0;
}
