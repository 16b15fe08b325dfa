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

finish
