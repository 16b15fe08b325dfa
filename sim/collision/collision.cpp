// collision.cpp: collision.h over FCL. The only C++ file of hinge: FCL is a C++ library, and this
// file keeps it behind the C interface of collision.h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include <fcl/fcl.h>

// hinge's headers are C (model.h, mesh.h have no extern "C" of their own)
extern "C" {
#include "collision.h"
#include "mesh.h"
}

namespace {

using Geometry = std::shared_ptr<fcl::CollisionGeometryd>;

// a closed convex part of a collision mesh, in its shape frame: its vertices and the outward
// plane n.x = d of each of its triangles (hinge's own sphere query reads these)
struct Polytope {
  std::vector<fcl::Vector3d> vert;
  std::vector<std::array<int, 3>> tri;
  std::vector<fcl::Vector3d> normal;  // outward unit normal per triangle
  std::vector<double> offset;         // d of the triangle's plane n.x = d
};

// one shape: its geometry and its pose in the body frame
struct Shape {
  int body;
  Geometry geom;
  fcl::Transform3d local;
  fcl::Vector3d centre;  // the centre of its bounding sphere, in the body frame
  double radius;         // the sphere's radius
  double thinnest;       // its smallest extent (of its local bounding box)
  double sphere;         // a sphere's radius, 0 for other shapes
  std::shared_ptr<const Polytope> poly;  // a closed convex mesh part or a box, or NULL
  bool mesh;             // a part of a mesh (hinge's own queries run only on pairs with one)
  std::shared_ptr<const Polytope> surf;  // a mesh part that is a surface (its triangles), or NULL
  // FCL's object for it, made once: a query only moves it (constructing one per query would
  // recompute a mesh's bounding box from all its vertices every time)
  std::shared_ptr<fcl::CollisionObjectd> obj;
};

// the shape's FCL object at world pose X
fcl::CollisionObjectd *placed(const Shape &s, const fcl::Transform3d &X) {
  s.obj->setTransform(X);
  s.obj->computeAABB();
  return s.obj.get();
}

fcl::Transform3d to_fcl(const hg_se3 &T) {
  fcl::Transform3d X = fcl::Transform3d::Identity();
  fcl::Matrix3d R;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) R(r, c) = T.R[3 * r + c];
  X.linear() = R;
  X.translation() = fcl::Vector3d(T.p[0], T.p[1], T.p[2]);
  return X;
}

// One part of a collision mesh: its FCL geometry and, for a closed convex part, its polytope.
struct MeshPart {
  Geometry geom;
  std::shared_ptr<const Polytope> poly, surf;  // a solid's polytope, or a surface's triangles
};

