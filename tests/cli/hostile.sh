# hostile.sh: hostile inputs end in a clean error (status 2, "file: ..."), within seconds and in
# bounded memory: meshes that crash, swell or hang assimp 5.2 (read in a process of its own,
# sim/readers/mesh_assimp.c), and /dev/zero (an endless file) or an endless line wherever hinge
# reads a file or standard input (sim/readers/readfile.h). Every run here is held to 4 GB of
# address space and killed after 60 s, so that without the fixes a check fails instead of taking
# the machine's memory or never ending.
source "$(dirname "$0")/common.bash"

# bounded ARGS...: runs hinge under the limits above with the caller's standard input; sets out,
# err, status and secs (wall time)
bounded() {
  local t0 t1
  t0=$(date +%s.%N)
  # (a sanitizer build cannot run under an address-space cap: ASan reserves terabytes of shadow
  # memory; there the mesh reader process still holds its own 1 GiB cap, and the time bound stays)
  local cap=4194304
  [ "${HINGE_SANITIZED:-0}" = 1 ] && cap=unlimited
  out=$( (ulimit -v "$cap"; exec timeout -s KILL 60 "$hinge" "$@") 2>"$tmp/stderr")
  status=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  err=$(cat "$tmp/stderr")
}

# expect_quick NAME: the last run took under 10 s (about 1 s on an idle machine: the reader
# process reaches its 1 GiB limit; 10 s leaves room for a loaded one)
expect_quick() {
  if awk -v s="$secs" 'BEGIN { exit !(s < 10) }'; then pass; else fail "$1: took $secs s"; fi
}

# scene MESH: a scene whose one body takes its inertia from MESH, in $tmp/mesh.yaml
scene() {
  printf 'bodies:\n  - name: block\n    joint: {type: free}\n    inertia: {mesh: %s, density: 1000}\ngravity: [0, 0, 0]\n' \
    "$1" > "$tmp/mesh.yaml"
}

# ---- meshes that assimp cannot read safely ----
mesh=$PWD/data/meshes_test
for case in "hostile_float_array_no_count.dae|assimp crashed: segmentation fault" \
            "hostile_bad_p_index.dae|out of memory: assimp needed more than 1024 MiB" \
            "hostile_no_end_header.ply|PLY header without an end_header line in its first 1 MiB"; do
  file=${case%%|*} why=${case#*|}
  scene "$mesh/$file"
  bounded run "$tmp/mesh.yaml" --headless --quiet --no-plots --t-end 0.1 --out "$tmp/o"
  expect_status "$file" 2
  expect_has "$file" "$err" "$file: cannot read mesh ($why)"
  expect_quick "$file"
done
# a good Collada mesh still loads
scene "$mesh/tetra.dae"
bounded run "$tmp/mesh.yaml" --headless --quiet --no-plots --t-end 0.1 --out "$tmp/o"
expect_status "tetra.dae" 0

# ---- /dev/zero wherever a file is read ----
for ext in obj stl dae; do
  ln -s /dev/zero "$tmp/zero.$ext"
  scene "$tmp/zero.$ext"
  bounded run "$tmp/mesh.yaml" --headless --quiet --no-plots --t-end 0.1 --out "$tmp/o"
  expect_status "/dev/zero as a .$ext mesh" 2
  expect_has "/dev/zero as a .$ext mesh" "$err" "zero.$ext: not a regular file (a character device)"
  expect_quick "/dev/zero as a .$ext mesh"
done
bounded run ../scenes/pendulum.yaml --commands /dev/zero --headless --quiet --no-plots --out "$tmp/o"
expect_status "/dev/zero as the command file" 2
expect_has "/dev/zero as the command file" "$err" "/dev/zero: not a regular file (a character device)"
expect_quick "/dev/zero as the command file"
bounded run ../scenes/pendulum.yaml --resume /dev/zero --headless --quiet --no-plots --out "$tmp/o"
expect_status "/dev/zero as the checkpoint" 2
expect_has "/dev/zero as the checkpoint" "$err" "/dev/zero: not a regular file (a character device)"
expect_quick "/dev/zero as the checkpoint"
bounded run /dev/zero --headless --quiet --no-plots --out "$tmp/o"
expect_status "/dev/zero as the scene" 2
expect_has "/dev/zero as the scene" "$err" "/dev/zero: not a regular file (a character device)"
ln -s /dev/zero "$tmp/zero.urdf"
bounded dynamics "$tmp/zero.urdf" info
expect_status "/dev/zero as the URDF model" 2
expect_has "/dev/zero as the URDF model" "$err" "zero.urdf: not a regular file (a character device)"
mkfifo "$tmp/fifo.yaml"
bounded run "$tmp/fifo.yaml" --headless --quiet --no-plots --out "$tmp/o"
expect_status "a FIFO as the scene" 2
expect_has "a FIFO as the scene" "$err" "fifo.yaml: not a regular file (a pipe)"

# the viewer's script, ghost and modes files (offscreen: no display needed)
for opt in "--script|the script" "--ghost|the ghost direction" "--mode|the modes"; do
  flag=${opt%%|*} what=${opt#*|}
  arg=/dev/zero
  [ "$flag" = --mode ] && arg=/dev/zero:1
  # (ASAN_OPTIONS: in a sanitizer build, Mesa's GL driver keeps an allocation until exit, which
  # LeakSanitizer would report with exit status 1; cli_render runs the viewer the same way)
  SDL_VIDEODRIVER=offscreen ASAN_OPTIONS=detect_leaks=0 \
    bounded view data/scenes/every_joint_tree.yaml --offscreen "$flag" "$arg"
  expect_status "/dev/zero as view $flag" 2
  expect_has "/dev/zero as view $flag" "$err" "$what: /dev/zero: not a regular file (a character device)"
  expect_quick "/dev/zero as view $flag"
done

# ---- an endless line on standard input ----
bounded dynamics data/pendulum.urdf fd < <(tr '\0' 1 < /dev/zero)
expect_status "an endless stdin line" 2
expect_has "an endless stdin line" "$err" "hinge: <stdin>:1: line longer than 1048576 bytes"
expect_quick "an endless stdin line"
# a line just below the limit is read (and refused for what it holds, not for its length)
bounded dynamics data/pendulum.urdf fd < <(head -c 1048000 /dev/zero | tr '\0' 1; echo)
expect_status "a long stdin line" 2
expect_has "a long stdin line" "$err" "<stdin>:1: number 1"

finish
