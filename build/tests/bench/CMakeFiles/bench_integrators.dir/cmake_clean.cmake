file(REMOVE_RECURSE
  "CMakeFiles/bench_integrators.dir/bench_integrators.c.o"
  "CMakeFiles/bench_integrators.dir/bench_integrators.c.o.d"
  "bench_integrators"
  "bench_integrators.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_integrators.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
