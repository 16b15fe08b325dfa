/* fuzz_mesh.c: the OBJ and STL readers on any bytes (the first byte picks the format); what
 * loads is checked and, when closed, gives its mass properties. */
#include "fuzz_common.h"
#include "hinge.h"
#include "mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hg_mesh mesh;
  hg_error err;
  const char *path;
  if (size < 1) return 0;
  if (!(path = fuzz_file("mesh", data[0] & 1 ? ".stl" : ".obj", data + 1, size - 1))) return 0;
  int rc = hg_mesh_load(path, &mesh, &err);
  remove(path);
  if (rc) return 0;
  if (hg_mesh_check(&mesh, &err) == 0) {
    hg_inertia G;
    hg_mesh_inertia(&mesh, 1000, &G, &err);
  }
  hg_mesh_free(&mesh);
  return 0;
}
