file(REMOVE_RECURSE
  "../hinge"
  "../hinge.pdb"
  "CMakeFiles/hinge_cli.dir/cli/cli_dynamics.c.o"
  "CMakeFiles/hinge_cli.dir/cli/cli_dynamics.c.o.d"
  "CMakeFiles/hinge_cli.dir/cli/cli_model.c.o"
  "CMakeFiles/hinge_cli.dir/cli/cli_model.c.o.d"
  "CMakeFiles/hinge_cli.dir/cli/cli_run.c.o"
  "CMakeFiles/hinge_cli.dir/cli/cli_run.c.o.d"
  "CMakeFiles/hinge_cli.dir/cli/main.c.o"
  "CMakeFiles/hinge_cli.dir/cli/main.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/hinge_cli.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
