# hinge as an installed library (docs/install.md): `cmake --install build [--prefix P]` installs
#   lib/libhinge.so.0.1.0      hinge::dynamics  the dynamics core (dynamics/: algebra, multibody,
#                                               algorithms), what users link today
#   lib/libhinge-sim.so.0.1.0  hinge::sim       readers, control, scene, collision, forces,
#                                               integrators, runtime, output: all sim.h needs
#   include/hinge/             the public headers (hinge.h, sim.h, urdf.h, control.h and theirs)
#   bin/hinge                  the program
#   libexec/hinge/hinge-mesh-reader  the process that reads meshes through assimp
#   libexec/hinge/hinge-mjcf-reader  the process that compiles MJCF through MuJoCo (when found)
#   share/hinge/               the shipped scenes and assets (`hinge run` without a scene)
#   lib/cmake/hinge/           hingeConfig.cmake, hingeConfigVersion.cmake, the imported targets
#   lib/pkgconfig/             hinge.pc, hinge-sim.pc
# The shared libraries are the tree's static libraries linked whole (--whole-archive): every file
# is compiled once, position-independent, and the tests and benchmarks run the very objects the
# shared libraries hold. Sanitizer and fuzz builds (clang runtimes that want the executable to own
# the sanitizer) keep static libraries only and install nothing.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(HINGE_DYNAMICS_PARTS hinge_algebra hinge_multibody hinge)
set(HINGE_SIM_PARTS hinge_readers hinge_control hinge_scene hinge_collision hinge_forces
    hinge_integrators hinge_sim hinge_output)
# position-independent code for the objects the shared libraries hold. GCC's -fPIC alone lets
# any global function be interposed at load time, which stops it inlining or cloning calls
# between the dynamics' own functions: -fno-semantic-interposition gives that back (clang's
# default); bench_dynamics measured in docs/install.md
foreach(t ${HINGE_DYNAMICS_PARTS} ${HINGE_SIM_PARTS})
  set_target_properties(${t} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${t} PRIVATE -fno-semantic-interposition)
  endif()
endforeach()

# the shared libraries' private dependencies (imported targets are seen only in the folder that
# found them)
pkg_check_modules(LAPACKE REQUIRED IMPORTED_TARGET lapacke)
pkg_check_modules(YAML REQUIRED IMPORTED_TARGET yaml-0.1)
pkg_check_modules(PLPLOT REQUIRED IMPORTED_TARGET plplot)
find_package(fcl REQUIRED)
find_package(SUNDIALS 6.4 REQUIRED CONFIG
             COMPONENTS cvode nvecserial sunmatrixdense sunlinsoldense sunnonlinsolfixedpoint)

# the static libraries of parts, whole, into a shared library
function(hinge_whole_archive target)
  set(items -Wl,--whole-archive)
  foreach(p ${ARGN})
    list(APPEND items $<TARGET_FILE:${p}>)
  endforeach()
  list(APPEND items -Wl,--no-whole-archive)
  target_link_libraries(${target} PRIVATE ${items})
  add_dependencies(${target} ${ARGN})
endfunction()

