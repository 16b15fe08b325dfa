/* test_mesh.c: triangle meshes: mass properties against closed forms (cube, box, tetrahedra,
 * regular prisms), convergence on tessellated spheres and cylinders, invariance under rigid
 * motion, OBJ and STL reading (quads, negative indices, ASCII = binary), rejection of open,
 * inside-out and malformed meshes with file:line, and the shipped assets. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hinge.h"
#include "mesh.h"
#include "models.h"

#define PI 3.14159265358979323846
#define DATA "data/meshes_test/"
#define ASSETS "../assets/"

/* ---- helpers, independent of hinge ---- */

static double max_diff(const double *a, const double *b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

static double max_abs(const double *a, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i]));
  return e;
}

/* a mesh owning copies of v (3 x nv) and t (3 x nt) */
static void mesh_copy(hg_mesh *m, const double *v, int nv, const int *t, int nt) {
  m->nvert = nv;
  m->ntri = nt;
  m->vert = malloc(3 * (size_t)nv * sizeof *m->vert);
  m->tri = malloc(3 * (size_t)nt * sizeof *m->tri);
  assert_non_null(m->vert);
  assert_non_null(m->tri);
  memcpy(m->vert, v, 3 * (size_t)nv * sizeof *v);
  memcpy(m->tri, t, 3 * (size_t)nt * sizeof *t);
}

