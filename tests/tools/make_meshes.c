/* make_meshes.c: writes the shipped meshes (assets/NAME.obj) and the generated test meshes
 * (tests/data/meshes_test/house*.stl, truncated.stl). Not part of the build; from the repository
 * root:
 *   cc -std=c11 -O2 -Wall -Wextra -o /tmp/make_meshes tests/tools/make_meshes.c -lm
 *   /tmp/make_meshes .
 * Every mesh is closed and counter-clockwise seen from outside; units are metres.
 *   capsule.obj       entry capsule: spherical heat shield (radius 6 m), toroidal shoulder (0.2 m),
 *                     conical back shell (32.5 deg half-angle) and a tangent spherical apex;
 *                     5 m diameter, nose at the origin, axis +z (towards the apex)
 *   heat_shield.obj   spherical-section disc of constant thickness 0.3 m (outer radius 6 m),
 *                     5 m diameter, radial rim, nose at the origin, axis +z
 *   bus.obj           spacecraft bus: 1.5 x 1.5 x 2 m box (z long) with 0.08 m chamfers, centred
 *   docking_ring.obj  docking-port ring: radii 0.40 to 0.55 m, 0.25 m tall, chamfered top edges,
 *                     base on z = 0, axis +z */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HG_PI 3.14159265358979323846
#define MAXV 8192
#define MAXF 8192
#define MAXC 8 /* corners per face */

/* a polygon mesh being built */
typedef struct gen_mesh {
  int nv, nf;
  double v[MAXV][3];
  int nc[MAXF];
  int f[MAXF][MAXC];
} gen_mesh;

/* a profile point (r, z) in the meridian half-plane */
typedef struct gen_pt {
  double r, z;
} gen_pt;

static gen_mesh g_mesh;

/* ---- building ---- */

/* appends a vertex, returns its index */
static int add_vert(gen_mesh *m, double x, double y, double z) {
  if (m->nv == MAXV) {
    fprintf(stderr, "too many vertices\n");
    exit(1);
  }
  m->v[m->nv][0] = x;
  m->v[m->nv][1] = y;
  m->v[m->nv][2] = z;
  return m->nv++;
}

/* appends a face of n corners */
static void add_face(gen_mesh *m, int n, const int *c) {
  if (m->nf == MAXF || n > MAXC) {
    fprintf(stderr, "too many faces\n");
    exit(1);
  }
  m->nc[m->nf] = n;
  memcpy(m->f[m->nf++], c, (size_t)n * sizeof *c);
}

/* the ring of nseg vertices of profile point p (one vertex on the axis) */
static int add_ring(gen_mesh *m, gen_pt p, int nseg) {
  if (p.r == 0) return add_vert(m, 0, 0, p.z);
  int first = m->nv;
  for (int j = 0; j < nseg; j++) {
    double a = 2 * HG_PI * j / nseg;
    add_vert(m, p.r * cos(a), p.r * sin(a), p.z);
  }
  return first;
}

/* the band between rings i and k (base indices, each possibly a single axis vertex) */
static void add_band(gen_mesh *m, int i, int iax, int k, int kax, int nseg) {
  for (int j = 0; j < nseg; j++) {
    int jn = (j + 1) % nseg;
    int a = iax ? i : i + j, b = iax ? i : i + jn, c = kax ? k : k + jn, d = kax ? k : k + j;
    int q[4] = {a, b, c, d}, t1[3] = {a, c, d}, t2[3] = {a, b, c};
    /* quad a b c d, or the triangle left when one side sits on the axis */
    if (iax)
      add_face(m, 3, t1);
    else if (kax)
      add_face(m, 3, t2);
    else
      add_face(m, 4, q);
  }
}

/* surface of revolution about z of a profile counter-clockwise in the (r, z) half-plane: from
 * axis to axis (ends with r = 0), or a closed loop (loop = 1, no point on the axis) */
static void revolve(gen_mesh *m, const gen_pt *p, int np, int nseg, int loop) {
  int base[256];
  for (int i = 0; i < np; i++) base[i] = add_ring(m, p[i], nseg);
  for (int i = 0; i + 1 < np; i++)
    add_band(m, base[i], p[i].r == 0, base[i + 1], p[i + 1].r == 0, nseg);
  if (loop) add_band(m, base[np - 1], 0, base[0], 0, nseg);
}

/* appends n points of the arc of centre (cr, cz), radius rad, outward-normal angle psi (from -z,
 * normal (sin psi, -cos psi)) from a to b, leaving out the first point when skip_first */
static int arc(gen_pt *p, int np, double cr, double cz, double rad, double a, double b, int n,
               int skip_first) {
  for (int i = skip_first; i <= n; i++) {
    double psi = a + (b - a) * i / n;
    p[np].r = cr + rad * sin(psi);
    p[np].z = cz - rad * cos(psi);
    if (fabs(p[np].r) < 1e-12) p[np].r = 0;
    np++;
  }
  return np;
}

