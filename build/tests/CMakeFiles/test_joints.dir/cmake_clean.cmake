file(REMOVE_RECURSE
  "CMakeFiles/test_joints.dir/test_joints.c.o"
  "CMakeFiles/test_joints.dir/test_joints.c.o.d"
  "test_joints"
  "test_joints.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_joints.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
