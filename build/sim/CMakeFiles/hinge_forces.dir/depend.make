# Empty dependencies file for hinge_forces.
# This may be replaced when dependencies are built.
