
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/sim/scene/scene.c" "sim/CMakeFiles/hinge_scene.dir/scene/scene.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/scene.c.o.d"
  "/work/main/sim/scene/scene_bodies.c" "sim/CMakeFiles/hinge_scene.dir/scene/scene_bodies.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/scene_bodies.c.o.d"
  "/work/main/sim/scene/scene_events.c" "sim/CMakeFiles/hinge_scene.dir/scene/scene_events.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/scene_events.c.o.d"
  "/work/main/sim/scene/scene_forces.c" "sim/CMakeFiles/hinge_scene.dir/scene/scene_forces.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/scene_forces.c.o.d"
  "/work/main/sim/scene/scene_geometry.c" "sim/CMakeFiles/hinge_scene.dir/scene/scene_geometry.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/scene_geometry.c.o.d"
  "/work/main/sim/scene/scene_inertia.c" "sim/CMakeFiles/hinge_scene.dir/scene/scene_inertia.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/scene_inertia.c.o.d"
  "/work/main/sim/scene/scene_library.c" "sim/CMakeFiles/hinge_scene.dir/scene/scene_library.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/scene_library.c.o.d"
  "/work/main/sim/scene/scene_run.c" "sim/CMakeFiles/hinge_scene.dir/scene/scene_run.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/scene_run.c.o.d"
  "/work/main/sim/scene/scene_state.c" "sim/CMakeFiles/hinge_scene.dir/scene/scene_state.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/scene_state.c.o.d"
  "/work/main/sim/scene/scene_util.c" "sim/CMakeFiles/hinge_scene.dir/scene/scene_util.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/scene_util.c.o.d"
  "/work/main/sim/scene/yaml_doc.c" "sim/CMakeFiles/hinge_scene.dir/scene/yaml_doc.c.o" "gcc" "sim/CMakeFiles/hinge_scene.dir/scene/yaml_doc.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/dynamics/CMakeFiles/hinge.dir/DependInfo.cmake"
  "/work/main/build/integrators/CMakeFiles/hinge_integrators.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
