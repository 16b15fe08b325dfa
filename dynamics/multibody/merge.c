/* merge.c: merging bodies on fixed joints into their parents (merge.h). One pass over the bodies
 * in topological order finds each body's carrier and pose in it; the merged bodies are then
 * added to a builder in the same order, so compiling keeps the depth-first order and the DoF
 * layout of the original model. */
#include "merge.h"

#include <stdlib.h>
#include <string.h>

hg_model *hg_model_merge_fixed(const hg_model *m, int *frame_body, hg_se3 *frame_pose,
                               hg_error *err) {
  int n = m->nbody;
  int *carrier = malloc((size_t)n * sizeof(int)), *kept = malloc((size_t)n * sizeof(int));
  hg_se3 *pose = malloc((size_t)n * sizeof(hg_se3));
  hg_inertia *total = calloc((size_t)n, sizeof(hg_inertia));
  hg_builder *b = hg_builder_new();
  hg_model *out = NULL;
  int nkept = 1;
  if (!carrier || !kept || !pose || !total || !b) {
    hg_error_set(err, "out of memory");
    goto done;
  }
  /* carrier[i]: the original body that carries body i (itself unless on a fixed joint) and
   * pose[i]: body i's frame in the carrier's frame; kept[k]: the k-th carrier */
  carrier[0] = 0, kept[0] = 0;
  hg_se3_identity(&pose[0]);
  for (int i = 1; i < n; i++) {
    int p = m->parent[i];
    if (m->jnt[i].type == HG_JOINT_FIXED) {
      hg_se3 rel;
      hg_se3_mul(&m->jnt_offset[i], &m->jnt_post[i], &rel); /* T_{p,i} at the fixed joint */
      carrier[i] = carrier[p];
      hg_se3_mul(&pose[p], &rel, &pose[i]);
    } else {
      carrier[i] = i;
      kept[nkept++] = i;
      hg_se3_identity(&pose[i]);
    }
  }
  /* the combined inertias, about each carrier's frame */
  for (int i = 1; i < n; i++) {
    hg_inertia Gi;
    hg_inertia_transform(&pose[i], &m->inertia[i], &Gi);
    hg_inertia_add(&total[carrier[i]], &Gi);
  }
  /* the carriers, parents first: the joint frame moves by the parent's pose in its carrier */
  hg_builder_allow_singular(b, 1); /* m compiled already: a singular ABA is the caller's to see */
  for (int k = 1; k < nkept; k++) {
    int i = kept[k], p = m->parent[i];
    hg_body_spec s;
    memset(&s, 0, sizeof s);
    s.name = m->body_name[i];
    s.parent = m->body_name[carrier[p]];
    s.joint_name = m->jnt_name[i];
    s.joint = m->jnt[i];
    hg_se3_mul(&pose[p], &m->jnt_offset[i], &s.offset);
    s.has_post = m->has_post[i];
    s.post = m->jnt_post[i];
    s.inertia = total[i];
    s.limits = m->limits[i];
    /* the moving joint keeps its DoFs' armature (fixed joints have none) */
    for (int e = 0; e < m->jnt_nv[i]; e++) s.armature[e] = m->armature[m->v_adr[i] + e];
    if (hg_builder_add_body(b, &s, err)) goto done;
  }
  /* geometry on its carrier */
  for (int g = 0; g < m->ngeom; g++) {
    hg_geom G = m->geom[g];
    int i = G.body;
    if (carrier[i] == 0) continue; /* fixed to the world: nothing in the dynamics carries it */
    hg_se3_mul(&pose[i], &m->geom[g].pose, &G.pose);
    if (hg_builder_add_geom(b, m->body_name[carrier[i]], &G, err)) goto done;
  }
  /* mimic couplings join moving joints, which all stay */
  for (int k = 0; k < m->nmimic; k++)
    if (hg_builder_add_mimic(b, m->jnt_name[m->mimic_follower[k]], m->jnt_name[m->mimic_leader[k]],
                             m->mimic_mult[k], m->mimic_offset[k], err))
      goto done;
  out = hg_builder_assemble(b, err);
  if (!out) goto done;
  memcpy(out->gravity, m->gravity, sizeof out->gravity);
  /* the carriers keep their order: the k-th is body k of the merged model (carrier[] now holds
   * merged indices: carriers come before the bodies they carry) */
  for (int k = 0; k < nkept; k++) carrier[kept[k]] = k;
  for (int i = 1; i < n; i++)
    if (m->jnt[i].type == HG_JOINT_FIXED) carrier[i] = carrier[m->parent[i]];
  for (int i = 0; i < n; i++) {
    if (frame_body) frame_body[i] = carrier[i];
    if (frame_pose) frame_pose[i] = pose[i];
  }
done:
  free(carrier);
  free(kept);
  free(pose);
  free(total);
  hg_builder_free(b);
  return out;
}
