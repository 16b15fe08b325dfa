/* mjcf.c: MJCF files into hinge models through MuJoCo's compiler (mjcf.h says what maps to
 * what; docs/mjcf.md is the user's page). MuJoCo compiles the file in the reader process
 * (mjcf_proc.c, mjcf_child.c); this file turns the compiled model it sends back, checked by
 * mjcf_frame.c, into hinge bodies. */
#include "mjcf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynamics.h"
#include "readfile.h"

int hg_mjcf_available(void) {
#ifdef HINGE_HAVE_MUJOCO
  return 1;
#else
  return 0;
#endif
}

int hg_mjcf_is_mjcf(const char *path) {
  hg_error ignored; /* a file that cannot be read is the URDF reader's to report */
  FILE *f = hg_file_open(path, HG_FILE_TEXT_MAX, NULL, &ignored);
  char buf[4096];
  size_t n;
  if (!f) return 0;
  n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  /* the first element that is not a declaration (<?...?>) or a comment (<!--...-->) */
  for (char *s = buf; (s = strchr(s, '<')) != NULL;) {
    if (s[1] == '?') {
      char *e = strstr(s, "?>");
      if (!e) return 0;
      s = e + 2;
    } else if (strncmp(s, "<!--", 4) == 0) {
      char *e = strstr(s, "-->");
      if (!e) return 0;
      s = e + 3;
    } else if (s[1] == '!') {
      s++;
    } else {
      return strncmp(s + 1, "mujoco", 6) == 0 && strchr(" \t\r\n>/", s[7]) != NULL;
    }
  }
  return 0;
}

void hg_mjcf_extras_free(hg_mjcf_extras *x) {
  if (!x) return;
  for (int k = 0; k < x->nspring; k++) free(x->spring[k].joint);
  for (int k = 0; k < x->nsite; k++) {
    free(x->site[k].name);
    free(x->site[k].body);
  }
  for (int k = 0; k < x->nloop; k++) {
    free(x->loop[k].name);
    free(x->loop[k].body[0]);
    free(x->loop[k].body[1]);
  }
  for (int k = 0; k < x->nq0; k++) free(x->q0[k].joint);
  for (int k = 0; k < x->nmotor; k++) {
    free(x->motor[k].name);
    free(x->motor[k].joint);
  }
  free(x->motor);
  free(x->spring);
  free(x->site);
  free(x->loop);
  free(x->q0);
  memset(x, 0, sizeof *x);
}

/* ---- poses ---- */

/* T = (R(q), p) from MuJoCo's position and quaternion (w, x, y, z; normalized here) */
static void pose_of(const double *p, const double *quat, hg_se3 *T) {
  double q[4] = {quat[0], quat[1], quat[2], quat[3]};
  hg_quat_normalize(q);
  hg_quat_to_R(q, T->R);
  memcpy(T->p, p, 3 * sizeof(double));
}

/* a pure translation */
static hg_se3 shift(double x, double y, double z) {
  hg_se3 T;
  hg_se3_identity(&T);
  T.p[0] = x, T.p[1] = y, T.p[2] = z;
  return T;
}

/* A B */
static hg_se3 mul(const hg_se3 *A, const hg_se3 *B) {
  hg_se3 C;
  hg_se3_mul(A, B, &C);
  return C;
}

/* the rotation by angle about the unit axis a (Rodrigues: R = 1 + sin t a^ + (1 - cos t) a^ a^) */
static hg_se3 turn(const double a[3], double t) {
  double w[3] = {a[0] * t, a[1] * t, a[2] * t}, q[4];
  hg_se3 T;
  hg_quat_exp(w, q);
  hg_quat_to_R(q, T.R);
  T.p[0] = T.p[1] = T.p[2] = 0;
  return T;
}

/* ---- the reader ---- */

typedef struct mj_reader {
  const char *path, *prefix, *parent;
  const hg_se3 *place; /* MuJoCo's world in the parent's frame */
  const hg_mjcf_compiled *mj;
  const hg_mjcf_options *opt;
  hg_builder *b;
  hg_mjcf_extras *x;
  hg_error *err;
  char **hname;  /* per MuJoCo body: its last hinge body's name (NULL for the world) */
  hg_se3 *frame; /* per MuJoCo body: MuJoCo's body frame in its last hinge body's frame */
  /* what is not taken, for the summary notes */
  char **mesh_path; /* per MuJoCo mesh: the OBJ file written for it (mesh_file), or NULL */
  int nmesh_fail;   /* meshes that could not be written */
  int nskip_geom, nskip_world_geom, nmocap, nball_limit, nfree_spring, nfree_armature;
} mj_reader;

/* the kinds of named objects */
enum { OBJ_BODY, OBJ_JOINT, OBJ_SITE, OBJ_EQUALITY, OBJ_ACTUATOR, OBJ_TENDON };