/* appends n points of the segment from a to b, leaving out a */
static int segment(gen_pt *p, int np, gen_pt a, gen_pt b, int n) {
  for (int i = 1; i <= n; i++) {
    p[np].r = a.r + (b.r - a.r) * i / n;
    p[np].z = a.z + (b.z - a.z) * i / n;
    np++;
  }
  return np;
}

/* ---- the meshes ---- */

/* entry capsule: heat shield sphere, shoulder torus, back-shell cone, apex sphere (all tangent) */
static void make_capsule(gen_mesh *m) {
  const double R = 2.5, Rn = 6.0, rs = 0.2, beta = 32.5 * HG_PI / 180, rtop = 1.0;
  gen_pt p[128];
  double phi = asin((R - rs) / (Rn - rs)), zc = Rn - (Rn - rs) * cos(phi);
  int np = arc(p, 0, 0, Rn, Rn, 0, phi, 14, 0);
  np = arc(p, np, R - rs, zc, rs, phi, HG_PI / 2 + beta, 8, 1);
  /* the cone up to radius rtop, then a sphere tangent to it closing on the axis */
  gen_pt a = p[np - 1], b = {rtop, a.z + (a.r - rtop) / tan(beta)};
  np = segment(p, np, a, b, 10);
  double Rc = rtop / cos(beta);
  np = arc(p, np, 0, b.z - Rc * sin(beta), Rc, HG_PI / 2 + beta, HG_PI, 8, 1);
  revolve(m, p, np, 64, 0);
}

/* heat shield: constant-thickness spherical shell sector with a radial rim */
static void make_heat_shield(gen_mesh *m) {
  const double R = 2.5, Rn = 6.0, t = 0.3;
  gen_pt p[64];
  double psi = asin(R / Rn);
  int np = arc(p, 0, 0, Rn, Rn, 0, psi, 16, 0);
  np = arc(p, np, 0, Rn, Rn - t, psi, 0, 16, 0);
  revolve(m, p, np, 64, 0);
}

/* docking ring: rectangular section with 45-degree chamfers on both top edges */
static void make_docking_ring(gen_mesh *m) {
  static const gen_pt p[6] = {{0.40, 0},    {0.55, 0},    {0.55, 0.21},
                              {0.51, 0.25}, {0.44, 0.25}, {0.40, 0.21}};
  revolve(m, p, 6, 96, 1);
}

/* the corner point of a chamfered box: coordinate k at the full half-extent, the others inset */
static int chamfer_vert(const int *idx, int k, const int s[3]) {
  return idx[((s[0] > 0) * 4 + (s[1] > 0) * 2 + (s[2] > 0)) * 3 + k];
}

/* orders the corners of a face of a convex body centred at the origin counter-clockwise seen
 * from outside (by angle about the direction to the face centre) */
static void order_face(const gen_mesh *m, int n, int *c) {
  double ctr[3] = {0, 0, 0}, u[3], w[3], ang[MAXC];
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) ctr[k] += m->v[c[i]][k] / n;
  /* a basis (u, w) of the face plane with u x w along ctr */
  for (int k = 0; k < 3; k++) u[k] = m->v[c[0]][k] - ctr[k];
  w[0] = ctr[1] * u[2] - ctr[2] * u[1];
  w[1] = ctr[2] * u[0] - ctr[0] * u[2];
  w[2] = ctr[0] * u[1] - ctr[1] * u[0];
  for (int i = 0; i < n; i++) {
    double d[3], x = 0, y = 0;
    for (int k = 0; k < 3; k++) d[k] = m->v[c[i]][k] - ctr[k];
    for (int k = 0; k < 3; k++) {
      x += d[k] * u[k];
      y += d[k] * w[k];
    }
    ang[i] = atan2(y, x);
  }
  /* insertion sort by angle */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && ang[j] < ang[j - 1]; j--) {
      double ta = ang[j];
      ang[j] = ang[j - 1];
      ang[j - 1] = ta;
      int tc = c[j];
      c[j] = c[j - 1];
      c[j - 1] = tc;
    }
}

