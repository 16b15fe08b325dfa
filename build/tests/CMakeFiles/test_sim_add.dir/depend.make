# Empty dependencies file for test_sim_add.
# This may be replaced when dependencies are built.
