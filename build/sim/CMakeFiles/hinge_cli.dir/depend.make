# Empty dependencies file for hinge_cli.
# This may be replaced when dependencies are built.
