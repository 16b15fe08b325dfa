file(REMOVE_RECURSE
  "CMakeFiles/test_sim_add.dir/test_sim_add.c.o"
  "CMakeFiles/test_sim_add.dir/test_sim_add.c.o.d"
  "test_sim_add"
  "test_sim_add.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_sim_add.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
