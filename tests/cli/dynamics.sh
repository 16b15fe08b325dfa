# dynamics.sh: `hinge dynamics` info, fd, id, mass and bias against answers computed by hand.
source "$(dirname "$0")/common.bash"
PI=3.14159265358979323846
half_pi=1.5707963267948966

# ---- info ----
run dynamics data/pendulum.urdf info
expect_status "info" 0
expect_eq "info pendulum" "$out" "nq 1
nv 1
joint base_root type fixed parent world child base q 0 0 v 0 0
joint hinge type revolute parent base child arm q 0 1 v 0 1"

run dynamics data/arm2.urdf info --floating
expect_eq "info --floating nq nv" "$(echo "$out" | head -2 | tr '\n' ' ')" "nq 9 nv 8 "
expect_eq "info --floating root" "$(echo "$out" | grep ' base_root ')" \
  "joint base_root type free parent world child base q 0 7 v 0 6"
expect_eq "info --floating elbow" "$(echo "$out" | grep ' elbow ')" \
  "joint elbow type revolute parent link1 child link2 q 8 1 v 7 1"
expect_eq "info --floating wrist" "$(echo "$out" | grep ' wrist ')" \
  "joint wrist type fixed parent link2 child tool q 9 0 v 8 0"

run dynamics data/planar.urdf info
expect_has "info planar" "$out" "joint slide type planar parent table child puck q 0 3 v 0 3"

# ---- fd: the pendulum (m = 2, l_c = 0.5, I_o = 0.6) ----
# vdot = (tau - m g l_c sin q) / I_o; at q = pi/2: -g m l_c / I_o = -16.35
run dynamics data/pendulum.urdf fd <<< "$half_pi 0 0
0 0 0
0 3 0.6
$half_pi 5 0"
expect_status "fd pendulum" 0
expect_near "fd pendulum" "$(echo $out)" "-16.35 0 1 -16.35"

run dynamics data/pendulum.urdf fd --gravity 0 0 -1 <<< "$half_pi 0 0"
expect_near "fd --gravity" "$out" "$(awk 'BEGIN { printf "%.17g", -2 * 0.5 / 0.6 }')"
run dynamics data/pendulum.urdf fd --gravity 0 0 0 <<< "$half_pi 0 0"
expect_near "fd zero gravity" "$out" "0"
# gravity along +x on the arm hanging straight down: the torque about y is
# r_z F_x - r_x F_z = (-l_c)(m g) = -9.81, so vdot = -16.35 again
run dynamics data/pendulum.urdf fd --gravity 9.81 0 0 <<< "0 0 0"
expect_near "fd gravity along x" "$out" "-16.35"

# ---- id and bias: tau = I_o vdot + m g l_c sin q ----
run dynamics data/pendulum.urdf id <<< "$half_pi 0 1
0 7 2"
expect_near "id pendulum" "$(echo $out)" "10.41 1.2"
run dynamics data/pendulum.urdf bias <<< "$(awk -v p=$PI 'BEGIN { printf "%.17g 0\n", p / 6 }')"
expect_near "bias pendulum" "$out" "4.905" 1e-12

# ---- mass: the 2-link arm ----
# M11 = I1 + m1 c1^2 + I2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos q2), M12 = I2 + m2 (c2^2 + l1 c2 cos q2),
# M22 = I2 + m2 c2^2 with m1 = 1, l1 = 1, c1 = 0.5, I1 = 1/12, m2 = 2, c2 = 0.4, I2 = 0.05
run dynamics data/arm2.urdf mass <<< "0 0
0.3 $half_pi"
expect_status "mass" 0
expect_near "mass q=(0,0)" "$(echo "$out" | sed -n 1p)" \
  "$(awk 'BEGIN { printf "%.17g 1.17 1.17 0.37", 1/12 + 0.25 + 0.05 + 3.92 }')"
expect_near "mass q=(0.3,pi/2)" "$(echo "$out" | sed -n 2p)" \
  "$(awk 'BEGIN { printf "%.17g 0.37 0.37 0.37", 1/12 + 0.25 + 0.05 + 2.32 }')"

# ---- bias of the arm: b1 = -h (2 v1 v2 + v2^2), b2 = h v1^2, h = m2 l1 c2 sin q2 ----
# (the joints are about z, so gravity does not enter)
run dynamics data/arm2.urdf bias <<< "0.2 $half_pi 1 2"
expect_near "bias arm" "$out" "-6.4 0.8"

# output format: %.17g, single spaces, one line per state
run dynamics data/arm2.urdf mass <<< "0 0"
expect_eq "format" "$(echo "$out" | awk '{ print NF }')" "4"
case "$out" in
*"  "* | " "* | *" ") fail "format: not single spaces: '$out'" ;;
*) pass ;;
esac
# 1.17 is not a binary fraction, so %.17g shows 17 significant digits
if [[ "$(echo "$out" | awk '{ print $2 }')" =~ ^1\.[0-9]{16}$ ]]; then pass; else fail "format %.17g: $out"; fi


# ---- a scene as the model: its bodies and gravity ----
run dynamics ../scenes/pendulum.yaml info
expect_status "info scene" 0
expect_has "info scene" "$out" "joint elbow type revolute parent upper child lower q 1 1 v 1 1"
# id(fd(q, v, tau)) = tau on the scene's double pendulum
run dynamics ../scenes/pendulum.yaml fd <<< "0.3 -0.2 0.5 -1 1 -0.5"
expect_status "fd scene" 0
qdd="$out"
run dynamics ../scenes/pendulum.yaml id <<< "0.3 -0.2 0.5 -1 $qdd"
expect_near "id(fd) scene" "$(echo $out)" "1 -0.5"
run dynamics data/scenes_bad/add_bad_pose.yaml info
expect_status "bad scene" 2
expect_has "bad scene message" "$err" "add_bad_pose.yaml:19:51: expected a list of 3 numbers"

# ---- stopped by a signal part-way through an endless input: it says so, exits with 128 + the
# signal, and every line it wrote is whole (killed without the handler, the process dies in the
# middle of a line and says nothing) ----
"$hinge" dynamics data/pendulum.urdf d2id < <(yes "0.5 1 2") > "$tmp/sig.out" 2> "$tmp/sig.err" &
pid=$!
# (after its first output line: the handler is in place by then, also in a slow sanitized build)
for _ in $(seq 100); do [ -s "$tmp/sig.out" ] && break; sleep 0.1; done
sleep 0.2
kill -TERM "$pid"
wait "$pid"
status=$?
err=$(cat "$tmp/sig.err")
expect_status "SIGTERM status" 143
expect_has "SIGTERM message" "$err" "hinge: stopped by SIGTERM after"
expect_eq "SIGTERM lines whole" "$(awk 'NF != 4' "$tmp/sig.out" | wc -l)" "0"
if [ "$(wc -l < "$tmp/sig.out")" -gt 0 ] && [ "$(tail -c 1 "$tmp/sig.out" | od -An -c | tr -d ' ')" = '\n' ]; then
  pass
else
  fail "SIGTERM output: $(wc -l < "$tmp/sig.out") lines, last byte not a newline"
fi
finish
