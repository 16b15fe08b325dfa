// collision.cpp: collision.h over FCL. The only C++ file of hinge: FCL is a C++ library, and this
// file keeps it behind the C interface of collision.h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
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

// one shape: its geometry and its pose in the body frame
struct Shape {
  int body;
  Geometry geom;
  fcl::Transform3d local;
  fcl::Vector3d centre;  // the centre of its bounding sphere, in the body frame
  double radius;         // the sphere's radius
  double thinnest;       // its smallest extent (of its local bounding box)
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

// a mesh file as a bounding-volume hierarchy of its triangles, scaled
Geometry mesh_geometry(const hg_geom &g, hg_error *err) {
  hg_mesh mesh = {0, 0, nullptr, nullptr};
  if (hg_mesh_load(g.mesh, &mesh, err)) return nullptr;
  hg_mesh_scale(&mesh, g.size);
  auto bvh = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
  std::vector<fcl::Vector3d> v(mesh.nvert);
  std::vector<fcl::Triangle> t(mesh.ntri);
  for (int k = 0; k < mesh.nvert; k++)
    v[k] = fcl::Vector3d(mesh.vert[3 * k], mesh.vert[3 * k + 1], mesh.vert[3 * k + 2]);
  for (int k = 0; k < mesh.ntri; k++)
    t[k] = fcl::Triangle(mesh.tri[3 * k], mesh.tri[3 * k + 1], mesh.tri[3 * k + 2]);
  hg_mesh_free(&mesh);
  bvh->beginModel();
  bvh->addSubModel(v, t);
  bvh->endModel();
  return bvh;
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
  case HG_GEOM_MESH: return mesh_geometry(g, err);
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
    fcl::Transform3d offset;
    hg_error e;
    Geometry geom = geometry(g, offset, &e);
    if (!geom) {
      hg_error_set(err, "collision shape of body '%s': %s", m->body_name[g.body], e.msg);
      delete c;
      return nullptr;
    }
    geom->computeLocalAABB();
    fcl::Transform3d local = to_fcl(g.pose) * offset;
    const fcl::AABBd &box = geom->aabb_local;
    c->of_body[g.body].push_back((int)c->shape.size());
    fcl::Vector3d ext = box.max_ - box.min_;
    c->shape.push_back(Shape{g.body, geom, local, local * box.center(), 0.5 * ext.norm(),
                             ext.minCoeff(), std::make_shared<fcl::CollisionObjectd>(geom)});
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

// signed distance of two placed shapes, with witness points
double shape_distance(const Shape &a, const fcl::Transform3d &Ta, const Shape &b,
                      const fcl::Transform3d &Tb, fcl::Vector3d &pa, fcl::Vector3d &pb) {
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
  if (d > 0) return d;
  // overlapping: the deepest contact's penetration depth (meshes report 0 or -1 above)
  fcl::CollisionRequestd creq(16, true);
  fcl::CollisionResultd cres;
  fcl::collide(oa, ob, creq, cres);
  if (!cres.isCollision() || cres.numContacts() == 0) return 0; /* touching */
  double depth = 0;
  for (size_t k = 0; k < cres.numContacts(); k++) {
    const fcl::Contactd &ct = cres.getContact(k);
    if (ct.penetration_depth >= depth) {
      depth = ct.penetration_depth;
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
          // narrow phase: FCL's contact manifold, normals from A into B
          c->contacts.clear();
          fcl::collide(placed(A, c->pose[ba] * A.local), placed(B, c->pose[bb] * B.local), req,
                       c->contacts);
          for (size_t k = 0; k < c->contacts.numContacts(); k++) {
            const fcl::Contactd &ct = c->contacts.getContact(k);
            if (!(ct.penetration_depth > 0)) continue;
            hg_contact h;
            for (int r = 0; r < 3; r++) h.pos[r] = ct.pos[r], h.normal[r] = ct.normal[r];
            h.depth = ct.penetration_depth;
            h.body_a = ba;
            h.body_b = bb;
            c->points.push_back(h);
          }
        }
    }
  *out = c->points.data();
  return (int)c->points.size();
}
