#!/bin/bash
# ab.sh REV_A REV_B [MODEL ...]: ABA of two commits of this repository timed in one process
# (ab_time.c), on each model (default: arm7 chain30 tree15 tree63 humanoid32). Set ALG=RNEA or
# ALG=HYBRID, and ROUNDS (300). Each commit's dynamics/ and test models are compiled as a shared
# library with the library's Release flags (dynamics/CMakeLists.txt) into ${WORK:-/tmp/hinge-ab}.
# Run it on a machine as quiet as you can make it; read the median ratio B/A and its quartiles.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 REV_A REV_B [MODEL ...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
work=${WORK:-/tmp/hinge-ab}
revs=("$1" "$2")
shift 2
models=${*:-arm7 chain30 tree15 tree63 humanoid32}
mkdir -p "$work"
for w in 0 1; do
  rev=${revs[$w]}
  src="$work/src$w"
  rm -rf "$src" && mkdir -p "$src"
  git -C "$repo" archive "$rev" dynamics tests/support | tar -x -C "$src"
  # dynamics/ flat (before the three floors) or in algebra/, multibody/, algorithms/: every
  # folder of it with headers is an include folder, every source of it is compiled
  incs=() srcs=()
  while IFS= read -r d; do incs+=(-I"$d"); done < <(find "$src/dynamics" -name '*.h' -printf '%h\n' | sort -u)
  while IFS= read -r f; do srcs+=("$f"); done < <(find "$src/dynamics" -name '*.c' | sort)
  # the flags of libhinge's Release build, position-independent for dlopen (libxml2 and assimp
  # for the revisions whose dynamics/ still held the URDF and mesh readers)
  gcc -O3 -DNDEBUG -std=c11 -D_POSIX_C_SOURCE=200809L -ffp-contract=fast -fPIC -shared \
    "${incs[@]}" -I"$src/tests/support" $(pkg-config --cflags libxml-2.0 lapacke assimp) \
    -o "$work/lib$w.so" "${srcs[@]}" "$src/tests/support/models.c" \
    $(pkg-config --libs libxml-2.0 lapacke assimp) -lm
  [ $w = 0 ] && ab_incs=("${incs[@]}")
done
gcc -O2 -std=c11 "${ab_incs[@]}" -I"$here/../../support" -o "$work/ab_time" \
  "$here/ab_time.c" "$here/../../support/timing.c" -ldl
for m in $models; do
  "$work/ab_time" "$work/lib0.so" "$work/lib1.so" "$m" "${ALG:-ABA}" "${ROUNDS:-300}"
done
