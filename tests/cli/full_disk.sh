# full_disk.sh: `hinge run` and `hinge mc` on a file system that fills up (a 200 KiB tmpfs): every
# write is checked, the first failure names its file and the reason, the exit status is not 0,
# and no file claims completeness: summary.txt is absent or says "status: failed: disk full",
# every PNG left is whole (signature and IEND chunk), runs.csv and summary.txt of the campaign
# are whole or absent. Mounting needs root (CI runs as root): without it the test is skipped
# (exit status 77, CTest's SKIP_RETURN_CODE).
source "$(dirname "$0")/common.bash"

disk="$tmp/disk"
mkdir -p "$disk"
if ! mount -t tmpfs -o size=200k tmpfs "$disk" 2> /dev/null; then
  echo "skipped: cannot mount a tmpfs (needs root)"
  exit 77
fi
trap 'umount "$disk" 2> /dev/null; rm -rf "$tmp"' EXIT

# 1 when a PNG is whole: the signature, then the IEND chunk at its end
png_whole() {
  is_png "$1" && [ "$(tail -c 12 "$1" | od -An -tx1 | tr -d ' \n')" = "0000000049454e44ae426082" ]
}
# no PNG in folder $1 is cut
pngs_whole() {
  for p in "$1"/*.png; do
    [ -e "$p" ] || continue
    if png_whole "$p"; then pass; else fail "$2: $(basename "$p") is cut ($(wc -c < "$p") bytes)"; fi
  done
}
refill() {
  umount "$disk" && mount -t tmpfs -o size=200k tmpfs "$disk" || exit 1
}

# a run whose rows fill the disk (freeze_thaw writes ~1 MB)
run run ../scenes/freeze_thaw.yaml --out "$disk" --headless --quiet
if [ "$status" != 0 ]; then pass; else fail "hinge run on a full disk exited 0"; fi
expect_has "run: the file and the reason" "$err" "cannot write $disk/"
expect_has "run: the reason" "$err" "No space left on device"
if [ ! -e "$disk/summary.txt" ] || grep -q "^status: failed: disk full" "$disk/summary.txt"; then
  pass
else
  fail "run: summary.txt says $(grep status: "$disk/summary.txt")"
fi
pngs_whole "$disk" "run"

# a run whose CSV files fit (76 KiB of 4 KiB pages in the 100 KiB left) but not its plots: the
# disk fills at the end; the summary, written last, fits and says so
refill
head -c 100000 /dev/zero > "$disk/ballast"
run run ../scenes/pendulum.yaml --t-end 1 --out "$disk" --headless --quiet
expect_status "hinge run filling the disk with its plots" 1
expect_has "run at the end: the file" "$err" "cannot write $disk/energy.png: No space left on device"
expect_eq "run at the end: the status" "$(grep "^status:" "$disk/summary.txt")" \
  "status: failed: disk full (cannot write $disk/energy.png: No space left on device (the PNG is incomplete))"
expect_eq "run at the end: every row" "$(wc -l < "$disk/trajectory.csv")" 102
pngs_whole "$disk" "run at the end"
if [ ! -e "$disk/energy.png" ]; then pass; else fail "run at the end: energy.png left"; fi

# a campaign whose plots fill the disk: exit status 1 with the PNG's name; no PNG cut
refill
run mc ../scenes/campaigns/heatshield_mc.yaml --runs 20 --out "$disk" --threads 2 --quiet
expect_status "mc on a full disk" 1
expect_has "mc: the file and the reason" "$err" "cannot write $disk/"
expect_has "mc: the reason" "$err" "No space left on device"
pngs_whole "$disk" "mc"
# what is left of runs.csv is whole: a header and one line per run, or nothing
if [ ! -e "$disk/runs.csv" ] || [ "$(wc -l < "$disk/runs.csv")" = 21 ]; then pass; else
  fail "mc: runs.csv has $(wc -l < "$disk/runs.csv") lines"
fi
# hinge linearize on a disk that fills with its files: the file and the reason, exit 1, no
# summary.txt (written last, only when the rest is whole; an earlier run's is removed), no PNG or
# CSV cut (each is written beside its name and renamed when whole)
refill
run linearize data/scenes/every_joint_tree.yaml --out "$disk/lin" --no-plots
expect_status "linearize" 0
# the disk filled to its last 8 KiB: the new files do not fit, the old ones stay as they were
head -c $(( ($(df -k --output=avail "$disk" | tail -1) - 8) * 1024 )) /dev/zero > "$disk/ballast"
run linearize data/scenes/every_joint_tree.yaml --out "$disk/lin" --no-plots
if [ "$status" != 0 ]; then pass; else fail "linearize on a full disk exited 0"; fi
expect_has "linearize: the file and the reason" "$err" "cannot write $disk/lin/"
expect_has "linearize: the reason" "$err" "No space left on device"
if [ ! -e "$disk/lin/summary.txt" ]; then pass; else fail "linearize: summary.txt left on a full disk"; fi
pngs_whole "$disk/lin" "linearize"
for f in "$disk"/lin/*.csv; do
  # each CSV left is whole: its last byte is the newline of its last row
  if [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ]; then pass; else fail "linearize: $f is cut"; fi
done
rm -f "$disk/ballast"

for f in "$disk"/*.tmp-*; do
  if [ -e "$f" ]; then fail "a temporary file is left: $f"; else pass; fi
done

finish
