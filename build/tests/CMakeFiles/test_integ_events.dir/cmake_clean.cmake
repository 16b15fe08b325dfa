file(REMOVE_RECURSE
  "CMakeFiles/test_integ_events.dir/test_integ_events.c.o"
  "CMakeFiles/test_integ_events.dir/test_integ_events.c.o.d"
  "test_integ_events"
  "test_integ_events.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_integ_events.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
