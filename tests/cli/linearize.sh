# linearize.sh: `hinge linearize` on a hanging pendulum (closed forms), the solar-array spacecraft
# (rigid and elastic modes, wings free and locked) and bad usage.
source "$(dirname "$0")/common.bash"

# ---- the hanging pendulum: I_o = 0.75, w^2 = m g l / I_o = 13.08, c / I_o = 0.4 ----
run linearize data/scenes/hanging_pendulum.yaml --out "$tmp/hp"
expect_status "pendulum" 0
expect_has "pendulum equilibrium" "$out" "drift max |xdot0| 0 (an equilibrium)"
# states are named as the output CSV files name a joint's entries (JOINT.v.NAME)
expect_eq "A header" "$(head -1 "$tmp/hp/A.csv")" "state,pivot.q.angle,pivot.v.rate"
expect_eq "B header" "$(head -1 "$tmp/hp/B.csv")" "state,pivot.tau.torque"
# the damper (a joint spring) is differentiated analytically: A to rounding
expect_has "damper analytic" "$out" "  damper: analytic"
expect_near "A" "$(tail -n +2 "$tmp/hp/A.csv" | cut -d, -f2- | tr ',\n' '  ')" "0 1 -13.08 -0.4" 1e-14
expect_near "B" "$(tail -n +2 "$tmp/hp/B.csv" | cut -d, -f2 | tr '\n' ' ')" \
  "0 $(awk 'BEGIN { printf "%.17g", 1 / 0.75 }')" 1e-12
expect_near "eigenvalues" "$(tail -n +2 "$tmp/hp/modes.csv" | cut -d, -f2,3 | tr ',\n' '  ')" \
  "$(awk 'BEGIN { w = sqrt(13.08 - 0.04); printf "-0.2 %.17g -0.2 %.17g", w, -w }')" 1e-8
expect_near "undamped w^2" "$(tail -n +2 "$tmp/hp/modes_undamped.csv" | cut -d, -f2)" 13.08 1e-8
expect_eq "point" "$(cat "$tmp/hp/point.csv" | tr '\n' ' ')" \
  "quantity,value pivot.q0,0 pivot.v0,0 pivot.mode,0 "
[ -s "$tmp/hp/modes.png" ] && pass || fail "modes.png missing"
# --no-plots: the tables and the summary, no modes.png
run linearize data/scenes/hanging_pendulum.yaml --out "$tmp/hp_np" --no-plots
expect_status "--no-plots" 0
[ -s "$tmp/hp_np/modes.csv" ] && [ -s "$tmp/hp_np/summary.txt" ] && pass || fail "--no-plots: no tables"
[ ! -e "$tmp/hp_np/modes.png" ] && pass || fail "--no-plots wrote modes.png"

# a fixed joint has no q, v or mode: point.csv leaves it out (j_d2 welds a body in this tree)
run linearize data/scenes/every_joint_tree.yaml --out "$tmp/ejt" --no-plots
expect_status "every joint" 0
expect_eq "no fixed joint in point.csv" "$(grep -c '^j_d2\.' "$tmp/ejt/point.csv")" 0
expect_has "a free joint's mode in point.csv" "$(cat "$tmp/ejt/point.csv")" ".mode,0"

# ---- a free body: its states by name, rotations and shifts in its own frame ----
run linearize data/scenes/falling_box.yaml --out "$tmp/fb"
expect_status "free body" 0
expect_eq "free body A header" "$(head -1 "$tmp/fb/A.csv")" \
  "state,float.q.rx,float.q.ry,float.q.rz,float.q.dx,float.q.dy,float.q.dz,float.v.wx,float.v.wy,float.v.wz,float.v.vx,float.v.vy,float.v.vz"
expect_has "free body modes header" "$(head -1 "$tmp/fb/modes.csv")" "float.q.rx,float.q.ry"

