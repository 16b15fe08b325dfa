# Empty dependencies file for test_urdf.
# This may be replaced when dependencies are built.
