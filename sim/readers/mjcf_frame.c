/* mjcf_frame.c: the MJCF reader process's answer (mjcf_frame.h) decoded and checked into a
 * compiled model. Nothing of the frame is trusted: a count, an index, a number or a name out of
 * place makes the whole frame malformed, so the converter (mjcf.c) only ever sees a model whose
 * indices name objects that exist, whose body tree comes parents first and whose numbers are
 * finite. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf_frame.h"

/* ---- reading the bytes ---- */

typedef struct cursor {
  const unsigned char *p, *end;
} cursor;

/* the next n bytes into x (the frame's length was checked against its counts first, so running
 * out here is a decoder bug caught, not a crash) */
static int take(cursor *c, void *x, size_t n) {
  if ((size_t)(c->end - c->p) < n) return -1;
  memcpy(x, c->p, n);
  c->p += n;
  return 0;
}

static int get_i32(cursor *c, int *x) {
  int32_t v;
  if (take(c, &v, 4)) return -1;
  *x = (int)v;
  return 0;
}

/* n finite doubles */
static int get_f64(cursor *c, double *x, int n) {
  for (int k = 0; k < n; k++)
    if (take(c, x + k, 8) || !isfinite(x[k])) return -1;
  return 0;
}

/* the why of a malformed frame: always -1 */
static int bad(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *why, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, len, fmt, ap);
  va_end(ap);
  return -1;
}

/* a unit quaternion (MuJoCo normalizes every one it compiles: 1e-6 leaves room for its rounding
 * and keeps hinge's normalization well away from a zero quaternion) */
static int unit4(const double *q) {
  return fabs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1) < 1e-6;
}

static int unit3(const double *a) { return fabs(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] - 1) < 1e-6; }

/* a joint type's entries of qpos and of qvel */
static int type_nq(int type) { return type == HG_MJ_JNT_FREE ? 7 : type == HG_MJ_JNT_BALL ? 4 : 1; }
static int type_nv(int type) { return type == HG_MJ_JNT_FREE ? 6 : type == HG_MJ_JNT_BALL ? 3 : 1; }

/* a name: u16 length and its bytes into *s (NULL when empty); control characters refused */
static int get_name(cursor *c, char **s) {
  uint16_t n;
  *s = NULL;
  if (take(c, &n, 2) || n > HG_MJCF_FRAME_NAME || (size_t)(c->end - c->p) < n) return -1;
  if (n == 0) return 0;
  for (int k = 0; k < n; k++)
    if (c->p[k] < 32 || c->p[k] == 127) return -1;
  if (!(*s = malloc((size_t)n + 1))) return -2;
  memcpy(*s, c->p, n);
  (*s)[n] = '\0';
  c->p += n;
  return 0;
}

/* ---- the model ---- */

void hg_mjcf_compiled_free(hg_mjcf_compiled *m) {
  if (!m) return;
  for (int i = 0; m->body && i < m->nbody; i++) free(m->body[i].name);
  for (int i = 0; m->jnt && i < m->njnt; i++) free(m->jnt[i].name);
  for (int i = 0; m->site && i < m->nsite; i++) free(m->site[i].name);
  for (int i = 0; m->eq && i < m->neq; i++) free(m->eq[i].name);
  for (int i = 0; m->act && i < m->nu; i++) free(m->act[i].name);
  for (int i = 0; m->tendon_name && i < m->ntendon; i++) free(m->tendon_name[i]);
  free(m->body), free(m->jnt), free(m->qpos0), free(m->qpos_spring), free(m->dof);
  free(m->geom), free(m->site), free(m->mesh), free(m->mesh_vert), free(m->mesh_face);
  free(m->eq), free(m->act), free(m->tendon_name);
  memset(m, 0, sizeof *m);
}

