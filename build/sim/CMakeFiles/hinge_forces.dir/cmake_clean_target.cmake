file(REMOVE_RECURSE
  "libhinge_forces.a"
)
