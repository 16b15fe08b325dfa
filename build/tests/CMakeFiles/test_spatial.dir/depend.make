# Empty dependencies file for test_spatial.
# This may be replaced when dependencies are built.
