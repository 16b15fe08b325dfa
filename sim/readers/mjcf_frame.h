/* mjcf_frame.h: what the MJCF reader process (mjcf_child.c, the program hinge-mjcf-reader)
 * writes on its standard output for hinge (mjcf_proc.c), and the compiled model hinge decodes it
 * into (mjcf_frame.c), which mjcf.c turns into hinge bodies. Free of hinge's other headers: the
 * reader program includes it alone.
 *
 * Both ends are built together for one machine, so numbers are in its own byte order: i32 is
 * int32_t, f32 float, f64 double, u16 and u32 unsigned. The decoder trusts nothing of a frame:
 * every count is bounded, the frame's length must be exactly what the counts make, every number
 * must be finite, every index must name an object of its kind, and the body tree must come
 * parents first, so that a malformed frame is an error, never a crash of hinge.
 *
 *   head    magic[8] = HG_MJCF_FRAME_MAGIC (NUL-padded), u32 version = HG_MJCF_FRAME_VERSION,
 *           u32 kind (HG_MJCF_FRAME_MODEL or HG_MJCF_FRAME_ERROR), u32 count[HG_MJCF_NCOUNT]
 *   ERROR   count[0] bytes of message (no NUL, at most HG_MJCF_FRAME_MSG), every other count 0
 *   MODEL   the records below, in this order, count[k] of each kind (names at the end):
 *     option    f64 gravity[3]; i32 disableflags                              (once)
 *     body      f64 pos[3] quat[4] mass ipos[3] iquat[4] inertia[3];
 *               i32 parent jntnum jntadr mocap(0/1)                            (HG_MJCF_NBODY)
 *     joint     f64 axis[3] pos[3] range[2] stiffness;
 *               i32 type body qposadr dofadr limited(0/1)                      (HG_MJCF_NJNT)
 *     qpos0     f64, then qpos_spring f64                                      (HG_MJCF_NQ each)
 *     dof       f64 damping armature                                           (HG_MJCF_NV)
 *     geom      f64 size[3] pos[3] quat[4]; f32 rgba[4];
 *               i32 type body dataid contype conaffinity                       (HG_MJCF_NGEOM)
 *     site      f64 pos[3] quat[4]; i32 body                                   (HG_MJCF_NSITE)
 *     mesh      i32 vertadr vertnum faceadr facenum                            (HG_MJCF_NMESH)
 *     vertex    f32 x y z                                                      (HG_MJCF_NMESHVERT)
 *     face      i32 a b c (indices into its mesh's vertices)                   (HG_MJCF_NMESHFACE)
 *     equality  f64 data[HG_MJCF_EQDATA]; i32 type obj1 obj2 active(0/1)      (HG_MJCF_NEQ)
 *     actuator  f64 gear gain bias[3] forcerange[2] ctrlrange[2];
 *               i32 trntype trnid dyntype gaintype biastype forcelimited ctrllimited
 *                                                                             (HG_MJCF_NU)
 *     names     one per body, joint, site, equality, actuator and tendon, in that order: u16
 *               length (0: unnamed, at most HG_MJCF_FRAME_NAME), then its bytes (no NUL);
 *               count[HG_MJCF_NAMEBYTES] bytes in all
 *   tail    the 8 bytes HG_MJCF_FRAME_END, then the end of the stream
 * The fields are mjModel's of MuJoCo 2.2.2 (body_pos, jnt_axis, geom_size, ...): a joint's gear
 * and gain are actuator_gear[0] and actuator_gainprm[0], bias is actuator_biasprm[0..2], trnid
 * actuator_trnid[0], data eq_data[0..9]. The counts of sensors, contact pairs and exclusions
 * (HG_MJCF_NSENSOR, HG_MJCF_NPAIR, HG_MJCF_NEXCLUDE) have no records: hinge only notes them.
 *
 * The process exits 0 after a MODEL frame and 1 after an ERROR frame. */
#ifndef HINGE_MJCF_FRAME_H
#define HINGE_MJCF_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define HG_MJCF_FRAME_MAGIC "hgmjcf"
#define HG_MJCF_FRAME_END "hgmjcfZ"
#define HG_MJCF_FRAME_VERSION 1u
#define HG_MJCF_FRAME_MODEL 1u
#define HG_MJCF_FRAME_ERROR 2u
#define HG_MJCF_FRAME_MSG 1000u     /* longest error message (MuJoCo's buffer) */
#define HG_MJCF_FRAME_NAME 1000u    /* longest name */
#define HG_MJCF_FRAME_COUNT (1 << 26) /* most objects of one kind (64 M) */
#define HG_MJCF_EQDATA 10           /* eq_data entries sent: connect uses 6, weld 10, joint 5 */

/* the counts of the head, in this order */
enum {
  HG_MJCF_NBODY, HG_MJCF_NJNT, HG_MJCF_NQ, HG_MJCF_NV, HG_MJCF_NGEOM, HG_MJCF_NSITE,
  HG_MJCF_NMESH, HG_MJCF_NMESHVERT, HG_MJCF_NMESHFACE, HG_MJCF_NEQ, HG_MJCF_NU, HG_MJCF_NTENDON,
  HG_MJCF_NSENSOR, HG_MJCF_NPAIR, HG_MJCF_NEXCLUDE, HG_MJCF_NAMEBYTES, HG_MJCF_NCOUNT
};