/* a MuJoCo name (of kind obj, index i), or NULL when it has none */
static const char *mj_name(const hg_mjcf_compiled *mj, int obj, int i) {
  switch (obj) {
  case OBJ_BODY: return mj->body[i].name;
  case OBJ_JOINT: return mj->jnt[i].name;
  case OBJ_SITE: return mj->site[i].name;
  case OBJ_EQUALITY: return mj->eq[i].name;
  case OBJ_ACTUATOR: return mj->act[i].name;
  default: return mj->tendon_name[i];
  }
}

/* malloc'd prefix + name */
static char *prefixed(const mj_reader *r, const char *name) {
  const char *pre = r->prefix ? r->prefix : "";
  char *s = malloc(strlen(pre) + strlen(name) + 1);
  if (s) strcat(strcpy(s, pre), name);
  return s;
}

/* a note to the notes stream */
static void note(const mj_reader *r, const char *fmt, ...) {
  va_list ap;
  if (!r->opt->notes) return;
  fprintf(r->opt->notes, "%s: note: ", r->path);
  va_start(ap, fmt);
  vfprintf(r->opt->notes, fmt, ap);
  va_end(ap);
  fputc('\n', r->opt->notes);
}

static int oom(mj_reader *r) {
  hg_error_set(r->err, "%s: out of memory", r->path);
  return -1;
}

/* The inertia of MuJoCo body i about hinge's frame of it: mass, centre of mass at body_ipos
 * and principal moments body_inertia along body_iquat's axes, all in MuJoCo's body frame, which
 * is F in hinge's frame. I_o = I_c + m (|c|^2 1 - c c^T) about hinge's origin. */
static void body_inertia(const hg_mjcf_compiled *mj, int i, const hg_se3 *F, hg_inertia *G) {
  hg_se3 P, C;
  double m = mj->body[i].mass, Ic[9] = {0}, c[3];
  pose_of(mj->body[i].ipos, mj->body[i].iquat, &P);
  C = mul(F, &P); /* the principal frame in hinge's frame */
  /* I_c = C.R diag(body_inertia) C.R^T */
  for (int a = 0; a < 3; a++)
    for (int bb = 0; bb < 3; bb++)
      for (int k = 0; k < 3; k++)
        Ic[3 * a + bb] += C.R[3 * a + k] * mj->body[i].inertia[k] * C.R[3 * bb + k];
  memcpy(c, C.p, sizeof c);
  double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
  G->m = m;
  for (int a = 0; a < 3; a++) G->h[a] = m * c[a];
  G->I[0] = Ic[0] + m * (cc - c[0] * c[0]);
  G->I[1] = Ic[4] + m * (cc - c[1] * c[1]);
  G->I[2] = Ic[8] + m * (cc - c[2] * c[2]);
  G->I[3] = Ic[1] - m * c[0] * c[1];
  G->I[4] = Ic[2] - m * c[0] * c[2];
  G->I[5] = Ic[5] - m * c[1] * c[2];
}

/* adds one hinge body; spec's name, parent and joint name are copied by the builder */
static int add(mj_reader *r, hg_body_spec *s) {
  hg_error e;
  if (hg_builder_add_body(r->b, s, &e)) {
    hg_error_set(r->err, "%s: %s", r->path, e.msg);
    return -1;
  }
  return 0;
}

/* MuJoCo joint j's hinge name: prefix + its name, or "BODY_jointK" when it has none */
static char *joint_name(const mj_reader *r, int j, const char *body, int k) {
  const char *n = mj_name(r->mj, OBJ_JOINT, j);
  char buf[512];
  if (!n) {
    snprintf(buf, sizeof buf, "%s_joint%d", body, k);
    return strdup(buf);
  }
  return prefixed(r, n);
}

/* the spring and damper of joint j on hinge joint name, when it has either */
static int add_spring(mj_reader *r, int j, const char *name) {
  const hg_mjcf_compiled *mj = r->mj;
  int type = mj->jnt[j].type, qa = mj->jnt[j].qposadr, da = mj->jnt[j].dofadr;
  int nq = type == HG_MJ_JNT_FREE ? 7 : type == HG_MJ_JNT_BALL ? 4 : 1;
  double k = mj->jnt[j].stiffness, c = mj->dof[da].damping;
  if (k == 0 && c == 0) return 0;
  if (type == HG_MJ_JNT_FREE && k != 0) {
    /* MuJoCo's free spring pulls the position in world axes and the rotation apart; hinge's joint
     * spring acts on the SE(3) logarithm: not the same law */
    r->nfree_spring++;
    k = 0;
    if (c == 0) return 0;
  }
  if (!r->x) return 0;
  hg_mjcf_spring *grown = realloc(r->x->spring, ((size_t)r->x->nspring + 1) * sizeof *grown);
  if (!grown) return oom(r);
  r->x->spring = grown;
  hg_mjcf_spring *s = &grown[r->x->nspring];
  memset(s, 0, sizeof *s);
  if (!(s->joint = strdup(name))) return oom(r);
  r->x->nspring++;
  s->stiffness = k;
  s->damping = c;
  s->nrest = nq;
  for (int a = 0; a < nq; a++) s->rest[a] = mj->qpos_spring[qa + a];
  return 0;
}

