# Empty dependencies file for test_forces.
# This may be replaced when dependencies are built.
