/* sims.h: scenes and simulations for the runtime's tests (each fails the running cmocka test
 * with the loader's or the simulation's message instead of returning NULL). */
#ifndef HINGE_TEST_SIMS_H
#define HINGE_TEST_SIMS_H

#include "sim.h"

/* a scene read from path */
hg_scene *hg_test_scene(const char *path);
/* the shipped scene name: ../scenes/NAME.yaml (the tests run in tests/) */
hg_scene *hg_test_shipped(const char *name);
/* a scene written from text into dir/name, then read */
hg_scene *hg_test_scene_text(const char *dir, const char *name, const char *text);
/* a scene written from text into name in a fresh temporary folder (tag names it; its path into
 * dir[0..len)), then read */
hg_scene *hg_test_scene_temp(const char *tag, const char *name, const char *text, char *dir,
                             size_t len);
/* the outputs of sim (output.h) into dir, no plots */
void hg_test_outputs(hg_sim *sim, const char *dir);
/* a simulation of s to t_end (NaN: the scene's), writing into out_dir (NULL: nothing), no plots */
hg_sim *hg_test_sim(const hg_scene *s, double t_end, const char *out_dir);
/* the shipped scene name (into *s) simulated to t_end (NaN: the scene's end), run to t */
hg_sim *hg_test_shipped_at(const char *name, double t_end, double t, hg_scene **s);
/* a whole run of s to t_end (NaN: the scene's) writing into out_dir, finished and freed */
void hg_test_run(const hg_scene *s, double t_end, const char *out_dir);
/* a simulation of s with rtol (0: the scene's), writing into out_dir (NULL: nothing) with
 * checkpoints every checkpoint_every seconds (0: none), to the scene's end, no plots */
hg_sim *hg_test_sim_ck(const hg_scene *s, double rtol, const char *out_dir,
                       double checkpoint_every);
/* Resumes s from checkpoint k of the run in dir_a (checkpoint-KKKK.txt) into a fresh folder and
 * checks that it ends in that run's final state (qa, va; nq and nv entries) bit for bit and that
 * its trajectory is the tail of dir_a's byte for byte; prints a line naming label. */
void hg_test_resume_matches(const hg_scene *s, const char *label, const char *dir_a, int k,
                            const double *qa, const double *va, int nq, int nv);
/* applies one command now; the event it logged */
const hg_sim_event *hg_test_apply(hg_sim *sim, const char *text);

#endif
