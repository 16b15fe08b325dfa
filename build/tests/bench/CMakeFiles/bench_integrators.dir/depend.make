# Empty dependencies file for bench_integrators.
# This may be replaced when dependencies are built.
