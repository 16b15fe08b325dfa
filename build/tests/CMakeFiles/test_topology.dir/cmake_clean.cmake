file(REMOVE_RECURSE
  "CMakeFiles/test_topology.dir/test_topology.c.o"
  "CMakeFiles/test_topology.dir/test_topology.c.o.d"
  "test_topology"
  "test_topology.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_topology.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
