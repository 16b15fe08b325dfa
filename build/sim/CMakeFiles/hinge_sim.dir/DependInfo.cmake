
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/sim/output/output.c" "sim/CMakeFiles/hinge_sim.dir/output/output.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/output/output.c.o.d"
  "/work/main/sim/output/plot.c" "sim/CMakeFiles/hinge_sim.dir/output/plot.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/output/plot.c.o.d"
  "/work/main/sim/runtime/checkpoint.c" "sim/CMakeFiles/hinge_sim.dir/runtime/checkpoint.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/runtime/checkpoint.c.o.d"
  "/work/main/sim/runtime/events.c" "sim/CMakeFiles/hinge_sim.dir/runtime/events.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/runtime/events.c.o.d"
  "/work/main/sim/runtime/sim.c" "sim/CMakeFiles/hinge_sim.dir/runtime/sim.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/runtime/sim.c.o.d"
  "/work/main/sim/runtime/sim_init.c" "sim/CMakeFiles/hinge_sim.dir/runtime/sim_init.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/runtime/sim_init.c.o.d"
  "/work/main/sim/runtime/sim_modes.c" "sim/CMakeFiles/hinge_sim.dir/runtime/sim_modes.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/runtime/sim_modes.c.o.d"
  "/work/main/sim/runtime/sim_system.c" "sim/CMakeFiles/hinge_sim.dir/runtime/sim_system.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/runtime/sim_system.c.o.d"
  "/work/main/sim/runtime/sim_topology.c" "sim/CMakeFiles/hinge_sim.dir/runtime/sim_topology.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/runtime/sim_topology.c.o.d"
  "/work/main/sim/runtime/topology.c" "sim/CMakeFiles/hinge_sim.dir/runtime/topology.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/runtime/topology.c.o.d"
  "/work/main/sim/runtime/triggers.c" "sim/CMakeFiles/hinge_sim.dir/runtime/triggers.c.o" "gcc" "sim/CMakeFiles/hinge_sim.dir/runtime/triggers.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/sim/CMakeFiles/hinge_forces.dir/DependInfo.cmake"
  "/work/main/build/sim/CMakeFiles/hinge_scene.dir/DependInfo.cmake"
  "/work/main/build/integrators/CMakeFiles/hinge_integrators.dir/DependInfo.cmake"
  "/work/main/build/dynamics/CMakeFiles/hinge.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
