/* sensing.c: what each sensor measures (sim_control.h): its truth at the present state, in its
 * own frame (kinematics, accelerations and joint wrenches of the state in s->d), through its
 * error model (sim/control/sensor_models.h) into its latest sample. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sensor_models.h"
#include "sim_internal.h"

/* ---- sensors: the truth ---- */

/* the numbers a sensor of this type gives */
int hg_sim_sensor_size(const hg_sim *s, const hg_sensor_spec *sp) {
  switch (sp->type) {
  case HG_SENSOR_ENCODER: return 1;
  case HG_SENSOR_JOINT_STATE: {
    int i = hg_model_joint(s->m, sp->joint);
    return i > 0 ? s->m->jnt_nq[i] + s->m->jnt_nv[i] : 2;
  }
  case HG_SENSOR_GYRO:
  case HG_SENSOR_ACCELEROMETER: return 3;
  case HG_SENSOR_STAR_TRACKER: return 5;
  case HG_SENSOR_SUN:
  case HG_SENSOR_EARTH: return 4;
  case HG_SENSOR_FORCE_TORQUE:
  case HG_SENSOR_TWIST: return 6;
  case HG_SENSOR_POSE: return 7;
  }
  return 0;
}

/* where sensor sp sits in the current model: its body and its frame in that body (a marker's, or
 * the body's own; a joint's sensors sit on the joint's child body); -1 when absent */
