/* mesh.c: triangle meshes (mesh.h): welding, transforms, closedness checks and the exact mass
 * properties of the solid a mesh bounds. */
#include "mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* index pairs of the symmetric 3x3 storage (xx yy zz xy xz yz) */
static const int hg_sym_row[6] = {0, 1, 2, 0, 0, 1}, hg_sym_col[6] = {0, 1, 2, 1, 2, 2};

void hg_mesh_free(hg_mesh *m) {
  if (!m) return;
  free(m->vert);
  free(m->tri);
  memset(m, 0, sizeof *m);
}

/* ---- welding (vertices with exactly equal coordinates) ---- */

typedef struct weld_key {
  double x[3];
  int i;
} weld_key;

/* lexicographic on the coordinates, then on the index */
static int weld_cmp(const void *pa, const void *pb) {
  const weld_key *a = pa, *b = pb;
  for (int k = 0; k < 3; k++)
    if (a->x[k] != b->x[k]) return a->x[k] < b->x[k] ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* rep[i] = the first vertex with exactly the coordinates of vertex i (new memory, nvert entries;
 * NULL when out of memory) */
static int *weld_map(const hg_mesh *m) {
  int n = m->nvert;
  weld_key *key = malloc((size_t)(n ? n : 1) * sizeof *key);
  int *rep = malloc((size_t)(n ? n : 1) * sizeof *rep);
  if (!key || !rep) {
    free(key);
    free(rep);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    memcpy(key[i].x, m->vert + 3 * i, sizeof key[i].x);
    key[i].i = i;
  }
  qsort(key, (size_t)n, sizeof *key, weld_cmp);
  /* each run of equal coordinates maps to its first (smallest) index */
  for (int k = 0, first = 0; k < n; k++) {
    const double *x = key[k].x, *y = key[first].x;
    if (x[0] != y[0] || x[1] != y[1] || x[2] != y[2]) first = k;
    rep[key[k].i] = key[first].i;
  }
  free(key);
  return rep;
}

int hg_mesh_weld(hg_mesh *m) {
  int *rep = weld_map(m), nv = 0, nt = 0;
  if (!rep) return -1;
  /* renumber the representatives in order, compacting the vertex array */
  for (int i = 0; i < m->nvert; i++) {
    if (rep[i] == i) {
      memmove(m->vert + 3 * nv, m->vert + 3 * i, 3 * sizeof(double));
      rep[i] = nv++;
    } else {
      rep[i] = rep[rep[i]];
    }
  }
  /* remap the triangles, keeping those with three distinct corners */
  for (int t = 0; t < m->ntri; t++) {
    int a = rep[m->tri[3 * t]], c1 = rep[m->tri[3 * t + 1]], c2 = rep[m->tri[3 * t + 2]];
    if (a == c1 || c1 == c2 || c2 == a) continue;
    m->tri[3 * nt] = a;
    m->tri[3 * nt + 1] = c1;
    m->tri[3 * nt + 2] = c2;
    nt++;
  }
  m->nvert = nv;
  m->ntri = nt;
  free(rep);
  return 0;
}

/* ---- geometry ---- */

void hg_mesh_scale(hg_mesh *m, const double s[3]) {
  for (int i = 0; i < m->nvert; i++)
    for (int k = 0; k < 3; k++) m->vert[3 * i + k] *= s[k];
  /* a mirror turns counter-clockwise into clockwise: swap two corners back */
  if (s[0] * s[1] * s[2] < 0)
    for (int t = 0; t < m->ntri; t++) {
      int tmp = m->tri[3 * t + 1];
      m->tri[3 * t + 1] = m->tri[3 * t + 2];
      m->tri[3 * t + 2] = tmp;
    }
}

void hg_mesh_transform(hg_mesh *m, const hg_se3 *T) {
  for (int i = 0; i < m->nvert; i++) {
    double y[3];
    hg_se3_apply(T, m->vert + 3 * i, y);
    memcpy(m->vert + 3 * i, y, sizeof y);
  }
}

void hg_mesh_bounds(const hg_mesh *m, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) lo[k] = hi[k] = m->nvert ? m->vert[k] : 0;
  for (int i = 1; i < m->nvert; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], m->vert[3 * i + k]);
      hi[k] = fmax(hi[k], m->vert[3 * i + k]);
    }
}

/* the mean of the vertices (zero for an empty mesh) */
static void mesh_centroid(const hg_mesh *m, double o[3]) {
  o[0] = o[1] = o[2] = 0;
  for (int i = 0; i < m->nvert; i++)
    for (int k = 0; k < 3; k++) o[k] += m->vert[3 * i + k];
  for (int k = 0; k < 3 && m->nvert; k++) o[k] /= m->nvert;
}

/* ---- closedness ---- */

typedef struct mesh_edge {
  int a, b, t; /* from vertex a to vertex b, in triangle t */
} mesh_edge;

