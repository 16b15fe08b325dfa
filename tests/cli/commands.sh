# commands.sh: `hinge run --commands FILE`: a command file does exactly what the same actions
# written as scene events do (byte-identical trajectory.csv, the same events.csv but for the
# event names), and bad command files give FILE:LINE and exit status 2.
source "$(dirname "$0")/common.bash"

# the freeze_thaw scene without its events, and its events as commands
sed '/^events:/,/^integrator:/{/^integrator:/!d}' ../scenes/freeze_thaw.yaml > "$tmp/noev.yaml"
run run ../scenes/freeze_thaw.yaml --out "$tmp/events" --headless --quiet --no-plots
expect_status "the scene with its events" 0
run run "$tmp/noev.yaml" --commands data/commands/freeze_thaw.txt --out "$tmp/cmds" --headless \
  --quiet --no-plots
expect_status "the scene with a command file" 0
if cmp -s "$tmp/events/trajectory.csv" "$tmp/cmds/trajectory.csv"; then pass; else
  fail "command file and scene events: trajectory.csv differs"
fi
expect_eq "the same events (names aside)" \
  "$(sed 's/^\([^,]*\),"[^"]*",/\1,/' "$tmp/cmds/events.csv")" \
  "$(sed 's/^\([^,]*\),"[^"]*",/\1,/' "$tmp/events/events.csv")"
expect_has "a command's name is its text" "$(cat "$tmp/cmds/events.csv")" ',"lock b2 c1","joint b2 locked; joint c1 locked"'

# bad command files: FILE:LINE: message, status 2
printf '1 lock a1\n2 lok a2\n' > "$tmp/bad1.txt"
run run "$tmp/noev.yaml" --commands "$tmp/bad1.txt" --out "$tmp/bad" --headless --quiet
expect_status "unknown action" 2
expect_has "unknown action" "$err" "bad1.txt:2: unknown action 'lok' (did you mean 'lock')"
printf '# comment\n\n3 free a9\n' > "$tmp/bad2.txt"
run run "$tmp/noev.yaml" --commands "$tmp/bad2.txt" --out "$tmp/bad" --headless --quiet
expect_status "unknown joint" 2
expect_has "unknown joint" "$err" "bad2.txt:3: unknown joint 'a9'"
run run "$tmp/noev.yaml" --commands "$tmp/none.txt" --out "$tmp/bad" --headless --quiet
expect_status "missing command file" 2
expect_has "missing command file" "$err" "none.txt: cannot open"
# what a run does not do is said, on the console and in events.csv: a second detach of a body
# already on its own is skipped, a command after the end is dropped (a refusal)
printf '1 detach c1\n2 detach c1\n99 lock a1\n' > "$tmp/late.txt"
run run "$tmp/noev.yaml" --commands "$tmp/late.txt" --out "$tmp/late" --headless --quiet --no-plots
expect_status "late and repeated commands" 0
expect_has "second detach skipped (events.csv)" "$(cat "$tmp/late/events.csv")" \
  '2,"detach c1","detach c1: already detached, skipped"'
expect_has "second detach skipped (console)" "$err" \
  "hinge: t = 2 s: detach c1: detach c1: already detached, skipped"
expect_has "late command dropped (events.csv)" "$(cat "$tmp/late/events.csv")" \
  '10,"lock a1","REFUSED: dropped, its time 99 s is after the end of the run (10 s)"'
expect_has "late command dropped (console)" "$err" \
  "hinge: t = 10 s: lock a1: REFUSED: dropped, its time 99 s is after the end of the run (10 s)"
expect_has "late command counted" "$(cat "$tmp/late/summary.txt")" "refused_actions: 1"
finish
