/* urdf.h: reading URDF robot descriptions (libxml2) into hinge models.
 *
 * Supported: <link> with <inertial> (origin xyz/rpy, mass, inertia), <visual> and <collision>
 * geometry (box, cylinder, sphere, mesh filename + scale) kept for the viewer; <joint> of type
 * revolute, continuous, prismatic, fixed, floating and planar with origin, axis, parent, child and
 * <limit> (kept as data). Other elements are counted and summed up in one note per file (a note
 * each with verbose); <dynamics damping/friction>, which changes the motion, gets a note of its
 * own. <mimic joint multiplier offset> couples a 1-DoF joint to another (hg_builder_add_mimic;
 * hg_mimic_aba in mimic.h enforces it). package:// mesh paths resolve like ROS tools do (see hg_urdf_options).
 * Errors name file:line and what was expected. */
#ifndef HINGE_URDF_H
#define HINGE_URDF_H

#include <stdio.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* how a URDF file is read */
typedef struct hg_urdf_options {
  int floating;             /* the root link hangs on a free joint */
  int fix_inertia;          /* repair invalid inertias (hg_inertia_balance) with a note each,
                             * instead of refusing the file */
  int verbose;              /* a note for every skipped element, not one summary line */
  const char *package_path; /* folders searched for package://NAME/..., separated by ':', before
                             * those of the ROS_PACKAGE_PATH environment variable (NULL: none) */
  FILE *notes;              /* notes and per-link inertia errors (NULL: none) */
} hg_urdf_options;

/* Adds the robot in a URDF file to a builder, read with opt (NULL: all zero). See hg_urdf_add
 * for the other arguments. */
int hg_urdf_add_opt(hg_builder *b, const char *path, const char *parent_body, const hg_se3 *pose,
                    const char *prefix, const hg_urdf_options *opt, hg_error *err);

/* Reads a URDF file into a compiled model. A model whose articulated inertia is singular (a
 * massless link on a moving joint) loads, with a note naming the link: hg_aba and hg_hybrid then
 * fail at that joint while the other algorithms work. NULL with err on error. */
hg_model *hg_urdf_load_opt(const char *path, const hg_urdf_options *opt, hg_error *err);

/* Adds the robot in a URDF file to a builder. Its root link hangs from parent_body (NULL or
 * "world" for the world) at pose (NULL: identity) by a fixed joint, or by a free joint when
 * floating is non-zero. Every body and joint name is given prefix (NULL: none). Notes about
 * skipped elements go to notes (NULL: none). Returns 0, or -1 with err = "file:line: message". */
int hg_urdf_add(hg_builder *b, const char *path, const char *parent_body, const hg_se3 *pose,
                const char *prefix, int floating, FILE *notes, hg_error *err);

/* hg_urdf_load_opt with only floating and notes set. */
hg_model *hg_urdf_load(const char *path, int floating, FILE *notes, hg_error *err);

#ifdef __cplusplus
}
#endif

#endif
