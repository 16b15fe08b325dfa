file(REMOVE_RECURSE
  "CMakeFiles/hinge_sim.dir/output/output.c.o"
  "CMakeFiles/hinge_sim.dir/output/output.c.o.d"
  "CMakeFiles/hinge_sim.dir/output/plot.c.o"
  "CMakeFiles/hinge_sim.dir/output/plot.c.o.d"
  "CMakeFiles/hinge_sim.dir/runtime/checkpoint.c.o"
  "CMakeFiles/hinge_sim.dir/runtime/checkpoint.c.o.d"
  "CMakeFiles/hinge_sim.dir/runtime/events.c.o"
  "CMakeFiles/hinge_sim.dir/runtime/events.c.o.d"
  "CMakeFiles/hinge_sim.dir/runtime/sim.c.o"
  "CMakeFiles/hinge_sim.dir/runtime/sim.c.o.d"
  "CMakeFiles/hinge_sim.dir/runtime/sim_init.c.o"
  "CMakeFiles/hinge_sim.dir/runtime/sim_init.c.o.d"
  "CMakeFiles/hinge_sim.dir/runtime/sim_modes.c.o"
  "CMakeFiles/hinge_sim.dir/runtime/sim_modes.c.o.d"
  "CMakeFiles/hinge_sim.dir/runtime/sim_system.c.o"
  "CMakeFiles/hinge_sim.dir/runtime/sim_system.c.o.d"
  "CMakeFiles/hinge_sim.dir/runtime/sim_topology.c.o"
  "CMakeFiles/hinge_sim.dir/runtime/sim_topology.c.o.d"
  "CMakeFiles/hinge_sim.dir/runtime/topology.c.o"
  "CMakeFiles/hinge_sim.dir/runtime/topology.c.o.d"
  "CMakeFiles/hinge_sim.dir/runtime/triggers.c.o"
  "CMakeFiles/hinge_sim.dir/runtime/triggers.c.o.d"
  "libhinge_sim.a"
  "libhinge_sim.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/hinge_sim.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
