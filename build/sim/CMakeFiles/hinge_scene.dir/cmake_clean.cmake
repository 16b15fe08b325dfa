file(REMOVE_RECURSE
  "CMakeFiles/hinge_scene.dir/scene/scene.c.o"
  "CMakeFiles/hinge_scene.dir/scene/scene.c.o.d"
  "CMakeFiles/hinge_scene.dir/scene/scene_bodies.c.o"
  "CMakeFiles/hinge_scene.dir/scene/scene_bodies.c.o.d"
  "CMakeFiles/hinge_scene.dir/scene/scene_events.c.o"
  "CMakeFiles/hinge_scene.dir/scene/scene_events.c.o.d"
  "CMakeFiles/hinge_scene.dir/scene/scene_forces.c.o"
  "CMakeFiles/hinge_scene.dir/scene/scene_forces.c.o.d"
  "CMakeFiles/hinge_scene.dir/scene/scene_geometry.c.o"
  "CMakeFiles/hinge_scene.dir/scene/scene_geometry.c.o.d"
  "CMakeFiles/hinge_scene.dir/scene/scene_inertia.c.o"
  "CMakeFiles/hinge_scene.dir/scene/scene_inertia.c.o.d"
  "CMakeFiles/hinge_scene.dir/scene/scene_library.c.o"
  "CMakeFiles/hinge_scene.dir/scene/scene_library.c.o.d"
  "CMakeFiles/hinge_scene.dir/scene/scene_run.c.o"
  "CMakeFiles/hinge_scene.dir/scene/scene_run.c.o.d"
  "CMakeFiles/hinge_scene.dir/scene/scene_state.c.o"
  "CMakeFiles/hinge_scene.dir/scene/scene_state.c.o.d"
  "CMakeFiles/hinge_scene.dir/scene/scene_util.c.o"
  "CMakeFiles/hinge_scene.dir/scene/scene_util.c.o.d"
  "CMakeFiles/hinge_scene.dir/scene/yaml_doc.c.o"
  "CMakeFiles/hinge_scene.dir/scene/yaml_doc.c.o.d"
  "libhinge_scene.a"
  "libhinge_scene.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/hinge_scene.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
