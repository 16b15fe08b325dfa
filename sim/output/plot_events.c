/* plot_events.c: the run's events as the plots mark them (run_outputs.h), for plot.c and
 * control_out.c alike. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run_outputs.h"

void hg_out_events(hg_sim *s, hg_run_events *ev) {
  ev->n = 0;
  for (int k = 0; k < hg_sim_nevents(s); k++) {
    const hg_sim_event *e = hg_sim_event_at(s, k);
    int last = ev->n - 1;
    if (last >= 0 && fabs(e->t - ev->t[last]) <= 1e-9 * fmax(1, fabs(e->t))) {
      size_t len = strlen(ev->name[last]);
      snprintf(ev->name[last] + len, sizeof ev->name[last] - len, ", %s", e->name);
      continue;
    }
    if (ev->n == HG_OUT_MAXEVENTS) break;
    ev->t[ev->n] = e->t;
    snprintf(ev->name[ev->n], sizeof ev->name[0], "%s", e->name);
    ev->names[ev->n] = ev->name[ev->n];
    ev->n++;
  }
}
