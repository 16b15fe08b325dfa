
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/sim/cli/cli_dynamics.c" "sim/CMakeFiles/hinge_cli.dir/cli/cli_dynamics.c.o" "gcc" "sim/CMakeFiles/hinge_cli.dir/cli/cli_dynamics.c.o.d"
  "/work/main/sim/cli/cli_model.c" "sim/CMakeFiles/hinge_cli.dir/cli/cli_model.c.o" "gcc" "sim/CMakeFiles/hinge_cli.dir/cli/cli_model.c.o.d"
  "/work/main/sim/cli/cli_run.c" "sim/CMakeFiles/hinge_cli.dir/cli/cli_run.c.o" "gcc" "sim/CMakeFiles/hinge_cli.dir/cli/cli_run.c.o.d"
  "/work/main/sim/cli/main.c" "sim/CMakeFiles/hinge_cli.dir/cli/main.c.o" "gcc" "sim/CMakeFiles/hinge_cli.dir/cli/main.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/sim/CMakeFiles/hinge_sim.dir/DependInfo.cmake"
  "/work/main/build/sim/CMakeFiles/hinge_scene.dir/DependInfo.cmake"
  "/work/main/build/sim/CMakeFiles/hinge_forces.dir/DependInfo.cmake"
  "/work/main/build/integrators/CMakeFiles/hinge_integrators.dir/DependInfo.cmake"
  "/work/main/build/dynamics/CMakeFiles/hinge.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
