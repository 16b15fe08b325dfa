file(REMOVE_RECURSE
  "CMakeFiles/test_forces.dir/test_forces.c.o"
  "CMakeFiles/test_forces.dir/test_forces.c.o.d"
  "test_forces"
  "test_forces.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_forces.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
