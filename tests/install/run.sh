#!/bin/bash
# The install's test (CTest `install`, cmake/install.cmake): installs the build into a temporary
# prefix and checks what a user gets there:
#   - no installed file names the source or the build tree
#   - examples/c built with find_package(hinge) and run: ABA against RNEA on a URDF, a scene
#     through sim.h
#   - the same ABA/RNEA program built with `pkg-config --cflags --libs hinge-sim` and run
#   - every installed header compiles alone in C11 and C++14/C++17 with -Wall -Wextra -pedantic
#     -Werror
#   - bin/hinge runs its shipped scene (no scene argument, --headless) from outside the sources
#   - bin/hinge and libhinge-sim.so read a Collada mesh through libexec/hinge/hinge-mesh-reader
#   - bin/hinge reads an MJCF file through libexec/hinge/hinge-mjcf-reader (when built)
# usage: run.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd -P)
build=$(cd "$2" && pwd -P)
tmp=$(mktemp -d /tmp/hinge-install-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" || fail "cmake --install failed"
libdir=$(dirname "$(find "$prefix" -name 'libhinge.so.0' | head -1)")
[ -n "$libdir" ] || fail "no libhinge.so.0 under $prefix"
[ "$(readlink "$libdir/libhinge.so.0")" = libhinge.so.0.1.0 ] || fail "libhinge.so.0 -> $(readlink "$libdir/libhinge.so.0")"
[ -f "$libdir/libhinge-sim.so.0.1.0" ] || fail "no libhinge-sim.so.0.1.0"
[ -f "$prefix/include/hinge/hot.h" ] || fail "no include/hinge/hot.h"
[ ! -e "$prefix/include/hinge/sim_internal.h" ] || fail "an internal header is installed"

# no installed file refers to the source or the build tree
if grep -rl -e "$src" -e "$build" "$prefix"; then fail "installed files above name $src or $build"; fi

# the examples through find_package(hinge)
cmake -S "$src/examples/c" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS="-Wall -Wextra -pedantic -Werror" > "$tmp/ex.log" || { cat "$tmp/ex.log"; fail "examples: configure"; }
cmake --build "$tmp/ex" -j2 >> "$tmp/ex.log" || { cat "$tmp/ex.log"; fail "examples: build"; }
"$tmp/ex/urdf_dynamics" "$src/tests/data/arm2.urdf" || fail "urdf_dynamics (find_package)"
(cd "$tmp" && "$tmp/ex/run_scene" "$prefix/share/hinge/scenes/pendulum.yaml" 0.5) || fail "run_scene"

# the same program through pkg-config (RUNPATH: the prefix's library folder)
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -std=c11 -Wall -Wextra -pedantic -Werror -o "$tmp/urdf_pc" "$src/examples/c/urdf_dynamics.c" \
  $(pkg-config --cflags --libs hinge-sim) -Wl,-rpath,"$libdir" || fail "pkg-config build"
pkg-config --libs hinge | grep -q -- -lhinge || fail "hinge.pc"
"$tmp/urdf_pc" "$src/tests/data/arm2.urdf" > /dev/null || fail "urdf_dynamics (pkg-config)"

# each installed header alone, C11 and C++14/17, warnings as errors
for h in "$prefix"/include/hinge/*.h; do
  name=$(basename "$h")
  # (the typedef: a header of macros alone, hot.h, would leave ISO C an empty translation unit)
  printf '#include <hinge/%s>\ntypedef int header_check;\n' "$name" > "$tmp/h.c"
  cp "$tmp/h.c" "$tmp/h.cpp"
  cc -std=c11 -Wall -Wextra -pedantic -Werror -I"$prefix/include" -c "$tmp/h.c" -o /dev/null \
    || fail "$name in C11"
  for std in c++14 c++17; do
    c++ -std=$std -Wall -Wextra -pedantic -Werror -I"$prefix/include" -c "$tmp/h.cpp" -o /dev/null \
      || fail "$name in $std"
  done
done

# the program from the prefix: its shipped scene, headless, from a folder outside the sources
mkdir "$tmp/work"
(cd "$tmp/work" && "$prefix/bin/hinge" run --headless --quiet --no-plots > run.log 2>&1) \
  || { cat "$tmp/work/run.log"; fail "hinge run --headless (shipped scene)"; }
[ -f "$tmp/work/out/heatshield/trajectory.csv" ] || fail "no out/heatshield/trajectory.csv"

# a Collada mesh through the installed mesh reader (libexec/hinge/), found by the program and by
# libhinge-sim.so (run_scene) from their own folders
[ -x "$prefix/libexec/hinge/hinge-mesh-reader" ] || fail "no libexec/hinge/hinge-mesh-reader"
printf 'bodies:\n  - name: b\n    joint: {type: free}\n    inertia: {mesh: %s, density: 1000}\ngravity: [0, 0, 0]\n' \
  "$src/tests/data/meshes_test/tetra.dae" > "$tmp/work/dae.yaml"
(cd "$tmp/work" && "$prefix/bin/hinge" run dae.yaml --headless --quiet --no-plots --t-end 0.1 \
  --out dae > dae.log 2>&1) || { cat "$tmp/work/dae.log"; fail "hinge run of a Collada mesh"; }
(cd "$tmp/work" && "$tmp/ex/run_scene" dae.yaml 0.1 > dae_lib.log 2>&1) \
  || { cat "$tmp/work/dae_lib.log"; fail "run_scene of a Collada mesh (libhinge-sim.so)"; }
# an MJCF file through the installed MJCF reader (libexec/hinge/, when MuJoCo's library was
# found), found by the program from its own folder
if [ -e "$prefix/libexec/hinge/hinge-mjcf-reader" ]; then
  (cd "$tmp/work" && "$prefix/bin/hinge" dynamics "$src/tests/data/mjcf/chain.xml" info \
    > mjcf.log 2>&1) || { cat "$tmp/work/mjcf.log"; fail "hinge dynamics of an MJCF file"; }
  grep -q '^nv 3$' "$tmp/work/mjcf.log" || { cat "$tmp/work/mjcf.log"; fail "MJCF chain: nv"; }
fi
echo "install test: ok ($prefix)"
