/* fuzz_scene.c: the YAML scene reader on any bytes (a scene that loads is also compiled into a
 * simulation, without running it; users' controllers are read, never started). The input is written as scenes/fuzz.yaml inside a folder
 * that mirrors tests/data by symbolic links, so the files the seed scenes name are found. */
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "scene.h"
#include "sim.h"

/* the mirror folder's scenes/fuzz.yaml path (made on the first call) */
static const char *scene_path(void) {
  static char path[256];
  char dir[200], scenes[220];
  if (path[0]) return path;
  snprintf(dir, sizeof dir, "/tmp/hinge_fuzz_%ld_data", (long)getpid());
  snprintf(scenes, sizeof scenes, "%s/scenes", dir);
  mkdir(dir, 0700);
  mkdir(scenes, 0700);
  fuzz_link_entries(FUZZ_DATA, dir, "scenes");
  fuzz_link_entries(FUZZ_DATA "/scenes", scenes, NULL);
  snprintf(path, sizeof path, "%s/fuzz.yaml", scenes);
  return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hg_error err;
  const char *path = scene_path();
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  if (size) fwrite(data, 1, size, f);
  fclose(f);
  hg_scene *s = hg_scene_load(path, &err);
  if (!s) return 0;
  /* a scene that names an external controller would run a shell command the fuzzer wrote, and
   * a library controller would load whatever file it names: those are read, never started */
  for (int k = 0; k < s->ncontroller; k++)
    if (s->controller[k].type == HG_CTL_EXTERNAL || s->controller[k].type == HG_CTL_LIBRARY) {
      hg_scene_free(s);
      return 0;
    }
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  hg_sim_free(sim);
  hg_scene_free(s);
  return 0;
}