/* joint j's qpos0 as a q0 of the extras when it is not hinge's neutral q (free joints; hinge
 * and slide joints with a ref) */
static int add_q0(mj_reader *r, int j, const char *name) {
  const hg_mjcf_compiled *mj = r->mj;
  int type = mj->jnt[j].type, qa = mj->jnt[j].qposadr;
  int nq = type == HG_MJ_JNT_FREE ? 7 : type == HG_MJ_JNT_BALL ? 4 : 1;
  if (!r->x || type == HG_MJ_JNT_BALL || (type != HG_MJ_JNT_FREE && mj->qpos0[qa] == 0)) return 0;
  hg_mjcf_q0 *grown = realloc(r->x->q0, ((size_t)r->x->nq0 + 1) * sizeof *grown);
  if (!grown) return oom(r);
  r->x->q0 = grown;
  hg_mjcf_q0 *e = &grown[r->x->nq0];
  memset(e, 0, sizeof *e);
  if (!(e->joint = strdup(name))) return oom(r);
  r->x->nq0++;
  e->nq = nq;
  memcpy(e->q, mj->qpos0 + qa, (size_t)nq * sizeof *e->q);
  return 0;
}

/* Adds MuJoCo body i (i >= 1) as one hinge body per joint (one for a welded body). Walks the
 * body's joints in MuJoCo's order, each moving the frame the previous ones left:
 *   hinge:  M_k = M_{k-1} Tr(p) Rot(a, qpos - ref) Tr(-p)
 *   slide:  M_k = M_{k-1} Tr(a (qpos - ref))
 *   ball:   M_k = M_{k-1} Tr(p) Rot(quat) Tr(-p)
 *   free:   M   = (qpos position, qpos quaternion) in the world
 * (MuJoCo's mj_kinematics). P is MuJoCo's current frame in hinge's current body frame; hinge's
 * joint k moves its body by T_joint(qpos) after an offset P Tr(p), which leaves P = Rot(a, -ref)
 * Tr(-p) (hinge), Tr(-a ref) (slide), Tr(-p) (ball) or the identity (free, welded). */
static int add_body(mj_reader *r, int i) {
  const hg_mjcf_compiled *mj = r->mj;
  int par = mj->body[i].parent, nj = mj->body[i].jntnum, ja = mj->body[i].jntadr;
  const char *mjname = mj_name(mj, OBJ_BODY, i);
  char buf[512], *bname, *prev = NULL;
  const char *why;
  hg_se3 B, P;
  hg_body_spec s;
  int rc = -1;
  if (mjname) {
    bname = prefixed(r, mjname);
  } else {
    snprintf(buf, sizeof buf, "%sbody%d", r->prefix ? r->prefix : "", i);
    bname = strdup(buf);
  }
  if (!bname) return oom(r);
  pose_of(mj->body[i].pos, mj->body[i].quat, &B);
  if (par == 0) {
    hg_se3 I;
    hg_se3_identity(&I);
    P = mul(r->place ? r->place : &I, &B);
  } else {
    P = mul(&r->frame[par], &B);
  }
  if (mj->body[i].mocap) r->nmocap++;
  const char *parent = par == 0 ? r->parent : r->hname[par];
  if (nj == 0) {
    /* welded to its parent */
    memset(&s, 0, sizeof s);
    s.name = bname;
    s.parent = parent;
    s.offset = P;
    hg_se3_identity(&s.post);
    hg_joint_init(&s.joint, HG_JOINT_FIXED, NULL, NULL, 0, &why);
    body_inertia(mj, i, &(hg_se3){{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, &s.inertia);
    if (add(r, &s)) goto done;
    hg_se3_identity(&r->frame[i]);
    r->hname[i] = bname;
    return 0;
  }
  for (int k = 0; k < nj; k++) {
    int j = ja + k, type = mj->jnt[j].type, da = mj->jnt[j].dofadr, nv;
    const double *a = mj->jnt[j].axis, *p = mj->jnt[j].pos;
    double ref = type == HG_MJ_JNT_HINGE || type == HG_MJ_JNT_SLIDE ? mj->qpos0[mj->jnt[j].qposadr] : 0;
    char *jname = joint_name(r, j, bname, k), *name;
    hg_se3 Tp = shift(p[0], p[1], p[2]), Tm = shift(-p[0], -p[1], -p[2]);
    if (!jname) goto done;
    if (k == nj - 1) {
      name = bname;
    } else {
      snprintf(buf, sizeof buf, "%s/%s", bname, jname);
      name = strdup(buf);
    }
    memset(&s, 0, sizeof s);
    s.name = name;
    s.parent = k == 0 ? parent : prev;
    s.joint_name = jname;
    hg_se3_identity(&s.post);
    switch (type) {
    case HG_MJ_JNT_HINGE: {
      hg_se3 A = turn(a, -ref);
      s.offset = mul(&P, &Tp);
      hg_joint_init(&s.joint, HG_JOINT_REVOLUTE, a, NULL, 0, &why);
      P = mul(&A, &Tm);
      break;
    }
    case HG_MJ_JNT_SLIDE:
      s.offset = P;
      hg_joint_init(&s.joint, HG_JOINT_PRISMATIC, a, NULL, 0, &why);
      P = shift(-a[0] * ref, -a[1] * ref, -a[2] * ref);
      break;
    case HG_MJ_JNT_BALL:
      s.offset = mul(&P, &Tp);
      hg_joint_init(&s.joint, HG_JOINT_SPHERICAL, NULL, NULL, 0, &why);
      P = Tm;
      break;
    default: /* HG_MJ_JNT_FREE: MuJoCo allows it only on a body of the world, as its only joint */
      if (r->place)
        s.offset = *r->place;
      else
        hg_se3_identity(&s.offset);
      hg_joint_init(&s.joint, HG_JOINT_FREE, NULL, NULL, 0, &why);
      hg_se3_identity(&P);
      break;
    }
    nv = hg_joint_nv(s.joint.type);
    /* MuJoCo's free DoFs are (linear, angular), hinge's (angular, linear); the armature is one
     * number per MuJoCo joint, so the order does not matter */
    for (int d = 0; d < nv; d++) s.armature[d] = mj->dof[da + d].armature;
    if (type == HG_MJ_JNT_FREE && mj->dof[da].armature != 0) r->nfree_armature++;
    if (mj->jnt[j].limited && (type == HG_MJ_JNT_HINGE || type == HG_MJ_JNT_SLIDE)) {
      s.limits.has_position = 1;
      s.limits.lower = mj->jnt[j].range[0];
      s.limits.upper = mj->jnt[j].range[1];
    } else if (mj->jnt[j].limited) {
      r->nball_limit++;
    }
    if (k == nj - 1) body_inertia(mj, i, &P, &s.inertia);
    int bad = add(r, &s) || add_spring(r, j, jname) || add_q0(r, j, jname);
    free(jname);
    if (k < nj - 1) {
      free(prev);
      prev = name;
    }
    if (bad) goto done;
  }
  r->frame[i] = P;
  r->hname[i] = bname;
  rc = 0;
done:
  free(prev);
  if (rc) free(bname);
  return rc;
}

/* 64-bit FNV-1a of n bytes, continuing from h */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t k = 0; k < n; k++) h = (h ^ c[k]) * 1099511628211ULL;
  return h;
}

