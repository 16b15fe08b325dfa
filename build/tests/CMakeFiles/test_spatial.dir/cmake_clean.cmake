file(REMOVE_RECURSE
  "CMakeFiles/test_spatial.dir/test_spatial.c.o"
  "CMakeFiles/test_spatial.dir/test_spatial.c.o.d"
  "test_spatial"
  "test_spatial.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_spatial.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
