# run.sh: `hinge run`: usage and exit statuses, every shipped scene headless to its end with its
# outputs, the default scene and output folder, checkpoint/resume bit for bit, and the loader's
# messages for scenes it rejects.
source "$(dirname "$0")/common.bash"
scenes=../scenes

# field N of the last line of a CSV file
last_field() { tail -n 1 "$1" | cut -d, -f"$2"; }

# ---- usage ----
run run --help
expect_status "run --help" 0
expect_has "run --help" "$out" "usage: hinge run [SCENE] [--t-end T] [--out DIR] [--headless]"
run --help
expect_has "hinge --help lists run" "$out" "  hinge run [SCENE]                  run a scene"
run run "$scenes/dock.yaml" --wobble
expect_status "unknown option" 2
expect_has "unknown option" "$err" "hinge run: unknown option '--wobble'"
expect_has "unknown option prints usage" "$err" "usage: hinge run"
run run "$scenes/dock.yaml" --t-end
expect_status "--t-end without a value" 2
run run "$scenes/dock.yaml" --rtol -1
expect_status "negative --rtol" 2
expect_has "negative --rtol" "$err" "'-1' is not a positive number"
run run "$scenes/dock.yaml" --method euler
expect_status "unknown method" 2
expect_has "unknown method" "$err" "unknown method 'euler'"
run run "$scenes/dock.yaml" "$scenes/pendulum.yaml"
expect_status "two scenes" 2
run run "$scenes/dock.yaml" --resume x.txt --rtol 1e-9
expect_status "--resume with --rtol" 2

# ---- scenes the loader rejects: its message, status 2 ----
run run data/no_such_scene.yaml --out "$tmp/none"
expect_status "missing scene" 2
expect_has "missing scene" "$err" "hinge: data/no_such_scene.yaml"
for bad in data/scenes_bad/*.yaml; do
  [ -e "$bad" ] || continue
  run run "$bad" --out "$tmp/bad" --headless --quiet
  expect_status "$bad" 2
  expect_has "$bad names itself" "$err" "hinge: $bad:"
done

# ---- every shipped scene, headless, to its end ----
for scene in "$scenes"/*.yaml; do
  name=$(basename "$scene" .yaml)
  dir="$tmp/$name"
  run run "$scene" --out "$dir" --headless
  expect_status "$name runs" 0
  expect_eq "$name: no progress bar when stderr is not a terminal" "$err" ""
  expect_has "$name reports" "$out" "outputs in $dir/"
  for f in trajectory.csv events.csv summary.txt energy.png momentum.png; do
    if [ -s "$dir/$f" ]; then pass; else fail "$name: no $f"; fi
  done
  if is_png "$dir/energy.png"; then pass; else fail "$name: energy.png is not a PNG"; fi
  expect_has "$name completed" "$(cat "$dir/summary.txt")" "status: completed"
  end=$(grep '^time:' "$dir/summary.txt" | sed 's/.*(end \([^ ]*\) s)/\1/')
  expect_near "$name ends at its end time" "$(last_field "$dir/trajectory.csv" 1)" "$end"
done
expect_has "heatshield plots the clearance" "$(ls "$tmp/heatshield")" "separation.png"
expect_has "undock plots the loads" "$(ls "$tmp/undock")" "loads.png"
run_events=$(tail -n +2 "$tmp/freeze_thaw/events.csv" | wc -l)
expect_eq "freeze_thaw logs its events" "$run_events" "7"
expect_has "dock logs the capture" "$(cat "$tmp/dock/events.csv")" \
  ",\"capture\",\"dock chaser_port to target_port"
expect_has "release logs the add" "$(cat "$tmp/release/events.csv")" ",\"release\",\"add probe;"
expect_has "release books the probe's energy" "$(cat "$tmp/release/summary.txt")" \
  "energy_added_by_events: 5.12"

# ---- options ----
run run "$scenes/pendulum.yaml" --out "$tmp/short" --t-end 0.5 --rtol 1e-9 --method cvode-bdf \
  --no-plots --quiet
expect_status "--t-end --rtol --method" 0
expect_eq "--quiet prints nothing" "$out" ""
expect_eq "--t-end" "$(last_field "$tmp/short/trajectory.csv" 1)" "0.5"
expect_has "--method" "$(cat "$tmp/short/summary.txt")" "method: cvode-bdf"
expect_has "--rtol" "$(cat "$tmp/short/summary.txt")" "rtol: 1e-09"
if [ -e "$tmp/short/energy.png" ]; then fail "--no-plots wrote a plot"; else pass; fi

# the default scene (heatshield) and the default folder out/<scene name>/
mkdir -p "$tmp/cwd"
out=$(cd "$tmp/cwd" && "$hinge" run --t-end 1 --headless --quiet 2>"$tmp/stderr")
status=$?
expect_status "default scene" 0
if [ -s "$tmp/cwd/out/heatshield/trajectory.csv" ]; then
  pass
else
  fail "default scene: no out/heatshield/trajectory.csv"
fi

# ---- checkpoint and resume, bit for bit ----
run run "$scenes/undock.yaml" --out "$tmp/ck" --checkpoint-every 4 --no-plots --quiet
expect_status "checkpoints" 0
if [ -s "$tmp/ck/checkpoint-0003.txt" ]; then pass; else fail "no checkpoint-0003.txt"; fi
expect_has "checkpoint format" "$(head -n 1 "$tmp/ck/checkpoint-0003.txt")" \
  "hinge-checkpoint 2"
run run "$scenes/undock.yaml" --out "$tmp/rs" --resume "$tmp/ck/checkpoint-0003.txt" \
  --no-plots --quiet
expect_status "resume" 0
rows=$(($(wc -l < "$tmp/rs/trajectory.csv") - 1))
expect_eq "resumed rows" "$rows" "560"
if cmp -s <(tail -n "$rows" "$tmp/ck/trajectory.csv") \
  <(tail -n "$rows" "$tmp/rs/trajectory.csv"); then
  pass
else
  fail "the resumed trajectory differs from the uninterrupted one"
fi
run run "$scenes/dock.yaml" --out "$tmp/rs2" --resume "$tmp/ck/checkpoint-0003.txt" --quiet
expect_status "resume of another scene" 2
expect_has "resume of another scene" "$err" "the checkpoint is of scene '../scenes/undock.yaml'"
run run "$scenes/undock.yaml" --out "$tmp/rs3" --resume "$tmp/ck/no_such_checkpoint.txt" --quiet
expect_status "missing checkpoint" 2

# (numerical failures: outputs.sh)

# ---- an output folder that cannot be made ----
touch "$tmp/file"
run run "$scenes/dock.yaml" --out "$tmp/file/sub" --quiet
expect_status "bad output folder" 1
expect_has "bad output folder" "$err" "cannot create the output folder"

finish
