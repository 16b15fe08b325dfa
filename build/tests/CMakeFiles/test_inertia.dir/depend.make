# Empty dependencies file for test_inertia.
# This may be replaced when dependencies are built.
