# Empty dependencies file for test_integ_events.
# This may be replaced when dependencies are built.