/* the bytes of the head and of one record of each kind (the layout above) */
#define HG_MJCF_HEAD_BYTES (8 + 4 + 4 + 4 * HG_MJCF_NCOUNT)
#define HG_MJCF_OPTION_BYTES (3 * 8 + 4)
#define HG_MJCF_BODY_BYTES (18 * 8 + 4 * 4)
#define HG_MJCF_JOINT_BYTES (9 * 8 + 5 * 4)
#define HG_MJCF_DOF_BYTES (2 * 8)
#define HG_MJCF_GEOM_BYTES (10 * 8 + 4 * 4 + 5 * 4)
#define HG_MJCF_SITE_BYTES (7 * 8 + 4)
#define HG_MJCF_MESH_BYTES (4 * 4)
#define HG_MJCF_EQ_BYTES (HG_MJCF_EQDATA * 8 + 4 * 4)
#define HG_MJCF_ACT_BYTES (9 * 8 + 7 * 4)

/* MuJoCo 2.2.2's enumerations the converter reads (mjmodel.h: mjtJoint, mjtGeom, mjtEq, mjtTrn,
 * mjtDyn, mjtGain, mjtBias, mjtDisableBit); mjcf_child.c checks them against MuJoCo's */
enum { HG_MJ_JNT_FREE = 0, HG_MJ_JNT_BALL = 1, HG_MJ_JNT_SLIDE = 2, HG_MJ_JNT_HINGE = 3 };
enum {
  HG_MJ_GEOM_SPHERE = 2, HG_MJ_GEOM_CAPSULE = 3, HG_MJ_GEOM_CYLINDER = 5, HG_MJ_GEOM_BOX = 6,
  HG_MJ_GEOM_MESH = 7
};
enum { HG_MJ_EQ_CONNECT = 0, HG_MJ_EQ_WELD = 1, HG_MJ_EQ_JOINT = 2, HG_MJ_EQ_NTYPE = 5 };
enum { HG_MJ_TRN_JOINT = 0, HG_MJ_DYN_NONE = 0, HG_MJ_GAIN_FIXED = 0, HG_MJ_BIAS_NONE = 0 };
enum { HG_MJ_DSBL_PASSIVE = 1 << 5, HG_MJ_DSBL_GRAVITY = 1 << 6 };

/* ---- the decoded model (every field as the frame's record says; name NULL when unnamed) ---- */

typedef struct hg_mjcf_cbody {
  double pos[3], quat[4]; /* MuJoCo's body frame in its parent's (quat w, x, y, z, unit) */
  double mass, ipos[3], iquat[4], inertia[3]; /* mass, principal frame, principal moments */
  int parent, jntnum, jntadr, mocap;          /* parent < own index (body 0, the world: 0) */
  char *name;
} hg_mjcf_cbody;

typedef struct hg_mjcf_cjoint {
  double axis[3], pos[3], range[2], stiffness; /* axis a unit vector */
  int type, body, qposadr, dofadr, limited;    /* its qpos and dof entries within nq and nv */
  char *name;
} hg_mjcf_cjoint;

typedef struct hg_mjcf_cdof {
  double damping, armature;
} hg_mjcf_cdof;

typedef struct hg_mjcf_cgeom {
  double size[3], pos[3], quat[4];
  float rgba[4];
  int type, body, dataid, contype, conaffinity; /* dataid: a mesh (type MESH) or -1 */
} hg_mjcf_cgeom;

typedef struct hg_mjcf_csite {
  double pos[3], quat[4];
  int body;
  char *name;
} hg_mjcf_csite;

typedef struct hg_mjcf_cmesh {
  int vertadr, vertnum, faceadr, facenum; /* within nmeshvert and nmeshface */
} hg_mjcf_cmesh;

typedef struct hg_mjcf_ceq {
  double data[HG_MJCF_EQDATA];
  int type, obj1, obj2, active; /* bodies (connect, weld) or joints (joint; obj2 may be -1) */
  char *name;
} hg_mjcf_ceq;

typedef struct hg_mjcf_cact {
  double gear, gain, bias[3], forcerange[2], ctrlrange[2];
  int trntype, trnid, dyntype, gaintype, biastype, forcelimited, ctrllimited; /* trnid: a joint
                                                                  when trntype is JOINT, or -1 */
  char *name;
} hg_mjcf_cact;

/* MuJoCo's compiled model, as much of it as the converter reads (written by
 * hg_mjcf_frame_decode, freed by hg_mjcf_compiled_free) */
typedef struct hg_mjcf_compiled {
  double gravity[3];
  int disableflags;
  int nbody, njnt, nq, nv, ngeom, nsite, nmesh, nmeshvert, nmeshface, neq, nu, ntendon, nsensor,
      npair, nexclude;
  hg_mjcf_cbody *body;
  hg_mjcf_cjoint *jnt;
  double *qpos0, *qpos_spring; /* nq each */
  hg_mjcf_cdof *dof;
  hg_mjcf_cgeom *geom;
  hg_mjcf_csite *site;
  hg_mjcf_cmesh *mesh;
  float *mesh_vert; /* 3 nmeshvert, finite */
  int *mesh_face;   /* 3 nmeshface */
  hg_mjcf_ceq *eq;
  hg_mjcf_cact *act;
  char **tendon_name; /* ntendon */
} hg_mjcf_compiled;

/* Decodes and checks the frame of len bytes at buf. Returns 0 with *out filled (a MODEL frame),
 * 1 with MuJoCo's message in why (an ERROR frame; control characters but newlines made spaces),
 * or -1 with why saying what is malformed (*out is then zeroed). */
int hg_mjcf_frame_decode(const unsigned char *buf, size_t len, hg_mjcf_compiled *out, char *why,
                         size_t whylen);

/* frees what hg_mjcf_frame_decode allocated and zeroes *m (a zeroed model is fine) */
void hg_mjcf_compiled_free(hg_mjcf_compiled *m);

#endif
