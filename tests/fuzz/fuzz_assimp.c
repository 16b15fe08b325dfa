/* fuzz_assimp.c: meshes of one assimp format on any bytes through assimp in its reader process
 * (sim/readers/mesh_assimp.c). One harness for every such format: FUZZ_MESH_TAG names the format
 * (collada, ply) and FUZZ_MESH_EXT is the file extension that makes assimp pick its importer
 * (tests/fuzz/CMakeLists.txt builds it once per format). Whatever assimp does with the bytes
 * (an error, a crash, a hang, memory past its limit) must come back here as an error of the
 * mesh, never as a crash, a hang or the memory of this process. What loads is checked and, when closed, gives its mass properties.
 * The limits are hg_mesh_load_assimp's but for time: 3 s of CPU and 5 s of wall time, below
 * libFuzzer's 10 s timeout (tests/fuzz/run.sh), so that a hang in assimp ends as an error. */
#include "fuzz_common.h"
#include "hinge.h"
#include "mesh.h"

#if !defined(FUZZ_MESH_TAG) || !defined(FUZZ_MESH_EXT)
#error "fuzz_assimp.c needs FUZZ_MESH_TAG and FUZZ_MESH_EXT (tests/fuzz/CMakeLists.txt)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hg_mesh mesh;
  hg_error err;
  const char *path;
  hg_mesh_isolation iso = {NULL, HG_MESH_READER_MEMORY, 3, 5, HG_MESH_READER_OUTPUT};
  if (!(path = fuzz_file(FUZZ_MESH_TAG, FUZZ_MESH_EXT, data, size))) return 0;
  int rc = hg_mesh_load_isolated(path, &iso, &mesh, &err);
  remove(path);
  if (rc) return 0;
  if (hg_mesh_check(&mesh, &err) == 0) {
    hg_inertia G;
    hg_mesh_inertia(&mesh, 1000, &G, &err);
  }
  hg_mesh_free(&mesh);
  return 0;
}
