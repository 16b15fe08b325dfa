
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/integrators/cvode_lie.c" "integrators/CMakeFiles/hinge_integrators.dir/cvode_lie.c.o" "gcc" "integrators/CMakeFiles/hinge_integrators.dir/cvode_lie.c.o.d"
  "/work/main/integrators/fixed_step.c" "integrators/CMakeFiles/hinge_integrators.dir/fixed_step.c.o" "gcc" "integrators/CMakeFiles/hinge_integrators.dir/fixed_step.c.o.d"
  "/work/main/integrators/integrator.c" "integrators/CMakeFiles/hinge_integrators.dir/integrator.c.o" "gcc" "integrators/CMakeFiles/hinge_integrators.dir/integrator.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/dynamics/CMakeFiles/hinge.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
