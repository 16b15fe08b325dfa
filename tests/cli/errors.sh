# errors.sh: exit statuses and messages of `hinge` on bad usage, bad models and bad input lines.
source "$(dirname "$0")/common.bash"

# ---- program-level usage ----
run --version
expect_status "--version" 0
if [[ "$out" =~ ^hinge\ [0-9]+\.[0-9]+\.[0-9]+$ ]]; then pass; else fail "--version: '$out'"; fi
run --help
expect_status "--help" 0
expect_has "--help" "$out" "usage: hinge COMMAND"
expect_has "--help lists dynamics" "$out" "hinge dynamics MODEL info"
# the synopsis names every subcommand with its arguments; dynamics takes a scene too
for synopsis in "hinge run [SCENE]" "hinge view SCENE" "hinge render SCENE --out DIR" \
    "hinge dynamics MODEL|SCENE ACTION" "hinge linearize SCENE" "hinge mc CAMPAIGN"; do
  expect_has "--help synopsis" "$(sed -n '/^commands:/,/^$/p' <<<"$out")" "  $synopsis  "
done
run
expect_status "no command" 2
expect_has "no command" "$err" "usage: hinge"
run frobnicate
expect_status "unknown command" 2
expect_has "unknown command" "$err" "hinge: unknown command 'frobnicate'"
run dynamics --help
expect_status "dynamics --help" 0
expect_has "dynamics --help" "$out" "hinge dynamics MODEL fd|id|mass|bias"

# ---- dynamics usage ----
run dynamics
expect_status "no model" 2
expect_has "no model" "$err" "missing MODEL and ACTION"
run dynamics data/pendulum.urdf
expect_status "no action" 2
expect_has "no action" "$err" "missing ACTION"
run dynamics data/pendulum.urdf dance
expect_status "unknown action" 2
expect_has "unknown action" "$err" "unknown action 'dance'"
run dynamics data/pendulum.urdf fd --wobble
expect_status "unknown option" 2
expect_has "unknown option" "$err" "unknown option '--wobble'"
run dynamics data/pendulum.urdf fd extra
expect_status "extra argument" 2
run dynamics data/pendulum.urdf fd --gravity 0 0
expect_status "short --gravity" 2
run dynamics data/pendulum.urdf fd --gravity 0 x 0
expect_status "bad --gravity" 2
expect_has "bad --gravity" "$err" "'x' is not a number"
run dynamics data/pendulum.urdf fd --prescribed hinge
expect_status "--prescribed with fd" 2
run dynamics data/pendulum.urdf hybrid --prescribed hinge,elbow < /dev/null
expect_status "unknown joint" 2
expect_has "unknown joint" "$err" "unknown joint 'elbow'; the joints are: base_root, hinge"

# ---- models ----
run dynamics data/no_such_model.urdf info
expect_status "missing model" 2
expect_has "missing model" "$err" "hinge: data/no_such_model.urdf: cannot open"
run dynamics data/urdf_bad/cycle.urdf fd < /dev/null
expect_status "invalid model" 2
expect_has "invalid model" "$err" "hinge: data/urdf_bad/cycle.urdf:7: joint 'ab' is part of a cycle"
run dynamics data/urdf_bad/malformed.urdf info
expect_status "malformed model" 2
expect_has "malformed model" "$err" "data/urdf_bad/malformed.urdf:5: Opening and ending tag mismatch"
run dynamics data/robots/massless_leaf.urdf info
expect_status "massless link: info" 0
expect_has "massless link: note" "$err" "data/robots/massless_leaf.urdf:5: note: link 'b' on moving joint 'j' (line 6) has no mass"
run dynamics data/robots/massless_leaf.urdf id <<< "0.3 1 2"
expect_status "massless link: id" 0
expect_eq "massless link: id" "$out" "0"
run dynamics data/robots/massless_leaf.urdf fd <<< "0.3 1 2"
expect_status "massless link: fd" 3
expect_has "massless link: fd" "$err" "hinge: <stdin>:1: articulated inertia is singular at joint 'j'"
run dynamics data/robots/placeholders.urdf info
expect_status "invalid inertias" 2
expect_has "invalid inertias" "$err" "also invalid: 'rod' (line 22), 'plate' (line 28)"
run dynamics data/robots/placeholders.urdf info --fix-inertia
expect_status "--fix-inertia" 0
expect_has "--fix-inertia" "$err" "placeholders.urdf:22: note: link 'rod': inertia repaired"
run dynamics data/robots/gripper_description/urdf/gripper.urdf info --package-path
expect_status "--package-path without folders" 2
run dynamics data/robots/unexpanded_xacro.urdf info
expect_status "xacro" 2
expect_has "xacro" "$err" "unexpanded xacro file; run 'xacro FILE > robot.urdf'"
run dynamics data/robots/arm.urdf.xacro info
expect_status "xacro file" 2
expect_has "xacro file" "$err" "data/robots/arm.urdf.xacro: a xacro file, not a URDF: run 'xacro data/robots/arm.urdf.xacro > robot.urdf'"
run dynamics data/pendulum.txt info
expect_status "unknown format" 2
expect_has "unknown format" "$err" "unknown model format"

