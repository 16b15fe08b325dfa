/* mjcf.h: reading MuJoCo's MJCF files into hinge models, through MuJoCo's own compiler.
 *
 * MuJoCo's library (libmujoco, Debian libmujoco-dev; the build defines HINGE_HAVE_MUJOCO when
 * CMake finds it) parses the file and compiles it into an mjModel, with every MJCF rule applied:
 * defaults and <default> classes, <include>, compiler angle / eulerseq / meshdir,
 * inertiafromgeom, frames given as euler, axisangle, xyaxes, zaxis or fromto. MuJoCo 2.2.2's
 * parser is not safe on hostile files (it frees memory it never allocated on some), so it runs in
 * a process of its own, the program hinge-mjcf-reader (mjcf_child.c, the only file that links
 * libmujoco), under memory, CPU-time, wall-time, output and no-write limits; it sends back the
 * compiled data the reader uses (mjcf_frame.h), which hinge checks before use. The reader then
 * turns that compiled model into hinge bodies through the builder (model.h), so hinge never
 * interprets MJCF itself. Without the library every function here fails with a message saying
 * how to install it.
 *
 * The state mapping (docs/mjcf.md):
 *   - hinge's q is MuJoCo's qpos, entry for entry: a hinge or slide joint's reference position
 *     (`ref`, MuJoCo's qpos0) is folded into the joint's offset, so hinge q = qpos; a ball joint's
 *     q is its quaternion (w, x, y, z); a free joint's q is (position, quaternion w-first) in the
 *     frame of the body the model hangs from.
 *   - v is MuJoCo's qvel except at a free joint: MuJoCo's (world-frame linear velocity of the
 *     body origin, body-frame angular velocity) becomes hinge's body twist (w, R^T v_world).
 *   - generalized forces follow by duality: at a free joint hinge's (m, f) is MuJoCo's
 *     (moment, R^T force).
 *
 * Frames: hinge's frame of a body is MuJoCo's body frame moved to the anchor of the body's last
 * joint (hinge and ball joints; slides and welded bodies keep MuJoCo's frame, up to the shift by
 * the slide's ref). Inertias, geometry and sites are expressed in hinge's frame. A body with k > 1
 * joints becomes a chain of k bodies, the first k - 1 massless and named "BODY/JOINT", the
 * last carrying the body's name and inertia: exact, since a massless body adds nothing to M. */
#ifndef HINGE_MJCF_H
#define HINGE_MJCF_H

#include <stdio.h>

#include "mjcf_frame.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the limits of the MJCF reader process (hg_mjcf_isolation's defaults; docs/mjcf.md). They bound
 * everything MuJoCo reads for one model: the file, its <include>d files and its meshes. */
#define HG_MJCF_READER_MEMORY ((size_t)1 << 30)   /* address space: 1 GiB */
#define HG_MJCF_READER_CPU 20.0                   /* CPU time, s */
#define HG_MJCF_READER_WALL 30.0                  /* wall time, s (killed past it) */
#define HG_MJCF_READER_OUTPUT ((size_t)256 << 20) /* its answer (the compiled model): 256 MiB */

/* how the reader process runs (the caller fills every field) */
typedef struct hg_mjcf_isolation {
  const char *helper;  /* the reader program; NULL: hg_mjcf_reader_path */
  size_t memory_bytes; /* its address-space limit (RLIMIT_AS) */
  double cpu_seconds;  /* its CPU-time limit (RLIMIT_CPU, whole seconds, rounded up) */
  double wall_seconds; /* killed when it has not answered and ended within this */
  size_t output_bytes; /* killed when its answer is longer */
} hg_mjcf_isolation;

/* how an MJCF file is read */
typedef struct hg_mjcf_options {
  int verbose; /* a note for every element not used, not one summary line per kind */
  FILE *notes; /* notes (NULL: none) */
} hg_mjcf_options;

/* a joint's MuJoCo spring and damper: tau = -stiffness (q (-) rest) - damping v on each DoF
 * (hinge's joint spring force element; written by hg_mjcf_add) */
typedef struct hg_mjcf_spring {
  char *joint;      /* hinge joint name (prefixed) */
  double stiffness; /* N m/rad or N/m */
  double damping;   /* N m s/rad or N s/m */
  double rest[7];   /* MuJoCo's springref (qpos_spring), in hinge's q: nrest entries */
  int nrest;
} hg_mjcf_spring;

/* a MuJoCo site as a marker: its frame in the hinge body's frame */
typedef struct hg_mjcf_site {
  char *name; /* prefixed */
  char *body; /* hinge body name */
  hg_se3 pose;
} hg_mjcf_site;

/* a MuJoCo connect or weld equality as an exact loop between two frames (docs/constraints.md):
 * connect: frame[0]'s and frame[1]'s origins coincide (a spherical loop); weld: the frames
 * coincide (a fixed loop). Each frame is in its hinge body's frame. */
typedef struct hg_mjcf_loop {
  char *name;    /* prefixed: the equality's name, or "equalityK" */
  int weld;      /* 0: connect, 1: weld */
  int active;    /* MuJoCo's 'active' */
  char *body[2]; /* hinge body names (the include's parent, or "world", for MuJoCo's world) */
  hg_se3 frame[2];
} hg_mjcf_loop;

/* a joint whose MuJoCo qpos0 (the pose the file writes) is not hinge's neutral q: free joints
 * (the body's position and orientation) and hinge and slide joints with a non-zero ref */