// The parts of a triangle mesh: its connected components (triangles sharing a vertex, vertices
// welded by exact position). A component that is closed (every edge met by exactly two
// triangles, once in each direction), outward (positive enclosed volume) and convex (every vertex
// on or behind every triangle's plane, to 1e-9 of its size) becomes a solid: an fcl::Convex
// (GJK/EPA) and a Polytope for hinge's exact sphere query. Any other component stays a
// bounding-volume hierarchy of its triangles (a surface). Load time only: it allocates.
std::vector<MeshPart> mesh_parts(const hg_mesh &mesh) {
  // weld vertices by position
  std::map<std::array<double, 3>, int> at;
  std::vector<int> id(mesh.nvert);
  std::vector<fcl::Vector3d> pos;
  for (int k = 0; k < mesh.nvert; k++) {
    std::array<double, 3> x = {mesh.vert[3 * k], mesh.vert[3 * k + 1], mesh.vert[3 * k + 2]};
    auto it = at.find(x);
    if (it == at.end()) {
      it = at.emplace(x, (int)pos.size()).first;
      pos.push_back(fcl::Vector3d(x[0], x[1], x[2]));
    }
    id[k] = it->second;
  }
  // components: union-find over the welded vertices of each triangle
  std::vector<int> up(pos.size());
  for (size_t k = 0; k < up.size(); k++) up[k] = (int)k;
  auto root = [&](int x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  };
  for (int t = 0; t < mesh.ntri; t++)
    for (int r = 1; r < 3; r++) up[root(id[mesh.tri[3 * t + r]])] = root(id[mesh.tri[3 * t]]);
  std::map<int, std::vector<int>> comp;  // root -> its triangles
  for (int t = 0; t < mesh.ntri; t++) comp[root(id[mesh.tri[3 * t]])].push_back(t);
  std::vector<MeshPart> parts;
  for (auto &c : comp) {
    // the component's vertices, renumbered, and its triangles
    std::map<int, int> local;
    auto poly = std::make_shared<Polytope>();
    for (int t : c.second) {
      std::array<int, 3> tri;
      for (int r = 0; r < 3; r++) {
        int v = id[mesh.tri[3 * t + r]];
        auto it = local.find(v);
        if (it == local.end()) {
          it = local.emplace(v, (int)poly->vert.size()).first;
          poly->vert.push_back(pos[v]);
        }
        tri[r] = it->second;
      }
      poly->tri.push_back(tri);
    }
    // closed and consistently oriented: each directed edge once, and its reverse once
    std::map<std::pair<int, int>, int> edge;
    for (const auto &t : poly->tri)
      for (int r = 0; r < 3; r++) edge[{t[r], t[(r + 1) % 3]}]++;
    bool closed = true;
    for (const auto &e : edge) {
      auto back = edge.find({e.first.second, e.first.first});
      if (e.second != 1 || back == edge.end() || back->second != 1) closed = false;
    }
    // enclosed volume V = sum over triangles of a.(b x c) / 6 (> 0: outward triangles)
    double vol = 0, size = 0;
    fcl::Vector3d lo = poly->vert[0], hi = poly->vert[0];
    for (const auto &v : poly->vert) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
    size = (hi - lo).norm();
    for (const auto &t : poly->tri)
      vol += poly->vert[t[0]].dot(poly->vert[t[1]].cross(poly->vert[t[2]])) / 6;
    bool convex = closed && vol > 0;
    for (const auto &t : poly->tri) {
      const fcl::Vector3d &a = poly->vert[t[0]], &b = poly->vert[t[1]], &cc = poly->vert[t[2]];
      fcl::Vector3d n = (b - a).cross(cc - a);
      if (!(n.norm() > 0)) {
        convex = false;
        n = fcl::Vector3d(0, 0, 1);
      }
      n.normalize();
      poly->normal.push_back(n);
      poly->offset.push_back(n.dot(a));
      for (const auto &v : poly->vert)
        if (n.dot(v) - n.dot(a) > 1e-9 * size) convex = false;
    }
    MeshPart part;
    if (convex) {
      auto verts = std::make_shared<std::vector<fcl::Vector3d>>(poly->vert);
      auto faces = std::make_shared<std::vector<int>>();
      for (const auto &t : poly->tri) faces->insert(faces->end(), {3, t[0], t[1], t[2]});
      part.geom = std::make_shared<fcl::Convexd>(verts, (int)poly->tri.size(), faces);
      part.poly = poly;
    } else {
      auto bvh = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
      std::vector<fcl::Triangle> t;
      for (const auto &x : poly->tri) t.push_back(fcl::Triangle(x[0], x[1], x[2]));
      bvh->beginModel();
      bvh->addSubModel(poly->vert, t);
      bvh->endModel();
      part.geom = bvh;
      part.surf = poly;
    }
    parts.push_back(part);
  }
  return parts;
}