int hg_sim_sensor_frame(const hg_sim *s, const hg_sensor_spec *sp, hg_se3 *M) {
  int b = -1;
  *M = (hg_se3){{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
  if (sp->marker) return hg_sim_resolve_marker(s, sp->marker, &b, M) ? -1 : b;
  if (sp->body) return (b = hg_model_body(s->m, sp->body)) >= 1 ? b : -1;
  if (sp->joint) return (b = hg_model_joint(s->m, sp->joint)) >= 1 ? b : -1;
  return -1;
}

/* the specific force at point p of body b (body frame): the classical acceleration of the point
 * less gravity, a_p - g = (a + w x v) + wdot x p + w x (w x p) from the body's spatial
 * acceleration (wdot, a) in its own frame, which carries the uniform gravity as the base's
 * acceleration -g (dynamics.h), less the central gravity field at the point */
static void specific_force(hg_sim *s, int b, const double p[3], double out[3]) {
  double A[6], V[6], t1[3], t2[3];
  hg_body_acceleration(s->m, s->d, b, A);
  hg_body_twist(s->m, s->d, b, V);
  hg_v3_cross(V, V + 3, t1); /* w x v */
  for (int a = 0; a < 3; a++) out[a] = A[3 + a] + t1[a];
  hg_v3_cross(A, p, t1); /* wdot x p */
  hg_v3_cross(V, p, t2);
  double t3[3];
  hg_v3_cross(V, t2, t3); /* w x (w x p) */
  for (int a = 0; a < 3; a++) out[a] += t1[a] + t3[a];
  /* the central gravity fields at the point: g = -mu r / |r|^3 (world), into the body frame */
  const hg_se3 *T = &s->d->T_world[b];
  double x[3];
  hg_m3_mulv(T->R, p, x);
  for (int a = 0; a < 3; a++) x[a] += T->p[a];
  double gw[3], gb[3];
  hg_forces_central_field(s->forces, x, gw, NULL);
  hg_m3_mulTv(T->R, gw, gb);
  for (int a = 0; a < 3; a++) out[a] -= gb[a];
}

/* the truth sensor k measures now (kinematics, accelerations and joint wrenches of the present
 * state in s->d); 0, or -1 when its body or joint is absent */
static int sensor_truth(hg_sim *s, int k, double *truth) {
  const hg_sensor_spec *sp = s->ctl.sensor[k].spec;
  const hg_model *m = s->m;
  hg_se3 M, Tb, Ts;
  int b = hg_sim_sensor_frame(s, sp, &M);
  if (b < 1) return -1;
  Tb = s->d->T_world[b];
  hg_se3_mul(&Tb, &M, &Ts); /* the sensor frame in the world */
  double V[6], w[3], v[3];
  hg_body_twist(m, s->d, b, V);
  switch (sp->type) {
  case HG_SENSOR_ENCODER:
    truth[0] = s->state.q[m->q_adr[b] + sp->dof];
    return 0;
  case HG_SENSOR_JOINT_STATE:
    memcpy(truth, s->state.q + m->q_adr[b], (size_t)m->jnt_nq[b] * sizeof(double));
    memcpy(truth + m->jnt_nq[b], s->state.v + m->v_adr[b], (size_t)m->jnt_nv[b] * sizeof(double));
    return 0;
  case HG_SENSOR_GYRO:
    hg_m3_mulTv(M.R, V, truth); /* w in the sensor axes */
    return 0;
  case HG_SENSOR_ACCELEROMETER: {
    double f[3];
    specific_force(s, b, M.p, f);
    hg_m3_mulTv(M.R, f, truth);
    return 0;
  }
  case HG_SENSOR_STAR_TRACKER:
    hg_R_to_quat(Ts.R, truth);
    truth[4] = 1;
    return 0;
  case HG_SENSOR_SUN:
  case HG_SENSOR_EARTH: {
    double dir[3];
    if (sp->type == HG_SENSOR_SUN) {
      memcpy(dir, sp->sun, sizeof dir);
    } else {
      hg_forces_central_field(s->forces, Ts.p, NULL, dir);
      for (int a = 0; a < 3; a++) dir[a] -= Ts.p[a];
    }
    double n = hg_v3_norm(dir);
    for (int a = 0; a < 3; a++) dir[a] /= n > 0 ? n : 1;
    hg_m3_mulTv(Ts.R, dir, truth);
    truth[3] = 1;
    return 0;
  }
  case HG_SENSOR_FORCE_TORQUE: {
    /* the wrench the body's joint transmits (moment about the body origin, force; body frame),
     * moved to the sensor origin (n_s = n_o - p x f) and into its axes: force, then torque */
    double F[6], n[3], pxf[3];
    hg_joint_wrench(m, s->d, b, F);
    hg_v3_cross(M.p, F + 3, pxf);
    for (int a = 0; a < 3; a++) n[a] = F[a] - pxf[a];
    hg_m3_mulTv(M.R, F + 3, truth);
    hg_m3_mulTv(M.R, n, truth + 3);
    return 0;
  }
  case HG_SENSOR_POSE:
    memcpy(truth, Ts.p, 3 * sizeof(double));
    hg_R_to_quat(Ts.R, truth + 3);
    return 0;
  case HG_SENSOR_TWIST:
    /* (w, v of the sensor origin = v_o + w x p) in the sensor axes */
    hg_v3_cross(V, M.p, v);
    for (int a = 0; a < 3; a++) v[a] += V[3 + a];
    memcpy(w, V, sizeof w);
    hg_m3_mulTv(M.R, w, truth);
    hg_m3_mulTv(M.R, v, truth + 3);
    return 0;
  }
  return -1;
}

/* ---- sensors: the measurement ---- */

/* sample n of sensor k (index id of the noise streams): its truth through its error model
 * (sensor_models.h) into out; 1 when valid, 0 when it dropped out or looks outside its view */
static int sensor_measure(hg_rt_sensor *se, uint64_t seed, uint32_t id, uint64_t n,
                          const double *truth, double *out) {
  const hg_sensor_spec *sp = se->spec;
  double dt = 1 / sp->rate;
  int valid = 1;
  switch (sp->type) {
  case HG_SENSOR_ENCODER: {
    hg_encoder_params p = {sp->resolution, sp->noise[0], 0};
    double rate;
    hg_encoder_measure(&p, seed, id, n, truth[0] + sp->bias[0], 0, out, &rate);
    return 1;
  }
  case HG_SENSOR_GYRO:
  case HG_SENSOR_ACCELEROMETER: {
    hg_inertial_params p;
    memcpy(p.scale_factor, sp->scale_factor, sizeof p.scale_factor);
    memcpy(p.misalignment, sp->misalignment, sizeof p.misalignment);
    memcpy(p.bias, sp->bias, sizeof p.bias);
    p.white_density = sp->density, p.bias_instability = sp->bias_instability;
    p.correlation_time = sp->correlation_time, p.random_walk = sp->random_walk;
    p.range = sp->range, p.lsb = sp->lsb;
    hg_inertial_measure(&p, (hg_inertial_state *)se->model_state, seed, id, n, dt, truth, out);
    return 1;
  }
  case HG_SENSOR_STAR_TRACKER: {
    /* noise: about x and y (across the boresight), about z (the boresight) */
    hg_star_tracker_params p = {{sp->noise[0], sp->noise[1], sp->noise[2]}, sp->dropout};
    /* a constant bias: the truth turned by exp(bias) in the sensor's axes first */
    double qb[4], qt[4];
    hg_quat_exp(sp->bias, qb);
    hg_quat_mul(truth, qb, qt);
    hg_star_tracker_measure(&p, (hg_star_tracker_state *)se->model_state, seed, id, n, qt, out,
                            &valid);
    out[4] = valid;
    return valid;
  }
  case HG_SENSOR_SUN:
  case HG_SENSOR_EARTH: {
    hg_direction_params p = {sp->noise[0], sp->fov};
    hg_direction_measure(&p, seed, id, n, truth, out, &valid);
    out[3] = valid;
    return valid;
  }
  case HG_SENSOR_FORCE_TORQUE: {
    /* the model's wrenches are (moment, force); the sensor's numbers force, then torque */
    hg_force_torque_params p = {sp->noise[1], sp->noise[0], {0, 0, 0, 0, 0, 0}};
    double w[6], m[6];
    memcpy(p.bias, sp->bias + 3, 3 * sizeof(double));
    memcpy(p.bias + 3, sp->bias, 3 * sizeof(double));
    memcpy(w, truth + 3, 3 * sizeof(double));
    memcpy(w + 3, truth, 3 * sizeof(double));
    hg_force_torque_measure(&p, seed, id, n, w, m);
    memcpy(out, m + 3, 3 * sizeof(double));
    memcpy(out + 3, m, 3 * sizeof(double));
    return 1;
  }
  case HG_SENSOR_JOINT_STATE:
  case HG_SENSOR_POSE:
  case HG_SENSOR_TWIST: hg_truth_measure(truth, se->n, out); return 1;
  }
  return 1;
}

/* sensor k samples now: its truth through its model into value (valid unless it dropped out) */
int hg_sim_sensor_sample(hg_sim *s, int k) {
  hg_rt_sensor *se = &s->ctl.sensor[k];
  double truth[16];
  long n = se->k++;
  if (sensor_truth(s, k, truth)) return 0; /* (absent: it keeps its last sample) */
  se->valid = sensor_measure(se, s->ctl.seed, (uint32_t)k, (uint64_t)n, truth, se->value);
  se->t = s->state.t;
  return 1;
}

/* the names of sensor k's numbers (hg_sim_sensor_view's channel) */
int hg_sim_sensor_channels(hg_sim *s, int k) {
  hg_rt_sensor *se = &s->ctl.sensor[k];
  static const char *const enc[] = {"q"}, *const vec[] = {"x", "y", "z"},
                           *const quat[] = {"qw", "qx", "qy", "qz", "valid"},
                           *const dir[] = {"x", "y", "z", "valid"},
                           *const ft[] = {"fx", "fy", "fz", "tx", "ty", "tz"},
                           *const pose[] = {"x", "y", "z", "qw", "qx", "qy", "qz"},
                           *const tw[] = {"wx", "wy", "wz", "vx", "vy", "vz"},
                           *const js[] = {"q0", "q1", "q2", "q3", "q4", "q5", "q6",
                                          "v0", "v1", "v2", "v3", "v4", "v5"};
  const char *const *src = enc;
  se->channel = malloc((size_t)se->n * sizeof *se->channel);
  if (!se->channel) return -1;
  switch (se->spec->type) {
  case HG_SENSOR_ENCODER: src = enc; break;
  case HG_SENSOR_GYRO:
  case HG_SENSOR_ACCELEROMETER: src = vec; break;
  case HG_SENSOR_STAR_TRACKER: src = quat; break;
  case HG_SENSOR_SUN:
  case HG_SENSOR_EARTH: src = dir; break;
  case HG_SENSOR_FORCE_TORQUE: src = ft; break;
  case HG_SENSOR_POSE: src = pose; break;
  case HG_SENSOR_TWIST: src = tw; break;
  case HG_SENSOR_JOINT_STATE: {
    int i = hg_model_joint(s->m, se->spec->joint), nq = i > 0 ? s->m->jnt_nq[i] : 1;
    for (int e = 0; e < se->n; e++) se->channel[e] = e < nq ? js[e] : js[7 + e - nq];
    return 0;
  }
  }
  for (int e = 0; e < se->n; e++) se->channel[e] = src[e];
  return 0;
}
