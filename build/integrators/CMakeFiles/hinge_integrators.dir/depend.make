# Empty dependencies file for hinge_integrators.
# This may be replaced when dependencies are built.
