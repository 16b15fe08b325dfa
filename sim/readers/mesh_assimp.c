/* mesh_assimp.c: meshes in the formats of robot descriptions other than OBJ and STL (Collada
 * .dae, PLY, glTF, 3DS, ...), read through the Open Asset Import Library in a process of its own
 * (the program hinge-mesh-reader, mesh_assimp_child.c). assimp 5.2 crashes, runs for ever or
 * grows to gigabytes on small hostile files; here any of that becomes an error of the one mesh:
 * the reader runs under an address-space and a CPU-time limit (it sets them on itself before
 * reading), this side bounds its wall time and its output, kills it past either, and checks
 * every count, index and coordinate it sends (mesh_frame.h). The process is started by
 * reader_proc.h. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mesh.h"
#include "mesh_frame.h"
#include "reader_proc.h"
#include "readfile.h"

int hg_mesh_reader_path(char *buf, size_t len) {
  return hg_reader_locate("hinge-mesh-reader", "HINGE_MESH_READER", buf, len);
}

/* ---- talking to the reader ---- */

typedef struct reader {
  int fd;          /* the read end of the reader's standard output */
  double deadline; /* CLOCK_MONOTONIC seconds */
  size_t got, cap; /* bytes read so far, and the most allowed */
  int timed_out, too_big;
} reader;

/* reads exactly n bytes into p before the deadline and within the output cap; 0, or -1 (short
 * stream, read error, time or cap exceeded: the flags say which) */
static int read_exact(reader *r, void *p, size_t n) {
  char *c = p;
  if (n > r->cap - r->got) {
    r->too_big = 1;
    return -1;
  }
  while (n > 0) {
    double left = r->deadline - hg_reader_now();
    if (left <= 0) {
      r->timed_out = 1;
      return -1;
    }
    struct pollfd pfd = {r->fd, POLLIN, 0};
    int k = poll(&pfd, 1, (int)ceil(left * 1000));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return -1;
    if (k == 0) continue; /* the deadline check above ends it */
    ssize_t m = read(r->fd, c, n);
    if (m < 0 && errno == EINTR) continue;
    if (m <= 0) return -1;
    c += m;
    n -= (size_t)m;
    r->got += (size_t)m;
  }
  return 0;
}

/* 0 when the stream ends here (before the deadline) */
static int read_end(reader *r) {
  char c;
  size_t cap = r->cap;
  r->cap = r->got + 1; /* one more byte would be too many */
  int more = read_exact(r, &c, 1) == 0;
  r->cap = cap;
  return more || r->timed_out ? -1 : 0;
}

/* Reads and checks one frame into out (mesh) or why (the reader's error). Returns 0 for a
 * mesh, 1 for an error frame, -1 for a bad or short frame (why says how). */
static int read_frame(reader *r, hg_mesh *out, char *why, size_t len) {
  hg_mesh_frame_head h;
  char tail[8];
  if (read_exact(r, &h, sizeof h))
    return snprintf(why, len, "the reader stopped before its answer"), -1;
  if (memcmp(h.magic, HG_MESH_FRAME_MAGIC, sizeof h.magic) || h.zero ||
      (h.kind != HG_MESH_FRAME_MESH && h.kind != HG_MESH_FRAME_ERROR))
    return snprintf(why, len, "the reader's answer is malformed"), -1;
  if (h.kind == HG_MESH_FRAME_ERROR) {
    char msg[HG_MESH_FRAME_MSG + 1];
    if (h.n1 > HG_MESH_FRAME_MSG || h.n2 || read_exact(r, msg, h.n1))
      return snprintf(why, len, "the reader's error message is malformed"), -1;
    msg[h.n1] = '\0';
    /* printable text only: the message goes to a terminal */
    for (uint32_t k = 0; k < h.n1; k++)
      if ((unsigned char)msg[k] < 32 || msg[k] == 127) msg[k] = ' ';
    if (read_exact(r, tail, 8) || memcmp(tail, HG_MESH_FRAME_END, 8) || read_end(r))
      return snprintf(why, len, "the reader's error message is malformed"), -1;
    snprintf(why, len, "%s", msg);
    return 1;
  }
  /* a mesh: counts within the mesh limit and the output cap before any allocation */
  if (h.n1 == 0 || h.n2 == 0 || h.n1 > INT_MAX / 4 || h.n2 > INT_MAX / 4)
    return snprintf(why, len, "the reader sent %lu vertices and %lu triangles",
                    (unsigned long)h.n1, (unsigned long)h.n2), -1;
  size_t vbytes = (size_t)h.n1 * 3 * sizeof(double), tbytes = (size_t)h.n2 * 3 * sizeof(uint32_t);
  if (vbytes + tbytes > r->cap - r->got) {
    r->too_big = 1;
    return -1;
  }
  hg_mesh m = {(int)h.n1, (int)h.n2, malloc(vbytes), malloc(tbytes)};
  if (!m.vert || !m.tri) {
    hg_mesh_free(&m);
    return snprintf(why, len, "out of memory for %lu vertices", (unsigned long)h.n1), -1;
  }
  uint32_t *t32 = (uint32_t *)m.tri; /* int and uint32_t have one size (mesh.h: int indices) */
  _Static_assert(sizeof(int) == sizeof(uint32_t), "triangle indices are 32 bits");
  if (read_exact(r, m.vert, vbytes) || read_exact(r, t32, tbytes) || read_exact(r, tail, 8) ||
      memcmp(tail, HG_MESH_FRAME_END, 8) || read_end(r)) {
    hg_mesh_free(&m);
    return snprintf(why, len, "the reader's mesh is cut short or malformed"), -1;
  }
  for (size_t k = 0; k < 3 * (size_t)m.nvert; k++)
    if (!isfinite(m.vert[k])) {
      snprintf(why, len, "vertex %zu has a coordinate that is not a finite number", k / 3 + 1);
      hg_mesh_free(&m);
      return -1;
    }
  for (size_t k = 0; k < 3 * (size_t)m.ntri; k++) {
    if (t32[k] >= h.n1) {
      snprintf(why, len, "triangle %zu names vertex %lu of %d", k / 3 + 1,
               (unsigned long)t32[k] + 1, m.nvert);
      hg_mesh_free(&m);
      return -1;
    }
    m.tri[k] = (int)t32[k];
  }
  *out = m;
  return 0;
}

