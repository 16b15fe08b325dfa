file(REMOVE_RECURSE
  "libhinge_integrators.a"
)
