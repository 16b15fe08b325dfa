# Empty dependencies file for test_hybrid.
# This may be replaced when dependencies are built.