/* spacecraft bus: box with every edge and corner chamfered (6 + 12 rectangles, 8 triangles) */
static void make_bus(gen_mesh *m) {
  const double a[3] = {0.75, 0.75, 1.0}, ch = 0.08;
  int idx[24];
  /* 24 points: per octant, one per axis */
  for (int o = 0; o < 8; o++) {
    int s[3] = {o & 4 ? 1 : -1, o & 2 ? 1 : -1, o & 1 ? 1 : -1};
    for (int k = 0; k < 3; k++) {
      double x[3];
      for (int l = 0; l < 3; l++) x[l] = s[l] * (l == k ? a[l] : a[l] - ch);
      idx[3 * o + k] = add_vert(m, x[0], x[1], x[2]);
    }
  }
  /* main faces: axis k, side sk: the points with coordinate k full */
  for (int k = 0; k < 3; k++)
    for (int sk = -1; sk <= 1; sk += 2) {
      int c[4], n = 0;
      for (int o = 0; o < 8; o++) {
        int s[3] = {o & 4 ? 1 : -1, o & 2 ? 1 : -1, o & 1 ? 1 : -1};
        if (s[k] == sk) c[n++] = chamfer_vert(idx, k, s);
      }
      order_face(m, 4, c);
      add_face(m, 4, c);
    }
  /* edge faces: along axis k at signs (si, sj) of the other two axes */
  for (int k = 0; k < 3; k++)
    for (int e = 0; e < 4; e++) {
      int i = (k + 1) % 3, j = (k + 2) % 3, c[4], n = 0;
      for (int sk = -1; sk <= 1; sk += 2) {
        int s[3];
        s[k] = sk;
        s[i] = e & 1 ? 1 : -1;
        s[j] = e & 2 ? 1 : -1;
        c[n++] = chamfer_vert(idx, i, s);
        c[n++] = chamfer_vert(idx, j, s);
      }
      order_face(m, 4, c);
      add_face(m, 4, c);
    }
  /* corner triangles */
  for (int o = 0; o < 8; o++) {
    int c[3] = {idx[3 * o], idx[3 * o + 1], idx[3 * o + 2]};
    order_face(m, 3, c);
    add_face(m, 3, c);
  }
}

/* test body with float-exact coordinates: a 2 x 1 x 1 box with a ridge roof 0.5 high, moved off
 * the origin (volume 2.5 m^3) */
static void make_house(gen_mesh *m) {
  static const double prof[5][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1.5}, {0, 1}}; /* (x, z) */
  const double off[3] = {0.5, -0.25, 1.0};
  int c0[5], c1[5];
  for (int i = 0; i < 5; i++) {
    c0[i] = add_vert(m, prof[i][0] + off[0], 0 + off[1], prof[i][1] + off[2]);
    c1[i] = add_vert(m, prof[i][0] + off[0], 1 + off[1], prof[i][1] + off[2]);
  }
  /* gables: counter-clockwise in (x, z) faces -y, so the y = 1 one is reversed */
  int front[5] = {c0[0], c0[1], c0[2], c0[3], c0[4]}, back[5] = {c1[4], c1[3], c1[2], c1[1], c1[0]};
  add_face(m, 5, front);
  add_face(m, 5, back);
  for (int i = 0; i < 5; i++) {
    int k = (i + 1) % 5, q[4] = {c0[i], c1[i], c1[k], c0[k]};
    add_face(m, 4, q);
  }
}

/* ---- writing ---- */

/* a number with at most 6 decimals, trailing zeros removed */
static void put_num(FILE *f, double x) {
  char s[64];
  if (fabs(x) < 5e-7) x = 0;
  snprintf(s, sizeof s, "%.6f", x);
  char *e = s + strlen(s) - 1;
  while (*e == '0') *e-- = '\0';
  if (*e == '.') *e = '\0';
  fprintf(f, " %s", s);
}

/* Wavefront OBJ with polygon faces */
static void write_obj(const gen_mesh *m, const char *path, const char *name, const char *what) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  fprintf(f, "# %s\n", what);
  fprintf(f, "# generated by tests/tools/make_meshes.c; metres, counter-clockwise seen from "
             "outside\n");
  fprintf(f, "o %s\n", name);
  for (int i = 0; i < m->nv; i++) {
    fputc('v', f);
    for (int k = 0; k < 3; k++) put_num(f, m->v[i][k]);
    fputc('\n', f);
  }
  for (int i = 0; i < m->nf; i++) {
    fputc('f', f);
    for (int k = 0; k < m->nc[i]; k++) fprintf(f, " %d", m->f[i][k] + 1);
    fputc('\n', f);
  }
  fclose(f);
  printf("%s: %d vertices, %d faces\n", path, m->nv, m->nf);
}

/* unit normal of triangle (a, b, c) */
static void tri_normal(const double *a, const double *b, const double *c, double n[3]) {
  double u[3], w[3];
  for (int k = 0; k < 3; k++) {
    u[k] = b[k] - a[k];
    w[k] = c[k] - a[k];
  }
  n[0] = u[1] * w[2] - u[2] * w[1];
  n[1] = u[2] * w[0] - u[0] * w[2];
  n[2] = u[0] * w[1] - u[1] * w[0];
  double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (int k = 0; k < 3; k++) n[k] /= l;
}

