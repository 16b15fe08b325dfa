file(REMOVE_RECURSE
  "CMakeFiles/test_integ_quad.dir/test_integ_quad.c.o"
  "CMakeFiles/test_integ_quad.dir/test_integ_quad.c.o.d"
  "test_integ_quad"
  "test_integ_quad.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_integ_quad.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
