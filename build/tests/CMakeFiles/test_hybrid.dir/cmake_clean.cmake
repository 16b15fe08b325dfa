file(REMOVE_RECURSE
  "CMakeFiles/test_hybrid.dir/test_hybrid.c.o"
  "CMakeFiles/test_hybrid.dir/test_hybrid.c.o.d"
  "test_hybrid"
  "test_hybrid.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_hybrid.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
