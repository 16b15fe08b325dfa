# linearize_loops.sh: `hinge linearize` on a closed mechanism (data/scenes/four_bar.yaml, a
# crank-rocker hanging under gravity): states in the independent coordinates z, the basis N, and
# the small-oscillation frequency against the reduced Lagrangian's (w^2 = V''/m = 25.954522448,
# computed in closed form by tests/test_loops_linear.c).
source "$(dirname "$0")/common.bash"
scene=data/scenes/four_bar.yaml

run linearize $scene --equilibrium --out "$tmp/eq"
expect_status "equilibrium" 0
expect_has "equilibrium summary" "$out" "closed loops 1 (rank G 2 at the free DoFs): states 2 x 1 independent coordinates"
expect_has "equilibrium converged" "$out" "residual max|zddot|"
expect_eq "A header" "$(head -1 "$tmp/eq/A.csv")" "state,z1,zdot1"
expect_eq "B header" "$(head -1 "$tmp/eq/B.csv")" "state,crank_j.tau.torque,coupler_j.tau.torque,rocker_j.tau.torque"
expect_eq "N header" "$(head -1 "$tmp/eq/N.csv")" "dof,z1"
expect_eq "N rows" "$(cut -d, -f1 "$tmp/eq/N.csv" | tail -n +2 | tr '\n' ' ')" \
  "crank_j.q.angle coupler_j.q.angle rocker_j.q.angle "
# N has unit length
expect_near "N unit" "$(awk -F, 'NR > 1 { s += $2 * $2 } END { printf "%.12f", s }' "$tmp/eq/N.csv")" 1 1e-12
w2=$(awk -F, 'NR == 2 { print $2 }' "$tmp/eq/modes_undamped.csv")
expect_near "w^2 against the reduced Lagrangian" "$w2" 25.954522448 1e-6
a21=$(awk -F, '$1 == "zdot1" { print -$2 }' "$tmp/eq/A.csv")
expect_near "A against the reduced Lagrangian" "$a21" 25.954522448 1e-6
for f in A.csv B.csv N.csv point.csv modes.csv modes_undamped.csv summary.txt modes.png; do
  [ -s "$tmp/eq/$f" ] && pass || fail "missing $f"
done

# at the scene's start, off the equilibrium: a drift
run linearize $scene
expect_status "at the start" 0
expect_has "drift" "$out" "not an equilibrium: A describes perturbations"
finish
