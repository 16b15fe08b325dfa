# Empty dependencies file for bench_dynamics.
# This may be replaced when dependencies are built.
