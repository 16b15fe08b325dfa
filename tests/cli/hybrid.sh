# hybrid.sh: `hinge dynamics MODEL hybrid|lock --prescribed ...` against fd, id and mass:
# all joints prescribed is inverse dynamics, none prescribed is forward dynamics, a mix is
# consistent with id, and a plastic lock obeys M (v_after - v) = impulse and removes energy >= 0.
source "$(dirname "$0")/common.bash"

# fields LINE FROM TO: fields FROM..TO (1-based) of a line
fields() { echo "$1" | awk -v a="$2" -v b="$3" '{ for (j = a; j <= b; j++) printf "%s%s", $j, (j < b ? " " : "\n") }'; }

# ---- the floating arm: nq = 9, nv = 8; v order: base (6), shoulder, elbow ----
model="data/arm2.urdf --floating"
nq=9
nv=8
all="base_root,shoulder,elbow,wrist"
states 10 $((nq + 2 * nv)) 11 > "$tmp/x"

# all prescribed = id; vdot is echoed
run dynamics $model id < "$tmp/x"
expect_status "id" 0
echo "$out" > "$tmp/id"
run dynamics $model hybrid --prescribed "$all" < "$tmp/x"
expect_status "hybrid all prescribed" 0
echo "$out" > "$tmp/hyb"
for i in $(seq 1 10); do
  x=$(sed -n "${i}p" "$tmp/x")
  h=$(sed -n "${i}p" "$tmp/hyb")
  expect_eq "all prescribed: count $i" "$(count "$h")" "$((2 * nv))"
  expect_near "all prescribed: vdot $i" "$(fields "$h" 1 $nv)" "$(fields "$x" $((nq + nv + 1)) $((nq + 2 * nv)))" 0
  expect_near "all prescribed = id $i" "$(fields "$h" $((nv + 1)) $((2 * nv)))" "$(sed -n "${i}p" "$tmp/id")" 1e-12
done

# none prescribed = fd; tau is echoed
run dynamics $model fd < "$tmp/x"
echo "$out" > "$tmp/fd"
run dynamics $model hybrid < "$tmp/x"
expect_status "hybrid none prescribed" 0
echo "$out" > "$tmp/hyb"
for i in $(seq 1 10); do
  x=$(sed -n "${i}p" "$tmp/x")
  h=$(sed -n "${i}p" "$tmp/hyb")
  expect_near "none prescribed = fd $i" "$(fields "$h" 1 $nv)" "$(sed -n "${i}p" "$tmp/fd")" 1e-12
  expect_near "none prescribed: tau $i" "$(fields "$h" $((nv + 1)) $((2 * nv)))" "$(fields "$x" $((nq + nv + 1)) $((nq + 2 * nv)))" 0
done

# a mix (elbow prescribed): id of the full vdot gives the full tau; the given halves are echoed
run dynamics $model hybrid --prescribed elbow < "$tmp/x"
expect_status "hybrid mixed" 0
echo "$out" > "$tmp/hyb"
paste -d ' ' "$tmp/x" "$tmp/hyb" | awk -v nq=$nq -v nv=$nv '{
  line = ""
  for (j = 1; j <= nq + nv; j++) line = line (j > 1 ? " " : "") $j
  for (j = 1; j <= nv; j++) line = line " " $(nq + 2 * nv + j)
  print line
}' > "$tmp/id_in"
run dynamics $model id < "$tmp/id_in"
echo "$out" > "$tmp/id"
for i in $(seq 1 10); do
  x=$(sed -n "${i}p" "$tmp/x")
  h=$(sed -n "${i}p" "$tmp/hyb")
  expect_near "mixed: id(vdot) = tau $i" "$(fields "$h" $((nv + 1)) $((2 * nv)))" "$(sed -n "${i}p" "$tmp/id")" 1e-10
  expect_near "mixed: elbow vdot $i" "$(fields "$h" $nv $nv)" "$(fields "$x" $((nq + 2 * nv)) $((nq + 2 * nv)))" 0
  expect_near "mixed: free tau $i" "$(fields "$h" $((nv + 1)) $((2 * nv - 1)))" "$(fields "$x" $((nq + nv + 1)) $((nq + 2 * nv - 1)))" 0
done

# ---- plastic lock ----
# states of q and v only
cut -d ' ' -f 1-$((nq + nv)) "$tmp/x" > "$tmp/qv"
cut -d ' ' -f 1-$nq "$tmp/x" > "$tmp/q"
run dynamics $model mass < "$tmp/q"
echo "$out" > "$tmp/M"
run dynamics $model lock --prescribed elbow < "$tmp/qv"
expect_status "lock" 0
echo "$out" > "$tmp/lock"
for i in $(seq 1 10); do
  qv=$(sed -n "${i}p" "$tmp/qv")
  l=$(sed -n "${i}p" "$tmp/lock")
  expect_eq "lock: count $i" "$(count "$l")" "$((2 * nv + 1))"
  expect_near "lock: elbow at rest $i" "$(fields "$l" $nv $nv)" "0" 1e-12
  expect_near "lock: no impulse at free joints $i" "$(fields "$l" $((nv + 1)) $((2 * nv - 1)))" "0 0 0 0 0 0 0" 0
  # energy removed >= 0, and M (v_after - v) = impulse
  e=$(fields "$l" $((2 * nv + 1)) $((2 * nv + 1)))
  if awk -v e="$e" 'BEGIN { exit !(e >= -1e-12) }'; then pass; else fail "lock: energy removed $e < 0"; fi
  echo "$(sed -n "${i}p" "$tmp/M") $qv $l" | awk -v nq=$nq -v nv=$nv '{
    for (r = 1; r <= nv; r++) {
      s = 0
      for (c = 1; c <= nv; c++) s += $((r - 1) * nv + c) * ($(nv * nv + nq + nv + c) - $(nv * nv + nq + c))
      printf "%.17g%s", s, (r < nv ? " " : "\n")
    }
  }' > "$tmp/Mdv"
  expect_near "lock: M (v_after - v) = impulse $i" "$(cat "$tmp/Mdv")" "$(fields "$l" $((nv + 1)) $((2 * nv)))" 1e-10
done

# nothing prescribed: nothing changes
run dynamics $model lock < "$tmp/qv"
l=$(echo "$out" | head -1)
expect_near "lock nothing: v" "$(fields "$l" 1 $nv)" "$(fields "$(head -1 "$tmp/qv")" $((nq + 1)) $((nq + nv)))" 1e-12
expect_near "lock nothing: energy" "$(fields "$l" $((2 * nv + 1)) $((2 * nv + 1)))" "0" 1e-12

# the fixed arm with every joint locked stops, removing all kinetic energy 1/2 v^T M v
run dynamics data/arm2.urdf mass <<< "0.3 1.1"
M=$out
run dynamics data/arm2.urdf lock --prescribed shoulder,elbow <<< "0.3 1.1 0.7 -1.3"
expect_near "lock all: v_after" "$(fields "$out" 1 2)" "0 0" 1e-12
expect_near "lock all: energy" "$(fields "$out" 5 5)" \
  "$(echo "$M" | awk '{ v1 = 0.7; v2 = -1.3; printf "%.17g", 0.5 * (v1 * ($1 * v1 + $2 * v2) + v2 * ($3 * v1 + $4 * v2)) }')" 1e-12

finish
