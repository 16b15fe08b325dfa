/* sims.h: scenes and simulations for the runtime's tests (each fails the running cmocka test
 * with the loader's or the simulation's message instead of returning NULL). */
#ifndef HINGE_TEST_SIMS_H
#define HINGE_TEST_SIMS_H

#include "sim.h"

/* a scene read from path */
hg_scene *hg_test_scene(const char *path);
/* a scene written from text into dir/name, then read */
hg_scene *hg_test_scene_text(const char *dir, const char *name, const char *text);
/* a simulation of s to t_end (NaN: the scene's), writing into out_dir (NULL: nothing), no plots */
hg_sim *hg_test_sim(const hg_scene *s, double t_end, const char *out_dir);
/* applies one command now; the event it logged */
const hg_sim_event *hg_test_apply(hg_sim *sim, const char *text);

#endif
