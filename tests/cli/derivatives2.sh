# derivatives2.sh: `hinge dynamics` d2id and d2fd against closed forms (the pendulum) and
# against central differences of mass, did and dfd (the floating arm); d2id-sum and d2fd-sum
# against the closed forms and against the tensors of d2id and d2fd summed.
source "$(dirname "$0")/common.bash"

# ---- the pendulum (m = 2, l_c = 0.5, I_o = 0.6): tau = I_o vdot + m g l_c sin q ----
# d2tau/dq2 = -m g l_c sin q, the others zero; vdot = (tau - m g l_c sin q) / I_o
run dynamics data/pendulum.urdf d2id <<< "0.5 1 2"
expect_status "d2id pendulum" 0
expect_near "d2id pendulum" "$out" "$(awk 'BEGIN { printf "%.17g 0 0 0", -9.81 * sin(0.5) }')"
# the zeros print as 0, as docs/linearization.md shows them (not -0 from a negated zero)
expect_has "d2id pendulum zeros" "$out" " 0 0 0"
run dynamics data/pendulum.urdf d2fd <<< "0.5 1 2"
expect_near "d2fd pendulum" "$out" "$(awk 'BEGIN { printf "%.17g 0 0 0", 9.81 * sin(0.5) / 0.6 }')"
# the sums with weight 3: three times the tensors
run dynamics data/pendulum.urdf d2id-sum <<< "0.5 1 2 3"
expect_near "d2id-sum pendulum" "$out" "$(awk 'BEGIN { printf "%.17g 0 0 0", -3 * 9.81 * sin(0.5) }')"
run dynamics data/pendulum.urdf d2fd-sum <<< "0.5 1 2 3"
expect_near "d2fd-sum pendulum" "$out" "$(awk 'BEGIN { printf "%.17g 0 0 0", 3 * 9.81 * sin(0.5) / 0.6 }')"
run dynamics data/pendulum.urdf d2fd-sum <<< "0.5 1 2"
expect_status "d2fd-sum short line" 2
expect_has "d2fd-sum short line message" "$err" "expected 4 numbers (q[1] v[1] tau[1] lam[1]), got 3"
run dynamics data/pendulum.urdf d2id <<< "0.5 1"
expect_status "d2id short line" 2
expect_has "d2id short line message" "$err" "expected 3 numbers (q[1] v[1] vdot[1]), got 2"
run dynamics data/pendulum.urdf --help
expect_has "help lists d2id" "$out" "d2id    q v vdot  ->  d2tau/dq2 d2tau/dv2 d2tau/dqdv dM/dq"

# ---- the floating arm (nq 9, nv 8): each tensor 512 numbers ----
q="0.1 -0.2 0.3 0.9 0.1 -0.3 0.3 0.4 -0.7"
v="0.3 -0.1 0.2 0.5 -0.4 0.1 0.8 -0.6"
u="0.2 0.1 -0.3 0.4 0.5 -0.2 1.5 -0.7"
run dynamics data/arm2.urdf d2id --floating <<< "$q $v $u"
d2id=$out
expect_eq "d2id numbers" "$(echo $d2id | wc -w)" 2048
run dynamics data/arm2.urdf d2fd --floating <<< "$q $v $u"
d2fd=$out
expect_eq "d2fd numbers" "$(echo $d2fd | wc -w)" 2048

# the sums over the output with weights lam against the tensors summed by awk: [m, k] at
# k nv + m of block b is the sum over l of lam_l times entry [l, m, k] of tensor b
lam="0.3 -0.5 0.2 0.1 0.7 -0.4 0.6 -0.2"
summed() { # TENSORS(4 x 512 numbers) -> the four 64-number sums
  echo "$1" | awk -v lam="$lam" '{
    split(lam, w, " ")
    for (b = 0; b < 4; b++) for (k = 0; k < 8; k++) for (m = 0; m < 8; m++) {
      s = 0
      for (l = 0; l < 8; l++) s += w[l + 1] * $(512 * b + (8 * k + l) * 8 + m + 1)
      printf "%s%.17g", (b + k + m ? " " : ""), s
    } }'
}
run dynamics data/arm2.urdf d2id-sum --floating <<< "$q $v $u $lam"
expect_eq "d2id-sum numbers" "$(count "$out")" 256
expect_near "d2id-sum against d2id summed" "$out" "$(summed "$d2id")" 1e-10
run dynamics data/arm2.urdf d2fd-sum --floating <<< "$q $v $u $lam"
expect_eq "d2fd-sum numbers" "$(count "$out")" 256
expect_near "d2fd-sum against d2fd summed" "$out" "$(summed "$d2fd")" 1e-10

