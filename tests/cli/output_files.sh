# output_files.sh: how runs and campaigns write their files:
#   - names quoted in CSV as RFC 4180 says: a body, joint or metric name with a comma, a quote or
#     a line break keeps every header one row with one column per value, read back by Python's
#     csv module (trajectory.csv, joints.csv, events.csv, runs.csv);
#   - links planted in the output folder under the outputs' names (campaign-id.txt, runs.csv,
#     summary.txt, metric-*.png; a run's trajectory.csv, summary.txt, energy.png) are replaced
#     by the new files, and the files they point to stay as they were; a journal that is a link
#     is refused, never appended through.
source "$(dirname "$0")/common.bash"

# ---- CSV quoting ----
sed -e 's/name: upper/name: "up,per"/' -e 's/parent: upper/parent: "up,per"/' \
  -e 's/name: shoulder/name: "sho\\"ul,der"/' -e 's/name: elbow/name: "el\\nbow"/' \
  -e 's/end: 10/end: 0.2/' ../scenes/pendulum.yaml > "$tmp/names.yaml"
run run "$tmp/names.yaml" --out "$tmp/names" --headless --quiet --no-plots
expect_status "names with commas, quotes and line breaks" 0
# every row as wide as its header, and the names read back
check=$(python3 - "$tmp/names" << 'PY'
import csv, sys
d = sys.argv[1]
for name in ("trajectory.csv", "joints.csv", "events.csv"):
    with open(f"{d}/{name}", newline="") as f:
        rows = list(csv.reader(f))
    widths = {len(r) for r in rows[1:]}
    if widths - {len(rows[0])}:
        print(f"{name}: header of {len(rows[0])} columns, rows of {sorted(widths)}")
with open(f"{d}/trajectory.csv", newline="") as f:
    head = next(csv.reader(f))
for col in ("up,per.x", 'sho"ul,der.q.angle', "el\nbow.v.rate"):
    if col not in head:
        print(f"trajectory.csv: no column {col!r}")
with open(f"{d}/joints.csv", newline="") as f:
    rows = list(csv.reader(f))
if {r[1] for r in rows[1:]} != {'sho"ul,der', "el\nbow"}:
    print(f"joints.csv: joints {sorted({r[1] for r in rows[1:]})}")
PY
)
expect_eq "CSV read back" "$check" ""

# a campaign whose metric names hold a comma and a quote
cat > "$tmp/names_mc.yaml" << EOF2
scene: $PWD/../scenes/heatshield.yaml
runs: 2
seed: 7
t_end: 17
dispersions:
  - {path: forces.pushoff_1.stiffness, normal: {std: 1800}}
metrics:
  - {name: "t,release", event_time: release}
  - {name: 'shield "rate"', final_rate: shield}
EOF2
run mc "$tmp/names_mc.yaml" --out "$tmp/names_mc" --quiet --no-plots
expect_status "campaign with quoted names" 0
check=$(python3 - "$tmp/names_mc/runs.csv" << 'PY'
import csv, sys
with open(sys.argv[1], newline="") as f:
    rows = list(csv.reader(f))
head = rows[0]
if head != ["run", "status", "forces.pushoff_1.stiffness", "t,release", 'shield "rate"', "error"]:
    print(f"header {head}")
if {len(r) for r in rows[1:]} != {len(head)}:
    print(f"rows of {sorted({len(r) for r in rows[1:]})} columns")
PY
)
expect_eq "runs.csv read back" "$check" ""

# ---- links planted in the output folder ----
small=data/campaigns/small.yaml
mkdir -p "$tmp/links" "$tmp/victims"
for f in campaign-id.txt runs.csv summary.txt metric-t_release.png; do
  echo "not to be overwritten" > "$tmp/victims/$f"
  ln -s "$tmp/victims/$f" "$tmp/links/$f"
done
run mc $small --out "$tmp/links" --quiet
expect_status "mc with planted links" 0
for f in campaign-id.txt runs.csv summary.txt metric-t_release.png; do
  expect_eq "mc: $f's target" "$(cat "$tmp/victims/$f")" "not to be overwritten"
  if [ -f "$tmp/links/$f" ] && [ ! -L "$tmp/links/$f" ]; then pass; else fail "mc: $f is not a new file"; fi
done
expect_eq "runs.csv written" "$(wc -l < "$tmp/links/runs.csv")" 7
# a journal that is a link: refused on --resume (the fresh start removes old journals)
echo "not to be overwritten" > "$tmp/victims/journal.csv"
rm "$tmp/links/journal.csv"
ln -s "$tmp/victims/journal.csv" "$tmp/links/journal.csv"
run mc $small --out "$tmp/links" --resume --quiet
if [ "$status" != 0 ]; then pass; else fail "mc --resume appended to a journal that is a link"; fi
expect_has "journal refused with the reason" "$err" "journal.csv: Too many levels of symbolic links"
expect_eq "journal's target" "$(cat "$tmp/victims/journal.csv")" "not to be overwritten"

# one run's outputs (mc --only writes them without clearing the folder first)
mkdir -p "$tmp/only/run-1"
for f in trajectory.csv summary.txt energy.png; do
  echo "not to be overwritten" > "$tmp/victims/run-$f"
  ln -s "$tmp/victims/run-$f" "$tmp/only/run-1/$f"
done
run mc $small --out "$tmp/only" --only 1
expect_status "mc --only with planted links" 0
for f in trajectory.csv summary.txt energy.png; do
  expect_eq "run: $f's target" "$(cat "$tmp/victims/run-$f")" "not to be overwritten"
  if [ -f "$tmp/only/run-1/$f" ] && [ ! -L "$tmp/only/run-1/$f" ]; then pass; else
    fail "run: $f is not a new file"
  fi
done

# a temporary left by a run killed while writing summary.txt is cleared by the next run; a file
# of another name is not
mkdir -p "$tmp/left"
echo x > "$tmp/left/summary.txt.tmp-AbC123"
echo x > "$tmp/left/summary.txt.tmp-notmine"
run run ../scenes/pendulum.yaml --t-end 0.1 --out "$tmp/left" --headless --quiet --no-plots
expect_status "run after a killed one" 0
if [ ! -e "$tmp/left/summary.txt.tmp-AbC123" ]; then pass; else fail "the temporary is left"; fi
if [ -e "$tmp/left/summary.txt.tmp-notmine" ]; then pass; else fail "another file was removed"; fi

finish
