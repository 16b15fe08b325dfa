
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/dynamics/articulated.c" "dynamics/CMakeFiles/hinge.dir/articulated.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/articulated.c.o.d"
  "/work/main/dynamics/crba.c" "dynamics/CMakeFiles/hinge.dir/crba.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/crba.c.o.d"
  "/work/main/dynamics/energy.c" "dynamics/CMakeFiles/hinge.dir/energy.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/energy.c.o.d"
  "/work/main/dynamics/inertia.c" "dynamics/CMakeFiles/hinge.dir/inertia.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/inertia.c.o.d"
  "/work/main/dynamics/joint.c" "dynamics/CMakeFiles/hinge.dir/joint.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/joint.c.o.d"
  "/work/main/dynamics/kinematics.c" "dynamics/CMakeFiles/hinge.dir/kinematics.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/kinematics.c.o.d"
  "/work/main/dynamics/mesh.c" "dynamics/CMakeFiles/hinge.dir/mesh.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/mesh.c.o.d"
  "/work/main/dynamics/model.c" "dynamics/CMakeFiles/hinge.dir/model.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/model.c.o.d"
  "/work/main/dynamics/profile.c" "dynamics/CMakeFiles/hinge.dir/profile.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/profile.c.o.d"
  "/work/main/dynamics/rnea.c" "dynamics/CMakeFiles/hinge.dir/rnea.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/rnea.c.o.d"
  "/work/main/dynamics/spatial.c" "dynamics/CMakeFiles/hinge.dir/spatial.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/spatial.c.o.d"
  "/work/main/dynamics/urdf.c" "dynamics/CMakeFiles/hinge.dir/urdf.c.o" "gcc" "dynamics/CMakeFiles/hinge.dir/urdf.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
