/* fuzz_commands.c: command files (docs/commands.md) on any bytes, read against the undock scene;
 * a file that reads is scheduled into a simulation of the scene and run for 0.2 s, so every
 * action the reader accepts is also applied. */
#include <math.h>
#include <string.h>

#include "fuzz_common.h"
#include "scene.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static hg_scene *scene;
  static char path[64];
  hg_error err;
  if (!scene && !(scene = hg_scene_load(FUZZ_SCENE, &err))) return 0;
  if (!path[0]) snprintf(path, sizeof path, "/tmp/hinge_fuzz_%ld_commands.txt", (long)getpid());
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  if (size) fwrite(data, 1, size, f);
  fclose(f);
  hg_command_list cl;
  if (hg_commands_load(scene, path, &cl, &err)) return 0;
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  opt.t_end = 0.2;
  hg_sim *sim = hg_sim_new(scene, &opt, &err);
  for (int k = 0; sim && k < cl.n; k++)
    if (hg_sim_schedule(sim, &cl.cmd[k])) break;
  if (sim) hg_sim_run(sim, INFINITY);
  hg_sim_free(sim);
  hg_commands_free(&cl);
  return 0;
}
