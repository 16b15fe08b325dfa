# Empty dependencies file for test_dynamics.
# This may be replaced when dependencies are built.