/* The OBJ file of MuJoCo mesh k as MuJoCo compiled it (scaled, its vertices in the frame geoms
 * place with geom_pos and geom_quat: MuJoCo moves a mesh to its centre of mass and principal
 * axes), written once into $TMPDIR/hinge-mjcf-UID/ under a name that is a hash of its content,
 * so that loading a model again reuses the file. mjModel keeps no mesh file name, and hinge's
 * geometry names a file. NULL when it cannot be written (the geom is then not kept). */
static const char *mesh_file(mj_reader *r, int k) {
  const hg_mjcf_compiled *mj = r->mj;
  int va = mj->mesh[k].vertadr, nvert = mj->mesh[k].vertnum;
  int fa = mj->mesh[k].faceadr, nface = mj->mesh[k].facenum;
  const char *tmp = getenv("TMPDIR");
  char dir[512], path[640], part[700];
  uint64_t h = 1469598103934665603ULL;
  FILE *f;
  if (r->mesh_path[k]) return r->mesh_path[k];
  if (nvert <= 0 || nface <= 0) return NULL;
  h = fnv1a(h, mj->mesh_vert + 3 * va, (size_t)nvert * 3 * sizeof(float));
  h = fnv1a(h, mj->mesh_face + 3 * fa, (size_t)nface * 3 * sizeof(int));
  snprintf(dir, sizeof dir, "%s/hinge-mjcf-%ld", tmp && *tmp ? tmp : "/tmp", (long)getuid());
  if (mkdir(dir, 0700) && errno != EEXIST) return NULL;
  /* a folder this user made and no one else can write: its files are the meshes written here */
  struct stat st;
  if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022))
    return NULL;
  snprintf(path, sizeof path, "%s/mesh-%016llx.obj", dir, (unsigned long long)h);
  if (access(path, R_OK) != 0) {
    /* written under a private name, then renamed: a reader never sees half a file */
    snprintf(part, sizeof part, "%s.%ld.part", path, (long)getpid());
    if (!(f = fopen(part, "w"))) return NULL;
    fprintf(f, "# MuJoCo's compiled mesh, written by hinge's MJCF reader\n");
    for (int v = 0; v < nvert; v++) {
      const float *x = mj->mesh_vert + 3 * (va + v);
      fprintf(f, "v %.9g %.9g %.9g\n", x[0], x[1], x[2]);
    }
    for (int t = 0; t < nface; t++) {
      const int *x = mj->mesh_face + 3 * (fa + t);
      fprintf(f, "f %d %d %d\n", x[0] + 1, x[1] + 1, x[2] + 1);
    }
    if (fclose(f) != 0 || rename(part, path) != 0) {
      remove(part);
      return NULL;
    }
  }
  r->mesh_path[k] = strdup(path);
  return r->mesh_path[k];
}