/* why the reader died of signal sig */
static void signal_reason(int sig, const hg_mesh_isolation *iso, char *why, size_t len) {
  switch (sig) {
  case SIGXCPU:
    snprintf(why, len, "assimp used more than %g s of CPU time", iso->cpu_seconds);
    break;
  case SIGSEGV:
    snprintf(why, len, "assimp crashed: segmentation fault");
    break;
  case SIGBUS:
    snprintf(why, len, "assimp crashed: bus error");
    break;
  case SIGABRT:
    snprintf(why, len, "assimp aborted");
    break;
  case SIGFPE:
    snprintf(why, len, "assimp crashed: arithmetic exception");
    break;
  case SIGILL:
    snprintf(why, len, "assimp crashed: illegal instruction");
    break;
  case SIGKILL:
    snprintf(why, len, "the reader was killed (its CPU-time limit of %g s, or the system)",
             iso->cpu_seconds);
    break;
  default:
    snprintf(why, len, "the reader died of signal %d", sig);
  }
}

/* ---- the mesh ---- */

int hg_mesh_load_isolated(const char *path, const hg_mesh_isolation *given, hg_mesh *out,
                          hg_error *err) {
  hg_mesh_isolation iso = {NULL, HG_MESH_READER_MEMORY, HG_MESH_READER_CPU, HG_MESH_READER_WALL,
                           HG_MESH_READER_OUTPUT};
  char helper[PATH_MAX], why[HG_MESH_FRAME_MSG + 64] = "";
  memset(out, 0, sizeof *out);
  if (given) iso = *given;
  /* the file first, here: a folder, a device or an endless file never reaches the reader */
  if (hg_file_check(path, HG_FILE_MESH_MAX, err)) return -1;
  if (iso.helper)
    snprintf(helper, sizeof helper, "%s", iso.helper);
  else if (hg_mesh_reader_path(helper, sizeof helper))
    return hg_error_fail(err,
                         "%s: cannot read mesh (the mesh reader %s is not installed beside "
                         "hinge; HINGE_MESH_READER may name it)",
                         path, helper);
  char mem[32], cpu[32];
  snprintf(mem, sizeof mem, "%zu", iso.memory_bytes);
  snprintf(cpu, sizeof cpu, "%.0f", ceil(iso.cpu_seconds));
  char *argv[] = {helper, mem, cpu, (char *)path, NULL};

  int fd;
  pid_t pid = -1;
  int rc = hg_reader_start(helper, argv, &fd, &pid);
  if (rc)
    return hg_error_fail(err, "%s: cannot read mesh (cannot start %s: %s)", path, helper,
                         strerror(rc));

  reader r = {fd, hg_reader_now() + iso.wall_seconds, 0, iso.output_bytes, 0, 0};
  int got = read_frame(&r, out, why, sizeof why);
  close(fd);
  /* a reader that has not ended by now is killed: past its time, its output, or its answer.
   * Its death by that SIGKILL, or by SIGPIPE when it wrote on after the pipe was closed above,
   * is this side's doing: the reason stays this side's finding */
  int status = 0, waited;
  if (got < 0) kill(pid, SIGKILL);
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) continue;
  if (got < 0 && r.timed_out)
    snprintf(why, sizeof why, "assimp took longer than %g s", iso.wall_seconds);
  else if (got < 0 && r.too_big)
    snprintf(why, sizeof why, "the reader's answer is larger than %zu MiB",
             iso.output_bytes >> 20);
  else if (waited == pid && WIFSIGNALED(status) &&
           !(got < 0 && (WTERMSIG(status) == SIGKILL || WTERMSIG(status) == SIGPIPE)))
    signal_reason(WTERMSIG(status), &iso, why, sizeof why);
  else if (got == 0 && waited == pid && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
    snprintf(why, sizeof why, "the reader exited with status %d after its mesh",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  else if (got == 0)
    return 0;
  hg_mesh_free(out);
  return hg_error_fail(err, "%s: cannot read mesh (%s)", path, why);
}

int hg_mesh_load_assimp(const char *path, hg_mesh *out, hg_error *err) {
  return hg_mesh_load_isolated(path, NULL, out, err);
}