/* the box [lo, hi] (12 triangles, counter-clockwise from outside) */
static void make_box(hg_mesh *m, const double lo[3], const double hi[3]) {
  static const int t[36] = {0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                            3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
  double v[24];
  /* corners 0-3 on the bottom, 4-7 above them, counter-clockwise seen from above */
  for (int i = 0; i < 8; i++) {
    int x = (i & 3) == 1 || (i & 3) == 2, y = (i & 3) >= 2, z = i >= 4;
    v[3 * i] = x ? hi[0] : lo[0];
    v[3 * i + 1] = y ? hi[1] : lo[1];
    v[3 * i + 2] = z ? hi[2] : lo[2];
  }
  mesh_copy(m, v, 8, t, 12);
}

/* the tetrahedron p0..p3 with faces turned outwards */
static void make_tetra(hg_mesh *m, const double p[12]) {
  double u[3], w[3], n[3];
  for (int k = 0; k < 3; k++) {
    u[k] = p[3 + k] - p[k];
    w[k] = p[6 + k] - p[k];
  }
  hg_v3_cross(u, w, n);
  double s = n[0] * (p[9] - p[0]) + n[1] * (p[10] - p[1]) + n[2] * (p[11] - p[2]);
  /* (0 1 2) faces away from p3 when s < 0 */
  static const int pos[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2};
  static const int neg[12] = {0, 1, 2, 0, 3, 1, 1, 3, 2, 0, 2, 3};
  mesh_copy(m, p, 4, s > 0 ? pos : neg, 4);
}

/* UV sphere of radius r: poles and nlat - 1 rings of nlon vertices */
static void make_sphere(hg_mesh *m, double r, int nlat, int nlon) {
  int nv = 2 + (nlat - 1) * nlon, nt = 2 * nlon * (nlat - 1), k = 0;
  double *v = malloc(3 * (size_t)nv * sizeof *v);
  int *t = malloc(3 * (size_t)nt * sizeof *t);
  assert_true(v && t);
  /* vertices: south pole 0, rings 1.., north pole nv - 1 */
  v[0] = v[1] = 0;
  v[2] = -r;
  for (int i = 1; i < nlat; i++)
    for (int j = 0; j < nlon; j++) {
      double th = PI * i / nlat, ph = 2 * PI * j / nlon, *x = v + 3 * (1 + (i - 1) * nlon + j);
      x[0] = r * sin(th) * cos(ph);
      x[1] = r * sin(th) * sin(ph);
      x[2] = -r * cos(th);
    }
  v[3 * nv - 3] = v[3 * nv - 2] = 0;
  v[3 * nv - 1] = r;
  /* bands: vertex of ring i (0 = south pole, nlat = north pole), longitude j */
  for (int i = 0; i < nlat; i++)
    for (int j = 0; j < nlon; j++) {
      int jn = (j + 1) % nlon;
      int a = i == 0 ? 0 : 1 + (i - 1) * nlon + j, b = i == 0 ? 0 : 1 + (i - 1) * nlon + jn;
      int c = i == nlat - 1 ? nv - 1 : 1 + i * nlon + jn,
          d = i == nlat - 1 ? nv - 1 : 1 + i * nlon + j;
      if (i > 0) {
        t[3 * k] = a;
        t[3 * k + 1] = b;
        t[3 * k + 2] = c;
        k++;
      }
      if (i < nlat - 1) {
        t[3 * k] = a;
        t[3 * k + 1] = c;
        t[3 * k + 2] = d;
        k++;
      }
    }
  assert_int_equal(k, nt);
  mesh_copy(m, v, nv, t, nt);
  free(v);
  free(t);
}

/* regular n-gon prism of circumradius r, height h, centred on the origin, axis z (cap centres
 * are vertices 2n and 2n + 1) */
static void make_prism(hg_mesh *m, double r, double h, int n) {
  int nv = 2 * n + 2, nt = 4 * n;
  double *v = malloc(3 * (size_t)nv * sizeof *v);
  int *t = malloc(3 * (size_t)nt * sizeof *t);
  assert_true(v && t);
  for (int j = 0; j < n; j++) {
    double a = 2 * PI * j / n;
    for (int s = 0; s < 2; s++) {
      double *x = v + 3 * (2 * j + s);
      x[0] = r * cos(a);
      x[1] = r * sin(a);
      x[2] = s ? h / 2 : -h / 2;
    }
  }
  v[6 * n] = v[6 * n + 1] = 0;
  v[6 * n + 2] = -h / 2;
  v[6 * n + 3] = v[6 * n + 4] = 0;
  v[6 * n + 5] = h / 2;
  /* per sector: bottom fan, top fan, two side triangles */
  for (int j = 0; j < n; j++) {
    int jn = (j + 1) % n, b0 = 2 * j, b1 = 2 * jn, t0 = 2 * j + 1, t1 = 2 * jn + 1, *x = t + 12 * j;
    int tri[12] = {2 * n, b1, b0, 2 * n + 1, t0, t1, b0, b1, t1, b0, t1, t0};
    memcpy(x, tri, sizeof tri);
  }
  mesh_copy(m, v, nv, t, nt);
  free(v);
  free(t);
}

/* mass properties that must succeed */
static void props(const hg_mesh *m, double rho, double *mass, double c[3], double Ic[6]) {
  hg_error err = {{0}};
  int rc = hg_mesh_mass_properties(m, rho, mass, c, Ic, &err);
  if (rc) printf("# unexpected failure: %s\n", err.msg);
  assert_int_equal(rc, 0);
}

/* ---- closed forms ---- */

/* unit cube: m = rho, c = (1/2, 1/2, 1/2), I_c = m/6 1; about the corner I_xx = 2m/3,
 * I_xy = -m/4 */
static void unit_cube(void **state) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, rho = 2700;
  hg_mesh m;
  hg_inertia G;
  hg_error err;
  double mass, c[3], Ic[6];
  make_box(&m, lo, hi);
  props(&m, rho, &mass, c, Ic);
  assert_int_equal(hg_mesh_inertia(&m, rho, &G, &err), 0);
  const double c_e[3] = {0.5, 0.5, 0.5}, Ic_e[6] = {rho / 6, rho / 6, rho / 6, 0, 0, 0};
  const double h_e[3] = {rho / 2, rho / 2, rho / 2},
               I_e[6] = {2 * rho / 3, 2 * rho / 3, 2 * rho / 3, -rho / 4, -rho / 4, -rho / 4};
  double e[5] = {fabs(mass - rho) / rho, max_diff(c, c_e, 3), max_diff(Ic, Ic_e, 6) / rho,
                 max_diff(G.h, h_e, 3) / rho, max_diff(G.I, I_e, 6) / rho};
  printf(
      "# unit cube: relative errors mass %.2g, com %.2g, I_c %.2g, h %.2g, I_o %.2g; volume "
      "%.17g\n",
      e[0], e[1], e[2], e[3], e[4], hg_mesh_volume(&m));
  for (int k = 0; k < 5; k++) assert_true(e[k] < 1e-15);
  assert_true(G.m == mass);
  hg_mesh_free(&m);
}

/* a box of sides a, b, c centred at p: I_c = m/12 (b^2 + c^2, ...),
 * I_o = I_c + m (|p|^2 1 - p p') */
