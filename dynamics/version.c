/* version.c: the version string of the shared libraries (cmake/install.cmake): libhinge.so's
 * hg_version and libhinge-sim.so's hg_sim_version (HG_VERSION_NAME), both the project's VERSION. */
#include "hinge.h"

#ifndef HG_VERSION_NAME
#define HG_VERSION_NAME hg_version
#endif

const char *HG_VERSION_NAME(void) { return HINGE_VERSION; }
