/* hinge.h: everything of libhinge's dynamics core in one include. */
#ifndef HINGE_H
#define HINGE_H

#include "derivatives.h"
#include "derivatives2.h"
#include "dynamics.h"
#include "inertia.h"
#include "joint.h"
#include "linearize.h"
#include "merge.h"
#include "mimic.h"
#include "model.h"
#include "names.h"
#include "profile.h"
#include "spatial.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the version of the installed libhinge.so (version.c, cmake/install.cmake), "0.1.0" */
const char *hg_version(void);

#ifdef __cplusplus
}
#endif

#endif
