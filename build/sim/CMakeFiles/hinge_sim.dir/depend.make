# Empty dependencies file for hinge_sim.
# This may be replaced when dependencies are built.