static void box_off_origin(void **state) {
  const double s[3] = {0.3, 1.7, 2.9}, p[3] = {1.1, -2.3, 0.7}, rho = 1234.5;
  double lo[3], hi[3], I_e[6], pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
  for (int k = 0; k < 3; k++) {
    lo[k] = p[k] - s[k] / 2;
    hi[k] = p[k] + s[k] / 2;
  }
  hg_mesh m;
  hg_inertia G;
  hg_error err;
  make_box(&m, lo, hi);
  assert_int_equal(hg_mesh_inertia(&m, rho, &G, &err), 0);
  double mass = rho * s[0] * s[1] * s[2];
  /* the expected inertia about the origin, by hand */
  I_e[0] = mass * (s[1] * s[1] + s[2] * s[2]) / 12 + mass * (pp - p[0] * p[0]);
  I_e[1] = mass * (s[0] * s[0] + s[2] * s[2]) / 12 + mass * (pp - p[1] * p[1]);
  I_e[2] = mass * (s[0] * s[0] + s[1] * s[1]) / 12 + mass * (pp - p[2] * p[2]);
  I_e[3] = -mass * p[0] * p[1];
  I_e[4] = -mass * p[0] * p[2];
  I_e[5] = -mass * p[1] * p[2];
  double h_e[3] = {mass * p[0], mass * p[1], mass * p[2]};
  double em = fabs(G.m - mass) / mass, eh = max_diff(G.h, h_e, 3) / max_abs(h_e, 3),
         eI = max_diff(G.I, I_e, 6) / max_abs(I_e, 6);
  printf(
      "# box %.1f x %.1f x %.1f at (%.1f, %.1f, %.1f): relative errors mass %.2g, h %.2g, I_o "
      "%.2g\n",
      s[0], s[1], s[2], p[0], p[1], p[2], em, eh, eI);
  assert_true(em < 1e-14);
  assert_true(eh < 1e-14);
  assert_true(eI < 1e-14);
  hg_mesh_free(&m);
}

/* the corner tetrahedron (0, a e1, b e2, c e3) from an OBJ with negative indices:
 * V = abc/6, c = (a, b, c)/4, I_o,xx = m (b^2 + c^2)/10, I_o,xy = -m a b/20 */
static void corner_tetrahedron(void **state) {
  const double a = 1, b = 2, c = 3, rho = 10;
  hg_mesh m;
  hg_inertia G;
  hg_error err;
  assert_int_equal(hg_mesh_load(DATA "tetra.obj", &m, &err), 0);
  assert_int_equal(m.nvert, 4);
  assert_int_equal(m.ntri, 4);
  assert_int_equal(hg_mesh_inertia(&m, rho, &G, &err), 0);
  double mass = rho * a * b * c / 6;
  double h_e[3] = {mass * a / 4, mass * b / 4, mass * c / 4};
  double I_e[6] = {mass * (b * b + c * c) / 10, mass * (a * a + c * c) / 10,
                   mass * (a * a + b * b) / 10, -mass * a * b / 20,
                   -mass * a * c / 20,          -mass * b * c / 20};
  double e[3] = {fabs(G.m - mass) / mass, max_diff(G.h, h_e, 3) / mass,
                 max_diff(G.I, I_e, 6) / mass};
  printf("# corner tetrahedron 1 x 2 x 3: relative errors mass %.2g, h %.2g, I_o %.2g\n", e[0],
         e[1], e[2]);
  for (int k = 0; k < 3; k++) assert_true(e[k] < 1e-15);
  hg_mesh_free(&m);
}

/* random tetrahedra against int x x' dV = V/20 (sum p_i p_i' + s s'), s = sum p_i (Tonon 2004) */
static void random_tetrahedra(void **state) {
  hg_rng r;
  double worst = 0;
  hg_rng_seed(&r, 71);
  for (int n = 0; n < 200; n++) {
    double p[12], S[6] = {0}, s[3] = {0}, u[3], w[3], x[3], uw[3];
    hg_test_random_vector(&r, p, 12, -2, 3);
    for (int k = 0; k < 3; k++) {
      u[k] = p[3 + k] - p[k];
      w[k] = p[6 + k] - p[k];
      x[k] = p[9 + k] - p[k];
    }
    hg_v3_cross(u, w, uw);
    double V = fabs(hg_v3_dot(uw, x)) / 6;
    if (V < 1e-2) continue;
    static const int row[6] = {0, 1, 2, 0, 0, 1}, col[6] = {0, 1, 2, 1, 2, 2};
    /* the closed form with density 1, then the inertia about the origin from it */
    for (int i = 0; i < 4; i++)
      for (int k = 0; k < 3; k++) s[k] += p[3 * i + k];
    for (int k = 0; k < 6; k++) {
      S[k] = s[row[k]] * s[col[k]];
      for (int i = 0; i < 4; i++) S[k] += p[3 * i + row[k]] * p[3 * i + col[k]];
      S[k] *= V / 20;
    }
    double tr = S[0] + S[1] + S[2],
           I_e[7] = {tr - S[0], tr - S[1], tr - S[2], -S[3], -S[4], -S[5], V};
    hg_mesh m;
    hg_inertia G;
    hg_error err;
    make_tetra(&m, p);
    assert_int_equal(hg_mesh_inertia(&m, 1, &G, &err), 0);
    double got[7] = {G.I[0], G.I[1], G.I[2], G.I[3], G.I[4], G.I[5], G.m};
    worst = fmax(worst, max_diff(got, I_e, 7) / max_abs(I_e, 7));
    for (int k = 0; k < 3; k++)
      worst = fmax(worst, fabs(G.h[k] - V * s[k] / 4) / (V * max_abs(s, 3)));
    hg_mesh_free(&m);
  }
  printf("# random tetrahedra against Tonon's closed form: worst relative error %.2g\n", worst);
  assert_true(worst < 1e-13);
}

