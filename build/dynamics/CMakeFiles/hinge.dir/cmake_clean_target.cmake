file(REMOVE_RECURSE
  "libhinge.a"
)
