file(REMOVE_RECURSE
  "CMakeFiles/hinge_integrators.dir/cvode_lie.c.o"
  "CMakeFiles/hinge_integrators.dir/cvode_lie.c.o.d"
  "CMakeFiles/hinge_integrators.dir/fixed_step.c.o"
  "CMakeFiles/hinge_integrators.dir/fixed_step.c.o.d"
  "CMakeFiles/hinge_integrators.dir/integrator.c.o"
  "CMakeFiles/hinge_integrators.dir/integrator.c.o.d"
  "libhinge_integrators.a"
  "libhinge_integrators.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/hinge_integrators.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
