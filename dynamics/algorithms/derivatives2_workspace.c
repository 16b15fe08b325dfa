/* derivatives2_workspace.c: the workspace of the second-order derivatives (derivatives2.h),
 * allocated once per model: the scratch of the inverse-dynamics recursion (derivatives2.c), of
 * the forward- and hybrid-dynamics identities (derivatives2_forward.c) and of the sums over the
 * output (derivatives2_contract.c), and the lists the latter two read, made here from the
 * tree: each DoF's path (the factors L^T D L), R(m) and the unions of R(m) over blocks of eight
 * columns (the products with M^-1). */

#include <stdlib.h>

#include "derivatives2.h"

/* w->rel: R(m) per DoF m, the DoFs l on m's path from the root or with m on theirs (m itself
 * and its joint's other DoFs among them). Column m of a slice that -M^-1 multiplies is zero off
 * R(m) (off R(m) and R(k) in slice k of d2qdd/dq2's right-hand side), so the products read
 * only those rows of it; w->bidx: the union of R(m) over each block of eight columns from j */
static int related_lists(const hg_model *m, hg_deriv2 *w) {
  size_t n = (size_t)m->nv;
  char *r = calloc(n * n + 1, 1);
  w->roff = calloc(n + 1, sizeof(int));
  w->boff = calloc(n + 1, sizeof(int));
  if (!r || !w->roff || !w->boff) {
    free(r);
    return -1;
  }
  for (size_t l = 0; l < n; l++) {
    r[l * n + l] = 1;
    for (int t = w->poff[l]; t < w->poff[l + 1]; t++)
      r[l * n + (size_t)w->path[t]] = r[(size_t)w->path[t] * n + l] = 1;
  }
  size_t nr = 0, nb = 0;
  for (size_t c = 0; c < n * n; c++) nr += (size_t)r[c];
  w->rel = calloc(nr + 1, sizeof(int));
  for (size_t j = 0; j < n; j++)
    for (size_t c = 0; c < n; c++) {
      int any = 0;
      for (size_t x = j; x < j + 8 && x < n; x++) any |= r[x * n + c];
      nb += (size_t)any;
    }
  w->bidx = calloc(nb + 1, sizeof(int));
  if (!w->rel || !w->bidx) {
    free(r);
    return -1;
  }
  nr = nb = 0;
  for (size_t j = 0; j < n; j++) {
    w->roff[j] = (int)nr, w->boff[j] = (int)nb;
    for (size_t c = 0; c < n; c++) {
      int any = 0;
      for (size_t x = j; x < j + 8 && x < n; x++) any |= r[x * n + c];
      if (r[j * n + c]) w->rel[nr++] = (int)c;
      if (any) w->bidx[nb++] = (int)c;
    }
  }
  w->roff[n] = (int)nr, w->boff[n] = (int)nb;
  free(r);
  return 0;
}

/* the forward half's lists, once per model: each DoF's path (lam, poff, path), R(m) and the
 * blocks' unions (roff, rel, boff, bidx), and the choice of the factors L^T D L (ltdl). Returns
 * -1 when out of memory. */
static int forward_lists(const hg_model *m, hg_deriv2 *w) {
  /* lam[k]: the DoF before k on its path from the root (the one before it in its joint, else
   * the last of the nearest ancestor joint with DoFs), -1 at the root; nnz: the entries of L */
  long nnz = 0;
  for (int k = 0; k < m->nv; k++) {
    int i = m->dof_body[k], p = m->parent[i];
    while (p > 0 && m->jnt_nv[p] == 0) p = m->parent[p];
    w->lam[k] = k > m->v_adr[i] ? k - 1 : p > 0 ? m->v_adr[p] + m->jnt_nv[p] - 1 : -1;
    w->poff[k] = (int)nnz;
    for (int j = w->lam[k]; j >= 0; j = w->lam[j]) nnz++;
  }
  w->poff[m->nv] = (int)nnz;
  /* each DoF's path as a list (the solves' inner loops run over it), and L's entries along it */
  w->path = calloc((size_t)nnz + 1, sizeof(int));
  w->Lp = calloc((size_t)nnz + 1, sizeof(double));
  if (!w->path || !w->Lp) return -1;
  for (int k = 0; k < m->nv; k++) {
    int t = w->poff[k];
    for (int j = w->lam[k]; j >= 0; j = w->lam[j]) w->path[t++] = j;
  }
  if (related_lists(m, w)) return -1;
  /* -M^-1 X by the factors costs 2 nnz + nv FMAs a column, by the product with M^-1 nv FMAs per
   * row of the column's block that it reads (w->bidx); the sweeps take about twice the
   * instructions per FMA of the product's register blocks. D2FD's instructions a call, products
   * against factors, with the rule's two sides: humanoid32 (992, 630) 4.1e6 against 4.5e6;
   * tree15 (166, 154) 6.0e5 against 6.2e5; tree63 (1158, 1290) 2.4e7 against 2.1e7 */
  long rows = 0;
  for (int j = 0; j < m->nv; j++) rows += w->boff[j + 1] - w->boff[j];
  w->ltdl = 2 * (2 * nnz + m->nv) < rows;
  return 0;
}

