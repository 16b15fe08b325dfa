/* sims.c: scenes and simulations for the runtime's tests (sims.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "files.h"
#include "output.h"
#include "sims.h"

hg_scene *hg_test_scene(const char *path) {
  hg_error err;
  hg_scene *s = hg_scene_load(path, &err);
  if (!s) fail_msg("%s", err.msg);
  return s;
}

hg_scene *hg_test_shipped(const char *name) {
  char path[256];
  snprintf(path, sizeof path, "../scenes/%s.yaml", name);
  return hg_test_scene(path);
}

hg_scene *hg_test_scene_text(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) fail_msg("cannot write %s", path);
  fputs(text, f);
  fclose(f);
  return hg_test_scene(path);
}

hg_scene *hg_test_scene_temp(const char *tag, const char *name, const char *text, char *dir,
                             size_t len) {
  assert_int_equal(hg_test_temp_dir(tag, dir, len), 0);
  return hg_test_scene_text(dir, name, text);
}

/* a simulation without plots: the scene's settings with these overrides */
static hg_sim *make_sim(const hg_scene *s, double rtol, double t_end, const char *out_dir,
                        double checkpoint_every) {
  hg_sim_options opt;
  hg_error err;
  hg_sim_default_options(&opt);
  opt.rtol = rtol;
  opt.t_end = t_end;
  opt.out_dir = out_dir;
  opt.checkpoint_every = checkpoint_every;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  if (!sim) fail_msg("%s: %s", s->path, err.msg);
  if (out_dir) hg_test_outputs(sim, out_dir);
  return sim;
}

void hg_test_outputs(hg_sim *sim, const char *dir) {
  hg_output_options oo;
  hg_error err;
  hg_output_default_options(&oo);
  oo.dir = dir;
  oo.plots = 0;
  if (hg_output_attach(sim, &oo, &err)) fail_msg("%s", err.msg);
}

hg_sim *hg_test_sim(const hg_scene *s, double t_end, const char *out_dir) {
  return make_sim(s, 0, t_end, out_dir, 0);
}

hg_sim *hg_test_shipped_at(const char *name, double t_end, double t, hg_scene **s) {
  *s = hg_test_shipped(name);
  hg_sim *sim = make_sim(*s, 0, t_end, NULL, 0);
  assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
  return sim;
}

void hg_test_run(const hg_scene *s, double t_end, const char *out_dir) {
  hg_sim *sim = make_sim(s, 0, t_end, out_dir, 0);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  hg_sim_free(sim);
}

hg_sim *hg_test_sim_ck(const hg_scene *s, double rtol, const char *out_dir,
                       double checkpoint_every) {
  return make_sim(s, rtol, NAN, out_dir, checkpoint_every);
}

void hg_test_resume_matches(const hg_scene *s, const char *label, const char *dir_a, int k,
                            const double *qa, const double *va, int nq, int nv) {
  char dir_b[64], ck[256];
  hg_error err;
  assert_int_equal(0, hg_test_temp_dir("resume", dir_b, sizeof dir_b));
  snprintf(ck, sizeof ck, "%s/checkpoint-%04d.txt", dir_a, k);
  hg_sim *sim = make_sim(s, 0, NAN, dir_b, 0);
  if (hg_sim_resume(sim, ck, &err)) fail_msg("%s", err.msg);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  assert_int_equal(hg_sim_model(sim)->nq, nq);
  assert_int_equal(hg_sim_model(sim)->nv, nv);
  assert_memory_equal(hg_sim_q(sim), qa, (size_t)nq * sizeof(double));
  assert_memory_equal(hg_sim_v(sim), va, (size_t)nv * sizeof(double));
  long nb = hg_test_resumed_tail(dir_a, dir_b);
  assert_true(nb > 0);
  printf("# %-12s resumed from checkpoint %d: final state and %ld bytes of trajectory "
         "identical\n", label, k, nb);
  hg_sim_free(sim);
  hg_test_remove_dir(dir_b);
}

const hg_sim_event *hg_test_apply(hg_sim *sim, const char *text) {
  hg_command c;
  hg_error err;
  if (hg_sim_parse_command(sim, text, &c, &err)) fail_msg("'%s': %s", text, err.msg);
  if (hg_sim_command(sim, &c)) fail_msg("'%s': %s", text, hg_sim_error(sim));
  hg_command_free(&c);
  return hg_sim_event_at(sim, hg_sim_nevents(sim) - 1);
}