/* ---- convergence ---- */

/* UV spheres with n latitudes and 2n longitudes: the inscribed polyhedron misses O(1/n^2) of the
 * volume and inertia, so each doubling of n divides the error by about 4 */
static void sphere_converges(void **state) {
  const double r = 1.3, rho = 7.5, m_e = rho * 4 * PI * r * r * r / 3, I_e = 0.4 * m_e * r * r;
  double prev_m = 0, prev_I = 0, ratio_m = 0, ratio_I = 0, em = 0, eI = 0, ec = 0;
  for (int n = 8; n <= 128; n *= 2) {
    hg_mesh m;
    double mass, c[3], Ic[6];
    make_sphere(&m, r, n, 2 * n);
    props(&m, rho, &mass, c, Ic);
    em = fabs(mass - m_e) / m_e;
    eI = fmax(fabs(Ic[0] - I_e), fmax(fabs(Ic[1] - I_e), fabs(Ic[2] - I_e))) / I_e;
    ec = max_abs(c, 3);
    if (prev_m > 0) {
      ratio_m = prev_m / em;
      ratio_I = prev_I / eI;
    }
    printf(
        "# sphere n = %3d (%5d triangles): relative error mass %.3e, I_c %.3e, |c| %.1e; "
        "ratios %.3f %.3f\n",
        n, m.ntri, em, eI, ec, ratio_m, ratio_I);
    prev_m = em;
    prev_I = eI;
    hg_mesh_free(&m);
    if (n >= 32) {
      assert_true(ratio_m > 3.8 && ratio_m < 4.2);
      assert_true(ratio_I > 3.8 && ratio_I < 4.2);
    }
  }
  assert_true(em < 3e-4 && eI < 6e-4);
  assert_true(ec < 1e-14);
}

/* regular n-gon prisms: exact against the polyhedron, A = n r^2 sin(t)/2, J = n r^4 sin(t)
 * (2 + cos t)/12 with t = 2 pi/n, I_zz = rho h J, I_xx = rho h J/2 + m h^2/12; and converging
 * to the cylinder (the error 1 - sin(t)/t ~ t^2/6 falls by 4 per doubling) */
static void cylinder_converges(void **state) {
  const double r = 0.4, h = 1.5, rho = 900, m_cyl = rho * PI * r * r * h;
  const double Izz_cyl = m_cyl * r * r / 2, Ixx_cyl = m_cyl * (3 * r * r + h * h) / 12;
  double worst_exact = 0, prev = 0, ratio = 0, e = 0;
  for (int n = 12; n <= 768; n *= 2) {
    hg_mesh m;
    double mass, c[3], Ic[6], t = 2 * PI / n;
    make_prism(&m, r, h, n);
    props(&m, rho, &mass, c, Ic);
    double A = n * r * r * sin(t) / 2, J = n * r * r * r * r * sin(t) * (2 + cos(t)) / 12;
    double mp = rho * A * h, ex[6] = {rho * h * J / 2 + mp * h * h / 12,
                                      rho * h * J / 2 + mp * h * h / 12,
                                      rho * h * J,
                                      0,
                                      0,
                                      0};
    worst_exact = fmax(worst_exact, fmax(fabs(mass - mp) / mp, max_diff(Ic, ex, 6) / ex[0]));
    worst_exact = fmax(worst_exact, max_abs(c, 3));
    e = fmax(fabs(mass - m_cyl) / m_cyl,
             fmax(fabs(Ic[2] - Izz_cyl) / Izz_cyl, fabs(Ic[0] - Ixx_cyl) / Ixx_cyl));
    if (prev > 0) ratio = prev / e;
    printf("# prism n = %3d: error against the cylinder %.3e (ratio %.3f)\n", n, e, ratio);
    if (n >= 48) assert_true(ratio > 3.95 && ratio < 4.05);
    prev = e;
    hg_mesh_free(&m);
  }
  printf("# prisms against the exact polyhedron: worst relative error %.2g\n", worst_exact);
  assert_true(worst_exact < 1e-13);
  assert_true(e < 1e-4);
}

