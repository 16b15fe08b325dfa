/* collision.h: the collision geometry of a model's bodies, and the distances between bodies.
 *
 * Shapes are a body's geometry marked as collision geometry (the scene's `collision: true`, URDF
 * <collision>): box, sphere, cylinder, capsule, cone, and meshes (OBJ/STL, ...). A mesh is split
 * at load into its connected parts: a part that is closed, outward and convex is a solid (an
 * fcl::Convex), any other part a surface of zero thickness (a bounding-volume hierarchy of its
 * triangles); docs/contact.md says what that means for contact. The queries run in FCL (the
 * Flexible Collision Library, Debian's libfcl-dev), wrapped behind a C interface, except three
 * pairs with a convex mesh part that hinge answers itself (exactly, or where FCL's answer is
 * unfit for contact): a sphere against it (the exact signed distance to the polytope), a box or
 * another convex part against it (the vertices of each inside the other: a face on a face gives
 * its corners, as FCL's box-box manifold does; GJK/EPA's one point when no vertex is inside),
 * and a sphere against a surface part (one point per triangle whose nearest point is inside its
 * face, and one at the nearest point of all: a seam shared by two triangles counts once).
 *
 * Distances are signed: > 0 the gap between the closest points, < 0 minus the penetration depth
 * when the shapes overlap, with witness points on each side (world frame). Poses come from the
 * caller (d->T_world of a kinematic walk), so a query allocates nothing. */
#ifndef HINGE_COLLISION_H
#define HINGE_COLLISION_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hg_collision hg_collision;

/* The collision shapes of m's bodies (meshes are read from their files). NULL with err naming
 * the body and the shape when a mesh cannot be read. */
hg_collision *hg_collision_new(const hg_model *m, hg_error *err);
void hg_collision_free(hg_collision *c);

/* number of collision shapes of body i */
int hg_collision_count(const hg_collision *c, int body);

/* body i's collision geometry: the smallest extent of any of its shapes (the thinnest wall a
 * body could pass through, m), and the radius about the body origin that holds them all; both
 * 0 for a body without shapes */
double hg_collision_thinnest(const hg_collision *c, int body);
double hg_collision_reach(const hg_collision *c, int body);

/* the closest approach of two sets of bodies */
typedef struct hg_clearance {
  double distance;       /* m: > 0 apart, < 0 overlapping (minus the penetration depth) */
  double pa[3], pb[3];   /* witness points on a's and b's geometry, world */
  int body_a, body_b;    /* the bodies they lie on (-1 when a set has no collision shape) */
} hg_clearance;

/* The signed distance between the collision geometry of the bodies a[0..na) and b[0..nb) at the
 * world poses T (one per body of the model, as d->T_world): the minimum over every pair of
 * shapes. A broad phase orders the pairs by the gap of their bounding spheres (a lower bound of
 * their distance) and runs FCL's narrow phase only while that bound can beat the best distance
 * found. Returns 0, or -1 when a set has no collision shape (out->distance is then +inf). */
int hg_collision_distance(const hg_collision *c, const hg_se3 *T, const int *a, int na,
                          const int *b, int nb, hg_clearance *out);

/* Whether a contact element tests bodies i and j of m against each other: 1 (left out) when
 * i == j, when the pair is one of skip's nskip pairs (body indices, either order), or when one
 * is the other's parent (a body never touches the body it is jointed to) unless the pair is one
 * of keep's nkeep pairs (parent and child that the element tests all the same: forces.c keeps the
 * pair a contact element names alone on its two sides while the joint between them moves). */
int hg_collision_excluded(const hg_model *m, int i, int j, const int *skip, int nskip,
                          const int *keep, int nkeep);

/* hg_collision_distance over the pairs hg_collision_contacts considers (those
 * hg_collision_excluded does not leave out): the gap a contact element closes. */
int hg_collision_contact_gap(const hg_collision *c, const hg_model *m, const hg_se3 *T,
                             const int *a, int na, const int *b, int nb, const int *skip,
                             int nskip, const int *keep, int nkeep, hg_clearance *out);

/* one contact point between two bodies' collision geometry */
typedef struct hg_contact {
  double pos[3];        /* world: midway between the two surfaces */
  double normal[3];     /* world unit vector from a's side into b's (b is pushed along it) */
  double depth;         /* penetration depth along normal, m (> 0) */
  int body_a, body_b;   /* the bodies */
} hg_contact;

/* The contact points between the collision geometry of the bodies a[0..na) and b[0..nb) at the
 * world poses T, from FCL's collide(): per pair of overlapping shapes, a contact manifold (up to
 * four points for box against box, one point for other convex pairs, one per overlapping
 * triangle for a mesh surface; for a convex mesh part as described above). The pairs hg_collision_excluded leaves out (itself, a skip pair, its
 * parent or its children unless keep holds the pair) are not tested; a pair of bodies that both
 * sides hold (a pile: the same list on both sides) is tested once. The bounding spheres of the
 * shapes reject pairs that are apart before FCL runs. Returns how many points, and in *out the
 * points (in c's buffer: valid until the next call). Not thread-safe on one c: it reuses its
 * buffers, which grow to the most points seen; hinge's part then allocates nothing (FCL's narrow
 * phase allocates small temporaries of its own). */
int hg_collision_contacts(hg_collision *c, const hg_model *m, const hg_se3 *T, const int *a,
                          int na, const int *b, int nb, const int *skip, int nskip,
                          const int *keep, int nkeep, const hg_contact **out);

#ifdef __cplusplus
}
#endif

#endif