// a box of sides x, y, z centred on the origin as a polytope: 8 corners, 12 outward triangles
std::shared_ptr<const Polytope> box_polytope(double x, double y, double z) {
  auto P = std::make_shared<Polytope>();
  for (int k = 0; k < 8; k++)
    P->vert.push_back(fcl::Vector3d((k & 4 ? 0.5 : -0.5) * x, (k & 2 ? 0.5 : -0.5) * y,
                                    (k & 1 ? 0.5 : -0.5) * z));
  // the faces -x, +x, -y, +y, -z, +z by corner index (bit 2: x, bit 1: y, bit 0: z), each
  // counter-clockwise seen from outside
  const int quad[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1},
                          {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
  for (const auto &q : quad)
    for (int h = 0; h < 2; h++) {
      std::array<int, 3> t = {q[0], q[1 + h], q[2 + h]};
      fcl::Vector3d n = (P->vert[t[1]] - P->vert[t[0]]).cross(P->vert[t[2]] - P->vert[t[0]]);
      n.normalize();
      P->tri.push_back(t);
      P->normal.push_back(n);
      P->offset.push_back(n.dot(P->vert[t[0]]));
    }
  return P;
}

// the FCL geometry of one hinge shape, and the offset from hinge's shape frame to FCL's
Geometry geometry(const hg_geom &g, fcl::Transform3d &offset, hg_error *err) {
  offset = fcl::Transform3d::Identity();
  switch (g.type) {
  case HG_GEOM_BOX: return std::make_shared<fcl::Boxd>(g.size[0], g.size[1], g.size[2]);
  case HG_GEOM_SPHERE: return std::make_shared<fcl::Sphered>(g.size[0]);
  case HG_GEOM_CYLINDER: return std::make_shared<fcl::Cylinderd>(g.size[0], g.size[1]);
  case HG_GEOM_CAPSULE: return std::make_shared<fcl::Capsuled>(g.size[0], g.size[1]);
  case HG_GEOM_CONE:
    // hinge's cone stands on its base at the origin; FCL's is centred on its axis
    offset.translation() = fcl::Vector3d(0, 0, 0.5 * g.size[1]);
    return std::make_shared<fcl::Coned>(g.size[0], g.size[1]);
  case HG_GEOM_MESH: break;  // hg_collision_new splits a mesh into its parts
  }
  hg_error_set(err, "unknown shape type %d", (int)g.type);
  return nullptr;
}

}  // namespace

struct hg_collision {
  std::vector<Shape> shape;
  std::vector<std::vector<int>> of_body;  // shape indices per body
  // hg_collision_contacts' scratch, reused (it grows to the most points seen, then allocates no
  // more): the points, FCL's result, and per body its side bits and world pose, per shape its
  // bounding sphere's world centre
  std::vector<hg_contact> points;
  fcl::CollisionResultd contacts;
  std::vector<unsigned char> side;
  std::vector<fcl::Transform3d, Eigen::aligned_allocator<fcl::Transform3d>> pose;  // (C++14: aligned)
  std::vector<fcl::Vector3d> centre;
};

extern "C" hg_collision *hg_collision_new(const hg_model *m, hg_error *err) {
  auto c = new (std::nothrow) hg_collision;
  if (!c) return hg_error_set(err, "out of memory"), nullptr;
  c->of_body.resize(m->nbody);
  for (int k = 0; k < m->ngeom; k++) {
    const hg_geom &g = m->geom[k];
    if (!g.collision || g.body < 0 || g.body >= m->nbody) continue;
    fcl::Transform3d offset = fcl::Transform3d::Identity();
    hg_error e;
    std::vector<MeshPart> parts;
    if (g.type == HG_GEOM_MESH) {
      hg_mesh mesh = {0, 0, nullptr, nullptr};
      if (hg_mesh_load(g.mesh, &mesh, &e)) {
        hg_error_set(err, "collision shape of body '%s': %s", m->body_name[g.body], e.msg);
        delete c;
        return nullptr;
      }
      hg_mesh_scale(&mesh, g.size);
      parts = mesh_parts(mesh);
      hg_mesh_free(&mesh);
    } else {
      MeshPart p;
      p.geom = geometry(g, offset, &e);
      if (!p.geom) {
        hg_error_set(err, "collision shape of body '%s': %s", m->body_name[g.body], e.msg);
        delete c;
        return nullptr;
      }
      if (g.type == HG_GEOM_BOX) p.poly = box_polytope(g.size[0], g.size[1], g.size[2]);
      parts.push_back(p);
    }
    fcl::Transform3d local = to_fcl(g.pose) * offset;
    for (const MeshPart &p : parts) {
      p.geom->computeLocalAABB();
      const fcl::AABBd &box = p.geom->aabb_local;
      c->of_body[g.body].push_back((int)c->shape.size());
      fcl::Vector3d ext = box.max_ - box.min_;
      c->shape.push_back(Shape{g.body, p.geom, local, local * box.center(), 0.5 * ext.norm(),
                               ext.minCoeff(), g.type == HG_GEOM_SPHERE ? g.size[0] : 0, p.poly,
                               g.type == HG_GEOM_MESH, p.surf,
                               std::make_shared<fcl::CollisionObjectd>(p.geom)});
    }
  }
  return c;
}