/* ---- invariance ---- */

/* moving the vertices by T gives hg_inertia_transform(T, G) of the unmoved mesh */
static void rigid_motion_invariance(void **state) {
  hg_mesh m;
  hg_error err;
  hg_inertia Gb;
  hg_rng r;
  double worst = 0;
  assert_int_equal(hg_mesh_load(ASSETS "capsule.obj", &m, &err), 0);
  assert_int_equal(hg_mesh_inertia(&m, 500, &Gb, &err), 0);
  hg_rng_seed(&r, 5);
  for (int n = 0; n < 20; n++) {
    hg_se3 T;
    hg_inertia Ga, Ge;
    hg_mesh mt;
    hg_test_random_pose(&r, &T);
    for (int k = 0; k < 3; k++) T.p[k] *= 1 << (n % 8); /* up to 64 m away */
    mesh_copy(&mt, m.vert, m.nvert, m.tri, m.ntri);
    hg_mesh_transform(&mt, &T);
    assert_int_equal(hg_mesh_inertia(&mt, 500, &Ga, &err), 0);
    hg_inertia_transform(&T, &Gb, &Ge);
    double a[10] = {Ga.m, Ga.h[0], Ga.h[1], Ga.h[2]}, e[10] = {Ge.m, Ge.h[0], Ge.h[1], Ge.h[2]};
    memcpy(a + 4, Ga.I, sizeof Ga.I);
    memcpy(e + 4, Ge.I, sizeof Ge.I);
    worst = fmax(worst, fabs(a[0] - e[0]) / e[0]);
    worst = fmax(worst, max_diff(a + 1, e + 1, 3) / max_abs(e + 1, 3));
    worst = fmax(worst, max_diff(a + 4, e + 4, 6) / max_abs(e + 4, 6));
    hg_mesh_free(&mt);
  }
  printf("# capsule moved by 20 random poses (up to 64 m): worst relative difference %.2g\n",
         worst);
  assert_true(worst < 1e-12);
  hg_mesh_free(&m);
}

/* far from the frame origin the centroid shift keeps I_c exact (summing about the origin would
 * lose about |p|^2 eps relative: 1e-8 at 1e4 m) */
static void far_from_origin(void **state) {
  const double lo[3] = {1e4, -2e4, 3e4}, hi[3] = {1e4 + 1, -2e4 + 1, 3e4 + 1};
  const double Ic_e[6] = {1.0 / 6, 1.0 / 6, 1.0 / 6, 0, 0, 0};
  hg_mesh m;
  double mass, c[3], Ic[6];
  make_box(&m, lo, hi);
  props(&m, 1, &mass, c, Ic);
  double e = max_diff(Ic, Ic_e, 6) * 6;
  printf("# unit cube 3.7e4 m from the origin: I_c relative error %.2g, mass error %.2g\n", e,
         fabs(mass - 1));
  assert_true(e < 1e-12);
  assert_true(fabs(mass - 1) < 1e-12);
  hg_mesh_free(&m);
}

/* scaling multiplies the volume by s0 s1 s2; a mirror keeps it positive and flips products */
static void scale_and_mirror(void **state) {
  hg_mesh m;
  hg_error err;
  double m0, c0[3], I0[6], m1, c1[3], I1[6];
  assert_int_equal(hg_mesh_load(DATA "tetra.obj", &m, &err), 0);
  props(&m, 1, &m0, c0, I0);
  const double s[3] = {2, 3, 4}, mirror[3] = {-1, 1, 1};
  hg_mesh_scale(&m, s);
  assert_true(fabs(hg_mesh_volume(&m) - 24 * m0) < 1e-13);
  hg_mesh_scale(&m, mirror);
  props(&m, 1, &m1, c1, I1);
  assert_true(fabs(m1 - 24 * m0) < 1e-13);
  assert_true(fabs(c1[0] + 2 * c0[0]) < 1e-14 && fabs(c1[1] - 3 * c0[1]) < 1e-14);
  /* I_c,xy and I_c,xz change sign under x -> -x */
  assert_true(I1[3] * I0[3] < 0 && I1[4] * I0[4] < 0 && I1[5] * I0[5] > 0);
  hg_mesh_free(&m);
}

