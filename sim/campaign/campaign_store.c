/* campaign_store.c: the results of a campaign's finished runs, held as they are read from the
 * journals (campaign.h). */
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "grow.h"

int hg_campaign_results_init(hg_campaign_results *res, const hg_campaign *c) {
  memset(res, 0, sizeof *res);
  res->ndisp = c->ndisp, res->nmetric = c->nmetric;
  res->done = calloc((size_t)c->runs, 1);
  return res->done ? 0 : -1;
}

hg_run_result *hg_campaign_results_slot(hg_campaign_results *res, int k) {
  /* cover runs n .. k, doubling: the reallocations stay logarithmic in the runs read */
  while (k >= res->n) {
    void *arr = res->r;
    int n = res->n, cap = res->n;
    if (hg_grow(&arr, n, &cap, 64, sizeof *res->r)) return NULL;
    res->r = arr;
    memset(res->r + n, 0, (size_t)(cap - n) * sizeof *res->r);
    res->n = cap;
  }
  hg_run_result *r = &res->r[k];
  if (!r->param) {
    if (!(r->param = calloc((size_t)(res->ndisp + res->nmetric) + 1, sizeof(double))))
      return NULL;
    r->metric = r->param + res->ndisp;
  }
  return r;
}

void hg_campaign_results_clear(hg_campaign_results *res, const hg_campaign *c) {
  memset(res->done, 0, (size_t)c->runs);
}

void hg_campaign_results_free(hg_campaign_results *res) {
  for (int k = 0; k < res->n; k++) free(res->r[k].param);
  free(res->r);
  free(res->done);
  memset(res, 0, sizeof *res);
}
