/* mjcf_child.c: the program hinge-mjcf-reader, which compiles one MJCF file with MuJoCo's library
 * (mj_loadXML, Debian libmujoco-dev) and writes the compiled data hinge's MJCF reader uses on its
 * standard output, as mjcf_frame.h describes. hinge never calls MuJoCo's parser itself: MuJoCo
 * 2.2.2 frees memory it never allocated on some mutated files, so it runs here, in a process of
 * its own, under the memory and CPU-time limits the parent passes (mjcf_proc.c, which also bounds
 * its wall time and output), with no file written. Not a library file: sim/CMakeLists.txt
 * builds it alone, into libexec/hinge/. */
#define _GNU_SOURCE /* closefrom */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "mjcf_frame.h"

/* the enumerations mjcf_frame.h copies are MuJoCo's (compared as ints: they are distinct enum
 * types) */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(HG_MJ_JNT_FREE, mjJNT_FREE) && SAME(HG_MJ_JNT_BALL, mjJNT_BALL) &&
                   SAME(HG_MJ_JNT_SLIDE, mjJNT_SLIDE) && SAME(HG_MJ_JNT_HINGE, mjJNT_HINGE),
               "joint types");
_Static_assert(SAME(HG_MJ_GEOM_SPHERE, mjGEOM_SPHERE) && SAME(HG_MJ_GEOM_CAPSULE, mjGEOM_CAPSULE) &&
                   SAME(HG_MJ_GEOM_CYLINDER, mjGEOM_CYLINDER) && SAME(HG_MJ_GEOM_BOX, mjGEOM_BOX) &&
                   SAME(HG_MJ_GEOM_MESH, mjGEOM_MESH),
               "geom types");
_Static_assert(SAME(HG_MJ_EQ_CONNECT, mjEQ_CONNECT) && SAME(HG_MJ_EQ_WELD, mjEQ_WELD) &&
                   SAME(HG_MJ_EQ_JOINT, mjEQ_JOINT) && SAME(HG_MJ_EQ_NTYPE, mjEQ_DISTANCE + 1),
               "equality types");
_Static_assert(SAME(HG_MJ_TRN_JOINT, mjTRN_JOINT) && SAME(HG_MJ_DYN_NONE, mjDYN_NONE) &&
                   SAME(HG_MJ_GAIN_FIXED, mjGAIN_FIXED) && SAME(HG_MJ_BIAS_NONE, mjBIAS_NONE),
               "actuator types");
_Static_assert(SAME(HG_MJ_DSBL_PASSIVE, mjDSBL_PASSIVE) && SAME(HG_MJ_DSBL_GRAVITY, mjDSBL_GRAVITY),
               "disable flags");
_Static_assert(HG_MJCF_EQDATA <= mjNEQDATA && mjNBIAS >= 3, "equality and bias data");

static FILE *out; /* the frame's stream: the standard output this program was started with */

/* writes n bytes of the frame, or exits 3 (the parent then sees a short frame) */
static void put(const void *p, size_t n) {
  if (n && fwrite(p, 1, n, out) != n) _exit(3);
}

static void put_i32(int x) {
  int32_t v = (int32_t)x;
  put(&v, 4);
}

static void put_f64(const mjtNum *x, int n) {
  for (int k = 0; k < n; k++) {
    double v = (double)x[k];
    put(&v, 8);
  }
}

/* the frame's head */
static void put_head(uint32_t kind, const uint32_t count[HG_MJCF_NCOUNT]) {
  char magic[8] = {0};
  uint32_t version = HG_MJCF_FRAME_VERSION;
  memcpy(magic, HG_MJCF_FRAME_MAGIC, sizeof HG_MJCF_FRAME_MAGIC);
  put(magic, 8);
  put(&version, 4);
  put(&kind, 4);
  put(count, 4 * HG_MJCF_NCOUNT);
}

/* the frame's tail and the process's end with status rc (_exit: an error may stop MuJoCo
 * midway, and its static destructors are not run on what it left) */
_Noreturn static void finish(int rc) {
  put(HG_MJCF_FRAME_END, 8);
  if (fflush(out)) _exit(3);
  _exit(rc);
}

/* an ERROR frame saying msg, then exit 1 */
_Noreturn static void fail(const char *msg) {
  uint32_t count[HG_MJCF_NCOUNT] = {0};
  size_t n = strlen(msg);
  if (n > HG_MJCF_FRAME_MSG) n = HG_MJCF_FRAME_MSG;
  count[0] = (uint32_t)n;
  put_head(HG_MJCF_FRAME_ERROR, count);
  put(msg, n);
  finish(1);
}

/* MuJoCo's handler of its internal errors (its default prints, appends to MUJOCO_LOG.TXT and
 * exits): an ERROR frame */
static void on_error(const char *msg) {
  char text[HG_MJCF_FRAME_MSG + 1];
  snprintf(text, sizeof text, "MuJoCo error: %s", msg);
  fail(text);
}

