# mc.sh: `hinge mc`: the same runs.csv on 1 and 2 threads (and 2 MPI ranks when mpirun is
# installed); --resume after a killed campaign gives the uninterrupted campaign's results; a run
# that fails is recorded and the others finish; --only K reproduces run K alone with its outputs;
# bad campaign files give FILE:LINE:COLUMN and exit status 2.
source "$(dirname "$0")/common.bash"

small=data/campaigns/small.yaml
# more threads than a machine could use: refused, not a crash (the thread handles were a stack
# array sized by the option)
run mc $small --out "$tmp/many" --threads 1100000 --quiet
expect_status "--threads 1100000" 2
expect_has "--threads 1100000 says why" "$err" "--threads must be at most 1024"
run mc $small --out "$tmp/t1" --threads 1 --quiet
expect_status "1 thread" 0
run mc $small --out "$tmp/t2" --threads 2 --quiet
expect_status "2 threads" 0
expect_eq "runs.csv rows" "$(wc -l < "$tmp/t1/runs.csv")" 7
if cmp -s "$tmp/t1/runs.csv" "$tmp/t2/runs.csv"; then pass; else fail "1 and 2 threads differ"; fi
expect_has "summary" "$(cat "$tmp/t1/summary.txt")" "runs 6 of 6 finished, 6 ok, 0 failed"
expect_has "failure probability" "$(cat "$tmp/t1/summary.txt")" "recontact"
if command -v mpirun > /dev/null; then
  # (Open MPI keeps allocations until exit: no leak check of the ranks in sanitizer builds)
  ASAN_OPTIONS=detect_leaks=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun --oversubscribe -n 2 "$hinge" mc $small --out "$tmp/m2" --quiet 2> "$tmp/mpi.err"
  status=$?
  err=$(cat "$tmp/mpi.err")
  expect_status "2 MPI ranks" 0
  if cmp -s "$tmp/t1/runs.csv" "$tmp/m2/runs.csv"; then pass; else fail "threads and MPI differ"; fi
fi

# --runs and --seed override the file; another seed draws other values
run mc $small --out "$tmp/s" --runs 3 --seed 8 --quiet
expect_status "--runs --seed" 0
expect_eq "--runs" "$(wc -l < "$tmp/s/runs.csv")" 4
if [ "$(sed -n 2p "$tmp/s/runs.csv")" != "$(sed -n 2p "$tmp/t1/runs.csv")" ]; then pass; else
  fail "--seed 8 drew the values of seed 7"
fi

# a campaign killed part-way: its journal holds whole lines and maybe one cut short
mkdir -p "$tmp/k"
cp "$tmp/t1/campaign-id.txt" "$tmp/k/"
{ grep '^#' "$tmp/t1/journal.csv"; grep -v '^#' "$tmp/t1/journal.csv" | head -n 2; } \
  > "$tmp/k/journal.csv"   # (the inputs' hashes, then two runs)
grep -v '^#' "$tmp/t1/journal.csv" | sed -n 3p | head -c 40 >> "$tmp/k/journal.csv"
run mc $small --out "$tmp/k" --resume --threads 2
expect_status "resume" 0
expect_has "resume keeps the finished runs" "$out" "(2 kept from before)"
if cmp -s "$tmp/t1/runs.csv" "$tmp/k/runs.csv"; then pass; else fail "resumed runs.csv differs"; fi
# killed for real (SIGKILL at some point of the campaign), then resumed
timeout -s KILL 0.4 "$hinge" mc $small --out "$tmp/kk" --threads 1 --quiet > /dev/null 2>&1
run mc $small --out "$tmp/kk" --resume --quiet
expect_status "resume after SIGKILL" 0
if cmp -s "$tmp/t1/runs.csv" "$tmp/kk/runs.csv"; then pass; else fail "runs.csv after SIGKILL differs"; fi
# a resume of another campaign's folder is refused
run mc $small --out "$tmp/k" --resume --seed 9 --quiet
expect_status "resume another seed" 2
expect_has "resume another seed" "$err" "holds another campaign"