extern "C" void hg_collision_free(hg_collision *c) { delete c; }

extern "C" double hg_collision_thinnest(const hg_collision *c, int body) {
  double t = 0;
  if (body < 0 || body >= (int)c->of_body.size()) return 0;
  for (int k : c->of_body[body])
    if (t == 0 || c->shape[k].thinnest < t) t = c->shape[k].thinnest;
  return t;
}

extern "C" double hg_collision_reach(const hg_collision *c, int body) {
  double r = 0;
  if (body < 0 || body >= (int)c->of_body.size()) return 0;
  for (int k : c->of_body[body]) r = std::max(r, c->shape[k].centre.norm() + c->shape[k].radius);
  return r;
}

extern "C" int hg_collision_count(const hg_collision *c, int body) {
  return body >= 0 && body < (int)c->of_body.size() ? (int)c->of_body[body].size() : 0;
}

namespace {

// the point of triangle abc nearest to p (Ericson, "Real-Time Collision Detection", 5.1.5:
// the Voronoi region of p among the vertices, edges and face)
fcl::Vector3d nearest_on_triangle(const fcl::Vector3d &p, const fcl::Vector3d &a,
                                  const fcl::Vector3d &b, const fcl::Vector3d &c) {
  fcl::Vector3d ab = b - a, ac = c - a, ap = p - a;
  double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  fcl::Vector3d bp = p - b;
  double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + d1 / (d1 - d3) * ab;
  fcl::Vector3d cp = p - c;
  double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + d2 / (d2 - d6) * ac;
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
  // inside the face: barycentric (u, v, w) = (va, vb, vc) / (va + vb + vc)
  double den = 1 / (va + vb + vc);
  return a + ab * (vb * den) + ac * (vc * den);
}

// The signed distance from sphere S (radius r, centre at the origin of Ts) to the closed convex
// polytope P at Tp, exactly: with the centre c in P's frame and s = max over P's triangles of
// n.c - d (the signed distance to the nearest face plane), c is inside P when s <= 0, and then the
// distance is s - r, the nearest surface point c - s n on that face; outside, the nearest point q
// of P's triangles gives |c - q| - r. Returns the distance, and in q (world) P's nearest point and
// in n (world) the unit normal from P towards the sphere. Allocates nothing.
double sphere_polytope(double r, const fcl::Transform3d &Ts, const Polytope &P,
                       const fcl::Transform3d &Tp, fcl::Vector3d &q, fcl::Vector3d &n) {
  fcl::Vector3d c = Tp.inverse() * Ts.translation();
  double s = -std::numeric_limits<double>::infinity();
  size_t face = 0;
  for (size_t f = 0; f < P.tri.size(); f++) {
    // the signed distance of c from face f's plane
    double h = P.normal[f].dot(c) - P.offset[f];
    if (h > s) s = h, face = f;
  }
  fcl::Vector3d ql = fcl::Vector3d::Zero(), nl = fcl::Vector3d::Zero();
  double d;
  if (s <= 0) {
    nl = P.normal[face];
    ql = c - s * nl;  // c's projection onto the nearest face
    d = s - r;
  } else {
    double best = std::numeric_limits<double>::infinity();
    for (const auto &t : P.tri) {
      fcl::Vector3d x = nearest_on_triangle(c, P.vert[t[0]], P.vert[t[1]], P.vert[t[2]]);
      double e = (c - x).squaredNorm();
      if (e < best) best = e, ql = x;
    }
    double dist = std::sqrt(best);  // > 0: c is in front of face's plane by s > 0
    nl = (c - ql) / dist;
    d = dist - r;
  }
  q = Tp * ql;
  n = Tp.linear() * nl;
  return d;
}

// 1 when the pair (a, b) is a sphere and a closed convex mesh part: hinge's exact query
bool sphere_poly_pair(const Shape &a, const Shape &b) {
  return (a.mesh || b.mesh) && ((a.sphere > 0 && b.poly) || (b.sphere > 0 && a.poly));
}

// 1 when the pair (a, b) is two polytopes, one of them a mesh part: hinge's vertex manifold
bool poly_poly_pair(const Shape &a, const Shape &b) {
  return (a.mesh || b.mesh) && a.poly && b.poly;
}

// The vertices of polytope V (at Tv) inside polytope F (at Tf), as contacts into out: a vertex x
// (in F's frame) is inside when s = max over F's faces of n.x - d < 0; its depth is -s along that
// face's outward normal n, at the point midway between x and its projection x - s n onto that
// face. flip: V is side B of the pair (the normal, from A into B, is then +n; else -n).
void vertices_inside(const Polytope &V, const fcl::Transform3d &Tv, const Polytope &F,
                     const fcl::Transform3d &Tf, int ba, int bb, bool flip,
                     std::vector<hg_contact> &out) {
  fcl::Transform3d X = Tf.inverse() * Tv;  // V's frame into F's
  for (const auto &v : V.vert) {
    fcl::Vector3d x = X * v;
    double s = -std::numeric_limits<double>::infinity();
    size_t face = 0;
    for (size_t f = 0; f < F.tri.size(); f++) {
      double h = F.normal[f].dot(x) - F.offset[f];  // x's signed distance from face f's plane
      if (h > s) s = h, face = f;
    }
    if (!(s < 0)) continue;
    fcl::Vector3d n = Tf.linear() * F.normal[face], pos = Tf * (x - 0.5 * s * F.normal[face]);
    hg_contact h;
    for (int r = 0; r < 3; r++) h.pos[r] = pos[r], h.normal[r] = flip ? n[r] : -n[r];
    h.depth = -s;
    h.body_a = ba;
    h.body_b = bb;
    out.push_back(h);
  }
}

// A sphere against a surface part, from the triangles FCL found overlapping it (ids in res): one
// point per triangle whose nearest point to the centre c lies inside its face, and one for the
// nearest point of all. A point on an edge or a corner is shared by the triangles that meet
// there: counting it once keeps the force on a flat face of two triangles from doubling where
// the sphere crosses their seam, and keeps it continuous as the nearest point moves from one
// triangle to the next. Each point's depth is r - |c - x|, its normal from x towards c.
void sphere_surface(const Shape &A, const fcl::Transform3d &Ta, const Shape &B,
                    const fcl::Transform3d &Tb, const fcl::CollisionResultd &res, int ba, int bb,
                    std::vector<hg_contact> &out) {
  bool sa = A.sphere > 0;
  const Shape &S = sa ? A : B, &M = sa ? B : A;
  const fcl::Transform3d &Ts = sa ? Ta : Tb, &Tm = sa ? Tb : Ta;
  const Polytope &P = *M.surf;
  fcl::Vector3d c = Tm.inverse() * Ts.translation();  // the centre in the surface's frame
  double r = S.sphere, best = std::numeric_limits<double>::infinity();
  fcl::Vector3d nearest = fcl::Vector3d::Zero(), nearest_n = fcl::Vector3d::Zero();
  bool nearest_in_face = false;
  // one point from x (surface frame) on a triangle of normal n, unless it is not inside
  auto emit = [&](const fcl::Vector3d &x, const fcl::Vector3d &n) {
    fcl::Vector3d u = c - x;
    double dist = u.norm();
    if (!(dist < r)) return;
    // from x towards c (c on the triangle: the triangle's normal)
    fcl::Vector3d nl = dist > 0 ? fcl::Vector3d(u / dist) : n;
    double depth = r - dist;
    fcl::Vector3d nw = Tm.linear() * nl, pos = Tm * (x - 0.5 * depth * nl);
    hg_contact h;
    for (int k = 0; k < 3; k++) h.pos[k] = pos[k], h.normal[k] = sa ? -nw[k] : nw[k];
    h.depth = depth;
    h.body_a = ba;
    h.body_b = bb;
    out.push_back(h);
  };
  for (size_t k = 0; k < res.numContacts(); k++) {
    const fcl::Contactd &ct = res.getContact(k);
    int t = ct.o1 == M.geom.get() ? ct.b1 : ct.b2;
    if (t < 0 || t >= (int)P.tri.size()) continue;
    const auto &tri = P.tri[t];
    const fcl::Vector3d &a = P.vert[tri[0]], &n = P.normal[t];
    fcl::Vector3d x = nearest_on_triangle(c, a, P.vert[tri[1]], P.vert[tri[2]]);
    // inside the face: x is c's projection onto the triangle's plane
    bool in_face = (x - (c - n.dot(c - a) * n)).norm() <= 1e-12 * (1 + c.norm());
    double e = (c - x).squaredNorm();
    if (in_face) emit(x, n);
    if (e < best) best = e, nearest = x, nearest_n = n, nearest_in_face = in_face;
  }
  if (best < r * r && !nearest_in_face) emit(nearest, nearest_n);
}

// FCL's sphere-against-triangle test reports its penetration depth negated (libfcl 0.7): the
// depth of a contact of shapes a and b, positive when they overlap
double fcl_depth(const Shape &a, const Shape &b, double depth) {
  bool soup = a.geom->getObjectType() == fcl::OT_BVH || b.geom->getObjectType() == fcl::OT_BVH;
  return soup && (a.sphere > 0 || b.sphere > 0) ? std::fabs(depth) : depth;
}

// signed distance of two placed shapes, with witness points
double shape_distance(const Shape &a, const fcl::Transform3d &Ta, const Shape &b,
                      const fcl::Transform3d &Tb, fcl::Vector3d &pa, fcl::Vector3d &pb) {
  if (sphere_poly_pair(a, b)) {
    // exact: P's nearest point q, the sphere's its centre minus r along the normal n
    bool sa = a.sphere > 0;
    const Shape &S = sa ? a : b, &P = sa ? b : a;
    const fcl::Transform3d &Ts = sa ? Ta : Tb, &Tp = sa ? Tb : Ta;
    fcl::Vector3d q, n;
    double d = sphere_polytope(S.sphere, Ts, *P.poly, Tp, q, n);
    fcl::Vector3d ps = Ts.translation() - S.sphere * n;
    pa = sa ? ps : q;
    pb = sa ? q : ps;
    return d;
  }
  fcl::CollisionObjectd *oa = placed(a, Ta), *ob = placed(b, Tb);
  // nearest points, unsigned: FCL's own signed distance asserts (aborts) on shapes that touch
  // without a contact point (a heat shield flush against its capsule); the depth of overlapping
  // shapes comes from collide() below instead
  fcl::DistanceRequestd req(true, false);
  req.gjk_solver_type = fcl::GST_INDEP;
  req.distance_tolerance = 1e-10;
  fcl::DistanceResultd res;
  fcl::distance(oa, ob, req, res);
  double d = res.min_distance;
  pa = res.nearest_points[0];
  pb = res.nearest_points[1];
  if ((a.geom->getObjectType() == fcl::OT_BVH || b.geom->getObjectType() == fcl::OT_BVH) &&
      (a.sphere > 0 || b.sphere > 0)) {
    // libfcl 0.7's sphere-triangle distance gives the nearest points in each object's own frame
    // (its GJK pairs give them in the world)
    pa = Ta * pa;
    pb = Tb * pb;
  }
  if (d > 0) return d;
  // overlapping: the deepest contact's penetration depth (meshes report 0 or -1 above)
  fcl::CollisionRequestd creq(16, true);
  fcl::CollisionResultd cres;
  fcl::collide(oa, ob, creq, cres);
  if (!cres.isCollision() || cres.numContacts() == 0) return 0; /* touching */
  double depth = 0;
  for (size_t k = 0; k < cres.numContacts(); k++) {
    const fcl::Contactd &ct = cres.getContact(k);
    double dk = fcl_depth(a, b, ct.penetration_depth);
    if (dk >= depth) {
      depth = dk;
      pa = ct.pos + 0.5 * depth * ct.normal;
      pb = ct.pos - 0.5 * depth * ct.normal;
    }
  }
  return -depth;
}

}  // namespace