/* ASCII STL, faces fan-triangulated */
static void write_stl_ascii(const gen_mesh *m, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  fprintf(f, "solid house\n");
  for (int i = 0; i < m->nf; i++)
    for (int t = 1; t + 1 < m->nc[i]; t++) {
      const double *c[3] = {m->v[m->f[i][0]], m->v[m->f[i][t]], m->v[m->f[i][t + 1]]};
      double n[3];
      tri_normal(c[0], c[1], c[2], n);
      fprintf(f, "  facet normal %g %g %g\n    outer loop\n", n[0], n[1], n[2]);
      for (int k = 0; k < 3; k++)
        fprintf(f, "      vertex %.9g %.9g %.9g\n", c[k][0], c[k][1], c[k][2]);
      fprintf(f, "    endloop\n  endfacet\n");
    }
  fprintf(f, "endsolid house\n");
  fclose(f);
}

/* little-endian 32-bit word */
static void put_u32(FILE *f, unsigned long u) {
  for (int k = 0; k < 4; k++) fputc((int)((u >> (8 * k)) & 0xff), f);
}

/* little-endian IEEE single */
static void put_f32(FILE *f, double x) {
  float v = (float)x;
  unsigned char b[4];
  unsigned long u;
  memcpy(b, &v, 4); /* host order; assumed little-endian like every supported target */
  u = (unsigned long)b[0] | (unsigned long)b[1] << 8 | (unsigned long)b[2] << 16 |
      (unsigned long)b[3] << 24;
  put_u32(f, u);
}

/* binary STL of the first keep facets, claiming all of them; keep_bytes of one more facet */
static void write_stl_binary(const gen_mesh *m, const char *path, int keep, int extra_bytes) {
  FILE *f = fopen(path, "wb");
  int nt = 0;
  if (!f) {
    perror(path);
    exit(1);
  }
  for (int i = 0; i < m->nf; i++) nt += m->nc[i] - 2;
  char head[80] = "binary STL of the house test body, from tests/tools/make_meshes.c";
  fwrite(head, 1, 80, f);
  put_u32(f, (unsigned long)nt);
  int written = 0;
  /* each facet: normal, three corners, attribute */
  for (int i = 0; i < m->nf; i++)
    for (int t = 1; t + 1 < m->nc[i]; t++, written++) {
      const double *c[3] = {m->v[m->f[i][0]], m->v[m->f[i][t]], m->v[m->f[i][t + 1]]};
      double n[3];
      if (written == keep) break;
      tri_normal(c[0], c[1], c[2], n);
      for (int k = 0; k < 3; k++) put_f32(f, n[k]);
      for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++) put_f32(f, c[v][k]);
      fputc(0, f);
      fputc(0, f);
    }
  for (int k = 0; k < extra_bytes; k++) fputc(0, f);
  fclose(f);
}

/* path = root/rel */
static const char *at(const char *root, const char *rel) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/%s", root, rel);
  return buf;
}

/* the assets: how each is made, its file, its object name and its description */
static const struct {
  void (*make)(gen_mesh *m);
  const char *path, *name, *what;
} assets[] = {
    {make_capsule, "assets/capsule.obj", "capsule",
     "entry capsule: 5 m diameter, heat-shield nose at the origin, axis +z to the apex"},
    {make_heat_shield, "assets/heat_shield.obj", "heat_shield",
     "heat shield: 5 m diameter, 0.3 m thick, outer nose at the origin, axis +z"},
    {make_bus, "assets/bus.obj", "bus",
     "spacecraft bus: 1.5 x 1.5 x 2 m (z long), 0.08 m chamfers, centred on the origin"},
    {make_docking_ring, "assets/docking_ring.obj", "docking_ring",
     "docking ring: radii 0.40-0.55 m, 0.25 m tall, base on z = 0, axis +z"},
};

int main(int argc, char **argv) {
  const char *root = argc > 1 ? argv[1] : ".";
  gen_mesh *m = &g_mesh;
  for (size_t k = 0; k < sizeof assets / sizeof assets[0]; k++) {
    memset(m, 0, sizeof *m);
    assets[k].make(m);
    write_obj(m, at(root, assets[k].path), assets[k].name, assets[k].what);
  }
  /* test data: one body as ASCII and binary STL, and a truncated binary STL */
  memset(m, 0, sizeof *m);
  make_house(m);
  write_stl_ascii(m, at(root, "tests/data/meshes_test/house.stl"));
  write_stl_binary(m, at(root, "tests/data/meshes_test/house_binary.stl"), 1 << 30, 0);
  write_stl_binary(m, at(root, "tests/data/meshes_test/truncated.stl"), 5, 20);
  return 0;
}
