file(REMOVE_RECURSE
  "CMakeFiles/hinge_test_support.dir/support/dense.c.o"
  "CMakeFiles/hinge_test_support.dir/support/dense.c.o.d"
  "CMakeFiles/hinge_test_support.dir/support/files.c.o"
  "CMakeFiles/hinge_test_support.dir/support/files.c.o.d"
  "CMakeFiles/hinge_test_support.dir/support/models.c.o"
  "CMakeFiles/hinge_test_support.dir/support/models.c.o.d"
  "libhinge_test_support.a"
  "libhinge_test_support.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/hinge_test_support.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
