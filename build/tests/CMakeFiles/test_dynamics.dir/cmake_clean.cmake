file(REMOVE_RECURSE
  "CMakeFiles/test_dynamics.dir/test_dynamics.c.o"
  "CMakeFiles/test_dynamics.dir/test_dynamics.c.o.d"
  "test_dynamics"
  "test_dynamics.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_dynamics.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