/* ---- reading ---- */

/* OBJ with quads, v/vt/vn corners and negative indices gives the unit cube */
static void obj_quads_negative(void **state) {
  hg_mesh a, b;
  hg_error err;
  double ma, ca[3], Ia[6], mb, cb[3], Ib[6], lo[3], hi[3];
  const double z[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  int rc = hg_mesh_load(DATA "cube_quads.obj", &a, &err);
  if (rc) printf("# %s\n", err.msg);
  assert_int_equal(rc, 0);
  assert_int_equal(a.nvert, 8);
  assert_int_equal(a.ntri, 12);
  make_box(&b, z, one);
  props(&a, 3, &ma, ca, Ia);
  props(&b, 3, &mb, cb, Ib);
  assert_true(fabs(ma - mb) < 1e-14 && max_diff(ca, cb, 3) < 1e-15 && max_diff(Ia, Ib, 6) < 1e-14);
  hg_mesh_bounds(&a, lo, hi);
  assert_true(max_diff(lo, z, 3) == 0 && max_diff(hi, one, 3) == 0);
  hg_mesh_free(&a);
  hg_mesh_free(&b);
}

/* the same body as ASCII and binary STL: same welded mesh and the same mass properties */
static void stl_ascii_equals_binary(void **state) {
  hg_mesh a, b;
  hg_error err;
  double ma, ca[3], Ia[6], mb, cb[3], Ib[6];
  assert_int_equal(hg_mesh_load(DATA "house.stl", &a, &err), 0);
  assert_int_equal(hg_mesh_load(DATA "house_binary.stl", &b, &err), 0);
  assert_int_equal(a.nvert, 10); /* 48 facet corners welded to the 10 corners of the body */
  assert_int_equal(b.nvert, 10);
  assert_int_equal(a.ntri, 16);
  assert_int_equal(b.ntri, 16);
  assert_true(max_diff(a.vert, b.vert, 30) == 0);
  assert_memory_equal(a.tri, b.tri, 48 * sizeof(int));
  props(&a, 2, &ma, ca, Ia);
  props(&b, 2, &mb, cb, Ib);
  /* volume 2 x 1 x 1 + 2 x 0.5 x 1 / 2 = 2.5; centre y = 0.25, x = 1.5 (symmetric in x and y) */
  printf("# house STL: ASCII mass %.17g, binary %.17g, com (%.17g %.17g %.17g)\n", ma, mb, ca[0],
         ca[1], ca[2]);
  assert_true(ma == mb && max_diff(ca, cb, 3) == 0 && max_diff(Ia, Ib, 6) == 0);
  assert_true(fabs(ma - 5) < 1e-14 && fabs(ca[0] - 1.5) < 1e-14 && fabs(ca[1] - 0.25) < 1e-14);
  hg_mesh_free(&a);
  hg_mesh_free(&b);
}

/* load must fail with a message starting with want, and leave the mesh zeroed */
static void expect_load_error(const char *path, const char *want) {
  hg_mesh m;
  hg_error err = {{0}};
  int rc = hg_mesh_load(path, &m, &err);
  printf("# %s\n", rc ? err.msg : "(loaded)");
  assert_int_equal(rc, -1);
  assert_true(!m.vert && !m.tri && m.nvert == 0 && m.ntri == 0);
  assert_true(strncmp(err.msg, want, strlen(want)) == 0);
}

static void malformed_files(void **state) {
  expect_load_error(DATA "bad_number.obj",
                    DATA "bad_number.obj:3: expected a finite number, got '1,5'");
  expect_load_error(DATA "bad_index.obj", DATA "bad_index.obj:7: face index 9 out of range");
  expect_load_error(DATA "bad_negative.obj", DATA "bad_negative.obj:4: face index out of range");
  expect_load_error(DATA "short_face.obj", DATA "short_face.obj:4: expected at least 3 corners");
  expect_load_error(DATA "no_faces.obj", DATA "no_faces.obj:2: expected 'v' and 'f' lines");
  expect_load_error(DATA "empty.obj", DATA "empty.obj:1: expected 'v' and 'f' lines");
  expect_load_error(DATA "binary_junk.obj", DATA "binary_junk.obj:4: expected text, found a NUL");
  expect_load_error(DATA "empty.stl", DATA "empty.stl: byte 0: truncated");
  expect_load_error(DATA "truncated.stl",
                    DATA "truncated.stl: byte 334: truncated: expected facet 6 of 16");
  expect_load_error(DATA "bad_keyword.stl",
                    DATA "bad_keyword.stl:6: expected 'vertex', got 'vertx'");
  expect_load_error(DATA "bad_number.stl",
                    DATA "bad_number.stl:5: expected a finite number, got 'nan'");
  expect_load_error(DATA "cut_ascii.stl",
                    DATA "cut_ascii.stl:4: expected 'vertex', got the end of the file");
  expect_load_error(DATA "missing.obj", DATA "missing.obj: cannot open");
  /* other formats: a missing file is refused before the reader process, a file that is no mesh
   * by assimp's reader (test_mesh_isolated: crashes, hangs, limits) */
  expect_load_error(DATA "cube.ply", DATA "cube.ply: cannot open: ");
  expect_load_error(DATA "fake_reader.sh", DATA "fake_reader.sh: cannot read mesh (");
}

/* the mass properties must fail with a message containing want */
static void expect_props_error(const hg_mesh *m, const char *want) {
  hg_inertia G;
  hg_error err = {{0}};
  int rc = hg_mesh_inertia(m, 1000, &G, &err);
  printf("# %s\n", rc ? err.msg : "(accepted)");
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err.msg, want));
}