/* MuJoCo's warnings (its default prints and appends to MUJOCO_LOG.TXT): dropped, since no file
 * may be written and the standard output is not the frame's */
static void on_warning(const char *msg) { (void)msg; }

/* a name's length, or fails when it is longer than the frame allows */
static size_t name_len(const mjModel *m, int obj, int i) {
  const char *s = mj_id2name(m, obj, i);
  size_t n = s ? strlen(s) : 0;
  if (n > HG_MJCF_FRAME_NAME) {
    char msg[128];
    snprintf(msg, sizeof msg, "Error: a name longer than %u characters", HG_MJCF_FRAME_NAME);
    fail(msg);
  }
  return n;
}

static void put_name(const mjModel *m, int obj, int i) {
  const char *s = mj_id2name(m, obj, i);
  uint16_t n = (uint16_t)name_len(m, obj, i);
  put(&n, 2);
  put(s, n);
}

/* a number argument, or exit 2 */
static unsigned long long arg_number(const char *s) {
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  if (end == s || *end || errno) {
    fprintf(stderr, "hinge-mjcf-reader: expected a number, got '%s'\n", s);
    exit(2);
  }
  return x;
}

/* the MODEL frame of m (mjcf_frame.h's order) */
static void put_model(const mjModel *m) {
  static const int kinds[] = {mjOBJ_BODY, mjOBJ_JOINT, mjOBJ_SITE, mjOBJ_EQUALITY,
                              mjOBJ_ACTUATOR, mjOBJ_TENDON};
  const int counts[] = {m->nbody, m->njnt, m->nsite, m->neq, m->nu, m->ntendon};
  uint32_t c[HG_MJCF_NCOUNT] = {0};
  uint64_t names = 0;
  for (int k = 0; k < 6; k++)
    for (int i = 0; i < counts[k]; i++) names += 2 + name_len(m, kinds[k], i);
  if (names > UINT32_MAX) fail("Error: the model's names are too long");
  c[HG_MJCF_NBODY] = (uint32_t)m->nbody, c[HG_MJCF_NJNT] = (uint32_t)m->njnt;
  c[HG_MJCF_NQ] = (uint32_t)m->nq, c[HG_MJCF_NV] = (uint32_t)m->nv;
  c[HG_MJCF_NGEOM] = (uint32_t)m->ngeom, c[HG_MJCF_NSITE] = (uint32_t)m->nsite;
  c[HG_MJCF_NMESH] = (uint32_t)m->nmesh, c[HG_MJCF_NMESHVERT] = (uint32_t)m->nmeshvert;
  c[HG_MJCF_NMESHFACE] = (uint32_t)m->nmeshface, c[HG_MJCF_NEQ] = (uint32_t)m->neq;
  c[HG_MJCF_NU] = (uint32_t)m->nu, c[HG_MJCF_NTENDON] = (uint32_t)m->ntendon;
  c[HG_MJCF_NSENSOR] = (uint32_t)m->nsensor, c[HG_MJCF_NPAIR] = (uint32_t)m->npair;
  c[HG_MJCF_NEXCLUDE] = (uint32_t)m->nexclude, c[HG_MJCF_NAMEBYTES] = (uint32_t)names;
  put_head(HG_MJCF_FRAME_MODEL, c);
  put_f64(m->opt.gravity, 3);
  put_i32(m->opt.disableflags);
  for (int i = 0; i < m->nbody; i++) {
    put_f64(m->body_pos + 3 * i, 3);
    put_f64(m->body_quat + 4 * i, 4);
    put_f64(m->body_mass + i, 1);
    put_f64(m->body_ipos + 3 * i, 3);
    put_f64(m->body_iquat + 4 * i, 4);
    put_f64(m->body_inertia + 3 * i, 3);
    put_i32(m->body_parentid[i]);
    put_i32(m->body_jntnum[i]);
    put_i32(m->body_jntadr[i]);
    put_i32(m->body_mocapid[i] >= 0);
  }
  for (int j = 0; j < m->njnt; j++) {
    put_f64(m->jnt_axis + 3 * j, 3);
    put_f64(m->jnt_pos + 3 * j, 3);
    put_f64(m->jnt_range + 2 * j, 2);
    put_f64(m->jnt_stiffness + j, 1);
    put_i32(m->jnt_type[j]);
    put_i32(m->jnt_bodyid[j]);
    put_i32(m->jnt_qposadr[j]);
    put_i32(m->jnt_dofadr[j]);
    put_i32(m->jnt_limited[j] != 0);
  }
  put_f64(m->qpos0, m->nq);
  put_f64(m->qpos_spring, m->nq);
  for (int d = 0; d < m->nv; d++) {
    put_f64(m->dof_damping + d, 1);
    put_f64(m->dof_armature + d, 1);
  }
  for (int g = 0; g < m->ngeom; g++) {
    put_f64(m->geom_size + 3 * g, 3);
    put_f64(m->geom_pos + 3 * g, 3);
    put_f64(m->geom_quat + 4 * g, 4);
    put(m->geom_rgba + 4 * g, 4 * sizeof(float));
    put_i32(m->geom_type[g]);
    put_i32(m->geom_bodyid[g]);
    put_i32(m->geom_dataid[g]);
    put_i32(m->geom_contype[g]);
    put_i32(m->geom_conaffinity[g]);
  }
  for (int k = 0; k < m->nsite; k++) {
    put_f64(m->site_pos + 3 * k, 3);
    put_f64(m->site_quat + 4 * k, 4);
    put_i32(m->site_bodyid[k]);
  }
  for (int k = 0; k < m->nmesh; k++) {
    put_i32(m->mesh_vertadr[k]);
    put_i32(m->mesh_vertnum[k]);
    put_i32(m->mesh_faceadr[k]);
    put_i32(m->mesh_facenum[k]);
  }
  _Static_assert(sizeof(float) == 4 && sizeof(int) == 4, "f32 and i32 records");
  put(m->mesh_vert, 3 * sizeof(float) * (size_t)m->nmeshvert);
  put(m->mesh_face, 3 * sizeof(int) * (size_t)m->nmeshface);
  for (int k = 0; k < m->neq; k++) {
    put_f64(m->eq_data + mjNEQDATA * k, HG_MJCF_EQDATA);
    put_i32(m->eq_type[k]);
    put_i32(m->eq_obj1id[k]);
    put_i32(m->eq_obj2id[k]);
    put_i32(m->eq_active[k] != 0);
  }
  for (int k = 0; k < m->nu; k++) {
    put_f64(m->actuator_gear + 6 * k, 1);
    put_f64(m->actuator_gainprm + mjNGAIN * k, 1);
    put_f64(m->actuator_biasprm + mjNBIAS * k, 3);
    put_f64(m->actuator_forcerange + 2 * k, 2);
    put_f64(m->actuator_ctrlrange + 2 * k, 2);
    put_i32(m->actuator_trntype[k]);
    put_i32(m->actuator_trnid[2 * k]);
    put_i32(m->actuator_dyntype[k]);
    put_i32(m->actuator_gaintype[k]);
    put_i32(m->actuator_biastype[k]);
    put_i32(m->actuator_forcelimited[k] != 0);
    put_i32(m->actuator_ctrllimited[k] != 0);
  }
  for (int k = 0; k < 6; k++)
    for (int i = 0; i < counts[k]; i++) put_name(m, kinds[k], i);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr,
            "usage: hinge-mjcf-reader MEMORY_BYTES CPU_SECONDS FILE\n"
            "(run by hinge to compile MJCF files with MuJoCo in a process of its own)\n");
    return 2;
  }
  unsigned long long mem = arg_number(argv[1]), cpu = arg_number(argv[2]);
  const char *path = argv[3];
  /* the frame goes to the standard output this program was given, moved to descriptor 3; MuJoCo
   * and the C library may print on stdout, which becomes /dev/null; every other descriptor
   * inherited from hinge is closed, so MuJoCo sees none of hinge's files and has its own 64 */
  if (dup2(1, 3) < 0) {
    fprintf(stderr, "hinge-mjcf-reader: cannot set up its output: %s\n", strerror(errno));
    return 2;
  }
  closefrom(4);
  int null = open("/dev/null", O_WRONLY);
  if (null < 0 || dup2(null, 1) < 0 || close(null) || !(out = fdopen(3, "wb"))) {
    fprintf(stderr, "hinge-mjcf-reader: cannot set up its output: %s\n", strerror(errno));
    return 2;
  }
  /* the limits first: address space (MuJoCo's allocations fail past it), CPU time (SIGXCPU at
   * the soft limit, SIGKILL a second later), no core file, no file written (RLIMIT_FSIZE 0:
   * writing one is SIGXFSZ), few files open at once */
  struct rlimit as = {(rlim_t)mem, (rlim_t)mem}, cpu_lim = {(rlim_t)cpu, (rlim_t)cpu + 1};
  struct rlimit none = {0, 0}, files = {64, 64};
  if (setrlimit(RLIMIT_AS, &as) || setrlimit(RLIMIT_CPU, &cpu_lim) ||
      setrlimit(RLIMIT_CORE, &none) || setrlimit(RLIMIT_FSIZE, &none) ||
      setrlimit(RLIMIT_NOFILE, &files)) {
    fprintf(stderr, "hinge-mjcf-reader: setrlimit: %s\n", strerror(errno));
    return 2;
  }
  mju_user_error = on_error;
  mju_user_warning = on_warning;
  char msg[HG_MJCF_FRAME_MSG] = "";
  mjModel *m = mj_loadXML(path, NULL, msg, sizeof msg);
  if (!m) fail(msg[0] ? msg : "MuJoCo could not read the file");
  put_model(m);
  mj_deleteModel(m);
  finish(0);
}
