# view_display.sh: the viewer without a display exits at once with a clear message and status 1
# (before, SDL fell back to its offscreen driver and the viewer waited, invisible, for input);
# `hinge run` without a display, or with one that cannot be opened, runs headless (what
# `make run` does). Every command runs under a timeout: a hang is a failure, not a stuck test.
source "$(dirname "$0")/common.bash"

# a display number no X server listens on
bogus=:4711

trun() { out=$(timeout 20 "$@" 2>"$tmp/stderr"); status=$?; err=$(cat "$tmp/stderr"); }

trun env -u DISPLAY -u WAYLAND_DISPLAY "$hinge" view ../scenes/heatshield.yaml
expect_status "view without a display" 1
expect_has "view without a display" "$err" "hinge view: no display: neither DISPLAY nor WAYLAND_DISPLAY is set"
trun env -u DISPLAY -u WAYLAND_DISPLAY -u XDG_RUNTIME_DIR "$hinge" view ../scenes/heatshield.yaml
expect_status "view without a display or XDG_RUNTIME_DIR" 1
expect_has "view: SDL never probes" "$err" "no display"
case "$err" in *XDG_RUNTIME_DIR*) fail "SDL's XDG_RUNTIME_DIR complaint: $err" ;; *) pass ;; esac
trun env -u WAYLAND_DISPLAY DISPLAY=$bogus "$hinge" view ../scenes/heatshield.yaml
expect_status "view with a display that does not open" 1
expect_has "view with a display that does not open" "$err" "cannot open the display $bogus"

# hinge run as `make run` calls it: headless without a display, and when the display fails
trun env -u DISPLAY -u WAYLAND_DISPLAY "$hinge" run ../scenes/pendulum.yaml --out "$tmp/a" --quiet --no-plots
expect_status "run without a display" 0
trun env -u WAYLAND_DISPLAY DISPLAY=$bogus "$hinge" run ../scenes/pendulum.yaml --out "$tmp/b" --quiet --no-plots
expect_status "run with a display that does not open" 0
expect_has "run falls back" "$err" "running headless"
[ -s "$tmp/b/summary.txt" ] && pass || fail "run with a failed display wrote no summary"

finish
