/* mesh.h: closed triangle meshes: OBJ and STL reading (mesh_read.c; other formats through assimp,
 * mesh_assimp.c), and the exact mass properties of the solid they bound (mesh.c; J. Kwon,
 * "Differential Dynamics and Mesh-Based Inertia", section 4, after B. Mirtich, "Fast and Accurate
 * Computation of Polyhedral Mass Properties", 1996), by the divergence theorem.
 *
 * A mesh is an indexed triangle list in its own frame (metres). Triangles are counter-clockwise
 * seen from outside (right-hand normal points out). Meshes read from files are used as given: no
 * repair beyond welding the repeated corners of STL facets (exactly equal coordinates only). */
#ifndef HINGE_MESH_H
#define HINGE_MESH_H

#include <stddef.h>

#include "inertia.h"
#include "model.h"
#include "spatial.h"

typedef struct hg_mesh {
  int nvert, ntri;
  double *vert; /* 3 x nvert */
  int *tri;     /* 3 x ntri, counter-clockwise seen from outside */
} hg_mesh;

/* Reads a mesh by its extension (case-insensitive):
 *   .obj  'v x y z [w]' and 'f' lines; face corners 'i', 'i/t', 'i//n' or 'i/t/n', negative
 *         indices count back from the last vertex read; polygons are fan-triangulated; all other
 *         statements (vt, vn, o, g, s, usemtl, mtllib, l, ...) are ignored;
 *   .stl  ASCII ('solid' ... 'endsolid', several solids allowed) or binary (80-byte header,
 *         count, 50-byte facets); corners with exactly equal coordinates are welded and the
 *         facet normals are ignored (the winding gives the orientation).
 * Returns 0, or -1 with out zeroed and err->msg = "file:line: what was expected" (binary STL:
 * "file: byte N: ..."). err may be NULL. */
int hg_mesh_load(const char *path, hg_mesh *out, hg_error *err);
/* Any other extension (Collada .dae, .ply, .gltf, .3ds, ...) goes to hg_mesh_load_assimp. Every
 * file must be a regular file of at most HG_FILE_MESH_MAX bytes (readfile.h). */

/* A mesh through the Open Asset Import Library, read in a process of its own (mesh_assimp.c):
 * every triangle of the file, node transforms and Collada <unit meter> applied, Collada <up_axis>
 * ignored (the file's own axes, as ROS tools read URDF meshes). Any failure of assimp (its error,
 * a crash, a hang, memory or output past the limits below) is an error of this mesh:
 * err->msg = "file: cannot read mesh (why)". The file must be a regular file of at most
 * HG_FILE_MESH_MAX bytes (readfile.h). */
int hg_mesh_load_assimp(const char *path, hg_mesh *out, hg_error *err);

/* the limits of the reader process (hg_mesh_isolation's defaults) */
#define HG_MESH_READER_MEMORY ((size_t)1 << 30)  /* address space: 1 GiB */
#define HG_MESH_READER_CPU 20.0                  /* CPU time, s */
#define HG_MESH_READER_WALL 30.0                 /* wall time, s (kill past it) */
#define HG_MESH_READER_OUTPUT ((size_t)512 << 20) /* its answer: 512 MiB, 14 M triangles */

/* how hg_mesh_load_isolated runs the reader (the caller fills every field) */
typedef struct hg_mesh_isolation {
  const char *helper;  /* the reader program; NULL: hg_mesh_reader_path */
  size_t memory_bytes; /* its address-space limit (RLIMIT_AS) */
  double cpu_seconds;  /* its CPU-time limit (RLIMIT_CPU, whole seconds, rounded up) */
  double wall_seconds; /* killed when it has not answered after this long */
  size_t output_bytes; /* killed when its answer grows past this */
} hg_mesh_isolation;

/* hg_mesh_load_assimp with given limits (NULL: the defaults above) */
int hg_mesh_load_isolated(const char *path, const hg_mesh_isolation *iso, hg_mesh *out,
                          hg_error *err);

/* The reader program's path into buf (len bytes): $HINGE_MESH_READER when set, else
 * libexec/hinge/hinge-mesh-reader in the folder of the file holding this code (the hinge program,
 * libhinge-sim.so or the Python module) or in one of the four folders above it, then the same
 * from the running program (/proc/self/exe). 0, or -1 when none is executable. */
int hg_mesh_reader_path(char *buf, size_t len);

/* frees the arrays and zeroes the mesh (NULL or a zeroed mesh is fine) */
void hg_mesh_free(hg_mesh *m);

/* merges vertices with exactly equal coordinates (keeping first-seen order) and drops the
 * triangles that collapse; -1 when out of memory (the mesh is then unchanged) */
int hg_mesh_weld(hg_mesh *m);

/* scales vertex coordinates by s per axis; a mirroring scale (odd number of negative factors)
 * also reverses every triangle, so that the normals still point out */
void hg_mesh_scale(hg_mesh *m, const double s[3]);

/* moves the vertices by T: x <- R x + p (the mesh given in frame {b} re-expressed in {a}, T_ab) */
void hg_mesh_transform(hg_mesh *m, const hg_se3 *T);

/* Checks that indices are in range, no triangle repeats a vertex, and the mesh is closed and
 * consistently oriented: every directed edge occurs once and its reverse once (vertices with
 * exactly equal coordinates count as one). Returns 0, or -1 with err naming an offending edge. */
int hg_mesh_check(const hg_mesh *m, hg_error *err);

/* Mass, centre of mass (mesh frame) and rotational inertia about the centre of mass (xx yy zz xy
 * xz yz, tensor entries: xy = -integral of x y dm) of the solid bounded by the mesh with uniform
 * density (kg/m^3). The most precise form (no large parallel-axis terms). -1 with err when
 * hg_mesh_check fails, the density is not positive, the enclosed volume is not positive (an
 * inside-out mesh), or the inertia is invalid. */
int hg_mesh_mass_properties(const hg_mesh *m, double density, double *mass, double com[3],
                            double Ic[6], hg_error *err);

/* the same as an hg_inertia about the mesh frame origin */
int hg_mesh_inertia(const hg_mesh *m, double density, hg_inertia *out, hg_error *err);

/* signed enclosed volume (positive for a closed mesh with outward normals); no checks */
double hg_mesh_volume(const hg_mesh *m);

/* axis-aligned bounds of the vertices (all zero for an empty mesh) */
void hg_mesh_bounds(const hg_mesh *m, double lo[3], double hi[3]);

#endif
