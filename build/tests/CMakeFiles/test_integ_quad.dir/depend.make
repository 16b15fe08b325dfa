# Empty dependencies file for test_integ_quad.
# This may be replaced when dependencies are built.