# ---- input lines: earlier results stay printed ----
run dynamics data/pendulum.urdf fd <<< "0 0 0
# a comment

0 0"
expect_status "short line" 2
expect_eq "short line: earlier output" "$out" "0"
expect_has "short line" "$err" "hinge: <stdin>:4: expected 3 numbers (q[1] v[1] tau[1]), got 2"
run dynamics data/pendulum.urdf fd <<< "0 0 0 0"
expect_status "long line" 2
expect_has "long line" "$err" "<stdin>:1: expected 3 numbers (q[1] v[1] tau[1]), got 4"
run dynamics data/pendulum.urdf fd <<< "0 0 0
0 1.0abc 0"
expect_status "not a number" 2
expect_has "not a number" "$err" "<stdin>:2: number 2, '1.0abc', is not a finite number"
run dynamics data/pendulum.urdf id <<< "nan 0 0"
expect_status "nan" 2
expect_has "nan" "$err" "<stdin>:1: number 1, 'nan', is not a finite number"
run dynamics data/arm2.urdf mass <<< "0 0 0"
expect_has "mass line" "$err" "expected 2 numbers (q[2]), got 3"
run dynamics data/arm2.urdf hybrid <<< "0"
expect_has "hybrid line" "$err" "expected 6 numbers (q[2] v[2] vdot|tau[2]), got 1"
run dynamics data/arm2.urdf lock <<< "0"
expect_has "lock line" "$err" "expected 4 numbers (q[2] v[2]), got 1"
# empty input: no output, success
run dynamics data/pendulum.urdf fd < /dev/null
expect_status "empty input" 0
expect_eq "empty input" "$out" ""

# ---- a singular articulated inertia: the bead on the spin axis (slide = -1) ----
run dynamics data/slider.urdf fd <<< "0 0 0 0 0 0
0 -1 0 0 0 0
0 0 0 0 0 0"
expect_status "singular" 3
expect_eq "singular: earlier output" "$out" "0 0"
expect_has "singular" "$err" "hinge: <stdin>:2: articulated inertia is singular at joint 'spin'"

# ---- mimic joints: fd enforces them (by hand: 1 N on the coupled 0.2 kg gives 5 m/s^2 on both
# fingers); hybrid and lock refuse them ----
gripper=data/robots/gripper_description/urdf/gripper.urdf
run dynamics $gripper info
expect_has "mimic: info" "$out" "mimic right_joint leader left_joint multiplier 1 offset 0"
run dynamics $gripper fd <<< "0.01 0.3 0.2 7 1 0"
expect_status "mimic: fd" 0
expect_eq "mimic: fd" "$out" "5 5"
run dynamics $gripper hybrid <<< "0.01 0.01 0 0 1 0"
expect_status "mimic: hybrid" 2
expect_has "mimic: hybrid" "$err" "the model has mimic joints, which hybrid does not support"

finish