/* by (a, b) */
static int edge_cmp(const void *pa, const void *pb) {
  const mesh_edge *x = pa, *y = pb;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  return (x->b > y->b) - (x->b < y->b);
}

/* indices in range and three distinct corners per triangle */
static int mesh_check_indices(const hg_mesh *m, hg_error *err) {
  if (m->ntri <= 0 || m->nvert <= 0) return hg_error_fail(err, "mesh has no triangles");
  for (int t = 0; t < m->ntri; t++) {
    const int *c = m->tri + 3 * t;
    for (int k = 0; k < 3; k++)
      if (c[k] < 0 || c[k] >= m->nvert)
        return hg_error_fail(err, "triangle %d: vertex index %d out of range (%d vertices)", t, c[k],
                         m->nvert);
    if (c[0] == c[1] || c[1] == c[2] || c[2] == c[0])
      return hg_error_fail(err, "triangle %d repeats a vertex (%d %d %d)", t, c[0], c[1], c[2]);
  }
  return 0;
}

/* every directed edge (sorted) once, and its reverse present */
static int mesh_check_edges(const mesh_edge *e, int n, hg_error *err) {
  for (int k = 0; k < n; k++) {
    mesh_edge rev = {e[k].b, e[k].a, 0};
    if (k > 0 && e[k].a == e[k - 1].a && e[k].b == e[k - 1].b)
      return hg_error_fail(err, "mesh is not closed and consistently oriented: triangles %d and %d both run "
                       "from vertex %d to vertex %d (non-manifold edge or flipped triangle)",
                       e[k - 1].t, e[k].t, e[k].a, e[k].b);
    if (!bsearch(&rev, e, (size_t)n, sizeof *e, edge_cmp))
      return hg_error_fail(
          err,
          "mesh is not closed and consistently oriented: the edge from vertex %d to "
          "vertex %d of triangle %d has no opposite edge (a hole or a flipped triangle)",
          e[k].a, e[k].b, e[k].t);
  }
  return 0;
}

int hg_mesh_check(const hg_mesh *m, hg_error *err) {
  if (mesh_check_indices(m, err)) return -1;
  int *rep = weld_map(m);
  mesh_edge *e = malloc(3 * (size_t)m->ntri * sizeof *e);
  if (!rep || !e) {
    free(rep);
    free(e);
    return hg_error_fail(err, "out of memory");
  }
  /* directed edges between welded vertices */
  for (int t = 0; t < m->ntri; t++)
    for (int k = 0; k < 3; k++) {
      mesh_edge *x = e + 3 * t + k;
      x->a = rep[m->tri[3 * t + k]];
      x->b = rep[m->tri[3 * t + (k + 1) % 3]];
      x->t = t;
    }
  qsort(e, 3 * (size_t)m->ntri, sizeof *e, edge_cmp);
  int rc = mesh_check_edges(e, 3 * m->ntri, err);
  free(rep);
  free(e);
  return rc;
}

/* ---- mass properties ----
 *
 * Derivation. Let a closed mesh with outward (counter-clockwise) triangles bound a solid B. For
 * any point o (taken as the origin here), the signed tetrahedra (o, a, b, c) over the triangles
 * (a, b, c) cover every point of B a net once and every point outside a net zero times (the
 * winding number of a closed oriented surface; equivalently the divergence theorem applied to
 * x f(x)/3 for homogeneous f), so any integral over B is the sum of the signed integrals over them.
 * Map the unit simplex S = {u >= 0, u1 + u2 + u3 <= 1} onto a tetrahedron by x = A u with
 * A = [a b c] (columns), dV = d du with d = det A = a . (b x c). The Dirichlet integrals
 * int_S u1^p u2^q u3^r du = p! q! r! / (p + q + r + 3)! give
 *   int_S 1 = 1/6,   int_S u_i = 1/24,   int_S u_i u_j = (1 + [i == j]) / 120,
 * hence, per tetrahedron, with s = a + b + c:
 *   V         = d / 6,
 *   int x dV  = d A (1, 1, 1)' / 24 = d s / 24,
 *   int xx'dV = d A (ones + eye) A' / 120 = d (s s' + a a' + b b' + c c') / 120.
 * Its diagonal is d/60 (a_p^2 + b_p^2 + c_p^2 + a_p b_p + b_p c_p + c_p a_p), the g(F) terms of
 * Kwon's eqs. (19), (22) with det(F) = d, and its off-diagonal d/120 sum_{i<=j} (v_ip v_jq +
 * v_iq v_jp), eq. (25) (whose minus sign makes tensor entries). In eq. (15) read
 * n_F = (v_j - v_i) x (v_k - v_i) and det(F) = det[v_i v_j v_k]; eq. (17) is the volume above,
 * since (v1 + v2 + v3) . n_F = 3 d, and eq. (20) is the face form of the first moment (per face it
 * differs from d s / 24, the totals agree).
 * With mass m = rho V, centre c = int x dV / V and C = rho (int xx'dV - V c c') about c, the
 * inertia about c is I_c = tr(C) eye - C. The sums run about the vertex centroid o (coordinates
 * x - o) so a mesh far from its frame origin loses no digits; hg_inertia_from_com then adds
 * m (|c|^2 eye - c c') for the inertia about the mesh frame origin. */

