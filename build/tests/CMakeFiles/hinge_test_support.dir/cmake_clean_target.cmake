file(REMOVE_RECURSE
  "libhinge_test_support.a"
)