# central differences (h = 1e-5: error ~ h^2 ~ 1e-10, rounding ~ 1e-16 / h ~ 1e-11) of a
# first-order action along one argument
h=1e-5
fdiff() { # ACTION STATE_WITH_+h STATE_WITH_-h -> (f+ - f-) / 2h on the floating arm
  central_diff data/arm2.urdf "$1" "$2" "$3" --floating
}
slice() { # LINE TENSOR(block B of the line) K: the 64 entries [l, m, K], row-major in (l, m)
  echo "$1" | awk -v b="$2" -v k="$3" '{
    for (i = 0; i < 64; i++) printf "%s%s", i ? " " : "", $(512 * b + 64 * k + i + 1) }'
}
block() { # LINE BLOCK(64 numbers) -> that block
  echo "$1" | awk -v b="$2" '{ for (i = 1; i <= 64; i++) printf "%s%s", (i > 1 ? " " : ""), $(64 * b + i) }'
}
# along a revolute angle (q[7] is tangent component 6): dM/dq and d2tau/dq2 against mass, did
k=6
qp=$(shift_vec "$q" $((k + 1)) $h)
qm=$(shift_vec "$q" $((k + 1)) -$h)
expect_near "d2id dM/dq slice $k" "$(slice "$d2id" 3 $k)" "$(fdiff mass "$qp" "$qm")" 1e-8
expect_near "d2id d2tau/dq2 slice $k" "$(slice "$d2id" 0 $k)" \
  "$(block "$(fdiff did "$qp $v $u" "$qm $v $u")" 0)" 1e-8
# along v_3 (the base's linear rate): d2tau/dv2, d2tau/dqdv and d2vdot/dv2, d2vdot/dqdv
k=3
vp=$(shift_vec "$v" $k $h)
vm=$(shift_vec "$v" $k -$h)
dd=$(fdiff did "$q $vp $u" "$q $vm $u")
expect_near "d2id d2tau/dv2 slice $k" "$(slice "$d2id" 1 $k)" "$(block "$dd" 1)" 1e-8
expect_near "d2id d2tau/dqdv slice $k" "$(slice "$d2id" 2 $k)" "$(block "$dd" 0)" 1e-8
dd=$(fdiff dfd "$q $vp $u" "$q $vm $u")
expect_near "d2fd d2vdot/dv2 slice $k" "$(slice "$d2fd" 1 $k)" "$(block "$dd" 1)" 1e-8
expect_near "d2fd d2vdot/dqdv slice $k" "$(slice "$d2fd" 2 $k)" "$(block "$dd" 0)" 1e-8
# along tau_7: d2vdot/dqdtau against dfd's dvdot/dq
k=7
dd=$(fdiff dfd "$q $v $(shift_vec "$u" $k $h)" "$q $v $(shift_vec "$u" $k -$h)")
expect_near "d2fd d2vdot/dqdtau slice $k" "$(slice "$d2fd" 3 $k)" "$(block "$dd" 0)" 1e-8
qp=$(shift_vec "$q" 7 $h)
qm=$(shift_vec "$q" 7 -$h)
# along the revolute angle again: d2vdot/dq2 against dfd's dvdot/dq
k=6
dd=$(fdiff dfd "$qp $v $u" "$qm $v $u")
expect_near "d2fd d2vdot/dq2 slice $k" "$(slice "$d2fd" 0 $k)" "$(block "$dd" 0)" 1e-8
finish
