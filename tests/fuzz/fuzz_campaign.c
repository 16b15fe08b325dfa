/* fuzz_campaign.c: Monte Carlo campaign files (docs/montecarlo.md) on any bytes. The input is
 * written as scenes/campaigns/fuzz.yaml inside a folder that mirrors the source tree's scenes/
 * by symbolic links, so the scenes the seed campaigns name (../heatshield.yaml, ...) are found.
 * A campaign that reads makes its first two runs as hinge mc does (each draw's overrides
 * written into the scene's text, the scene read again and run, its metrics sampled), cut to
 * 0.1 s of simulated time and 2 s of wall time each so that an input stays short; their rows go
 * through a journal, which is read back, and into runs.csv and summary.txt. */
#include <stdlib.h>
#include <sys/stat.h>

#include "campaign.h"
#include "fuzz_common.h"
#include "scene.h"

/* the mirror folder (made on the first call): DIR/scenes holds links to the entries of scenes/,
 * and DIR/scenes/campaigns links to the campaigns beside a real fuzz.yaml */
static const char *mirror(void) {
  static char dir[200];
  char scenes[220], campaigns[240];
  if (dir[0]) return dir;
  snprintf(dir, sizeof dir, "/tmp/hinge_fuzz_%ld_campaign", (long)getpid());
  snprintf(scenes, sizeof scenes, "%s/scenes", dir);
  snprintf(campaigns, sizeof campaigns, "%s/campaigns", scenes);
  mkdir(dir, 0700);
  mkdir(scenes, 0700);
  mkdir(campaigns, 0700);
  fuzz_link_entries(FUZZ_SCENES, scenes, "campaigns");
  fuzz_link_entries(FUZZ_SCENES "/campaigns", campaigns, NULL);
  return dir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[300], journal[300];
  hg_error err;
  const char *dir = mirror();
  snprintf(path, sizeof path, "%s/scenes/campaigns/fuzz.yaml", dir);
  snprintf(journal, sizeof journal, "%s/journal.txt", dir);
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  if (size) fwrite(data, 1, size, f);
  fclose(f);
  hg_campaign *c = hg_campaign_load(path, &err);
  if (!c) return 0;
  /* a scene whose controllers include an external one would run a shell command, and a library
   * one would load whatever file it names: such a campaign is read, never run (a dispersion
   * changes numbers only, never a controller's type) */
  hg_scene *s = hg_scene_load_text(c->scene, c->scene_text, c->scene_len, NULL, 0, &err);
  int own = s != NULL;
  for (int k = 0; s && k < s->ncontroller; k++)
    own &= s->controller[k].type != HG_CTL_EXTERNAL && s->controller[k].type != HG_CTL_LIBRARY;
  hg_scene_free(s);
  if (!own) {
    hg_campaign_free(c);
    return 0;
  }
  c->t_end = 0.1;
  c->max_wall = 2;
  int runs = c->runs < 2 ? c->runs : 2;
  hg_campaign_results res;
  FILE *jf = fopen(journal, "w");
  if (jf && hg_campaign_results_init(&res, c) == 0) {
    double *buf = malloc(sizeof(double) * (size_t)(c->ndisp + c->nmetric + 1));
    for (int k = 0; buf && k < runs; k++) {
      hg_run_result r = {.param = buf, .metric = buf + c->ndisp};
      hg_campaign_run_one(c, k, NULL, &r);
      hg_campaign_format_row(c, &r, jf);
    }
    free(buf);
    fclose(jf), jf = NULL;
    if (hg_campaign_read_journal(c, journal, &res, &err) >= 0)
      hg_campaign_write_results(c, res.r, res.done, dir, &err);
    hg_campaign_results_free(&res);
  }
  if (jf) fclose(jf);
  hg_campaign_free(c);
  return 0;
}