typedef struct mesh_moments {
  double v;    /* sum of d: 6 V */
  double f[3]; /* sum of d s: 24 int x dV */
  double s[6]; /* sum of d (s s' + a a' + b b' + c c'): 120 int xx'dV (xx yy zz xy xz yz) */
} mesh_moments;

/* adds the signed tetrahedron (0, a, b, c) */
static void mesh_tet_add(const double a[3], const double b[3], const double c[3], mesh_moments *M) {
  double bc[3], s[3];
  hg_v3_cross(b, c, bc);
  double d = hg_v3_dot(a, bc);
  for (int k = 0; k < 3; k++) s[k] = a[k] + b[k] + c[k];
  M->v += d;
  for (int k = 0; k < 3; k++) M->f[k] += d * s[k];
  for (int k = 0; k < 6; k++) {
    int p = hg_sym_row[k], q = hg_sym_col[k];
    M->s[k] += d * (s[p] * s[q] + a[p] * a[q] + b[p] * b[q] + c[p] * c[q]);
  }
}

/* sums over the triangles of the tetrahedra from o */
static void mesh_moments_sum(const hg_mesh *m, const double o[3], mesh_moments *M) {
  memset(M, 0, sizeof *M);
  for (int t = 0; t < m->ntri; t++) {
    double x[3][3];
    for (int c = 0; c < 3; c++)
      for (int k = 0; k < 3; k++) x[c][k] = m->vert[3 * m->tri[3 * t + c] + k] - o[k];
    mesh_tet_add(x[0], x[1], x[2], M);
  }
}

double hg_mesh_volume(const hg_mesh *m) {
  double o[3];
  mesh_moments M;
  mesh_centroid(m, o);
  mesh_moments_sum(m, o, &M);
  return M.v / 6;
}

/* I_c (xx yy zz xy xz yz) from the per-density moments about o: volume V, centre cr (relative to
 * o) and S = int x x' */
static void mesh_inertia_com(double density, double V, const double cr[3], const double S[6],
                             double Ic[6]) {
  double C[6];
  for (int k = 0; k < 6; k++) C[k] = density * (S[k] - V * cr[hg_sym_row[k]] * cr[hg_sym_col[k]]);
  double tr = C[0] + C[1] + C[2];
  for (int k = 0; k < 3; k++) Ic[k] = tr - C[k];
  for (int k = 3; k < 6; k++) Ic[k] = -C[k];
}

/* -1 with err unless the volume V is clearly positive for the mesh's size */
static int mesh_check_volume(const hg_mesh *m, double V, hg_error *err) {
  double lo[3], hi[3];
  hg_mesh_bounds(m, lo, hi);
  double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  if (V > 1e-12 * ext * ext * ext) return 0;
  return hg_error_fail(err, "mesh encloses a non-positive volume (%g m^3): inside out (triangles clockwise "
                   "seen from outside) or flat",
                   V);
}

int hg_mesh_mass_properties(const hg_mesh *m, double density, double *mass, double com[3],
                            double Ic[6], hg_error *err) {
  double o[3], cr[3], S[6];
  mesh_moments M;
  if (!(density > 0) || !isfinite(density))
    return hg_error_fail(err, "density must be positive and finite, got %g", density);
  if (hg_mesh_check(m, err)) return -1;
  mesh_centroid(m, o);
  mesh_moments_sum(m, o, &M);
  double V = M.v / 6;
  if (mesh_check_volume(m, V, err)) return -1;
  /* centre of mass and inertia about it, then the centre back in the mesh frame */
  for (int k = 0; k < 3; k++) cr[k] = M.f[k] / 24 / V;
  for (int k = 0; k < 6; k++) S[k] = M.s[k] / 120;
  mesh_inertia_com(density, V, cr, S, Ic);
  *mass = density * V;
  for (int k = 0; k < 3; k++) com[k] = cr[k] + o[k];
  char why[256];
  if (hg_inertia_validate(*mass, Ic, why, sizeof why))
    return hg_error_fail(err, "mesh gives an invalid inertia: %s", why);
  return 0;
}

int hg_mesh_inertia(const hg_mesh *m, double density, hg_inertia *out, hg_error *err) {
  double mass, c[3], Ic[6];
  char why[256];
  if (hg_mesh_mass_properties(m, density, &mass, c, Ic, err)) return -1;
  if (hg_inertia_from_com(mass, c, Ic, out, why, sizeof why))
    return hg_error_fail(err, "mesh gives an invalid inertia: %s", why);
  return 0;
}
