#!/usr/bin/env bash
# run.sh BUILD SECONDS TARGET...: each libFuzzer harness of BUILD/tests/fuzz for SECONDS under
# ASan + UBSan, from a corpus seeded with tests/fuzz/seeds/TARGET and regressions/TARGET (copied
# into BUILD/corpus/TARGET, so the source tree is not written). Prints each target's executions;
# a finding (crash, sanitizer report, leak, timeout over 10 s, 2 GB of memory) stops with its
# reproducer in BUILD/findings/ and exit status 1.
set -uo pipefail
build=$1 seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build/findings"
status=0
for t in "$@"; do
  corpus=$build/corpus/$t
  mkdir -p "$corpus"
  for d in "$here/seeds/$t" "$here/regressions/$t"; do
    [ -d "$d" ] && cp "$d"/* "$corpus"/ 2>/dev/null
  done
  log=$build/fuzz_$t.log
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
    "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -close_fd_mask=3 -print_final_stats=1 \
    -artifact_prefix="$build/findings/$t-" "$corpus" > "$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  added=$(sed -n 's/^stat::new_units_added: *//p' "$log")
  if [ $rc -eq 0 ]; then
    echo "fuzz_$t: ${execs:-?} executions in $seconds s, ${added:-?} new inputs, no finding"
  else
    echo "fuzz_$t: FINDING (exit $rc); the log:"
    grep -v '^#' "$log" | tail -40
    status=1
  fi
done
exit $status
