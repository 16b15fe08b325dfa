file(REMOVE_RECURSE
  "CMakeFiles/test_inertia.dir/test_inertia.c.o"
  "CMakeFiles/test_inertia.dir/test_inertia.c.o.d"
  "test_inertia"
  "test_inertia.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_inertia.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
