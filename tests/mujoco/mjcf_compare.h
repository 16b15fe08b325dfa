/* mjcf_compare.h: hinge's dynamics of an MJCF model read by hg_mjcf_add against MuJoCo's own
 * (libmujoco), at random states, in MuJoCo's coordinates (docs/mjcf.md gives the mapping).
 *
 * MuJoCo runs with contact, limits, equalities, friction loss and actuation disabled, fluid
 * forces and tendon springs and dampers zeroed (hinge takes none of these from MJCF), so that
 *   M    = mj_fullM of qM (armature included),
 *   bias = qfrc_bias,
 *   ID   = mj_rne(qacc) + armature qacc - qfrc_passive (springs and dampers of the joints),
 *   FD   = qacc of mj_forward with qfrc_applied = tau,
 * and hinge's come from hg_crba, hg_rnea and hg_aba with the joint springs and dampers of the
 * reader's extras added to tau. */
#ifndef HINGE_MJCF_COMPARE_H
#define HINGE_MJCF_COMPARE_H

/* the worst relative errors over the states (max |hinge - MuJoCo| / max(max |MuJoCo|, 1e-300)
 * per state and quantity) and what was compared */
typedef struct hg_mjcf_agreement {
  int mujoco_loads; /* 0: MuJoCo refused the file (why says why) */
  int hinge_loads;  /* 0: hinge refused it (why says why) */
  int nq, nv, nbody_mj, njnt;
  double err_M, err_bias, err_id, err_fd;
  char why[512];
} hg_mjcf_agreement;

/* compares at nstates random states drawn from seed; returns 0 when both load */
int hg_mjcf_compare(const char *path, int nstates, unsigned seed, hg_mjcf_agreement *out);

#endif
