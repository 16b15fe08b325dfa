/* mesh_assimp_child.c: the program hinge-mesh-reader, which reads one mesh file through the Open
 * Asset Import Library (Debian libassimp-dev) and writes its triangles on standard output as
 * mesh_frame.h describes. hinge never calls assimp itself: assimp crashes, hangs and grows
 * without bound on small hostile files, so it runs here, in a process of its own, under the
 * memory and CPU-time limits the parent passes (mesh_assimp.c), which also bounds its wall time
 * and output. Not a library file: sim/CMakeLists.txt builds it alone, into libexec/hinge/.
 *
 * Every triangle of every mesh of the file is taken, with the node transforms (and Collada's
 * <unit meter>) applied, in the file's own axes: Collada's <up_axis> is ignored, as ROS tools do,
 * since URDF <mesh> frames are the file's coordinates. Lines and points are dropped. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "mesh_frame.h"

/* writes n bytes to standard output, or exits 3 (the parent then sees a short frame) */
static void put(const void *p, size_t n) {
  if (n && fwrite(p, 1, n, stdout) != n) exit(3);
}

/* the frame's head */
static void put_head(uint32_t kind, uint32_t n1, uint32_t n2) {
  hg_mesh_frame_head h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, HG_MESH_FRAME_MAGIC, sizeof h.magic);
  h.kind = kind;
  h.n1 = n1;
  h.n2 = n2;
  put(&h, sizeof h);
}

/* the frame's tail and the process's end with status rc */
_Noreturn static void finish(int rc) {
  put(HG_MESH_FRAME_END, 8);
  if (fflush(stdout)) exit(3);
  exit(rc);
}

/* an ERROR frame saying msg, then exit 1 */
_Noreturn static void fail(const char *msg) {
  size_t n = strlen(msg);
  if (n > HG_MESH_FRAME_MSG) n = HG_MESH_FRAME_MSG;
  put_head(HG_MESH_FRAME_ERROR, (uint32_t)n, 0);
  put(msg, n);
  finish(1);
}

/* Refuses a PLY file whose header has no end_header line: assimp 5.2 reads such a file for ever
 * (21 bytes, "ply\nformat ascii 1.0\n", is never done). A PLY file is recognised as assimp
 * recognises it, by its first line "ply"; its header is ASCII lines up to "end_header", a few
 * hundred bytes in practice, searched in the first 1 MiB. */
static void check_ply_header(const char *path) {
  enum { HEAD = 1 << 20 };
  FILE *f = fopen(path, "rb");
  if (!f) return; /* assimp says why */
  char *buf = malloc(HEAD + 1);
  size_t n = buf ? fread(buf, 1, HEAD, f) : 0;
  fclose(f);
  if (!buf) fail("out of memory");
  buf[n] = '\0';
  int ply = n >= 4 && !strncmp(buf, "ply", 3) && (buf[3] == '\n' || buf[3] == '\r');
  int found = 0;
  /* a line that is "end_header" (before a newline, a CR or the end of what was read) */
  for (char *p = buf; ply && !found && (p = strstr(p, "end_header")); p += 10)
    found = (p == buf || p[-1] == '\n') &&
            (p[10] == '\n' || p[10] == '\r' || p[10] == '\0' || p[10] == ' ');
  free(buf);
  if (ply && !found) fail("PLY header without an end_header line in its first 1 MiB");
}

/* a number argument, or exit 2 */
static unsigned long long arg_number(const char *s) {
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  if (end == s || *end || errno) {
    fprintf(stderr, "hinge-mesh-reader: expected a number, got '%s'\n", s);
    exit(2);
  }
  return x;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr,
            "usage: hinge-mesh-reader MEMORY_BYTES CPU_SECONDS FILE\n"
            "(run by hinge to read meshes through assimp in a process of its own)\n");
    return 2;
  }
  unsigned long long mem = arg_number(argv[1]), cpu = arg_number(argv[2]);
  const char *path = argv[3];
  /* the limits first: address space (assimp's allocations fail past it: std::bad_alloc), CPU
   * time (SIGXCPU at the soft limit, SIGKILL a second later), no core file, no file written */
  struct rlimit as = {(rlim_t)mem, (rlim_t)mem}, cpu_lim = {(rlim_t)cpu, (rlim_t)cpu + 1};
  struct rlimit none = {0, 0};
  if (setrlimit(RLIMIT_AS, &as) || setrlimit(RLIMIT_CPU, &cpu_lim) ||
      setrlimit(RLIMIT_CORE, &none) || setrlimit(RLIMIT_FSIZE, &none)) {
    fprintf(stderr, "hinge-mesh-reader: setrlimit: %s\n", strerror(errno));
    return 2;
  }
  check_ply_header(path);

  struct aiPropertyStore *props = aiCreatePropertyStore();
  if (!props) fail("out of memory");
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
  /* lines and points are dropped: only triangles bound a solid */
  aiSetImportPropertyInteger(props, AI_CONFIG_PP_SBP_REMOVE,
                             aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  const struct aiScene *sc = aiImportFileExWithProperties(
      path,
      aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices |
          aiProcess_SortByPType,
      NULL, props);
  aiReleasePropertyStore(props);
  if (!sc) {
    const char *why = aiGetErrorString();
    /* the address-space limit reached inside assimp */
    if (strstr(why, "bad_alloc")) {
      char msg[128];
      snprintf(msg, sizeof msg, "out of memory: assimp needed more than %llu MiB", mem >> 20);
      fail(msg);
    }
    fail(why && *why ? why : "assimp gave no reason");
  }
  /* sizes first (64-bit, so that no count wraps), then the vertices and triangles of each mesh,
   * indices offset by the vertices of the meshes before */
  uint64_t nvert = 0, ntri = 0;
  for (unsigned k = 0; k < sc->mNumMeshes; k++) {
    const struct aiMesh *M = sc->mMeshes[k];
    nvert += M->mNumVertices;
    for (unsigned f = 0; f < M->mNumFaces; f++) ntri += M->mFaces[f].mNumIndices == 3;
  }
  if (ntri == 0) fail("the file holds no triangles");
  if (nvert > UINT32_MAX || ntri > UINT32_MAX) fail("too many vertices or triangles");
  put_head(HG_MESH_FRAME_MESH, (uint32_t)nvert, (uint32_t)ntri);
  for (unsigned k = 0; k < sc->mNumMeshes; k++) {
    const struct aiMesh *M = sc->mMeshes[k];
    for (unsigned v = 0; v < M->mNumVertices; v++) {
      double x[3] = {M->mVertices[v].x, M->mVertices[v].y, M->mVertices[v].z};
      put(x, sizeof x);
    }
  }
  uint32_t base = 0;
  for (unsigned k = 0; k < sc->mNumMeshes; k++) {
    const struct aiMesh *M = sc->mMeshes[k];
    for (unsigned f = 0; f < M->mNumFaces; f++) {
      const struct aiFace *F = &M->mFaces[f];
      if (F->mNumIndices != 3) continue;
      uint32_t t[3] = {base + F->mIndices[0], base + F->mIndices[1], base + F->mIndices[2]};
      put(t, sizeof t);
    }
    base += M->mNumVertices;
  }
  aiReleaseImport(sc);
  finish(0);
}
