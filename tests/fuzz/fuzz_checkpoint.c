/* fuzz_checkpoint.c: resuming a simulation of a fixed scene (FUZZ_SCENE, compiled in: it has a
 * topology change to replay) from any checkpoint file. */
#include <stdlib.h>

#include "fuzz_common.h"
#include "scene.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static hg_scene *scene;
  hg_error err;
  if (!scene && !(scene = hg_scene_load(FUZZ_SCENE, &err))) {
    fprintf(stderr, "fuzz_checkpoint: %s\n", err.msg);
    abort();
  }
  const char *path = fuzz_file("checkpoint", ".txt", data, size);
  if (!path) return 0;
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  hg_sim *sim = hg_sim_new(scene, &opt, &err);
  /* the reader and the topology replay only: running on would fuzz the integrator, whose time
   * per step on an arbitrary (valid but stiff) state is not the reader's to bound */
  if (sim) hg_sim_resume(sim, path, &err);
  hg_sim_free(sim);
  remove(path);
  return 0;
}
