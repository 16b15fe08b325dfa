# Empty dependencies file for hinge.
# This may be replaced when dependencies are built.