/* open, inconsistently oriented, inside-out and degenerate meshes are rejected */
static void bad_meshes_rejected(void **state) {
  hg_mesh m;
  hg_error err;
  assert_int_equal(hg_mesh_load(DATA "open.obj", &m, &err), 0);
  expect_props_error(&m, "has no opposite edge");
  hg_mesh_free(&m);
  assert_int_equal(hg_mesh_load(DATA "flipped.obj", &m, &err), 0);
  expect_props_error(&m, "not closed and consistently oriented");
  hg_mesh_free(&m);
  assert_int_equal(hg_mesh_load(DATA "inside_out.obj", &m, &err), 0);
  assert_true(fabs(hg_mesh_volume(&m) + 1) < 1e-15);
  expect_props_error(&m, "non-positive volume");
  /* a repeated corner, an index out of range, no triangles, a bad density */
  m.tri[2] = m.tri[1];
  expect_props_error(&m, "repeats a vertex");
  m.tri[2] = 8;
  expect_props_error(&m, "out of range");
  m.ntri = 0;
  expect_props_error(&m, "no triangles");
  hg_mesh_free(&m);
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  double mass, c[3], Ic[6];
  make_box(&m, lo, hi);
  assert_int_equal(hg_mesh_mass_properties(&m, -1, &mass, c, Ic, &err), -1);
  assert_non_null(strstr(err.msg, "density"));
  hg_mesh_free(&m);
}

/* ---- assets ---- */

/* volume of revolution of the mesh's meridian (its vertices on y = 0, x >= 0, in file order) by
 * Green's theorem, V = pi sum (z1 - z0)(r0^2 + r0 r1 + r1^2)/3 around the closed profile, times
 * the regular-polygon factor n sin(2 pi/n)/(2 pi) (exact for a revolved polyline) */
static double revolved_volume(const hg_mesh *m, int closed_loop) {
  double r[256], z[256], V = 0;
  int np = 0, npole = 0;
  for (int i = 0; i < m->nvert && np < 256; i++) {
    const double *x = m->vert + 3 * i;
    if (x[1] != 0 || x[0] < 0) continue;
    r[np] = x[0];
    z[np++] = x[2];
    npole += x[0] == 0;
  }
  int n = (m->nvert - npole) / (np - npole);
  for (int i = 0; i < np; i++) {
    int k = (i + 1) % np;
    if (k == 0 && !closed_loop) break;
    V += PI * (z[k] - z[i]) * (r[i] * r[i] + r[i] * r[k] + r[k] * r[k]) / 3;
  }
  return V * n * sin(2 * PI / n) / (2 * PI);
}

/* loads an asset, checks it is closed with a valid inertia and its volume; returns the mass */
static double check_asset(const char *path, double rho, double V_e, double tol, const char *what) {
  hg_mesh m;
  hg_error err = {{0}};
  double mass, c[3], Ic[6], lo[3], hi[3], l[3];
  int rc = hg_mesh_load(path, &m, &err);
  if (rc) printf("# %s\n", err.msg);
  assert_int_equal(rc, 0);
  props(&m, rho, &mass, c, Ic);
  hg_mesh_bounds(&m, lo, hi);
  hg_sym3_eigenvalues(Ic, l);
  double V = mass / rho;
  printf(
      "# %-18s %5d vertices %5d triangles, %.2f x %.2f x %.2f m, volume %.4f m^3 (expected %.4f, "
      "rel. diff %.1e), at %.0f kg/m^3 mass %.1f kg, com (%.3f %.3f %.3f), principal I_c %.1f %.1f "
      "%.1f kg m^2\n",
      what, m.nvert, m.ntri, hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], V, V_e, V / V_e - 1, rho,
      mass, c[0], c[1], c[2], l[0], l[1], l[2]);
  assert_true(fabs(V / V_e - 1) < tol);
  hg_mesh_free(&m);
  return mass;
}