/* MuJoCo geom g as hinge geometry on hinge body body, F being MuJoCo's body frame in hinge's */
static int add_geom(mj_reader *r, int g, const char *body, const hg_se3 *F) {
  const hg_mjcf_compiled *mj = r->mj;
  const double *sz = mj->geom[g].size;
  hg_geom h;
  hg_se3 G;
  hg_error e;
  memset(&h, 0, sizeof h);
  switch (mj->geom[g].type) {
  case HG_MJ_GEOM_SPHERE:
    h.type = HG_GEOM_SPHERE, h.size[0] = sz[0];
    break;
  case HG_MJ_GEOM_CAPSULE: /* MuJoCo: radius, half-length; hinge: radius, length */
    h.type = HG_GEOM_CAPSULE, h.size[0] = sz[0], h.size[1] = 2 * sz[1];
    break;
  case HG_MJ_GEOM_CYLINDER:
    h.type = HG_GEOM_CYLINDER, h.size[0] = sz[0], h.size[1] = 2 * sz[1];
    break;
  case HG_MJ_GEOM_BOX: /* MuJoCo: half-sizes; hinge: full extents */
    h.type = HG_GEOM_BOX, h.size[0] = 2 * sz[0], h.size[1] = 2 * sz[1], h.size[2] = 2 * sz[2];
    break;
  case HG_MJ_GEOM_MESH: /* MuJoCo's compiled vertices, scale included */
    h.type = HG_GEOM_MESH, h.size[0] = h.size[1] = h.size[2] = 1;
    if (mj->geom[g].dataid < 0 || !(h.mesh = (char *)mesh_file(r, mj->geom[g].dataid))) {
      r->nmesh_fail++;
      return 0;
    }
    break;
  default: /* planes, height fields, ellipsoids */
    r->nskip_geom++;
    return 0;
  }
  pose_of(mj->geom[g].pos, mj->geom[g].quat, &G);
  h.pose = mul(F, &G);
  h.collision = mj->geom[g].contype != 0 || mj->geom[g].conaffinity != 0;
  for (int k = 0; k < 4; k++) h.rgba[k] = mj->geom[g].rgba[k];
  if (hg_builder_add_geom(r->b, body, &h, &e)) {
    hg_error_set(r->err, "%s: %s", r->path, e.msg);
    return -1;
  }
  return 0;
}

/* MuJoCo site k as a site of the extras */
static int add_site(mj_reader *r, int k, const char *body, const hg_se3 *F) {
  const hg_mjcf_compiled *mj = r->mj;
  const char *n = mj_name(mj, OBJ_SITE, k);
  char buf[64];
  hg_se3 S;
  if (!r->x) return 0;
  hg_mjcf_site *grown = realloc(r->x->site, ((size_t)r->x->nsite + 1) * sizeof *grown);
  if (!grown) return oom(r);
  r->x->site = grown;
  hg_mjcf_site *s = &grown[r->x->nsite];
  memset(s, 0, sizeof *s);
  if (!n) snprintf(buf, sizeof buf, "site%d", k);
  s->name = prefixed(r, n ? n : buf);
  s->body = strdup(body);
  r->x->nsite++;
  if (!s->name || !s->body) return oom(r);
  pose_of(mj->site[k].pos, mj->site[k].quat, &S);
  s->pose = mul(F, &S);
  return 0;
}

/* the hinge body of MuJoCo body i and MuJoCo's frame of it in hinge's (the world: the include's
 * parent at its pose) */
static const char *body_of(const mj_reader *r, int i, hg_se3 *F) {
  if (i > 0) {
    *F = r->frame[i];
    return r->hname[i];
  }
  if (r->place)
    *F = *r->place;
  else
    hg_se3_identity(F);
  return r->parent ? r->parent : "world";
}

/* MuJoCo equality k (connect or weld) as a loop of the extras. MuJoCo 2.2.2's data: connect:
 * the anchor in body1's frame, then the same point in body2's frame at qpos0; weld: an anchor,
 * then body2's pose in body1's frame (position, quaternion) and a torque scale, which only
 * shape MuJoCo's soft constraint: the exact weld holds body2's frame at that pose. */
static int add_loop(mj_reader *r, int k) {
  const hg_mjcf_compiled *mj = r->mj;
  const double *c = mj->eq[k].data;
  const char *n = mj_name(mj, OBJ_EQUALITY, k);
  char buf[64];
  hg_se3 F[2], A, B;
  hg_mjcf_loop *grown = realloc(r->x->loop, ((size_t)r->x->nloop + 1) * sizeof *grown);
  if (!grown) return oom(r);
  r->x->loop = grown;
  hg_mjcf_loop *L = &grown[r->x->nloop];
  memset(L, 0, sizeof *L);
  r->x->nloop++;
  const char *b0 = body_of(r, mj->eq[k].obj1, &F[0]), *b1 = body_of(r, mj->eq[k].obj2, &F[1]);
  if (!n) snprintf(buf, sizeof buf, "equality%d", k);
  L->name = prefixed(r, n ? n : buf);
  L->body[0] = strdup(b0);
  L->body[1] = strdup(b1);
  if (!L->name || !L->body[0] || !L->body[1]) return oom(r);
  L->weld = mj->eq[k].type == HG_MJ_EQ_WELD;
  L->active = mj->eq[k].active != 0;
  if (L->weld) {
    pose_of(c + 3, c + 6, &A);
    hg_se3_identity(&B);
  } else {
    A = shift(c[0], c[1], c[2]);
    B = shift(c[3], c[4], c[5]);
  }
  L->frame[0] = mul(&F[0], &A);
  L->frame[1] = mul(&F[1], &B);
  return 0;
}

