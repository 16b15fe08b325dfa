#!/usr/bin/env bash
# render.sh: renders every image of the documentation again from the shipped scenes, with the
# hinge program of a build (default: build/hinge), offscreen: each image's command is the one
# its caption gives. Run from the repository's root after changing what the viewer draws:
#
#   bash docs/images/render.sh [HINGE]
#
# Viewer images come from scripts of timed input (docs/viewer.md, "Scripts"); a body to click is
# put at the middle of the view by tracking it (Tab), so no pixel depends on the camera's fit.
set -euo pipefail
hinge=$(realpath "${1:-build/hinge}")
out=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SDL_VIDEODRIVER=offscreen

# view SCENE NAME SCRIPT [OPTIONS...]: the viewer driven by SCRIPT (a here-document), its last
# screenshot into docs/images/NAME.png
view() {
  local scene=$1 name=$2 script=$3
  shift 3
  printf '%s\n' "$script" | sed "s|@OUT@|$tmp/$name.png|" > "$tmp/$name.txt"
  "$hinge" view "$scene" --offscreen --script "$tmp/$name.txt" --screenshots "$tmp" "$@" > /dev/null
  cp "$tmp/$name.png" "$out/$name.png"
  echo "$name.png"
}

# ---- hinge render ----
"$hinge" render scenes/heatshield.yaml --time 18 --size 800x450 --out "$out/heatshield.png" > /dev/null
"$hinge" render scenes/undock.yaml --time 30 --size 960x540 --out "$out/undock.png" > /dev/null
"$hinge" render scenes/humanoid.yaml --time 3 --overlays joints \
  --camera "eye=3.6,1.4,2.0 target=0,0,1.05 up=0,0,1 fov=38" --out "$out/humanoid.png" > /dev/null
"$hinge" render scenes/dock.yaml --time 9.72 --overlays markers,pairs,joints \
  --camera "eye=6,-7.5,5 target=0,0,0.8 up=0,0,1 fov=40" --out "$out/dock.png" > /dev/null
"$hinge" render scenes/probe_drogue.yaml --time 7.5 --size 960x540 --out "$out/contact_probe_drogue.png" > /dev/null
"$hinge" render tests/data/scenes/sensor_bus.yaml --time 0.2 --overlays sensors --size 960x540 \
  --camera "eye=2.4,-2.9,1.6 target=0,0.15,0.05 up=0,0,1 fov=36" --out "$out/viewer_sensors.png" > /dev/null
echo "heatshield.png undock.png humanoid.png dock.png contact_probe_drogue.png viewer_sensors.png"

# ---- the viewer ----
# dock: run at 4x past the capture (9.7 s), pause at 10 s, the strip plots
view scenes/dock.yaml viewer "0.0 key =
0.0 key =
0.0 key space
2.5 key space
2.6 key l
2.7 screenshot @OUT@
2.8 quit"
# the ADCS bus stepped to 0.1 s (output every 0.01 s)
view tests/data/scenes/adcs_bus.yaml viewer_control "$(for k in $(seq 1 10); do printf '0.%02d key Right\n' "$k"; done)
0.2 screenshot @OUT@
0.3 quit"
# freeze_thaw: two steps, the base (tracked, at the middle) clicked, a lock previewed
view scenes/freeze_thaw.yaml interact_preview "0.0 key Tab
0.1 key Right
0.2 key Right
0.3 click 640 360
0.4 key shift+L
0.5 screenshot @OUT@
0.6 quit"
# the command line: lock a and Tab
view scenes/freeze_thaw.yaml interact_cmdline "0.0 key Tab
0.1 key Right
0.2 click 640 360
0.3 type lock a
0.4 key Tab
0.5 screenshot @OUT@
0.6 quit"
# paused at the start, the base clicked and ] to a1; a1's slider dragged
view scenes/freeze_thaw.yaml interact_slider "0.0 key Tab
0.1 click 640 360
0.2 key ]
0.3 mousedown 1117 634
0.4 mousemove 1180 634
0.5 screenshot @OUT@
0.6 mouseup
0.7 quit"
# the base selected, shift+G four times (its fourth DoF, a translation) and down
view scenes/freeze_thaw.yaml interact_ghosts "0.0 key Tab
0.1 click 640 360
0.2 key shift+G
0.3 key shift+G
0.4 key shift+G
0.5 key shift+G
0.6 key Down
0.7 screenshot @OUT@
0.8 quit"
# dock: the gauge (b), run at 4x to 5.3 s; then the dock by command
view scenes/dock.yaml interact_gauge "0.0 key b
0.0 key =
0.0 key =
0.0 key space
1.325 key space
1.4 screenshot @OUT@
1.5 quit"
view scenes/dock.yaml interact_dock "0.0 key b
0.0 key =
0.0 key =
0.0 key space
1.325 key space
1.4 type attach target_port chaser_port
1.5 key Return
1.6 screenshot @OUT@
1.7 quit"
# ghosts along a base twist read from a file, down once
view scenes/freeze_thaw.yaml interact_ghost_file "0.0 key Down
0.1 screenshot @OUT@
0.2 quit" --ghost scenes/freeze_thaw_yaw.ghost
