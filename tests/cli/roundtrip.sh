# roundtrip.sh: id(fd(q, v, tau)) = tau through the command line, on fixed and floating models
# and on a generated 100-link chain (long lines: a state is several KB).
source "$(dirname "$0")/common.bash"

# layout MODEL [--floating]: "nq nv"
layout() {
  run dynamics "$@" info
  echo "$out" | awk '$1 == "nq" { nq = $2 } $1 == "nv" { nv = $2 } END { print nq, nv }'
}

# roundtrip NAME TOL MODEL [--floating]: fd on random states, then id on (q, v, vdot)
roundtrip() {
  local name=$1 tol=$2
  shift 2
  read -r nq nv <<< "$(layout "$@")"
  states 20 $((nq + 2 * nv)) 7 > "$tmp/x"
  run dynamics "$@" fd < "$tmp/x"
  expect_status "$name fd" 0
  echo "$out" > "$tmp/vdot"
  expect_eq "$name fd lines" "$(wc -l < "$tmp/vdot")" "20"
  # id input: q v from x, vdot from fd; expected: tau from x
  paste -d ' ' "$tmp/x" "$tmp/vdot" | awk -v nq="$nq" -v nv="$nv" '{
    line = ""
    for (j = 1; j <= nq + nv; j++) line = line (j > 1 ? " " : "") $j
    for (j = nq + 2 * nv + 1; j <= nq + 3 * nv; j++) line = line " " $j
    print line
  }' > "$tmp/id_in"
  run dynamics "$@" id < "$tmp/id_in"
  expect_status "$name id" 0
  echo "$out" > "$tmp/tau"
  awk -v nq="$nq" -v nv="$nv" '{
    line = ""
    for (j = nq + nv + 1; j <= nq + 2 * nv; j++) line = line (j > nq + nv + 1 ? " " : "") $j
    print line
  }' "$tmp/x" > "$tmp/tau_expected"
  # the worst relative error, for the log
  paste -d '|' "$tmp/tau" "$tmp/tau_expected" | awk -F '|' -v name="$name" '{
    n = split($1, a, " "); split($2, b, " ")
    for (i = 1; i <= n; i++) {
      d = a[i] - b[i]; if (d < 0) d = -d
      s = b[i] < 0 ? -b[i] : b[i]; if (s < 1) s = 1
      if (d / s > w) w = d / s
    }
  } END { printf "# %s: worst relative error %.3g\n", name, w }'
  for i in $(seq 1 20); do
    expect_near "$name state $i" "$(sed -n "${i}p" "$tmp/tau")" "$(sed -n "${i}p" "$tmp/tau_expected")" "$tol"
  done
}

roundtrip "pendulum" 1e-12 data/pendulum.urdf
roundtrip "pendulum floating" 1e-10 data/pendulum.urdf --floating
roundtrip "arm floating" 1e-10 data/arm2.urdf --floating
roundtrip "planar" 1e-10 data/planar.urdf
roundtrip "floating joint" 1e-10 data/floating.urdf

# a 100-link spatial chain, axes alternating y, x, z, each link 0.1 m long
awk 'BEGIN {
  print "<?xml version=\"1.0\"?>\n<robot name=\"chain\">"
  for (i = 0; i <= 100; i++) {
    printf "  <link name=\"l%d\"><inertial><origin xyz=\"0 0 -0.05\"/><mass value=\"0.5\"/>", i
    printf "<inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.001\" iyz=\"0\" izz=\"0.0005\"/></inertial></link>\n"
  }
  split("0 1 0|1 0 0|0 0 1", axes, "|")
  for (i = 1; i <= 100; i++) {
    printf "  <joint name=\"j%d\" type=\"revolute\"><parent link=\"l%d\"/><child link=\"l%d\"/>", i, i - 1, i
    printf "<origin xyz=\"0 0 -0.1\"/><axis xyz=\"%s\"/></joint>\n", axes[(i - 1) % 3 + 1]
  }
  print "</robot>"
}' > "$tmp/chain.urdf"
roundtrip "chain100" 1e-7 "$tmp/chain.urdf"
read -r nq nv <<< "$(layout "$tmp/chain.urdf")"
expect_eq "chain100 layout" "$nq $nv" "100 100"
expect_eq "chain100 line length > 3 KB" "$([ "$(head -c 100000 "$tmp/x" | head -1 | wc -c)" -gt 3000 ] && echo yes)" "yes"
states 2 100 3 > "$tmp/q"
run dynamics "$tmp/chain.urdf" mass < "$tmp/q"
expect_status "chain100 mass" 0
expect_eq "chain100 mass size" "$(echo "$out" | awk '{ print NF }' | tr '\n' ' ')" "10000 10000 "
# M is symmetric
expect_eq "chain100 mass symmetric" "$(echo "$out" | head -1 | awk '{
  bad = 0
  for (i = 0; i < 100; i++) for (j = 0; j < i; j++) if ($(i * 100 + j + 1) != $(j * 100 + i + 1)) bad++
  print bad
}')" "0"

finish