# libhinge.so: hinge.h's functions. version.c is its one own file (hg_version).
add_library(hinge_dynamics SHARED ${PROJECT_SOURCE_DIR}/dynamics/version.c)
target_compile_definitions(hinge_dynamics PRIVATE HINGE_VERSION="${PROJECT_VERSION}")
hinge_whole_archive(hinge_dynamics ${HINGE_DYNAMICS_PARTS})
target_link_libraries(hinge_dynamics PRIVATE PkgConfig::LAPACKE PUBLIC m)
target_include_directories(hinge_dynamics PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/dynamics/algebra>
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/dynamics/multibody>
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/dynamics/algorithms>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(hinge_dynamics PROPERTIES OUTPUT_NAME hinge EXPORT_NAME dynamics
                      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)

# libhinge-sim.so: sim.h's functions and all below them but the dynamics (libhinge.so, found
# next to it: RUNPATH $ORIGIN). collision.cpp wraps FCL: linked as C++.
add_library(hinge_sim_shared SHARED ${PROJECT_SOURCE_DIR}/dynamics/version.c)
target_compile_definitions(hinge_sim_shared PRIVATE HINGE_VERSION="${PROJECT_VERSION}"
                           HG_VERSION_NAME=hg_sim_version)
hinge_whole_archive(hinge_sim_shared ${HINGE_SIM_PARTS})
target_link_libraries(hinge_sim_shared PUBLIC hinge_dynamics
  PRIVATE LibXml2::LibXml2 PkgConfig::YAML fcl PkgConfig::PLPLOT
          SUNDIALS::cvode SUNDIALS::nvecserial SUNDIALS::sunmatrixdense SUNDIALS::sunlinsoldense
          SUNDIALS::sunnonlinsolfixedpoint ${CMAKE_DL_LIBS} m)
target_include_directories(hinge_sim_shared PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/sim/runtime>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(hinge_sim_shared PROPERTIES OUTPUT_NAME hinge-sim EXPORT_NAME sim
                      LINKER_LANGUAGE CXX
                      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
                      INSTALL_RPATH "$ORIGIN")

# the program: the tree's static libraries, so it carries no path to a library; its RUNPATH
# ($ORIGIN/../lib) is where users' controller libraries installed beside hinge's are found
set_target_properties(hinge_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

install(TARGETS hinge_dynamics hinge_sim_shared EXPORT hingeTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS hinge_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# the mesh reader process (sim/readers/mesh_assimp.c finds it from bin/, lib/ or the Python
# package: PREFIX/libexec/hinge/)
install(TARGETS hinge_mesh_reader RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/hinge)
# the MJCF reader process, found the same way (sim/readers/mjcf_proc.c)
if(HINGE_HAVE_MUJOCO)
  install(TARGETS hinge_mjcf_reader RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/hinge)
endif()

# the public headers, flat under include/hinge/ (they include each other by name). hinge.h
# includes the dynamics' headers; hot.h (the speed macros the inline helpers of spatial.h use)
# and error.h come with them. sim.h includes scene.h, forces.h, collision.h, integrator.h and
# loops.h. urdf.h reads URDF files; control.h is the users' controller ABI.
set(HINGE_PUBLIC_HEADERS
  dynamics/algebra/error.h dynamics/algebra/hot.h dynamics/algebra/inertia.h
  dynamics/algebra/spatial.h
  dynamics/multibody/joint.h dynamics/multibody/merge.h dynamics/multibody/model.h
  dynamics/multibody/names.h dynamics/multibody/profile.h
  dynamics/algorithms/derivatives.h dynamics/algorithms/dynamics.h dynamics/algorithms/hinge.h
  dynamics/algorithms/derivatives2.h
  dynamics/algorithms/linearize.h dynamics/algorithms/loops.h dynamics/algorithms/mimic.h
  integrators/integrator.h
  sim/readers/urdf.h sim/collision/collision.h sim/scene/scene.h sim/forces/forces.h
  sim/runtime/sim.h sim/control/hinge/control.h)
list(TRANSFORM HINGE_PUBLIC_HEADERS PREPEND ${PROJECT_SOURCE_DIR}/)
install(FILES ${HINGE_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hinge)

# share/hinge/: the scenes and the assets they read (cli_run.c finds them from the program's
# folder; the build tree's links to them are made in cli/CMakeLists.txt)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenes ${PROJECT_SOURCE_DIR}/assets
        DESTINATION ${CMAKE_INSTALL_DATADIR}/hinge)

# CMake package: hinge::dynamics, hinge::sim. Their public interface needs libm only (the inline
# helpers of spatial.h); LAPACKE, SUNDIALS, FCL, libyaml, libxml2 and PLplot are private to the
# shared libraries (assimp to the mesh reader) and need nothing from a user.
set(HINGE_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/hinge)
install(EXPORT hingeTargets NAMESPACE hinge:: DESTINATION ${HINGE_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hingeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hingeConfig.cmake INSTALL_DESTINATION ${HINGE_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hingeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hingeConfig.cmake ${PROJECT_BINARY_DIR}/hingeConfigVersion.cmake
        DESTINATION ${HINGE_CMAKEDIR})

# pkg-config: hinge.pc (the dynamics), hinge-sim.pc (requires hinge). ${pcfiledir} keeps the
# files relocatable: they name no absolute prefix.
file(RELATIVE_PATH HINGE_PC_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" HINGE_PC_PREFIX "${HINGE_PC_PREFIX}")
foreach(pc hinge hinge-sim)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# the install's test: installs into a temporary prefix, builds examples/c against it through
# find_package and pkg-config, runs them and the installed program, compiles the headers in C and
# C++ (tests/install/run.sh)
if(HINGE_TESTS)
  add_test(NAME install COMMAND bash ${PROJECT_SOURCE_DIR}/tests/install/run.sh
           ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  set_tests_properties(install PROPERTIES TIMEOUT 120)
endif()
