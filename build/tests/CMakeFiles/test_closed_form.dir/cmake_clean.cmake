file(REMOVE_RECURSE
  "CMakeFiles/test_closed_form.dir/test_closed_form.c.o"
  "CMakeFiles/test_closed_form.dir/test_closed_form.c.o.d"
  "test_closed_form"
  "test_closed_form.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_closed_form.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
