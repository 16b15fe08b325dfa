file(REMOVE_RECURSE
  "CMakeFiles/bench_dynamics.dir/bench_dynamics.c.o"
  "CMakeFiles/bench_dynamics.dir/bench_dynamics.c.o.d"
  "bench_dynamics"
  "bench_dynamics.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_dynamics.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
