/* urdf.h: reading URDF robot descriptions (libxml2) into hinge models.
 *
 * Supported: <link> with <inertial> (origin xyz/rpy, mass, inertia), <visual> and <collision>
 * geometry (box, cylinder, sphere, mesh filename + scale) kept for the viewer; <joint> of type
 * revolute, continuous, prismatic, fixed, floating and planar with origin, axis, parent, child and
 * <limit> (kept as data). Other elements are skipped with a note on the notes stream.
 * Errors name file:line and what was expected. */
#ifndef HINGE_URDF_H
#define HINGE_URDF_H

#include <stdio.h>

#include "model.h"

/* Adds the robot in a URDF file to a builder. Its root link hangs from parent_body (NULL or
 * "world" for the world) at pose (NULL: identity) by a fixed joint, or by a free joint when
 * floating is non-zero. Every body and joint name is given prefix (NULL: none). Notes about
 * skipped elements go to notes (NULL: none). Returns 0, or -1 with err = "file:line: message". */
int hg_urdf_add(hg_builder *b, const char *path, const char *parent_body, const hg_se3 *pose,
                const char *prefix, int floating, FILE *notes, hg_error *err);

/* Reads a URDF file into a compiled model (hg_urdf_add + hg_builder_compile). NULL on error. */
hg_model *hg_urdf_load(const char *path, int floating, FILE *notes, hg_error *err);

#endif
