#!/usr/bin/env bash
# bench_fixed_links.sh BUILD URDF...: what a model's fixed links cost. For each URDF, as
# hg_urdf_load reads it (fixed root link, flanges, feet on fixed joints) against its merged twin
# (hg_model_merge_fixed), the ratio as-read / merged of
#   - instructions per call (callgrind: exact and repeatable whatever the machine's load) of
#     ABA, RNEA, CRBA, hybrid dynamics (every other moving joint prescribed) and the right-hand
#     side with one tree walk (hg_kinematics, then hg_hybrid_on_kinematics: what the simulator
#     runs when force elements read the kinematics);
#   - time per call of those, the median of three runs of `bench_dynamics --urdf` (its `RATIO
#     urdf bodies` line; on a busy machine the times are indicative only).
# A URDF whose name contains "humanoid" gets a free root (--floating); one with a floating joint
# of its own needs none.
#   bash tests/bench/bench_fixed_links.sh build assets/robots/*_style.urdf
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
build=$1
shift
bench=$build/tests/bench/bench_dynamics
[ -x "$bench" ] || { echo "bench_fixed_links: no $bench (build it first)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "bench_fixed_links: valgrind is not installed" >&2; exit 2; }
algs="ABA:hg_aba RNEA:hg_rnea CRBA:hg_crba HYBRID50:hg_hybrid RHS1WALK:hg_kinematics+hg_hybrid_on_kinematics"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# instructions per call of function F (its x86-64-v3 clone included; F1+F2: the sum of both) in
# bench_dynamics's timed calls (100 of them)
count() {
  local f=$1
  shift
  valgrind --tool=callgrind --dump-instr=no --toggle-collect=call --callgrind-out-file="$tmp/cg.out" \
    "$bench" "$@" >/dev/null 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
  callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null | awk -v f="$f" '
    BEGIN { n = split(f, fs, "+"); for (k = 1; k <= n; k++) want[fs[k]] = 1 }
    { c = $1; gsub(",", "", c); name = $0; sub(/.*:/, "", name); sub(/ .*/, "", name)
      sub(/\.arch_x86_64_v3$/, "", name) }
    name in want { s += c } END { printf "%d", (s + 0) / 100 }'
}

median() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }

printf '| model | bodies | %s |\n' "$(for p in $algs; do printf '%s instructions as read / merged (ratio) | ' "${p%%:*}"; done | sed 's/ | $//')"
printf '|---|---|%s\n' "$(for p in $algs; do printf -- '---:|'; done)"
for urdf in "$@"; do
  name=$(basename "$urdf" .urdf)
  fl=()
  case $name in *humanoid*) fl=(--floating) ;; esac
  row="| $name |"
  bodies=""
  for pair in $algs; do
    alg=${pair%%:*} f=${pair#*:}
    a=$(count "$f" --urdf "$urdf" "${fl[@]}" --calls urdf --alg "$alg")
    b=$(count "$f" --urdf "$urdf" "${fl[@]}" --calls urdf_merged --alg "$alg")
    row="$row $a / $b ($(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b ? a / b : 0 }')) |"
  done
  # times: three runs of the whole bench, the median of each ratio
  declare -A t=()
  for r in 1 2 3; do
    line=$("$bench" --urdf "$urdf" "${fl[@]}" | grep '^RATIO urdf bodies')
    bodies=$(echo "$line" | awk '{ print $4 " -> " $6 }')
    for k in ABA RNEA CRBA HYBRID50 RHS1WALK; do
      t[$k]="${t[$k]:-} $(echo "$line" | awk -v k="$k" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }')"
    done
  done
  echo "${row/| $name |/| $name | $bodies |}"
  times="$name time as read / merged, median of 3:"
  for k in ABA RNEA CRBA HYBRID50 RHS1WALK; do
    # shellcheck disable=SC2086
    times="$times $k $(median ${t[$k]})"
  done
  echo "$times" >>"$tmp/times"
  unset t
done
echo
sed 's/^/- /' "$tmp/times"
