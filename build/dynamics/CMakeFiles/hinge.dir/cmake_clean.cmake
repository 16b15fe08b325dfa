file(REMOVE_RECURSE
  "CMakeFiles/hinge.dir/articulated.c.o"
  "CMakeFiles/hinge.dir/articulated.c.o.d"
  "CMakeFiles/hinge.dir/crba.c.o"
  "CMakeFiles/hinge.dir/crba.c.o.d"
  "CMakeFiles/hinge.dir/energy.c.o"
  "CMakeFiles/hinge.dir/energy.c.o.d"
  "CMakeFiles/hinge.dir/inertia.c.o"
  "CMakeFiles/hinge.dir/inertia.c.o.d"
  "CMakeFiles/hinge.dir/joint.c.o"
  "CMakeFiles/hinge.dir/joint.c.o.d"
  "CMakeFiles/hinge.dir/kinematics.c.o"
  "CMakeFiles/hinge.dir/kinematics.c.o.d"
  "CMakeFiles/hinge.dir/mesh.c.o"
  "CMakeFiles/hinge.dir/mesh.c.o.d"
  "CMakeFiles/hinge.dir/model.c.o"
  "CMakeFiles/hinge.dir/model.c.o.d"
  "CMakeFiles/hinge.dir/profile.c.o"
  "CMakeFiles/hinge.dir/profile.c.o.d"
  "CMakeFiles/hinge.dir/rnea.c.o"
  "CMakeFiles/hinge.dir/rnea.c.o.d"
  "CMakeFiles/hinge.dir/spatial.c.o"
  "CMakeFiles/hinge.dir/spatial.c.o.d"
  "CMakeFiles/hinge.dir/urdf.c.o"
  "CMakeFiles/hinge.dir/urdf.c.o.d"
  "libhinge.a"
  "libhinge.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/hinge.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