hg_deriv2 *hg_deriv2_new(const hg_model *m) {
  hg_deriv2 *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  size_t nv = (size_t)m->nv, nb = (size_t)m->nbody, n1 = 6 * nv + 1, n3 = nv * nv * nv + 1;
  w->nv = m->nv;
  w->nbody = m->nbody;
  double **dof[] = {&w->nu, &w->al, &w->mu};
  double **body36[] = {&w->Ic, &w->Bc, &w->BcT};
  double **sq[] = {&w->aq, &w->av, &w->Minv, &w->au, &w->cP, &w->cG, &w->cT, &w->fill};
  double **cube[] = {&w->t_qq, &w->t_vv, &w->t_qv, &w->X};
  int ok = 1;
  for (size_t k = 0; k < sizeof dof / sizeof *dof; k++)
    ok &= !!(*dof[k] = calloc(n1, sizeof(double)));
  for (size_t k = 0; k < sizeof body36 / sizeof *body36; k++)
    ok &= !!(*body36[k] = calloc(36 * nb, sizeof(double)));
  for (size_t k = 0; k < sizeof sq / sizeof *sq; k++)
    ok &= !!(*sq[k] = calloc(nv * nv + 1, sizeof(double)));
  for (size_t k = 0; k < sizeof cube / sizeof *cube; k++)
    ok &= !!(*cube[k] = calloc(n3, sizeof(double)));
  ok &= !!(w->tau = calloc(nv + 1, sizeof(double)));
  ok &= !!(w->soa = calloc(6 * 4 * nv + 4, sizeof(double))); /* + 3: the lane sweeps' reads */
  ok &= !!(w->qdd = calloc(nv + 1, sizeof(double)));
  ok &= !!(w->idx = calloc(nv + 1, sizeof(int)));
  ok &= !!(w->cis = calloc(n1, sizeof(double)));
  ok &= !!(w->U = calloc(4 * nv * nv + 1, sizeof(double)));
  ok &= !!(w->H = calloc(nv * nv + 1, sizeof(double)));
  ok &= !!(w->lam = calloc(nv + 1, sizeof(int)));
  ok &= !!(w->poff = calloc(nv + 1, sizeof(int)));
  ok &= !!(w->dneg = calloc(nv + 1, sizeof(double)));
  ok &= !!(w->cmu = calloc(2 * nv + 1, sizeof(double)));
  /* blocks of four lanes, 32-byte aligned */
  double **lane[] = {&w->cu, &w->cq, &w->ca, &w->cf};
  size_t nlane[] = {nv + 1, nv + 1, nb, nb};
  for (size_t k = 0; k < 4; k++)
    ok &= !!(*lane[k] = aligned_alloc(32, 24 * nlane[k] * sizeof(double)));
  ok &= !!(w->w1 = hg_deriv_new(m));
  if (!ok) {
    hg_deriv2_free(w);
    return NULL;
  }
  if (forward_lists(m, w)) {
    hg_deriv2_free(w);
    return NULL;
  }
  return w;
}

void hg_deriv2_free(hg_deriv2 *w) {
  if (!w) return;
  double *p[] = {w->nu, w->al, w->mu, w->Ic, w->Bc, w->BcT, w->tau, w->qdd, w->aq, w->av,
                 w->Minv, w->t_qq, w->t_vv, w->t_qv, w->X, w->soa, w->au,
                 w->cis, w->cu, w->cq, w->ca, w->cf, w->H, w->U, w->Lp, w->dneg,
                 w->cP, w->cG, w->cT, w->cmu, w->fill};
  for (size_t k = 0; k < sizeof p / sizeof *p; k++) free(p[k]);
  free(w->idx);
  int *ip[] = {w->roff, w->rel, w->boff, w->bidx};
  for (size_t k = 0; k < sizeof ip / sizeof *ip; k++) free(ip[k]);
  free(w->lam);
  free(w->poff);
  free(w->path);
  hg_deriv_free(w->w1);
  free(w);
}
