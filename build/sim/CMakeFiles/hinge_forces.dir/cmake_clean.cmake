file(REMOVE_RECURSE
  "CMakeFiles/hinge_forces.dir/forces/forces.c.o"
  "CMakeFiles/hinge_forces.dir/forces/forces.c.o.d"
  "libhinge_forces.a"
  "libhinge_forces.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/hinge_forces.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
