file(REMOVE_RECURSE
  "CMakeFiles/test_integrators.dir/test_integrators.c.o"
  "CMakeFiles/test_integrators.dir/test_integrators.c.o.d"
  "test_integrators"
  "test_integrators.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_integrators.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
