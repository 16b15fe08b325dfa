# cid.sh: `hinge dynamics SCENE cid` on the planar five-bar (data/scenes/five_bar.yaml): exact,
# redundant (minimum torque, minimum loop force) and under-actuated, and its errors.
source "$(dirname "$0")/common.bash"
scene=data/scenes/five_bar.yaml

# field NAME [N]: field N (default 3) of the line starting "NAME" in $out
field() { echo "$out" | awk -v k="$1" -v n="${2:-3}" 'index($0, k " ") == 1 { print $n; exit }'; }
# small X: X <= 1e-10
small() { awk -v x="$1" 'BEGIN { exit !(x != "" && x + 0 <= 1e-10) }'; }
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a + 0 < b + 0) }'; }

run dynamics $scene cid --active j1,j4 --qdd j1=1,j4=-0.5
expect_status "exact" 0
expect_has "exact actuation" "$out" "rank(N^T S_a) 2 of 2 DoFs: exact"
expect_has "exact ranks" "$out" "rows 5, rank G 2; mechanism DoFs 2 (nv 4)"
expect_has "exact given" "$out" "qdd j1 1 given"
small "$(field 'residual equations')" && pass || fail "exact: equations residual $(field 'residual equations')"
small "$(field 'residual forward')" && pass || fail "exact: forward residual $(field 'residual forward')"
expect_eq "exact wrench fields" "$(echo "$out" | grep '^wrench tip ' | wc -w)" 8
tau_exact=$(field 'norm tau')

run dynamics $scene cid --active j1,j4,j2 --qdd j1=1,j4=-0.5
expect_status "min torque" 0
expect_has "min torque" "$out" "redundant (1 extra), minimum-norm torques"
less "$(field 'norm tau')" "$tau_exact" && pass || fail "min torque: |tau| $(field 'norm tau') not below $tau_exact"
small "$(field 'residual forward')" && pass || fail "min torque: forward residual $(field 'residual forward')"
lam_mt=$(field 'norm lambda')

run dynamics $scene cid --active j1,j4,j2 --qdd j1=1,j4=-0.5 --min-force
expect_status "min force" 0
expect_has "min force" "$out" "minimum loop force (--min-force)"
less "$(field 'norm lambda')" "$lam_mt" && pass || fail "min force: |lambda| $(field 'norm lambda') not below $lam_mt"
small "$(field 'residual equations')" && pass || fail "min force: equations $(field 'residual equations')"
small "$(field 'residual forward')" && pass || fail "min force: forward residual $(field 'residual forward')"

run dynamics $scene cid --active j1
expect_status "under-actuated" 2
expect_has "under-actuated" "$err" "rank(N^T S_a) = 1 of the mechanism's 2 DoFs"

run dynamics $scene cid --active j1,j4 --qdd j1=1,j4=-0.5,j2=3
expect_status "inconsistent qdd" 2
expect_has "inconsistent qdd" "$err" "not ones the closed loops allow: max|G qdd - gamma|"

run dynamics $scene cid --active j1,j9
expect_status "unknown joint" 2
expect_has "unknown joint" "$err" "unknown joint or DoF 'j9'; the joints are: j1, j2, j4, j3"

run dynamics $scene cid
expect_status "no --active" 2
run dynamics data/pendulum.urdf cid --active hinge
expect_status "URDF" 2
expect_has "URDF" "$err" "cid needs a scene"
run dynamics $scene fd --active j1
expect_status "--active elsewhere" 2
finish
