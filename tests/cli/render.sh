# render.sh: `hinge render` and `hinge view` on the command line, offscreen (no display needed):
# frames and single images are written, renders are deterministic, a headless run with --headless
# writes no viewer output, bad options and scenes give status 2 with a message.
source "$(dirname "$0")/common.bash"
export SDL_VIDEODRIVER=offscreen

# ---- frames and single images ----
run render ../scenes/dock.yaml --out "$tmp/frames" --size 160x90 --fps 4 --t-start 1 --t-end 2 --no-video
expect_status "frames" 0
n=$(ls "$tmp/frames" | grep -c '^frame-[0-9]\{5\}\.png$')
expect_eq "frames: 1 to 2 s at 4 fps" "$n" "5"
run render ../scenes/undock.yaml --time 3 --size 200x120 --out "$tmp/a.png"
expect_status "one frame" 0
run render ../scenes/undock.yaml --time 3 --size 200x120 --out "$tmp/b.png"
if cmp -s "$tmp/a.png" "$tmp/b.png"; then pass; else fail "two renders of the same frame differ"; fi
run render ../scenes/undock.yaml --time 3 --size 200x120 --out "$tmp/c.png" --overlays none \
    --camera "eye=6771010,-5,3 target=6771000,0,1 up=0,0,1 fov=50"
expect_status "camera, no overlays" 0
if cmp -s "$tmp/a.png" "$tmp/c.png"; then fail "another camera gives the same image"; else pass; fi
if [ -s "$tmp/c.png" ]; then pass; else fail "no image"; fi

# ---- --commands: a command file acts on the rendered run as on hinge run's ----
printf '0.5 lock shoulder elbow\n' > "$tmp/lock.cmd"
run render ../scenes/pendulum.yaml --time 2 --size 200x120 --overlays none --out "$tmp/locked.png" \
    --commands "$tmp/lock.cmd"
expect_status "--commands" 0
run render ../scenes/pendulum.yaml --time 0.5 --size 200x120 --overlays none --out "$tmp/at_lock.png"
run render ../scenes/pendulum.yaml --time 2 --size 200x120 --overlays none --out "$tmp/swinging.png"
# locked at 0.5 s, the pendulum at 2 s is where it was at 0.5 s, not where it swings to
if cmp -s "$tmp/locked.png" "$tmp/at_lock.png"; then pass; else fail "--commands: not locked at 0.5 s"; fi
if cmp -s "$tmp/locked.png" "$tmp/swinging.png"; then fail "--commands: no effect"; else pass; fi
printf '0.5 lock nowhere\n' > "$tmp/bad.cmd"
run render ../scenes/pendulum.yaml --time 2 --out "$tmp/x.png" --commands "$tmp/bad.cmd"
expect_status "--commands: unknown joint" 2
expect_has "--commands: unknown joint" "$err" "bad.cmd:1:"
run render --help
expect_has "render help: --commands" "$out" "--commands FILE"

# ---- errors ----
run render ../scenes/dock.yaml --time 1
expect_status "no --out" 2
expect_has "no --out" "$err" "--out is needed"
run render ../scenes/dock.yaml --time 1 --out "$tmp/x.png" --camera "eye=1,2"
expect_status "bad camera" 2
expect_has "bad camera" "$err" "eye=1,2: expected three numbers X,Y,Z"
run render ../scenes/dock.yaml --time 1 --out "$tmp/x.png" --overlays frames,torques
expect_status "bad overlay" 2
expect_has "bad overlay" "$err" "unknown overlay 'torques'"
run render ../scenes/dock.yaml --time 99 --out "$tmp/x.png"
expect_status "time outside the scene" 2
expect_has "time outside the scene" "$err" "outside the scene's 0 .. 20"
run render ../scenes/dock.yaml --size 10x10 --time 1 --out "$tmp/x.png"
expect_status "bad size" 2
printf 'bodies:\n  - name: a\n    jiont: free\n' > "$tmp/broken.yaml"
run render "$tmp/broken.yaml" --time 0 --out "$tmp/x.png"
expect_status "broken scene" 2
expect_has "broken scene" "$err" "broken.yaml:3:5: unknown key 'jiont'"

# ---- video: video.mp4 of the frames when ffmpeg is installed (a folder name with a quote too) ----
if command -v ffmpeg > /dev/null && command -v ffprobe > /dev/null; then
  run render ../scenes/dock.yaml --out "$tmp/it's video" --size 160x90 --fps 4 --t-start 1 --t-end 3
  expect_status "video" 0
  n=$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 \
      "$tmp/it's video/video.mp4" 2>&1)
  expect_eq "video: one frame per PNG (1 to 3 s at 4 fps)" "$n" "9"
else
  echo "# ffmpeg not installed: video.mp4 not tested"
fi
# ---- the viewer, scripted ----
# ghosts along a direction from a file; a bad file is FILE:LINE and status 2
printf '0.05 quit\n' > "$tmp/quit.txt"
run view ../scenes/freeze_thaw.yaml --offscreen --script "$tmp/quit.txt" --ghost ../scenes/freeze_thaw_yaw.ghost
expect_status "view --ghost" 0
printf '0 0 1\n0 0 x\n' > "$tmp/bad.ghost"
run view ../scenes/freeze_thaw.yaml --offscreen --script "$tmp/quit.txt" --ghost "$tmp/bad.ghost"
expect_status "bad ghost file" 2
expect_has "bad ghost file" "$err" "bad.ghost:2: expected a number, got 'x'"
printf '0.1 screenshot %s\n0.2 quit\n' "$tmp/shot.png" > "$tmp/script.txt"
run view ../scenes/pendulum.yaml --offscreen --script "$tmp/script.txt" --size 320x200
expect_status "view, scripted" 0
if [ -s "$tmp/shot.png" ]; then pass; else fail "view: no screenshot"; fi
printf '0.1 key NoSuchKey\n' > "$tmp/bad.txt"
run view ../scenes/pendulum.yaml --offscreen --script "$tmp/bad.txt"
expect_status "bad script" 2
expect_has "bad script" "$err" "bad.txt:1: expected 'TIME key NAME'"
# a run with --headless never opens the viewer, even with a script given
run run ../scenes/pendulum.yaml --headless --quiet --no-plots --out "$tmp/run" --t-end 0.1 --script "$tmp/script.txt"
expect_status "headless run" 0
if [ -s "$tmp/run/trajectory.csv" ]; then pass; else fail "headless run: no trajectory"; fi

finish
