file(REMOVE_RECURSE
  "libhinge_scene.a"
)
