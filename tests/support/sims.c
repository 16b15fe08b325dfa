/* sims.c: scenes and simulations for the runtime's tests (sims.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "sims.h"

hg_scene *hg_test_scene(const char *path) {
  hg_error err;
  hg_scene *s = hg_scene_load(path, &err);
  if (!s) fail_msg("%s", err.msg);
  return s;
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

hg_sim *hg_test_sim(const hg_scene *s, double t_end, const char *out_dir) {
  hg_sim_options opt;
  hg_error err;
  hg_sim_default_options(&opt);
  opt.t_end = t_end;
  opt.out_dir = out_dir;
  opt.plots = 0;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  if (!sim) fail_msg("%s: %s", s->path, err.msg);
  return sim;
}

const hg_sim_event *hg_test_apply(hg_sim *sim, const char *text) {
  hg_command c;
  hg_error err;
  if (hg_sim_parse_command(sim, text, &c, &err)) fail_msg("'%s': %s", text, err.msg);
  if (hg_sim_command(sim, &c)) fail_msg("'%s': %s", text, hg_sim_error(sim));
  hg_command_free(&c);
  return hg_sim_event_at(sim, hg_sim_nevents(sim) - 1);
}
