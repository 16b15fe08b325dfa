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
# its total momentum is zero: the scale is what the bodies carry at their peak, and the drift is
# the integrator's (1.4e-8 at rtol 1e-10; the old measure, relative to the bodies' momenta at each
# output, read 1 once the wings had latched and everything had stopped)
if less "$drift" 1e-6; then pass; else fail "solar array momentum drift $drift"; fi
expect_has "solar array: the bodies' scale" "$sum" "the run's peak of the bodies' summed |L about their tree's root| + |root position| |p|"

run run "$scenes/heatshield.yaml" --out "$tmp/hs" --no-plots --quiet
sum=$(cat "$tmp/hs/summary.txt")
expect_has "heatshield: no momentum drift" "$sum" "momentum_drift: n/a"
expect_has "heatshield: says why" "$sum" "momentum is not conserved: uniform gravity (0, 0, -9.81)"
expect_has "heatshield: the parachute acts from outside" "$sum" "parachute 'main_chute'"

run run "$scenes/pendulum.yaml" --out "$tmp/pend" --t-end 0.2 --no-plots --quiet
expect_has "pendulum: a joint to the world" "$(cat "$tmp/pend/summary.txt")" \
  "free revolute joint 'shoulder' holds body 'upper' to the world"
# a body welded to the world: its fixed joint has no mode to name
run run data/scenes/fourbar.yaml --out "$tmp/weld" --t-end 0.05 --no-plots --quiet
sum=$(cat "$tmp/weld/summary.txt")
expect_has "welded base: its joint" "$sum" "m/s^2; fixed joint 'base' holds body 'base' to the world"
case "$sum" in *"free fixed"*) fail "welded base: summary.txt calls a fixed joint free" ;; *) pass ;; esac

# an event that changes the momentum on purpose starts a new reference
run run "$scenes/release.yaml" --out "$tmp/release" --no-plots --quiet
sum=$(cat "$tmp/release/summary.txt")
expect_has "release: from the release" "$sum" "2 stretches; the last from after 'release' at t = 10 s"
drift=$(summary_value "$tmp/release" momentum_drift)
if less "$drift" 1e-7; then pass; else fail "release momentum drift $drift"; fi

# a body held to the world, let go at t = 1 s, pushed at t = 2 s: momentum is an invariant from
# the release, and again from the push
cat > "$tmp/letgo.yaml" <<'YAML'
gravity: [0, 0, 0]
bodies:
  - name: base
    joint: {type: revolute, name: pivot, axis: [0, 0, 1]}
    inertia: {mass: 10, com: [1, 0, 0], inertia: [1, 1, 1]}
  - name: tip
    parent: base
    joint: {type: revolute, name: hinge, axis: [0, 0, 1], pos: [2, 0, 0]}
    inertia: {mass: 2, com: [0.5, 0, 0], inertia: [0.1, 0.1, 0.1]}
initial:
  joints:
    pivot: {v: [0.5]}
    hinge: {v: [-0.3]}
events:
  - {name: let_go, at: 1, do: [{detach: base}]}
  - {name: push, at: 2, do: [{impulse: {body: tip, linear: [1, 0, 0]}}]}
integrator: {rtol: 1e-10}
time: {start: 0, end: 3}
YAML
run run "$tmp/letgo.yaml" --out "$tmp/letgo" --no-plots --quiet
sum=$(cat "$tmp/letgo/summary.txt")
expect_has "let go: stretches" "$sum" "2 stretches; the last from after 'push' at t = 2 s"
expect_has "let go: held before" "$sum" \
  "not_isolated: last at t = 1 s: free revolute joint 'pivot' holds body 'base' to the world"
drift=$(summary_value "$tmp/letgo" momentum_drift)
if less "$drift" 1e-8; then pass; else fail "let go: momentum drift $drift"; fi

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
expect_has "blow-up names the time" "$err" "failed at t = "
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

# ---- columns a user can read ----
# column N (1-based) of the CSV file's header named NAME
col_of() { head -n 1 "$1" | tr ',' '\n' | grep -n -x -F "$2" | cut -d: -f1; }
# the value of column NAME in the row whose time is T
value_at() { awk -F, -v c="$(col_of "$1" "$2")" -v t="$3" 'NR > 1 && $1 == t { print $c }' "$1"; }
traj="$tmp/release/trajectory.csv"
header=$(head -n 1 "$traj")
for name in spacecraft.x spacecraft.qw spacecraft.vz array_drive.mode array_drive.q.angle \
  array_drive.v.rate array_drive.load.torque spacecraft.load.mx spacecraft.load.fz \
  probe.q.qz antenna_hinge.q.angle; do
  if [ -n "$(col_of "$traj" "$name")" ]; then pass; else fail "no column $name in $header"; fi
done
# joints by the scene's joint names, not their child bodies'
if [ -z "$(col_of "$traj" solar_array.q0)" ]; then pass; else fail "a joint named by its body"; fi
expect_eq "the mode is a word" "$(value_at "$traj" array_drive.mode 0)" "locked"
expect_eq "an absent body is empty" "$(value_at "$traj" probe.x 0)" ""
expect_eq "an absent joint is empty" "$(value_at "$traj" antenna_hinge.mode 0)" ""
expect_eq "an added joint" "$(value_at "$traj" antenna_hinge.mode 20)" "locked"
expect_near "its angle" "$(value_at "$traj" antenna_hinge.q.angle 20)" "-1.4"

