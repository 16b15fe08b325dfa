/* hinge.h: everything of libhinge's dynamics core in one include. */
#ifndef HINGE_H
#define HINGE_H

#include "derivatives.h"
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

#endif