namespace {

// 1 when (i, j) is one of the n pairs in list (either order)
bool listed(const int *list, int n, int i, int j) {
  for (int k = 0; k < n; k++)
    if ((list[2 * k] == i && list[2 * k + 1] == j) || (list[2 * k] == j && list[2 * k + 1] == i))
      return true;
  return false;
}

// 1 when bodies i and j must not touch: the same body, a skipped pair, or parent and child that
// the element does not keep
bool excluded(const hg_model *m, int i, int j, const int *skip, int nskip, const int *keep,
              int nkeep) {
  if (i == j || listed(skip, nskip, i, j)) return true;
  return (m->parent[i] == j || m->parent[j] == i) && !listed(keep, nkeep, i, j);
}

// the pairs a contact element leaves out, or none (m NULL)
struct Filter {
  const hg_model *m;
  const int *skip;
  int nskip;
  const int *keep;
  int nkeep;
};

int distance_between(const hg_collision *c, const hg_se3 *T, const int *a, int na, const int *b,
                     int nb, const Filter &f, hg_clearance *out) {
  out->distance = std::numeric_limits<double>::infinity();
  out->body_a = out->body_b = -1;
  for (int r = 0; r < 3; r++) out->pa[r] = out->pb[r] = 0;
  // broad phase: every pair of shapes with a lower bound of its distance (the gap between their
  // bounding spheres), nearest first; the narrow phase (FCL) stops at the first pair whose bound
  // is no smaller than the best distance found, which no later pair can beat
  struct Candidate {
    double bound;
    int sa, sb;
  };
  std::vector<Candidate> cand;
  auto world_centre = [&](const Shape &s) { return to_fcl(T[s.body]) * s.centre; };
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++) {
      int ba = a[i], bb = b[j];
      if (ba < 0 || bb < 0 || ba >= (int)c->of_body.size() || bb >= (int)c->of_body.size())
        continue;
      if (f.m && excluded(f.m, ba, bb, f.skip, f.nskip, f.keep, f.nkeep)) continue;
      for (int sa : c->of_body[ba])
        for (int sb : c->of_body[bb]) {
          const Shape &A = c->shape[sa], &B = c->shape[sb];
          double gap = (world_centre(A) - world_centre(B)).norm() - A.radius - B.radius;
          cand.push_back(Candidate{gap, sa, sb});
        }
    }
  std::stable_sort(cand.begin(), cand.end(),
                   [](const Candidate &x, const Candidate &y) { return x.bound < y.bound; });
  for (const Candidate &k : cand) {
    if (!(k.bound < out->distance)) break;
    const Shape &A = c->shape[k.sa], &B = c->shape[k.sb];
    fcl::Vector3d pa, pb;
    double d = shape_distance(A, to_fcl(T[A.body]) * A.local, B, to_fcl(T[B.body]) * B.local, pa, pb);
    if (!(d < out->distance)) continue;
    out->distance = d;
    out->body_a = A.body;
    out->body_b = B.body;
    for (int r = 0; r < 3; r++) out->pa[r] = pa[r], out->pb[r] = pb[r];
  }
  return out->body_a < 0 ? -1 : 0;
}

}  // namespace