# a dock that re-roots the chaser's tree through its elbow: the elbow's columns keep the scene's
# sense (its angle continues), joints.csv shows the joint as it is (reversed)
cat > "$tmp/reroot.yaml" <<'YAML'
gravity: [0, 0, 0]
bodies:
  - name: target
    joint: free
    inertia: {mass: 100, inertia: [10, 10, 10]}
    markers: [{name: target_port, pos: [1, 0, 0]}]
  - name: chaser
    joint: free
    inertia: {mass: 50, inertia: [5, 5, 5]}
  - name: arm
    parent: chaser
    joint: {type: revolute, name: elbow, axis: [0, 0, 1], pos: [0.5, 0, 0]}
    inertia: {mass: 2, com: [0.5, 0, 0], inertia: [0.1, 0.5, 0.5]}
    markers: [{name: grip, pos: [1, 0, 0]}]
initial:
  bodies:
    chaser: {pos: [3, 0.2, 0], twist: [0, 0, 0.01, -0.02, 0, 0]}
  joints:
    elbow: {q: [0.3], v: [0.05]}
events:
  - {name: grab, at: 1, do: [{attach: {parent_marker: target_port, child_marker: grip}}]}
time: {start: 0, end: 2}
output: {dt: 0.25}
YAML
run run "$tmp/reroot.yaml" --out "$tmp/reroot" --no-plots --quiet
expect_status "re-rooting dock" 0
expect_near "elbow before" "$(value_at "$tmp/reroot/trajectory.csv" elbow.q.angle 1)" \
  "0.34991619593034368" 1e-9
expect_near "elbow after" "$(value_at "$tmp/reroot/trajectory.csv" elbow.q.angle 1.25)" \
  "0.34616997291639923" 1e-9
expect_has "joints.csv: reversed" "$(grep '^1.25,elbow,' "$tmp/reroot/joints.csv")" \
  "1.25,elbow,revolute,arm,chaser,free,1,1,-0.346"
expect_has "joints.csv: the docking joint" "$(grep '^2,' "$tmp/reroot/joints.csv")" \
  "2,dock_target_port_grip,free,target,arm,locked,7,6,"

# ---- the output folder: an earlier run's files go, others stay ----
mkdir -p "$tmp/stale"
for f in checkpoint-0007.txt loads.png separation.png failure-state.txt notes.txt; do
  echo old > "$tmp/stale/$f"
done
run run "$scenes/pendulum.yaml" --out "$tmp/stale" --t-end 0.1 --quiet
expect_status "a used folder" 0
for f in checkpoint-0007.txt loads.png separation.png failure-state.txt; do
  if [ -e "$tmp/stale/$f" ]; then fail "stale $f stayed"; else pass; fi
done
expect_eq "other files stay" "$(cat "$tmp/stale/notes.txt")" "old"

# resuming from a checkpoint in the output folder keeps that checkpoint
run run "$scenes/dock.yaml" --out "$tmp/same" --checkpoint-every 3 --no-plots --quiet
echo old > "$tmp/same/checkpoint-0099.txt"
run run "$scenes/dock.yaml" --out "$tmp/same" --resume "$tmp/same/checkpoint-0002.txt" \
  --no-plots --quiet
expect_status "resume in the same folder" 0
if [ -s "$tmp/same/checkpoint-0002.txt" ]; then pass; else fail "the resumed checkpoint went"; fi
if [ -e "$tmp/same/checkpoint-0099.txt" ]; then fail "a stale checkpoint stayed"; else pass; fi

# ---- with and without checkpoints: the same trajectory within the integration error ----
run run "$scenes/dock.yaml" --out "$tmp/nock" --no-plots --quiet
run run "$scenes/dock.yaml" --out "$tmp/ck" --checkpoint-every 3 --no-plots --quiet
# the chaser's position differs by 2.2e-11 m at rtol 1e-10 (docs/outputs.md); at most 1e-10 m here
for axis in x y z; do
  c=$(col_of "$tmp/ck/trajectory.csv" "chaser.$axis")
  worst=$(paste -d, <(cut -d, -f"$c" "$tmp/ck/trajectory.csv") \
    <(cut -d, -f"$c" "$tmp/nock/trajectory.csv") | awk -F, 'NR > 1 {
      d = $1 - $2; if (d < 0) d = -d; if (d > w) w = d } END { printf "%.3g", w + 0 }')
  if less "$worst" 1e-10; then pass; else fail "checkpoints move chaser.$axis by $worst m"; fi
done

# ---- a bad input leaves the earlier run's outputs as they were ----
run run "$scenes/pendulum.yaml" --out "$tmp/keep" --t-end 0.5 --checkpoint-every 0.2 --quiet
expect_status "keep: the first run" 0
before=$(cd "$tmp/keep" && ls | sort && cat ./* | cksum)
run run "$scenes/pendulum.yaml" --out "$tmp/keep" --t-end 0.5 --commands "$tmp/missing.cmd" --quiet
expect_status "keep: a missing command file" 2
echo "0.1 lock no_such_joint" > "$tmp/bad.cmd"
run run "$scenes/pendulum.yaml" --out "$tmp/keep" --t-end 0.5 --commands "$tmp/bad.cmd" --quiet
expect_status "keep: a bad command file" 2
run run "$scenes/freeze_thaw.yaml" --out "$tmp/other" --t-end 0.3 --checkpoint-every 0.1 --no-plots --quiet
run run "$scenes/pendulum.yaml" --out "$tmp/keep" --resume "$tmp/other/checkpoint-0001.txt" --quiet
expect_status "keep: a checkpoint of another scene" 2
after=$(cd "$tmp/keep" && ls | sort && cat ./* | cksum)
if [ "$before" = "$after" ]; then pass; else fail "keep: the earlier run's outputs changed"; fi

finish
