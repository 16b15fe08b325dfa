/* scene_lookup.c: a loaded scene's markers and force elements by name (scene.h). The reader's
 * own passes resolve references through these too, so they stand apart from the loader. */
#include <string.h>

#include "scene.h"

const hg_marker *hg_scene_marker(const hg_scene *s, const char *name) {
  for (int k = 0; k < s->nmarker; k++)
    if (s->marker[k].name && strcmp(s->marker[k].name, name) == 0) return &s->marker[k];
  return NULL;
}

const hg_force_spec *hg_scene_force(const hg_scene *s, const char *name) {
  for (int k = 0; k < s->nforce; k++)
    if (s->force[k].name && strcmp(s->force[k].name, name) == 0) return &s->force[k];
  return NULL;
}
