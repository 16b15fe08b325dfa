/* run_scene.c: loads a scene file (YAML, docs/scenes.md) and runs it through sim.h to T_END
 * seconds (the scene's end when not given), then prints the time reached and the joint state.
 * It writes no files: the CSVs and plots of `hinge run` are the program's output observer.
 * usage: run_scene SCENE.yaml [T_END] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <hinge/sim.h>

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) return fprintf(stderr, "usage: %s SCENE.yaml [T_END]\n", argv[0]), 2;
  hg_error err;
  hg_scene *sc = hg_scene_load(argv[1], &err);
  if (!sc) return fprintf(stderr, "run_scene: %s\n", err.msg), 2;
  hg_sim_options opt = {0};
  opt.t_end = argc == 3 ? atof(argv[2]) : NAN; /* NaN: the scene's end time */
  opt.method = -1;                             /* the scene's integrator */
  hg_sim *sim = hg_sim_new(sc, &opt, &err);
  if (!sim) return fprintf(stderr, "run_scene: %s\n", err.msg), hg_scene_free(sc), 2;
  int status = hg_sim_run(sim, INFINITY);
  const hg_model *m = hg_sim_model(sim);
  printf("hinge-sim %s: %s: status %d at t = %.6f s, %d bodies, nq %d, nv %d\n", hg_sim_version(),
         argv[1], status, hg_sim_time(sim), m->nbody, m->nq, m->nv);
  hg_sim_free(sim);
  hg_scene_free(sc);
  return status == HG_SIM_OK ? 0 : 1;
}
