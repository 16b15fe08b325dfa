
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/test_model.c" "tests/CMakeFiles/test_model.dir/test_model.c.o" "gcc" "tests/CMakeFiles/test_model.dir/test_model.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/tests/CMakeFiles/hinge_test_support.dir/DependInfo.cmake"
  "/work/main/build/integrators/CMakeFiles/hinge_integrators.dir/DependInfo.cmake"
  "/work/main/build/sim/CMakeFiles/hinge_sim.dir/DependInfo.cmake"
  "/work/main/build/sim/CMakeFiles/hinge_forces.dir/DependInfo.cmake"
  "/work/main/build/sim/CMakeFiles/hinge_scene.dir/DependInfo.cmake"
  "/work/main/build/dynamics/CMakeFiles/hinge.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