/* joint equalities that are linear (polycoef[2..4] zero) between two hinge or slide joints
 * become mimic couplings: MuJoCo's q1 - ref1 = c0 + c1 (q2 - ref2) is, in hinge's q = qpos,
 * q1 = c1 q2 + (c0 + ref1 - c1 ref2). Returns the number not taken through *skipped. */
static int add_equalities(mj_reader *r, int *skipped, char *first, size_t len) {
  const hg_mjcf_compiled *mj = r->mj;
  static const char *const kinds[] = {"connect", "weld", "joint", "tendon", "distance"};
  *skipped = 0;
  for (int k = 0; k < mj->neq; k++) {
    const double *c = mj->eq[k].data;
    int t = mj->eq[k].type, j1 = mj->eq[k].obj1, j2 = mj->eq[k].obj2;
    if (t == HG_MJ_EQ_JOINT && mj->eq[k].active && j2 >= 0 && c[2] == 0 && c[3] == 0 && c[4] == 0 &&
        (mj->jnt[j1].type == HG_MJ_JNT_HINGE || mj->jnt[j1].type == HG_MJ_JNT_SLIDE) &&
        (mj->jnt[j2].type == HG_MJ_JNT_HINGE || mj->jnt[j2].type == HG_MJ_JNT_SLIDE)) {
      int b1 = mj->jnt[j1].body, b2 = mj->jnt[j2].body;
      char *n1 = joint_name(r, j1, r->hname[b1], j1 - mj->body[b1].jntadr);
      char *n2 = joint_name(r, j2, r->hname[b2], j2 - mj->body[b2].jntadr);
      double r1 = mj->qpos0[mj->jnt[j1].qposadr], r2 = mj->qpos0[mj->jnt[j2].qposadr];
      hg_error e;
      int bad = !n1 || !n2 || hg_builder_add_mimic(r->b, n1, n2, c[1], c[0] + r1 - c[1] * r2, &e);
      free(n1);
      free(n2);
      if (bad) {
        hg_error_set(r->err, "%s: equality %d: %s", r->path, k, n1 && n2 ? e.msg : "out of memory");
        return -1;
      }
      continue;
    }
    if (r->x && (t == HG_MJ_EQ_CONNECT || t == HG_MJ_EQ_WELD)) {
      if (add_loop(r, k)) return -1;
      continue;
    }
    if (!*skipped) {
      const char *n = mj_name(mj, OBJ_EQUALITY, k);
      snprintf(first, len, "%s%s%s", t >= 0 && t < 5 ? kinds[t] : "?", n ? " " : "", n ? n : "");
    }
    (*skipped)++;
  }
  return 0;
}

/* MuJoCo's motors on hinge and slide joints as motors of the extras; the number of the other
 * actuators (and the first one's name) through *skipped */
static int add_motors(mj_reader *r, int *skipped, char *first, size_t len) {
  const hg_mjcf_compiled *mj = r->mj;
  *skipped = 0;
  for (int k = 0; k < mj->nu; k++) {
    int j = mj->act[k].trnid;
    const double *gain = &mj->act[k].gain;
    const double *bias = mj->act[k].bias;
    int motor = r->x && mj->act[k].trntype == HG_MJ_TRN_JOINT && j >= 0 &&
                (mj->jnt[j].type == HG_MJ_JNT_HINGE || mj->jnt[j].type == HG_MJ_JNT_SLIDE) &&
                mj->act[k].dyntype == HG_MJ_DYN_NONE && mj->act[k].gaintype == HG_MJ_GAIN_FIXED &&
                (mj->act[k].biastype == HG_MJ_BIAS_NONE ||
                 (bias[0] == 0 && bias[1] == 0 && bias[2] == 0));
    const char *n = mj_name(mj, OBJ_ACTUATOR, k);
    if (!motor) {
      if (!*skipped) snprintf(first, len, "%s", n ? n : "unnamed");
      (*skipped)++;
      continue;
    }
    hg_mjcf_motor *grown = realloc(r->x->motor, ((size_t)r->x->nmotor + 1) * sizeof *grown);
    char buf[64];
    if (!grown) return oom(r);
    r->x->motor = grown;
    hg_mjcf_motor *mo = &grown[r->x->nmotor];
    memset(mo, 0, sizeof *mo);
    r->x->nmotor++;
    int b = mj->jnt[j].body;
    if (!n) snprintf(buf, sizeof buf, "actuator%d", k);
    mo->name = prefixed(r, n ? n : buf);
    mo->joint = joint_name(r, j, r->hname[b], j - mj->body[b].jntadr);
    if (!mo->name || !mo->joint) return oom(r);
    /* MuJoCo's force: gear * gainprm[0] * ctrl (the joint's gear is actuator_gear[6k]) */
    mo->gain = mj->act[k].gear * gain[0];
    mo->effort = INFINITY;
    if (mj->act[k].forcelimited)
      mo->effort = fmax(fabs(mj->act[k].forcerange[0]), fabs(mj->act[k].forcerange[1]));
    if (mj->act[k].ctrllimited)
      mo->effort = fmin(mo->effort, fabs(mo->gain) * fmax(fabs(mj->act[k].ctrlrange[0]),
                                                         fabs(mj->act[k].ctrlrange[1])));
  }
  return 0;
}

