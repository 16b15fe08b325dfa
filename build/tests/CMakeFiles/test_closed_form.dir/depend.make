# Empty dependencies file for test_closed_form.
# This may be replaced when dependencies are built.
