/* collision.h: the collision geometry of a model's bodies, and the distances between bodies.
 *
 * Shapes are a body's geometry marked as collision geometry (the scene's `collision: true`, URDF
 * <collision>): box, sphere, cylinder, capsule, cone, and meshes (OBJ/STL, any triangle soup:
 * queried as a bounding-volume hierarchy of its triangles, not a convex hull). The distance
 * queries run in FCL (the Flexible Collision Library, Debian's libfcl-dev), which this module
 * wraps behind a C interface; hinge writes no collision algorithm of its own.
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

#ifdef __cplusplus
}
#endif

#endif
