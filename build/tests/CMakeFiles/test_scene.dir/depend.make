# Empty dependencies file for test_scene.
# This may be replaced when dependencies are built.