# ---- the solar-array spacecraft: 6 rigid modes, 4 wing modes; then the port root locked ----
run linearize ../scenes/solar_array.yaml --out "$tmp/sa"
expect_status "solar array" 0
expect_eq "12 zero eigenvalues" \
  "$(tail -n +2 "$tmp/sa/modes.csv" | awk -F, '$2 == 0 && $3 == 0' | wc -l)" 12
expect_eq "8 damped oscillatory eigenvalues" \
  "$(tail -n +2 "$tmp/sa/modes.csv" | awk -F, '$2 < 0 && $3 != 0' | wc -l)" 8
expect_has "solar array: joint springs analytic" "$out" "  port_tip_spring: analytic"
expect_has "solar array: thrust by differences" "$out" "  pulse: central differences on the group"
run linearize ../scenes/solar_array.yaml --at 1.5
expect_has "locked root: 9 free DoFs" "$out" "states 2 x 9 free DoFs (of 10)"
expect_has "locked root: equilibrium" "$out" "(an equilibrium)"

# ---- a moving scene: reported as not an equilibrium; --rest removes the velocities ----
run linearize ../scenes/freeze_thaw.yaml --at 0.5
expect_status "moving scene" 0
expect_has "moving scene drift" "$out" "not an equilibrium"

# ---- --equilibrium: a spring with its rest angle off the vertical, k (th - 0.8) = -m g l sin th;
# theta* and w^2 = (k + m g l cos th*) / I_o by Newton's method in awk ----
run linearize data/scenes/sprung_pendulum.yaml --equilibrium --out "$tmp/eq"
expect_status "equilibrium" 0
expect_has "equilibrium summary" "$out" "equilibrium: "
expect_has "equilibrium drift" "$out" "an equilibrium to the search's tolerance"
expect_has "equilibrium summary file" "$(cat "$tmp/eq/summary.txt")" "Jacobian rank 1 of 1"
th=$(awk 'BEGIN { t = 0.8; for (i = 0; i < 50; i++) t -= (20 * (t - 0.8) + 9.81 * sin(t)) / (20 + 9.81 * cos(t)); printf "%.17g", t }')
expect_near "equilibrium angle" "$(grep '^pivot.q0,' "$tmp/eq/point.csv" | cut -d, -f2)" "$th" 1e-12
expect_near "equilibrium w^2" "$(tail -n +2 "$tmp/eq/modes_undamped.csv" | cut -d, -f2)" \
  "$(awk -v t="$th" 'BEGIN { printf "%.17g", (20 + 9.81 * cos(t)) / 0.75 }')" 1e-8
run linearize data/scenes/falling_box.yaml --equilibrium
expect_status "no equilibrium" 3
expect_has "no equilibrium message" "$err" "no equilibrium: residual max|vdot| 9.81 after 1 Newton"
expect_has "no equilibrium: neutral" "$err" "Jacobian rank 2 of 6 (the others neutral"
run linearize data/scenes/sprung_pendulum.yaml --equilibrium --tol 0
expect_status "bad --tol" 2

# ---- bad usage ----
run linearize
expect_status "no scene" 2
run linearize data/scenes/hanging_pendulum.yaml --at soon
expect_status "bad --at" 2
expect_has "bad --at message" "$err" "'soon' is not a valid number here"
run linearize data/scenes/hanging_pendulum.yaml --at -1
expect_status "--at before the start" 2
run linearize data/scenes/no_such_scene.yaml
expect_status "missing scene" 2
run linearize data/scenes/hanging_pendulum.yaml --out /proc/hinge_cannot_write_here
expect_status "unwritable --out" 1
run linearize --help
expect_has "help" "$out" "usage: hinge linearize SCENE"
expect_has "help: --no-plots" "$out" "--no-plots"
# past the scene's end: refused, not run silently beyond it
run linearize data/scenes/hanging_pendulum.yaml --at 7 --out "$tmp/late"
expect_status "--at after the end" 2
expect_has "--at after the end" "$err" "--at 7 is after the scene's end 5 (time: end)"
finish
