# Empty compiler generated dependencies file for hinge_scene.
# This may be replaced when dependencies are built.
