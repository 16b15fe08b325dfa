# Empty dependencies file for hinge_test_support.
# This may be replaced when dependencies are built.
