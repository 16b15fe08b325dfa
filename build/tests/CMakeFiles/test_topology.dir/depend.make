# Empty dependencies file for test_topology.
# This may be replaced when dependencies are built.