static void shipped_assets(void **state) {
  hg_mesh m;
  hg_error err;
  double V[3];
  const char *rev[3] = {ASSETS "capsule.obj", ASSETS "heat_shield.obj", ASSETS "docking_ring.obj"};
  for (int k = 0; k < 3; k++) {
    assert_int_equal(hg_mesh_load(rev[k], &m, &err), 0);
    V[k] = revolved_volume(&m, k == 2);
    hg_mesh_free(&m);
  }
  /* heat shield: a spherical shell sector, (2 pi/3)(Ro^3 - Ri^3)(1 - cos a), sin a = 2.5/6 */
  double ca = sqrt(1 - (2.5 / 6) * (2.5 / 6)),
         V_hs = 2 * PI / 3 * (216 - 5.7 * 5.7 * 5.7) * (1 - ca);
  /* bus: inner box, face slabs, edge prisms, corner tetrahedra of a box chamfered by ch */
  const double a[3] = {1.5, 1.5, 2.0}, ch = 0.08;
  double in[3] = {a[0] - 2 * ch, a[1] - 2 * ch, a[2] - 2 * ch};
  double V_bus = in[0] * in[1] * in[2] + 2 * ch * (in[1] * in[2] + in[0] * in[2] + in[0] * in[1]) +
                 4 * ch * ch / 2 * (in[0] + in[1] + in[2]) + 8 * ch * ch * ch / 6;
  /* densities giving Apollo/Orion-like masses: capsule ~ 9 t, heat shield ~ 1.5 t, bus ~ 1.3 t */
  double mc = check_asset(ASSETS "capsule.obj", 300, V[0], 1e-6, "capsule");
  double mh = check_asset(ASSETS "heat_shield.obj", 260, V[1], 1e-6, "heat shield");
  check_asset(ASSETS "heat_shield.obj", 260, V_hs, 3e-3, "heat shield (sph.)");
  double mb = check_asset(ASSETS "bus.obj", 300, V_bus, 1e-12, "bus");
  double mr = check_asset(ASSETS "docking_ring.obj", 2700, V[2], 1e-6, "docking ring");
  assert_true(mc > 5000 && mc < 15000);
  assert_true(mh > 800 && mh < 3000);
  assert_true(mb > 800 && mb < 2000);
  assert_true(mr > 50 && mr < 500);
}

/* Collada through assimp: tetra.dae is tetra.obj in units of 0.5 m with Z up, so its vertices are
 * tetra.obj's halved (not turned: <up_axis> is ignored), the mesh is closed, and its volume is
 * (1 * 2 * 3 / 6) / 8 = 0.125 */
static void collada(void **state) {
  hg_mesh m;
  hg_error err;
  if (hg_mesh_load(DATA "tetra.dae", &m, &err)) fail_msg("%s", err.msg);
  assert_int_equal(m.nvert, 4);
  assert_int_equal(m.ntri, 4);
  assert_int_equal(hg_mesh_check(&m, &err), 0);
  assert_true(fabs(hg_mesh_volume(&m) - 0.125) < 1e-15);
  double lo[3], hi[3];
  hg_mesh_bounds(&m, lo, hi);
  assert_true(hi[0] == 0.5 && hi[1] == 1 && hi[2] == 1.5 && lo[0] == 0 && lo[1] == 0 && lo[2] == 0);
  hg_mesh_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(collada),
      cmocka_unit_test(unit_cube),
      cmocka_unit_test(box_off_origin),
      cmocka_unit_test(corner_tetrahedron),
      cmocka_unit_test(random_tetrahedra),
      cmocka_unit_test(sphere_converges),
      cmocka_unit_test(cylinder_converges),
      cmocka_unit_test(rigid_motion_invariance),
      cmocka_unit_test(far_from_origin),
      cmocka_unit_test(scale_and_mirror),
      cmocka_unit_test(obj_quads_negative),
      cmocka_unit_test(stl_ascii_equals_binary),
      cmocka_unit_test(malformed_files),
      cmocka_unit_test(bad_meshes_rejected),
      cmocka_unit_test(shipped_assets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