/* the records of a MODEL frame (c after the head) into m, and their checks */
static int decode_model(cursor *c, const uint32_t *n, hg_mjcf_compiled *m, char *why, size_t len) {
  /* the frame's length is exactly what its counts make (each count is below 2^26, so the sum
   * cannot overflow 64 bits) */
  static const size_t record[HG_MJCF_NCOUNT] = {
      [HG_MJCF_NBODY] = HG_MJCF_BODY_BYTES,      [HG_MJCF_NJNT] = HG_MJCF_JOINT_BYTES,
      [HG_MJCF_NQ] = 2 * 8,                      [HG_MJCF_NV] = HG_MJCF_DOF_BYTES,
      [HG_MJCF_NGEOM] = HG_MJCF_GEOM_BYTES,      [HG_MJCF_NSITE] = HG_MJCF_SITE_BYTES,
      [HG_MJCF_NMESH] = HG_MJCF_MESH_BYTES,      [HG_MJCF_NMESHVERT] = 3 * 4,
      [HG_MJCF_NMESHFACE] = 3 * 4,               [HG_MJCF_NEQ] = HG_MJCF_EQ_BYTES,
      [HG_MJCF_NU] = HG_MJCF_ACT_BYTES,          [HG_MJCF_NAMEBYTES] = 1};
  uint64_t want = HG_MJCF_OPTION_BYTES; /* after the head, before the tail */
  for (int k = 0; k < HG_MJCF_NCOUNT; k++) {
    if (n[k] > HG_MJCF_FRAME_COUNT) return bad(why, len, "count %d is %lu", k, (unsigned long)n[k]);
    want += (uint64_t)n[k] * record[k];
  }
  if (want != (uint64_t)(c->end - c->p))
    return bad(why, len, "%zu bytes where its counts make %llu", (size_t)(c->end - c->p),
               (unsigned long long)want);
  /* the names: at least 2 bytes each */
  uint64_t nnames = (uint64_t)n[HG_MJCF_NBODY] + n[HG_MJCF_NJNT] + n[HG_MJCF_NSITE] +
                    n[HG_MJCF_NEQ] + n[HG_MJCF_NU] + n[HG_MJCF_NTENDON];
  if (2 * nnames > n[HG_MJCF_NAMEBYTES]) return bad(why, len, "its names are cut short");
  if (n[HG_MJCF_NBODY] < 1) return bad(why, len, "no world body");

  m->nbody = (int)n[HG_MJCF_NBODY], m->njnt = (int)n[HG_MJCF_NJNT], m->nq = (int)n[HG_MJCF_NQ];
  m->nv = (int)n[HG_MJCF_NV], m->ngeom = (int)n[HG_MJCF_NGEOM], m->nsite = (int)n[HG_MJCF_NSITE];
  m->nmesh = (int)n[HG_MJCF_NMESH], m->nmeshvert = (int)n[HG_MJCF_NMESHVERT];
  m->nmeshface = (int)n[HG_MJCF_NMESHFACE], m->neq = (int)n[HG_MJCF_NEQ], m->nu = (int)n[HG_MJCF_NU];
  m->ntendon = (int)n[HG_MJCF_NTENDON], m->nsensor = (int)n[HG_MJCF_NSENSOR];
  m->npair = (int)n[HG_MJCF_NPAIR], m->nexclude = (int)n[HG_MJCF_NEXCLUDE];
  /* every array at least one element long, so that no calloc(0) is mistaken for a failure */
  m->body = calloc((size_t)m->nbody, sizeof *m->body);
  m->jnt = calloc((size_t)m->njnt + 1, sizeof *m->jnt);
  m->qpos0 = calloc((size_t)m->nq + 1, sizeof *m->qpos0);
  m->qpos_spring = calloc((size_t)m->nq + 1, sizeof *m->qpos_spring);
  m->dof = calloc((size_t)m->nv + 1, sizeof *m->dof);
  m->geom = calloc((size_t)m->ngeom + 1, sizeof *m->geom);
  m->site = calloc((size_t)m->nsite + 1, sizeof *m->site);
  m->mesh = calloc((size_t)m->nmesh + 1, sizeof *m->mesh);
  m->mesh_vert = calloc(3 * (size_t)m->nmeshvert + 1, sizeof *m->mesh_vert);
  m->mesh_face = calloc(3 * (size_t)m->nmeshface + 1, sizeof *m->mesh_face);
  m->eq = calloc((size_t)m->neq + 1, sizeof *m->eq);
  m->act = calloc((size_t)m->nu + 1, sizeof *m->act);
  m->tendon_name = calloc((size_t)m->ntendon + 1, sizeof *m->tendon_name);
  if (!m->body || !m->jnt || !m->qpos0 || !m->qpos_spring || !m->dof || !m->geom || !m->site ||
      !m->mesh || !m->mesh_vert || !m->mesh_face || !m->eq || !m->act || !m->tendon_name)
    return bad(why, len, "out of memory for its %d bodies", m->nbody);

  if (get_f64(c, m->gravity, 3) || get_i32(c, &m->disableflags))
    return bad(why, len, "its gravity is not a finite number");
  for (int i = 0; i < m->nbody; i++) {
    hg_mjcf_cbody *b = &m->body[i];
    if (get_f64(c, b->pos, 3) || get_f64(c, b->quat, 4) || get_f64(c, &b->mass, 1) ||
        get_f64(c, b->ipos, 3) || get_f64(c, b->iquat, 4) || get_f64(c, b->inertia, 3) ||
        get_i32(c, &b->parent) || get_i32(c, &b->jntnum) || get_i32(c, &b->jntadr) ||
        get_i32(c, &b->mocap))
      return bad(why, len, "body %d has a number that is not finite", i);
    /* parents first, the world its own parent and jointless */
    if (i == 0 ? b->parent != 0 || b->jntnum != 0 : b->parent < 0 || b->parent >= i)
      return bad(why, len, "body %d has parent %d", i, b->parent);
    if (b->jntnum < 0 || b->jntnum > m->njnt ||
        (b->jntnum > 0 && (b->jntadr < 0 || b->jntadr > m->njnt - b->jntnum)))
      return bad(why, len, "body %d has %d joints from joint %d of %d", i, b->jntnum, b->jntadr,
                 m->njnt);
    if (!unit4(b->quat) || !unit4(b->iquat))
      return bad(why, len, "body %d has an orientation that is not a unit quaternion", i);
    if (b->mocap != 0 && b->mocap != 1) return bad(why, len, "body %d has mocap %d", i, b->mocap);
  }
  for (int j = 0; j < m->njnt; j++) {
    hg_mjcf_cjoint *J = &m->jnt[j];
    if (get_f64(c, J->axis, 3) || get_f64(c, J->pos, 3) || get_f64(c, J->range, 2) ||
        get_f64(c, &J->stiffness, 1) || get_i32(c, &J->type) || get_i32(c, &J->body) ||
        get_i32(c, &J->qposadr) || get_i32(c, &J->dofadr) || get_i32(c, &J->limited))
      return bad(why, len, "joint %d has a number that is not finite", j);
    if (J->type < HG_MJ_JNT_FREE || J->type > HG_MJ_JNT_HINGE)
      return bad(why, len, "joint %d has type %d", j, J->type);
    /* its body lists it; a free joint is the only joint of a body of the world */
    const hg_mjcf_cbody *B = J->body > 0 && J->body < m->nbody ? &m->body[J->body] : NULL;
    if (!B || j < B->jntadr || j >= B->jntadr + B->jntnum)
      return bad(why, len, "joint %d is on body %d, which does not list it", j, J->body);
    if (J->type == HG_MJ_JNT_FREE && (B->parent != 0 || B->jntnum != 1))
      return bad(why, len, "joint %d is free but not the only joint of a body of the world", j);
    if (J->qposadr < 0 || J->qposadr > m->nq - type_nq(J->type) || J->dofadr < 0 ||
        J->dofadr > m->nv - type_nv(J->type))
      return bad(why, len, "joint %d has qpos %d and dof %d of %d and %d", j, J->qposadr,
                 J->dofadr, m->nq, m->nv);
    if ((J->type == HG_MJ_JNT_HINGE || J->type == HG_MJ_JNT_SLIDE) && !unit3(J->axis))
      return bad(why, len, "joint %d has an axis that is not a unit vector", j);
    if (J->limited != 0 && J->limited != 1)
      return bad(why, len, "joint %d has limited %d", j, J->limited);
  }
  /* and each body lists only its own joints (with the check above: the bodies' lists split the
   * joints, each joint in one) */
  for (int i = 1; i < m->nbody; i++)
    for (int j = m->body[i].jntadr; j < m->body[i].jntadr + m->body[i].jntnum; j++)
      if (m->jnt[j].body != i) return bad(why, len, "body %d lists joint %d of body %d", i, j, m->jnt[j].body);
  if (get_f64(c, m->qpos0, m->nq) || get_f64(c, m->qpos_spring, m->nq))
    return bad(why, len, "a qpos0 or springref that is not a finite number");
  for (int d = 0; d < m->nv; d++)
    if (get_f64(c, &m->dof[d].damping, 1) || get_f64(c, &m->dof[d].armature, 1))
      return bad(why, len, "dof %d has a number that is not finite", d);
  for (int g = 0; g < m->ngeom; g++) {
    hg_mjcf_cgeom *G = &m->geom[g];
    if (get_f64(c, G->size, 3) || get_f64(c, G->pos, 3) || get_f64(c, G->quat, 4) ||
        take(c, G->rgba, sizeof G->rgba) || get_i32(c, &G->type) || get_i32(c, &G->body) ||
        get_i32(c, &G->dataid) || get_i32(c, &G->contype) || get_i32(c, &G->conaffinity))
      return bad(why, len, "geom %d has a number that is not finite", g);
    for (int k = 0; k < 4; k++)
      if (!isfinite(G->rgba[k])) return bad(why, len, "geom %d has a colour that is not finite", g);
    if (G->body < 0 || G->body >= m->nbody) return bad(why, len, "geom %d is on body %d", g, G->body);
    if (!unit4(G->quat)) return bad(why, len, "geom %d has an orientation that is not a unit quaternion", g);
    if (G->type == HG_MJ_GEOM_MESH && (G->dataid < 0 || G->dataid >= m->nmesh))
      return bad(why, len, "geom %d names mesh %d of %d", g, G->dataid, m->nmesh);
  }
  for (int k = 0; k < m->nsite; k++) {
    hg_mjcf_csite *S = &m->site[k];
    if (get_f64(c, S->pos, 3) || get_f64(c, S->quat, 4) || get_i32(c, &S->body))
      return bad(why, len, "site %d has a number that is not finite", k);
    if (S->body < 0 || S->body >= m->nbody) return bad(why, len, "site %d is on body %d", k, S->body);
    if (!unit4(S->quat)) return bad(why, len, "site %d has an orientation that is not a unit quaternion", k);
  }
  for (int k = 0; k < m->nmesh; k++) {
    hg_mjcf_cmesh *M = &m->mesh[k];
    get_i32(c, &M->vertadr), get_i32(c, &M->vertnum), get_i32(c, &M->faceadr);
    get_i32(c, &M->facenum);
    if (M->vertnum < 0 || M->vertadr < 0 || M->vertadr > m->nmeshvert - M->vertnum ||
        M->facenum < 0 || M->faceadr < 0 || M->faceadr > m->nmeshface - M->facenum)
      return bad(why, len, "mesh %d has vertices %d+%d and faces %d+%d", k, M->vertadr,
                 M->vertnum, M->faceadr, M->facenum);
  }
  take(c, m->mesh_vert, 3 * sizeof(float) * (size_t)m->nmeshvert);
  for (size_t k = 0; k < 3 * (size_t)m->nmeshvert; k++)
    if (!isfinite(m->mesh_vert[k]))
      return bad(why, len, "mesh vertex %zu has a coordinate that is not finite", k / 3);
  take(c, m->mesh_face, 3 * sizeof(int) * (size_t)m->nmeshface);
  for (int k = 0; k < m->nmesh; k++) {
    const hg_mjcf_cmesh *M = &m->mesh[k];
    for (size_t t = 3 * (size_t)M->faceadr; t < 3 * ((size_t)M->faceadr + (size_t)M->facenum); t++)
      if (m->mesh_face[t] < 0 || m->mesh_face[t] >= M->vertnum)
        return bad(why, len, "a face of mesh %d names vertex %d of %d", k, m->mesh_face[t], M->vertnum);
  }
  for (int k = 0; k < m->neq; k++) {
    hg_mjcf_ceq *E = &m->eq[k];
    if (get_f64(c, E->data, HG_MJCF_EQDATA) || get_i32(c, &E->type) || get_i32(c, &E->obj1) ||
        get_i32(c, &E->obj2) || get_i32(c, &E->active))
      return bad(why, len, "equality %d has a number that is not finite", k);
    if (E->type < 0 || E->type >= HG_MJ_EQ_NTYPE) return bad(why, len, "equality %d has type %d", k, E->type);
    int bodies = E->type == HG_MJ_EQ_CONNECT || E->type == HG_MJ_EQ_WELD;
    if ((bodies && (E->obj1 < 0 || E->obj1 >= m->nbody || E->obj2 < 0 || E->obj2 >= m->nbody)) ||
        (E->type == HG_MJ_EQ_JOINT &&
         (E->obj1 < 0 || E->obj1 >= m->njnt || E->obj2 < -1 || E->obj2 >= m->njnt)))
      return bad(why, len, "equality %d names objects %d and %d", k, E->obj1, E->obj2);
    if (E->type == HG_MJ_EQ_WELD && !unit4(E->data + 6))
      return bad(why, len, "equality %d has a relative pose that is not a unit quaternion", k);
    if (E->active != 0 && E->active != 1) return bad(why, len, "equality %d has active %d", k, E->active);
  }
  for (int k = 0; k < m->nu; k++) {
    hg_mjcf_cact *A = &m->act[k];
    if (get_f64(c, &A->gear, 1) || get_f64(c, &A->gain, 1) || get_f64(c, A->bias, 3) ||
        get_f64(c, A->forcerange, 2) || get_f64(c, A->ctrlrange, 2) || get_i32(c, &A->trntype) ||
        get_i32(c, &A->trnid) || get_i32(c, &A->dyntype) || get_i32(c, &A->gaintype) ||
        get_i32(c, &A->biastype) || get_i32(c, &A->forcelimited) || get_i32(c, &A->ctrllimited))
      return bad(why, len, "actuator %d has a number that is not finite", k);
    if (A->trntype == HG_MJ_TRN_JOINT && (A->trnid < -1 || A->trnid >= m->njnt))
      return bad(why, len, "actuator %d drives joint %d of %d", k, A->trnid, m->njnt);
    if ((A->forcelimited != 0 && A->forcelimited != 1) || (A->ctrllimited != 0 && A->ctrllimited != 1))
      return bad(why, len, "actuator %d has limit flags %d and %d", k, A->forcelimited, A->ctrllimited);
  }
  /* the names, within their own byte count */
  const unsigned char *names_end = c->p + n[HG_MJCF_NAMEBYTES];
  cursor nc = {c->p, names_end};
  int rc = 0;
  for (int i = 0; !rc && i < m->nbody; i++) rc = get_name(&nc, &m->body[i].name);
  for (int i = 0; !rc && i < m->njnt; i++) rc = get_name(&nc, &m->jnt[i].name);
  for (int i = 0; !rc && i < m->nsite; i++) rc = get_name(&nc, &m->site[i].name);
  for (int i = 0; !rc && i < m->neq; i++) rc = get_name(&nc, &m->eq[i].name);
  for (int i = 0; !rc && i < m->nu; i++) rc = get_name(&nc, &m->act[i].name);
  for (int i = 0; !rc && i < m->ntendon; i++) rc = get_name(&nc, &m->tendon_name[i]);
  if (rc == -2) return bad(why, len, "out of memory for its names");
  if (rc || nc.p != names_end)
    return bad(why, len, "its names are malformed (a length past their end, a control character or "
               "bytes left over)");
  c->p = names_end;
  return 0;
}

