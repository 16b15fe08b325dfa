# Empty dependencies file for test_joints.
# This may be replaced when dependencies are built.
