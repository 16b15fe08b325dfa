#!/usr/bin/env bash
# bench_instructions.sh BUILD [BUILD_B]: instructions per call (callgrind, exact and repeatable
# whatever the machine's load) of RNEA, CRBA, ABA, hybrid dynamics (every other moving joint
# prescribed) and the derivatives, on chain30, humanoid32 and the floating quadruped-style robot
# (assets/robots/quadruped_style.urdf, fixed links merged). With two builds, both columns and
# their ratio B / A: a change to the core that should not change speed keeps every ratio near 1.
#   bash tests/bench/bench_instructions.sh build
#   bash tests/bench/bench_instructions.sh /tmp/before/build build
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
command -v valgrind >/dev/null || { echo "bench_instructions: valgrind is not installed" >&2; exit 2; }
# each algorithm's calls alone (bench_dynamics --alg), counted as its function's inclusive total
algs="RNEA:hg_rnea CRBA:hg_crba ABA:hg_aba HYBRID50:hg_hybrid DID:hg_rnea_derivatives DFD:hg_aba_derivatives MINV:hg_minv"

# count BUILD: lines "MODEL FUNCTION INSTRUCTIONS_PER_CALL"
count() {
  local bench=$1/tests/bench/bench_dynamics tmp
  [ -x "$bench" ] || { echo "bench_instructions: no $bench (build it first)" >&2; exit 2; }
  tmp=$(mktemp -d)
  for model in chain30 humanoid32 quadruped; do
    if [ $model = quadruped ]; then
      args=(--urdf "$here/assets/robots/quadruped_style.urdf" --floating --calls urdf_merged)
    else
      args=(--calls $model)
    fi
    for pair in $algs; do
      alg=${pair%%:*} f=${pair#*:}
      valgrind --tool=callgrind --dump-instr=no --toggle-collect=call --callgrind-out-file="$tmp/cg.out" \
        "$bench" "${args[@]}" --alg "$alg" >/dev/null 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
      # f's inclusive count inside bench_dynamics's function call() only (--toggle-collect: not
      # the check hg_builder_compile runs), its x86-64-v3 clone's included; 100 calls
      n=$(callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null | awk -v f="$f" '
        { c = $1; gsub(",", "", c); name = $0; sub(/.*:/, "", name); sub(/ .*/, "", name) }
        name == f || name == f ".arch_x86_64_v3" { s += c } END { print s + 0 }')
      echo "$model $alg $((n / 100))"
    done
  done
  rm -rf "$tmp"
}

if [ $# -eq 1 ]; then
  printf '%-11s %-10s %12s\n' model algorithm instructions
  count "$1" | while read -r m f n; do printf '%-11s %-10s %12s\n' "$m" "$f" "$n"; done
elif [ $# -eq 2 ]; then
  a=$(count "$1"); b=$(count "$2")
  printf '%-11s %-10s %12s %12s %7s\n' model algorithm A B B/A
  paste -d' ' <(echo "$a") <(echo "$b" | awk '{print $3}') |
    awk '{printf "%-11s %-10s %12d %12d %7.4f\n", $1, $2, $3, $4, ($3 ? $4 / $3 : 0)}'
else
  echo "usage: $0 BUILD [BUILD_B]" >&2; exit 2
fi
