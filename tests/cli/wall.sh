# wall.sh: `hinge run --max-wall` and a campaign's max_wall: a run far longer than the limit
# stops within about a second of it, with exit status 4, its summary saying "wall-time limit",
# complete CSV files and a checkpoint that --resume continues from.
source "$(dirname "$0")/common.bash"

start=$(date +%s.%N)
run run data/wall/long.yaml --headless --quiet --no-plots --out "$tmp/w" --max-wall 1
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
expect_status "--max-wall 1" 4
expect_has "--max-wall 1 message" "$err" "by the wall-time limit (1 s)"
# the run itself stops within microseconds; the rest is loading, writing and a loaded machine
if [ "$(echo "$elapsed < 3" | bc)" = 1 ]; then pass; else fail "--max-wall 1 took $elapsed s"; fi
expect_has "summary status" "$(grep '^status:' "$tmp/w/summary.txt")" "by the wall-time limit"
for f in trajectory.csv joints.csv; do
  if [ "$(tail -c 1 "$tmp/w/$f" | od -An -c | tr -d ' ')" = '\n' ]; then pass; else
    fail "$f does not end with a newline"
  fi
done
[ -s "$tmp/w/stop-state.txt" ] && pass || fail "no stop-state.txt"
t_stop=$(grep '^t ' "$tmp/w/stop-state.txt" | cut -d' ' -f2)
run run data/wall/long.yaml --headless --quiet --no-plots --out "$tmp/r" \
  --resume "$tmp/w/stop-state.txt" --t-end "$(echo "$t_stop + 0.01" | bc -l)"
expect_status "--resume stop-state.txt" 0
run run data/wall/long.yaml --max-wall -1
expect_status "--max-wall -1" 2

run mc data/wall/campaign.yaml --out "$tmp/mc" --quiet --no-plots --threads 1
expect_has "campaign run stopped" "$(cat "$tmp/mc/runs.csv")" "by the wall-time limit (0.3 s)"

finish
