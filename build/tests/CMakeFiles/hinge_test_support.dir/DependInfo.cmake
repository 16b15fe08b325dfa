
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/support/dense.c" "tests/CMakeFiles/hinge_test_support.dir/support/dense.c.o" "gcc" "tests/CMakeFiles/hinge_test_support.dir/support/dense.c.o.d"
  "/work/main/tests/support/files.c" "tests/CMakeFiles/hinge_test_support.dir/support/files.c.o" "gcc" "tests/CMakeFiles/hinge_test_support.dir/support/files.c.o.d"
  "/work/main/tests/support/models.c" "tests/CMakeFiles/hinge_test_support.dir/support/models.c.o" "gcc" "tests/CMakeFiles/hinge_test_support.dir/support/models.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/dynamics/CMakeFiles/hinge.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