/* the first few names of the objects of one kind, for a note: "(a, b, c, ...)" */
static void some_names(const hg_mjcf_compiled *mj, int obj, int n, char *out, size_t len) {
  size_t used = 0;
  int shown = 0;
  out[0] = 0;
  for (int k = 0; k < n && shown < 3; k++) {
    const char *s = mj_name(mj, obj, k);
    if (!s) continue;
    used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s", shown ? ", " : " (", s);
    shown++;
  }
  if (shown && used < len) snprintf(out + used, len - used, "%s)", shown < n ? ", ..." : "");
}

/* one note per kind of element hinge does not take */
static void summarize(mj_reader *r, int neq_skipped, const char *eq_first, int nu_skipped,
                      const char *u_first) {
  const hg_mjcf_compiled *mj = r->mj;
  char names[256];
  if (nu_skipped && !r->x) {
    some_names(mj, OBJ_ACTUATOR, mj->nu, names, sizeof names);
    note(r, "%d actuators%s not read: a scene's mjcf include makes motors of MuJoCo's motors "
         "(docs/mjcf.md)", mj->nu, names);
  } else if (nu_skipped) {
    note(r, "%d actuators (first: %s) not read: only motors on hinge and slide joints (fixed gain, "
         "no bias, no activation) become hinge motors", nu_skipped, u_first);
  }
  if (mj->ntendon) {
    some_names(mj, OBJ_TENDON, mj->ntendon, names, sizeof names);
    note(r, "%d tendons%s not used: hinge has no tendons", mj->ntendon, names);
  }
  if (neq_skipped)
    note(r, "%d equality constraints (first: %s) not used: linear joint couplings become mimic "
         "couplings and, in a scene's mjcf include, connect and weld become loops",
         neq_skipped, eq_first);
  if (mj->npair || mj->nexclude)
    note(r, "%d contact pairs and %d exclusions not used: contact is a scene's force element",
         mj->npair, mj->nexclude);
  if (mj->nsensor) note(r, "%d sensors not read: hinge's sensors are declared in a scene", mj->nsensor);
  if (r->nskip_geom)
    note(r, "%d geoms (planes, height fields, ellipsoids) kept for MuJoCo only: hinge draws and "
         "collides spheres, capsules, cylinders, boxes and meshes of MJCF", r->nskip_geom);
  if (r->nmesh_fail)
    note(r, "%d mesh geoms not kept: their compiled mesh could not be written under $TMPDIR",
         r->nmesh_fail);
  if (r->nskip_world_geom)
    note(r, "%d geoms of MuJoCo's worldbody not kept: they belong to the world", r->nskip_world_geom);
  if (r->nmocap) note(r, "%d mocap bodies are welded where the file puts them", r->nmocap);
  if (r->nball_limit) note(r, "%d ball-joint range limits not used (cone limits)", r->nball_limit);
  if (r->nfree_spring)
    note(r, "%d free-joint springs not used (their damping is)", r->nfree_spring);
  if (r->nfree_armature)
    note(r, "%d free joints with armature: MuJoCo's acts on the world-frame linear rate, hinge's "
         "on the body-frame one, so the velocity terms differ by armature w x v", r->nfree_armature);
  if (mj->disableflags & (HG_MJ_DSBL_PASSIVE))
    note(r, "the file disables passive forces: springs and dampers are not kept");
}

int hg_mjcf_build(hg_builder *b, const hg_mjcf_compiled *mj, const char *path,
                  const char *parent_body, const hg_se3 *pose, const char *prefix,
                  const hg_mjcf_options *opt, hg_mjcf_extras *extras, hg_error *err) {
  static const hg_mjcf_options none;
  char eq_first[128] = "", u_first[128] = "";
  mj_reader r;
  int rc = -1, neq_skipped = 0, nu_skipped = 0;
  if (extras) memset(extras, 0, sizeof *extras);
  memset(&r, 0, sizeof r);
  r.path = path;
  r.prefix = prefix;
  r.parent = parent_body && strcmp(parent_body, "world") != 0 ? parent_body : NULL;
  r.place = pose;
  r.mj = mj;
  r.opt = opt ? opt : &none;
  r.b = b;
  r.x = extras;
  r.err = err;
  r.hname = calloc((size_t)mj->nbody, sizeof *r.hname);
  r.frame = calloc((size_t)mj->nbody, sizeof *r.frame);
  r.mesh_path = calloc((size_t)mj->nmesh + 1, sizeof *r.mesh_path);
  if (!r.hname || !r.frame || !r.mesh_path) {
    oom(&r);
    goto done;
  }
  if (extras) {
    memcpy(extras->gravity, mj->gravity, sizeof extras->gravity);
    if (mj->disableflags & HG_MJ_DSBL_GRAVITY) memset(extras->gravity, 0, sizeof extras->gravity);
  }
  /* MuJoCo's bodies come parents first */
  for (int i = 1; i < mj->nbody; i++)
    if (add_body(&r, i)) goto done;
  for (int g = 0; g < mj->ngeom; g++) {
    int i = mj->geom[g].body;
    if (i == 0) {
      r.nskip_world_geom++;
      continue;
    }
    if (add_geom(&r, g, r.hname[i], &r.frame[i])) goto done;
  }
  for (int k = 0; k < mj->nsite; k++) {
    int i = mj->site[k].body;
    hg_se3 W;
    if (r.place)
      W = *r.place;
    else
      hg_se3_identity(&W);
    if (add_site(&r, k, i == 0 ? (r.parent ? r.parent : "world") : r.hname[i],
                 i == 0 ? &W : &r.frame[i]))
      goto done;
  }
  if (extras && (mj->disableflags & HG_MJ_DSBL_PASSIVE)) {
    for (int k = 0; k < extras->nspring; k++) free(extras->spring[k].joint);
    extras->nspring = 0;
  }
  if (add_equalities(&r, &neq_skipped, eq_first, sizeof eq_first) ||
      add_motors(&r, &nu_skipped, u_first, sizeof u_first))
    goto done;
  summarize(&r, neq_skipped, eq_first, nu_skipped, u_first);
  rc = 0;
done:
  if (r.hname)
    for (int i = 0; i < mj->nbody; i++) free(r.hname[i]);
  free(r.hname);
  free(r.frame);
  if (r.mesh_path)
    for (int k = 0; k < mj->nmesh; k++) free(r.mesh_path[k]);
  free(r.mesh_path);
  if (rc && extras) hg_mjcf_extras_free(extras);
  return rc;
}

int hg_mjcf_add_isolated(hg_builder *b, const char *path, const char *parent_body,
                         const hg_se3 *pose, const char *prefix, const hg_mjcf_options *opt,
                         const hg_mjcf_isolation *iso, hg_mjcf_extras *extras, hg_error *err) {
  hg_mjcf_compiled mj;
  if (extras) memset(extras, 0, sizeof *extras);
  if (!hg_mjcf_available())
    return hg_error_fail(err,
                         "%s: reading MJCF needs MuJoCo's library, which this build of hinge "
                         "lacks: install it (Debian: apt-get install libmujoco-dev) and rebuild "
                         "hinge",
                         path);
  /* a regular file of bounded size (readfile.h) before MuJoCo's parser reads it by name */
  if (hg_file_check(path, HG_FILE_TEXT_MAX, err) ||
      hg_mjcf_compile(path, iso, &mj, err))
    return -1;
  int rc = hg_mjcf_build(b, &mj, path, parent_body, pose, prefix, opt, extras, err);
  hg_mjcf_compiled_free(&mj);
  return rc;
}

int hg_mjcf_add(hg_builder *b, const char *path, const char *parent_body, const hg_se3 *pose,
                const char *prefix, const hg_mjcf_options *opt, hg_mjcf_extras *extras,
                hg_error *err) {
  return hg_mjcf_add_isolated(b, path, parent_body, pose, prefix, opt, NULL, extras, err);
}

hg_model *hg_mjcf_load(const char *path, const hg_mjcf_options *opt, hg_error *err) {
  hg_builder *b = hg_builder_new();
  hg_mjcf_extras x;
  hg_model *m = NULL;
  hg_error e;
  if (!b) {
    hg_error_set(err, "%s: out of memory", path);
    return NULL;
  }
  /* as for URDF: a singular articulated inertia (a massless subtree on a moving joint, which
   * MuJoCo's compiler lets through when armature makes its M regular) still serves info, id,
   * mass and bias; forward dynamics name the joint when called */
  hg_builder_allow_singular(b, 1);
  if (hg_mjcf_add(b, path, NULL, NULL, NULL, opt, &x, err) == 0) {
    m = hg_builder_compile(b, &e);
    if (!m) hg_error_set(err, "%s: %.480s", path, e.msg);
    if (m) memcpy(m->gravity, x.gravity, sizeof m->gravity);
    if (m && x.nspring && opt && opt->notes)
      fprintf(opt->notes,
              "%s: note: %d joint springs and dampers are force elements: a scene's mjcf include "
              "applies them, this model alone does not\n",
              path, x.nspring);
    hg_mjcf_extras_free(&x);
  }
  hg_builder_free(b);
  return m;
}