extern "C" int hg_collision_distance(const hg_collision *c, const hg_se3 *T, const int *a, int na,
                                     const int *b, int nb, hg_clearance *out) {
  return distance_between(c, T, a, na, b, nb, Filter{nullptr, nullptr, 0, nullptr, 0}, out);
}

extern "C" int hg_collision_excluded(const hg_model *m, int i, int j, const int *skip, int nskip,
                                     const int *keep, int nkeep) {
  return excluded(m, i, j, skip, nskip, keep, nkeep) ? 1 : 0;
}

extern "C" int hg_collision_contact_gap(const hg_collision *c, const hg_model *m, const hg_se3 *T,
                                        const int *a, int na, const int *b, int nb,
                                        const int *skip, int nskip, const int *keep, int nkeep,
                                        hg_clearance *out) {
  return distance_between(c, T, a, na, b, nb, Filter{m, skip, nskip, keep, nkeep}, out);
}


extern "C" int hg_collision_contacts(hg_collision *c, const hg_model *m, const hg_se3 *T,
                                     const int *a, int na, const int *b, int nb, const int *skip,
                                     int nskip, const int *keep, int nkeep,
                                     const hg_contact **out) {
  int nbody = (int)c->of_body.size();
  c->points.clear();
  fcl::CollisionRequestd req(8, true);
  // the sides' bodies: membership (bit 1: a, bit 2: b), then world poses and bounding-sphere
  // centres once per body
  c->side.assign(nbody, 0);
  c->pose.resize(nbody);
  c->centre.resize(c->shape.size());
  for (int k = 0; k < na; k++)
    if (a[k] >= 0 && a[k] < nbody) c->side[a[k]] |= 1;
  for (int k = 0; k < nb; k++)
    if (b[k] >= 0 && b[k] < nbody) c->side[b[k]] |= 2;
  for (int i = 0; i < nbody; i++) {
    if (!c->side[i]) continue;
    c->pose[i] = to_fcl(T[i]);
    for (int sh : c->of_body[i]) c->centre[sh] = c->pose[i] * c->shape[sh].centre;
  }
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++) {
      int ba = a[i], bb = b[j];
      if (ba < 0 || bb < 0 || ba >= nbody || bb >= nbody ||
          excluded(m, ba, bb, skip, nskip, keep, nkeep))
        continue;
      // a pair both sides hold both ways is met twice: keep the one with ba < bb
      if (ba > bb && (c->side[ba] & 2) && (c->side[bb] & 1)) continue;
      for (int sa : c->of_body[ba])
        for (int sb : c->of_body[bb]) {
          const Shape &A = c->shape[sa], &B = c->shape[sb];
          // broad phase: bounding spheres apart
          if ((c->centre[sa] - c->centre[sb]).norm() > A.radius + B.radius) continue;
          if (sphere_poly_pair(A, B)) {
            // narrow phase, sphere against a convex mesh part: one exact contact
            bool s_a = A.sphere > 0;
            const Shape &S = s_a ? A : B, &P = s_a ? B : A;
            fcl::Vector3d q, n;
            double d = sphere_polytope(S.sphere, c->pose[S.body] * S.local, *P.poly,
                                       c->pose[P.body] * P.local, q, n);
            if (!(d < 0)) continue;
            hg_contact h;
            // midway between the surfaces: from P's point q, half the depth into P
            fcl::Vector3d pos = q + 0.5 * d * n;
            for (int r = 0; r < 3; r++) h.pos[r] = pos[r], h.normal[r] = s_a ? -n[r] : n[r];
            h.depth = -d;
            h.body_a = ba;
            h.body_b = bb;
            c->points.push_back(h);
            continue;
          }
          if (poly_poly_pair(A, B)) {
            // two convex polytopes: the vertices of each inside the other (a face on a face
            // gives its corners, the manifold a box on a box has); when none is (edge across
            // edge), FCL's GJK/EPA point below
            size_t before = c->points.size();
            fcl::Transform3d Ta = c->pose[ba] * A.local, Tb = c->pose[bb] * B.local;
            vertices_inside(*A.poly, Ta, *B.poly, Tb, ba, bb, false, c->points);
            vertices_inside(*B.poly, Tb, *A.poly, Ta, ba, bb, true, c->points);
            if (c->points.size() > before) continue;
          }
          // narrow phase: FCL's contact manifold, normals from A into B
          c->contacts.clear();
          fcl::collide(placed(A, c->pose[ba] * A.local), placed(B, c->pose[bb] * B.local), req,
                       c->contacts);
          if ((A.sphere > 0 && B.surf) || (B.sphere > 0 && A.surf)) {
            sphere_surface(A, c->pose[ba] * A.local, B, c->pose[bb] * B.local, c->contacts, ba,
                           bb, c->points);
            continue;
          }
          for (size_t k = 0; k < c->contacts.numContacts(); k++) {
            const fcl::Contactd &ct = c->contacts.getContact(k);
            double depth = fcl_depth(A, B, ct.penetration_depth);
            if (!(depth > 0)) continue;
            hg_contact h;
            for (int r = 0; r < 3; r++) h.pos[r] = ct.pos[r], h.normal[r] = ct.normal[r];
            h.depth = depth;
            h.body_a = ba;
            h.body_b = bb;
            c->points.push_back(h);
          }
        }
    }
  *out = c->points.data();
  return (int)c->points.size();
}
