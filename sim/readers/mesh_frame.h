/* mesh_frame.h: what the mesh reader process (mesh_assimp_child.c, the program
 * hinge-mesh-reader) writes on its standard output for the parent (mesh_assimp.c). Inside
 * sim/readers only. Both ends are built together for one machine, so numbers are in its own byte
 * order; the parent trusts nothing of it (counts, indices and coordinates are checked).
 *
 *   head   hg_mesh_frame_head: magic, kind, two counts
 *   body   kind MESH:  n1 vertices as 3 doubles (x y z), then n2 triangles as 3 uint32 indices
 *          kind ERROR: n1 bytes of message (no NUL), at most HG_MESH_FRAME_MSG
 *   tail   the 8 bytes HG_MESH_FRAME_END, then the end of the stream
 *
 * The process exits 0 after a MESH frame and 1 after an ERROR frame. */
#ifndef HINGE_MESH_FRAME_H
#define HINGE_MESH_FRAME_H

#include <stdint.h>

#define HG_MESH_FRAME_MAGIC "hgmesh1"
#define HG_MESH_FRAME_END "hgmeshZ"
#define HG_MESH_FRAME_MESH 1u
#define HG_MESH_FRAME_ERROR 2u
#define HG_MESH_FRAME_MSG 400u

typedef struct hg_mesh_frame_head {
  char magic[8]; /* HG_MESH_FRAME_MAGIC with its NUL */
  uint32_t kind; /* HG_MESH_FRAME_MESH or HG_MESH_FRAME_ERROR */
  uint32_t n1;   /* vertices, or message bytes */
  uint32_t n2;   /* triangles, or 0 */
  uint32_t zero; /* 0 */
} hg_mesh_frame_head;

/* the program's arguments: hinge-mesh-reader MEMORY_BYTES CPU_SECONDS FILE */

#endif
