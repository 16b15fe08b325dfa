file(REMOVE_RECURSE
  "libhinge_sim.a"
)
