/* progress.c: a progress bar on a terminal, redrawn at most ten times a second while a run
 * advances (the outputs' progress callback). */
#include "run_outputs.h"

void hg_out_progress(void *user, hg_sim *s, int final) {
  hg_outputs *o = user;
  FILE *f = o->opt.progress;
  double now = hg_sim_clock(), t = hg_sim_time(s), t0 = hg_sim_t_start(s), t1 = hg_sim_t_end(s);
  if (!final && now - o->progress_wall < 0.1) return;
  o->progress_wall = now;
  double frac = (t - t0) / (t1 - t0);
  int n = (int)(frac * 30 + 0.5);
  char bar[31];
  for (int k = 0; k < 30; k++) bar[k] = k < n ? '#' : '.';
  bar[30] = 0;
  fprintf(f, "\r[%s] %3.0f%%  t = %.4g / %.4g s  events %d", bar, 100 * frac, t, t1,
          hg_sim_nevents(s));
  if (final) fputc('\n', f);
  fflush(f);
}
