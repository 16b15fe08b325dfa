# outputs.sh: what `hinge run` tells its user: which invariants apply to a scene and how well they
# hold (summary.txt), the trajectory's columns, the output folder, and failures that say what
# went wrong where.
source "$(dirname "$0")/common.bash"
scenes=../scenes

# summary.txt's value of KEY (its first word after "KEY: ")
summary_value() { grep "^$2: " "$1/summary.txt" | head -n 1 | awk '{print $2}'; }
# less A B: A < B (numbers)
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

# ---- momentum drift only for isolated systems, relative to the peak total ----
run run data/scenes/solar_array.yaml --out "$tmp/solar" --no-plots --quiet
expect_status "solar array runs" 0
sum=$(cat "$tmp/solar/summary.txt")
expect_has "solar array: momentum applies" "$sum" "invariants: energy budget; momentum while"
drift=$(summary_value "$tmp/solar" momentum_drift)
# its total momentum is zero: the scale is what the bodies carry, and the drift is the
# integrator's (1.4e-8 at rtol 1e-10; the old measure, relative to the bodies' momenta at each
# output, read 1 once the wings had latched and everything had stopped)
if less "$drift" 1e-6; then pass; else fail "solar array momentum drift $drift"; fi
expect_has "solar array: zero total" "$sum" "the total is zero: the bodies' peak summed |L|"

run run "$scenes/heatshield.yaml" --out "$tmp/hs" --no-plots --quiet
sum=$(cat "$tmp/hs/summary.txt")
expect_has "heatshield: no momentum drift" "$sum" "momentum_drift: n/a"
expect_has "heatshield: says why" "$sum" "momentum is not conserved: uniform gravity (0, 0, -9.81)"
expect_has "heatshield: the parachute acts from outside" "$sum" "parachute 'main_chute'"

run run "$scenes/pendulum.yaml" --out "$tmp/pend" --t-end 0.2 --no-plots --quiet
expect_has "pendulum: a joint to the world" "$(cat "$tmp/pend/summary.txt")" \
  "free revolute joint 'shoulder' holds body 'upper' to the world"

# an event that changes the momentum on purpose starts a new reference
run run "$scenes/release.yaml" --out "$tmp/release" --no-plots --quiet
sum=$(cat "$tmp/release/summary.txt")
expect_has "release: from the release" "$sum" "2 stretches; the last from after 'release' at t = 10 s"
drift=$(summary_value "$tmp/release" momentum_drift)
if less "$drift" 1e-7; then pass; else fail "release momentum drift $drift"; fi

# ---- failures that help ----
# a stiff damper under Adams: max_steps, said so, with the advice to use cvode-bdf
cat > "$tmp/stiff.yaml" <<'YAML'
gravity: [0, 0, 0]
bodies:
  - name: slider
    joint: {type: prismatic, axis: [1, 0, 0]}
    inertia: {mass: 1}
forces:
  - {name: damper, type: joint_spring, joint: slider, stiffness: 1e4, damping: 1e5}
initial:
  joints:
    slider: {q: [1]}
integrator: {method: cvode-adams, rtol: 1e-8, max_steps: 500}
time: {start: 0, end: 10}
YAML
run run "$tmp/stiff.yaml" --out "$tmp/stiff" --quiet
expect_status "max_steps" 3
expect_has "max_steps is named" "$err" "max_steps (500) steps from t = 0 s did not reach"
expect_has "stiff: cvode-bdf advised" "$err" "the problem looks stiff"
expect_has "stiff: cvode-bdf advised" "$err" "--method cvode-bdf"
run run "$tmp/stiff.yaml" --out "$tmp/stiff_bdf" --method cvode-bdf --quiet --no-plots
expect_status "the advice works" 0

# a blow-up (explicit Euler on a stiff spring): the joint named, the last good state before it
cat > "$tmp/blowup.yaml" <<'YAML'
gravity: [0, 0, 0]
bodies:
  - name: slider
    joint: {type: prismatic, name: rail, axis: [1, 0, 0]}
    inertia: {mass: 1}
forces:
  - {name: stiff, type: joint_spring, joint: rail, stiffness: 1e6}
initial:
  joints:
    rail: {q: [1]}
integrator: {method: lie-euler, step: 0.1}
time: {start: 0, end: 1000}
YAML
run run "$tmp/blowup.yaml" --out "$tmp/blowup" --quiet
expect_status "blow-up" 3
expect_has "blow-up names the joint and DoF" "$err" "joint 'rail' (prismatic, body 'slider') v.rate = "
expect_has "blow-up: where the good state is" "$err" "the last good state (t = 0 s"
# the state kept is the initial one (the first Euler step already multiplies the energy by 1e4),
# not the 1e153 m of the failure
expect_eq "failure state: time" "$(grep '^t ' "$tmp/blowup/failure-state.txt")" "t 0"
expect_eq "failure state: q" "$(grep '^q ' "$tmp/blowup/failure-state.txt")" "q 1 1"
expect_has "failure: summary" "$(cat "$tmp/blowup/summary.txt")" "status: integration failed"
if is_png "$tmp/blowup/energy.png"; then pass; else fail "a failed run plots"; fi

# a partial atol mapping runs; a bad entry is named where it is written
sed 's/integrator: {method: cvode-adams, rtol: 1e-8, max_steps: 500}/integrator: {method: cvode-bdf, atol: {angle: 1e-9}}/' \
  "$tmp/stiff.yaml" > "$tmp/atol.yaml"
run run "$tmp/atol.yaml" --out "$tmp/atol" --quiet --no-plots
expect_status "partial atol" 0
sed 's/atol: {angle: 1e-9}/atol: {angle: 0}/' "$tmp/atol.yaml" > "$tmp/atol_bad.yaml"
run run "$tmp/atol_bad.yaml" --out "$tmp/atol_bad" --quiet
expect_status "bad atol" 2
expect_has "bad atol: where" "$err" "atol_bad.yaml:11:"
expect_has "bad atol: what" "$err" "'angle' must be positive, got 0"

finish
