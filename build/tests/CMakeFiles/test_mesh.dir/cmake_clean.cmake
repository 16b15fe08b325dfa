file(REMOVE_RECURSE
  "CMakeFiles/test_mesh.dir/test_mesh.c.o"
  "CMakeFiles/test_mesh.dir/test_mesh.c.o.d"
  "test_mesh"
  "test_mesh.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_mesh.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
