/* mesh_assimp.c: meshes in the formats of robot descriptions other than OBJ and STL (Collada
 * .dae, PLY, glTF, 3DS, ...) read through the Open Asset Import Library (Debian libassimp-dev).
 * Every triangle of every mesh of the file is taken, with the node transforms (and Collada's
 * <unit meter>) applied, in the file's own axes: Collada's <up_axis> is ignored, as ROS tools do,
 * since URDF <mesh> frames are the file's coordinates. */
#include <stdlib.h>
#include <string.h>

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "mesh.h"

int hg_mesh_load_assimp(const char *path, hg_mesh *out, hg_error *err) {
  struct aiPropertyStore *props = aiCreatePropertyStore();
  const struct aiScene *sc;
  int nvert = 0, ntri = 0;
  memset(out, 0, sizeof *out);
  if (!props) return hg_error_set(err, "%s: out of memory", path), -1;
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
  /* lines and points are dropped: only triangles bound a solid */
  aiSetImportPropertyInteger(props, AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  sc = aiImportFileExWithProperties(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                    aiProcess_PreTransformVertices | aiProcess_SortByPType,
                                    NULL, props);
  aiReleasePropertyStore(props);
  if (!sc) return hg_error_set(err, "%s: cannot read the mesh: %s", path, aiGetErrorString()), -1;
  /* sizes first, then the vertices and triangles of each mesh, indices offset by those before */
  for (unsigned k = 0; k < sc->mNumMeshes; k++) {
    const struct aiMesh *M = sc->mMeshes[k];
    nvert += (int)M->mNumVertices;
    for (unsigned f = 0; f < M->mNumFaces; f++) ntri += M->mFaces[f].mNumIndices == 3;
  }
  if (ntri == 0) {
    aiReleaseImport(sc);
    return hg_error_set(err, "%s: the file holds no triangles", path), -1;
  }
  out->vert = malloc((size_t)nvert * 3 * sizeof(double));
  out->tri = malloc((size_t)ntri * 3 * sizeof(int));
  if (!out->vert || !out->tri) {
    aiReleaseImport(sc);
    hg_mesh_free(out);
    return hg_error_set(err, "%s: out of memory", path), -1;
  }
  for (unsigned k = 0; k < sc->mNumMeshes; k++) {
    const struct aiMesh *M = sc->mMeshes[k];
    int base = out->nvert;
    for (unsigned v = 0; v < M->mNumVertices; v++, out->nvert++) {
      out->vert[3 * out->nvert] = M->mVertices[v].x;
      out->vert[3 * out->nvert + 1] = M->mVertices[v].y;
      out->vert[3 * out->nvert + 2] = M->mVertices[v].z;
    }
    for (unsigned f = 0; f < M->mNumFaces; f++) {
      const struct aiFace *F = &M->mFaces[f];
      if (F->mNumIndices != 3) continue;
      for (int c = 0; c < 3; c++) out->tri[3 * out->ntri + c] = base + (int)F->mIndices[c];
      out->ntri++;
    }
  }
  aiReleaseImport(sc);
  return 0;
}