# runs that fail are recorded, the others finish
run mc data/campaigns/failing.yaml --out "$tmp/f" --quiet
expect_status "failing runs" 0
nfail=$(grep -c ',failed,' "$tmp/f/runs.csv")
nok=$(grep -c ',ok,' "$tmp/f/runs.csv")
expect_eq "every run recorded" "$((nfail + nok))" 8
if [ "$nfail" -gt 0 ] && [ "$nok" -gt 0 ]; then pass; else fail "expected failed and ok runs"; fi
expect_has "the error of a failed run" "$(cat "$tmp/f/runs.csv")" "mass"
expect_has "failed runs in the summary" "$(cat "$tmp/f/summary.txt")" "failed: "

# runs that fail numerically (a step budget the integrator exceeds) are recorded, the others finish
run mc data/campaigns/numeric.yaml --out "$tmp/n" --quiet --no-plots
expect_status "numerical failures" 0
expect_eq "numerical failures recorded" "$(grep -c ',failed,2,.*max_steps (2) steps' "$tmp/n/runs.csv")" \
  "$(grep -c '^[0-9]*,[a-z]*,2,' "$tmp/n/runs.csv")"
expect_eq "the other runs finish" "$(grep -c '^[0-9]*,ok,100000,' "$tmp/n/runs.csv")" \
  "$(grep -c '^[0-9]*,[a-z]*,100000,' "$tmp/n/runs.csv")"
if grep -q ',ok,' "$tmp/n/runs.csv" && grep -q ',failed,' "$tmp/n/runs.csv"; then pass; else
  fail "expected numerically failed and ok runs"
fi

# --only K: run K alone, its full outputs, the same metrics as in the campaign
run mc $small --out "$tmp/o" --only 4
expect_status "--only" 0
expect_eq "--only row" "$(echo "$out" | sed -n 2p)" "$(sed -n 6p "$tmp/t1/runs.csv")"
if [ -s "$tmp/o/run-4/trajectory.csv" ] && [ -s "$tmp/o/run-4/events.csv" ]; then pass; else
  fail "--only wrote no outputs"
fi
run mc $small --out "$tmp/o" --only 6
expect_status "--only out of range" 2

# bad campaign files
printf 'scene: ../../../scenes/heatshield.yaml\nrun: 3\n' > "$tmp/b1.yaml"
cp "$tmp/b1.yaml" data/campaigns/.b1.yaml
run mc data/campaigns/.b1.yaml --out "$tmp/b"
rm -f data/campaigns/.b1.yaml
expect_status "unknown key" 2
expect_has "unknown key" "$err" ".b1.yaml:2:1: unknown key 'run' in the campaign (did you mean 'runs'"
printf 'scene: %s/../scenes/heatshield.yaml\ndispersions:\n  - {path: bodies.shield.inertia.mas, normal: {std: 1}}\n  - {path: bodies.shield.inertia.mass, normal: {mean: 300}}\n' "$PWD" > "$tmp/b2.yaml"
run mc "$tmp/b2.yaml" --out "$tmp/b"
expect_status "bad path" 2
expect_has "bad path" "$err" "b2.yaml:3:12: "
expect_has "bad path" "$err" "no 'mas' (did you mean 'mass'?)"
sed -i 3d "$tmp/b2.yaml"
run mc "$tmp/b2.yaml" --out "$tmp/b"
expect_status "no std" 2
expect_has "no std" "$err" "b2.yaml:3:"
# geometric clearance and a rate at a window: the shipped heat-shield campaign, 3 runs; the
# clearance of the collision shapes 1 s after the release is below the origins' distance (the
# shield's face is below its origin), and both are metres apart
run mc ../scenes/campaigns/heatshield_mc.yaml --runs 3 --out "$tmp/hs" --quiet
expect_status "heat-shield campaign" 0
check=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { x = $c["clearance_1s"]; o = $c["origin_distance_1s"]; r = $c["tipoff_rate_deg_s"];
    if (!(x > 1 && x < o && r >= 0 && r < 90)) print "bad row " NR ": " x " " o " " r }' "$tmp/hs/runs.csv")
expect_eq "clearance and tip-off rate columns" "$check" ""
printf 'scene: %s\nruns: 2\nmetrics:\n  - {name: r, final_rate: shield, after: release}\n' \
  "$(cd ../scenes && pwd)/heatshield.yaml" > "$tmp/b3.yaml"
run mc "$tmp/b3.yaml" --out "$tmp/b"
expect_status "after on final_rate" 2
expect_has "after on final_rate" "$err" "apply to min_distance, min_clearance, rate, pointing_error and peak_load only"
run mc
expect_status "no campaign" 2
run mc $small --threads 0
expect_status "--threads 0" 2
finish
