file(REMOVE_RECURSE
  "CMakeFiles/test_urdf.dir/test_urdf.c.o"
  "CMakeFiles/test_urdf.dir/test_urdf.c.o.d"
  "test_urdf"
  "test_urdf.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_urdf.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