int hg_mjcf_frame_decode(const unsigned char *buf, size_t len, hg_mjcf_compiled *out, char *why,
                         size_t whylen) {
  cursor c = {buf, buf + len};
  char magic[8], want[8] = {0};
  uint32_t version, kind, n[HG_MJCF_NCOUNT];
  memset(out, 0, sizeof *out);
  memcpy(want, HG_MJCF_FRAME_MAGIC, sizeof HG_MJCF_FRAME_MAGIC);
  if (len < HG_MJCF_HEAD_BYTES + 8 || memcmp(buf + len - 8, HG_MJCF_FRAME_END, 8))
    return bad(why, whylen, "%zu bytes that do not end with the end mark (cut short, or bytes "
               "after it)", len);
  c.end -= 8; /* the tail, checked */
  take(&c, magic, 8), take(&c, &version, 4), take(&c, &kind, 4), take(&c, n, sizeof n);
  if (memcmp(magic, want, 8)) return bad(why, whylen, "not a frame of hinge's MJCF reader");
  if (version != HG_MJCF_FRAME_VERSION)
    return bad(why, whylen, "frame version %lu, where this hinge reads %u", (unsigned long)version,
               HG_MJCF_FRAME_VERSION);
  if (kind == HG_MJCF_FRAME_ERROR && whylen > 0) {
    for (int k = 1; k < HG_MJCF_NCOUNT; k++)
      if (n[k]) return bad(why, whylen, "an error frame with count %d set", k);
    if (n[0] > HG_MJCF_FRAME_MSG || n[0] != (size_t)(c.end - c.p))
      return bad(why, whylen, "an error message of %lu bytes in %zu", (unsigned long)n[0],
                 (size_t)(c.end - c.p));
    /* printable text only (the message goes to a terminal); newlines kept, where MuJoCo puts
     * the element and line it names */
    size_t k, m = n[0] < whylen ? n[0] : whylen - 1;
    for (k = 0; k < m; k++) {
      unsigned char ch = c.p[k];
      why[k] = (ch < 32 && ch != '\n') || ch == 127 ? ' ' : (char)ch;
    }
    why[k] = '\0';
    return 1;
  }
  if (kind != HG_MJCF_FRAME_MODEL) return bad(why, whylen, "a frame of kind %lu", (unsigned long)kind);
  if (decode_model(&c, n, out, why, whylen)) {
    hg_mjcf_compiled_free(out);
    return -1;
  }
  return 0;
}
