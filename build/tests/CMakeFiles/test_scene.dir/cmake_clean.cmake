file(REMOVE_RECURSE
  "CMakeFiles/test_scene.dir/test_scene.c.o"
  "CMakeFiles/test_scene.dir/test_scene.c.o.d"
  "test_scene"
  "test_scene.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_scene.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
