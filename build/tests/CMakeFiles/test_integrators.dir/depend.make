# Empty dependencies file for test_integrators.
# This may be replaced when dependencies are built.
