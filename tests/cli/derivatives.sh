# derivatives.sh: `hinge dynamics` did, dfd, minv and dhybrid against closed forms (the
# pendulum), against each other, and against central differences of fd and id (the arm).
source "$(dirname "$0")/common.bash"

# ---- the pendulum (m = 2, l_c = 0.5, I_o = 0.6): tau = I_o vdot + m g l_c sin q ----
run dynamics data/pendulum.urdf did <<< "0 0 0"
expect_status "did pendulum" 0
expect_near "did pendulum" "$out" "9.81 0"
run dynamics data/pendulum.urdf dfd <<< "0 0 0"
expect_near "dfd pendulum" "$out" "-16.35 0 $(awk 'BEGIN { printf "%.17g", 1 / 0.6 }')"
run dynamics data/pendulum.urdf minv <<< "1.2"
expect_near "minv pendulum" "$out" "$(awk 'BEGIN { printf "%.17g", 1 / 0.6 }')"
# prescribed: y = tau, x = vdot: dtau/dq = m g l_c cos q, dtau/dv = 0, dtau/dvdot = I_o
run dynamics data/pendulum.urdf dhybrid --prescribed hinge <<< "0.5 3 1"
expect_near "dhybrid pendulum" "$out" "$(awk 'BEGIN { printf "%.17g 0 0.6", 9.81 * cos(0.5) }')"
run dynamics data/pendulum.urdf did <<< "0 0"
expect_status "did short line" 2
expect_has "did short line message" "$err" "expected 3 numbers (q[1] v[1] vdot[1]), got 2"
run dynamics data/pendulum.urdf dhybrid <<< "0 0 0"
expect_status "dhybrid without --prescribed" 0
run dynamics data/pendulum.urdf did --prescribed hinge <<< "0 0 0"
expect_status "did --prescribed" 2
run dynamics data/pendulum.urdf --help
expect_has "help lists did" "$out" "did     q v vdot  ->  dtau/dq dtau/dv"

# ---- the floating arm (nq 9, nv 8): one state ----
q="0.1 -0.2 0.3 0.9 0.1 -0.3 0.3 0.4 -0.7"
v="0.3 -0.1 0.2 0.5 -0.4 0.1 0.8 -0.6"
u="0.2 0.1 -0.3 0.4 0.5 -0.2 1.5 -0.7"
run dynamics data/arm2.urdf minv --floating <<< "$q"
minv=$out
run dynamics data/arm2.urdf mass --floating <<< "$q"
mass=$out
# M M^-1 = 1 (rounding only: the arm's M has entries of order 1 and condition below 1e4)
prod=$(awk -v a="$mass" -v b="$minv" 'BEGIN {
  split(a, A, " "); split(b, B, " "); n = 8
  for (i = 0; i < n; i++) for (j = 0; j < n; j++) {
    s = 0; for (k = 0; k < n; k++) s += A[i * n + k + 1] * B[k * n + j + 1]
    printf "%s%.17g", (i || j) ? " " : "", s - (i == j)
  } }')
expect_near "M M^-1 = 1" "$prod" "$(awk 'BEGIN { for (i = 0; i < 64; i++) printf "%s0", i ? " " : "" }')" 1e-10
run dynamics data/arm2.urdf dfd --floating <<< "$q $v $u"
dfd=$out
expect_eq "dfd numbers" "$(count "$dfd")" 192
expect_near "dfd M^-1 block = minv" "$(echo $dfd | cut -d' ' -f129-192)" "$minv" 1e-12
run dynamics data/arm2.urdf dhybrid --floating <<< "$q $v $u"
expect_near "dhybrid with every joint free = dfd" "$out" "$dfd" 1e-12

# central differences (h = 1e-5: error ~ h^2 ~ 1e-10, rounding ~ 1e-16 / h ~ 1e-11) of fd in
# v (plain) and of id in the two revolute angles (q[7], q[8] are tangent components 6, 7)
h=1e-5
fdiff() { # ACTION STATE_WITH_+h STATE_WITH_-h -> (f+ - f-) / 2h on the floating arm
  central_diff data/arm2.urdf "$1" "$2" "$3" --floating
}
column() { # MATRIX(8x8, block B of the line) COLUMN
  echo "$1" | awk -v b="$2" -v c="$3" '{ for (r = 0; r < 8; r++) printf "%s%s", r ? " " : "", $(64 * b + 8 * r + c + 1) }'
}
for k in 0 3 7; do
  got=$(column "$dfd" 1 $k)
  want=$(fdiff fd "$q $(shift_vec "$v" $k $h) $u" "$q $(shift_vec "$v" $k -$h) $u")
  expect_near "dfd dvdot/dv column $k" "$got" "$want" 1e-8
done
run dynamics data/arm2.urdf did --floating <<< "$q $v $u"
did=$out
for k in 6 7; do
  got=$(column "$did" 0 $k)
  want=$(fdiff id "$(shift_vec "$q" $((k + 1)) $h) $v $u" "$(shift_vec "$q" $((k + 1)) -$h) $v $u")
  expect_near "did dtau/dq column $k" "$got" "$want" 1e-8
done
finish