typedef struct hg_mjcf_q0 {
  char *joint; /* hinge joint name (prefixed) */
  double q[7]; /* MuJoCo's qpos0, in hinge's q (= qpos): nq entries */
  int nq;
} hg_mjcf_q0;

/* a MuJoCo motor (<motor joint> or <general> with fixed gain and no bias or dynamics) on a hinge
 * or slide joint: force gear * gainprm[0] * ctrl on the joint, limited by forcerange, or by
 * ctrlrange times |gear * gainprm[0]| */
typedef struct hg_mjcf_motor {
  char *name;    /* prefixed: the actuator's name, or "actuatorK" */
  char *joint;   /* hinge joint name */
  double effort; /* N m or N (inf: none) */
  double gain;   /* gear * gainprm[0]: MuJoCo's joint force per unit of ctrl */
} hg_mjcf_motor;

/* what the model needs beyond the builder's bodies (written by hg_mjcf_add) */
typedef struct hg_mjcf_extras {
  double gravity[3]; /* MuJoCo's option gravity (zero when disabled by its flags) */
  int nspring;
  hg_mjcf_spring *spring;
  int nsite;
  hg_mjcf_site *site;
  int nloop;
  hg_mjcf_loop *loop;
  int nq0;
  hg_mjcf_q0 *q0; /* a scene's include starts these joints at MuJoCo's qpos0 */
  int nmotor;
  hg_mjcf_motor *motor;
} hg_mjcf_extras;

/* 1 when HINGE_HAVE_MUJOCO: this build reads MJCF */
int hg_mjcf_available(void);

/* The reader program's path into buf (len bytes): $HINGE_MJCF_READER when set, else
 * libexec/hinge/hinge-mjcf-reader in the folder of the file holding this code (the hinge program,
 * libhinge-sim.so or the Python module) or in one of the four folders above it, then the same
 * from the running program (/proc/self/exe). 0, or -1 when none is executable. */
int hg_mjcf_reader_path(char *buf, size_t len);

/* 1 when the file's first element is <mujoco> (an MJCF file, not a URDF one also named .xml) */
int hg_mjcf_is_mjcf(const char *path);

/* Adds the model of an MJCF file to a builder. MuJoCo's world is parent_body (NULL or "world":
 * the world) at pose (NULL: identity); every body, joint and site name is given prefix (NULL:
 * none). extras (may be NULL) receives gravity, springs and dampers, sites, connect and weld
 * equalities as loops, motors, and the joints whose qpos0 is not hinge's neutral q; free it with
 * hg_mjcf_extras_free. Elements hinge does not take (tendons, actuators, other equalities,
 * contact settings, ...) are summed up in notes (connect and weld equalities too when extras is
 * NULL). Returns 0, or -1 with err = "file:line: message" (MuJoCo's message, at the line it
 * names when it names one), "file: MuJoCo's MJCF compiler crashed (signal N)" or "... timed
 * out (...)" when the reader process dies or overruns its limits. */
int hg_mjcf_add(hg_builder *b, const char *path, const char *parent_body, const hg_se3 *pose,
                const char *prefix, const hg_mjcf_options *opt, hg_mjcf_extras *extras,
                hg_error *err);

/* hg_mjcf_add with the reader process's limits (NULL: the defaults above) */
int hg_mjcf_add_isolated(hg_builder *b, const char *path, const char *parent_body,
                         const hg_se3 *pose, const char *prefix, const hg_mjcf_options *opt,
                         const hg_mjcf_isolation *iso, hg_mjcf_extras *extras, hg_error *err);

/* Reads an MJCF file into a compiled model with MuJoCo's gravity (springs and dampers, which are
 * force elements, are not part of a model: a scene's mjcf include adds them). A singular
 * articulated inertia is allowed, as hg_urdf_load_opt allows it: hg_aba then fails at that
 * joint. NULL with err. */
hg_model *hg_mjcf_load(const char *path, const hg_mjcf_options *opt, hg_error *err);

void hg_mjcf_extras_free(hg_mjcf_extras *x);

/* ---- the two halves of hg_mjcf_add, for the tests and fuzz harnesses ---- */

/* Runs the reader program on path under iso's limits (NULL: the defaults of mjcf.h), reads its
 * whole answer (within the output cap and the wall time), reaps it and decodes the answer.
 * Returns 0 with *out, or -1 with err = "path:line: MuJoCo's message", "path: MuJoCo's MJCF
 * compiler crashed (signal N)", "... timed out (...)" or what is wrong with the answer. */
int hg_mjcf_compile(const char *path, const hg_mjcf_isolation *iso, hg_mjcf_compiled *out,
                    hg_error *err);

/* MuJoCo's message "... line N ..." as "path:N: message" (its first line), or "path: message" */
void hg_mjcf_error_text(const char *path, const char *msg, hg_error *err);

/* hg_mjcf_add from a compiled model (the converter: what maps to what is at the top of this
 * file); mj is checked (hg_mjcf_frame_decode) */
int hg_mjcf_build(hg_builder *b, const hg_mjcf_compiled *mj, const char *path,
                  const char *parent_body, const hg_se3 *pose, const char *prefix,
                  const hg_mjcf_options *opt, hg_mjcf_extras *extras, hg_error *err);

#ifdef __cplusplus
}
#endif

#endif
