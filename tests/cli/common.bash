# common.bash: helpers for the command-line tests, sourced by tests/cli/*.sh (not a test itself).
# Each script runs as `bash script.sh <hinge program> <tests folder>`.
hinge=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tests=$2
cd "$tests" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nchecks=0
nfailed=0

# run ARGS...: runs hinge with the caller's standard input; sets out, err and status
run() {
  out=$("$hinge" "$@" 2>"$tmp/stderr")
  status=$?
  err=$(cat "$tmp/stderr")
}

pass() { nchecks=$((nchecks + 1)); }
# 1 when a file starts with the PNG signature
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }
fail() {
  nchecks=$((nchecks + 1))
  nfailed=$((nfailed + 1))
  echo "FAIL: $*" >&2
}

# near GOT EXPECTED [TOL]: two lines of numbers agree to TOL relative to max(1, |expected|)
near() {
  awk -v g="$1" -v e="$2" -v t="${3:-1e-12}" 'BEGIN {
    n = split(g, a, " "); m = split(e, b, " ")
    if (n != m || n == 0) exit 1
    for (i = 1; i <= n; i++) {
      d = a[i] - b[i]; if (d < 0) d = -d
      s = b[i] < 0 ? -b[i] : b[i]; if (s < 1) s = 1
      if (!(d <= t * s)) exit 1
    }
  }'
}

# expect_near NAME GOT EXPECTED [TOL]
expect_near() {
  if near "$2" "$3" "${4:-1e-12}"; then pass; else fail "$1: got '$2', expected '$3'"; fi
}

# expect_eq NAME GOT EXPECTED
expect_eq() {
  if [ "$2" = "$3" ]; then pass; else fail "$1: got '$2', expected '$3'"; fi
}

# expect_has NAME TEXT PART: TEXT contains PART
expect_has() {
  case "$2" in
  *"$3"*) pass ;;
  *) fail "$1: '$2' does not contain '$3'" ;;
  esac
}

# expect_status NAME EXPECTED: the last run's exit status
expect_status() {
  if [ "$status" = "$2" ]; then pass; else fail "$1: exit status $status, expected $2 (stderr: $err)"; fi
}

# count WORDS: the number of whitespace-separated fields
count() { echo "$1" | awk '{ n += NF } END { print n + 0 }'; }

finish() {
  echo "$nchecks checks, $nfailed failed"
  [ "$nfailed" -eq 0 ]
}

# states N NUMBERS SEED: N lines of random numbers in [-1, 1]
states() {
  awk -v n="$1" -v k="$2" -v seed="$3" 'BEGIN {
    srand(seed)
    for (i = 0; i < n; i++) {
      line = ""
      for (j = 0; j < k; j++) line = line (j ? " " : "") sprintf("%.17g", 2 * rand() - 1)
      print line
    }
  }'
}

# central_diff MODEL ACTION STATE_WITH_+h STATE_WITH_-h [FLAGS...]: (f+ - f-) / 2h of
# `hinge dynamics MODEL ACTION FLAGS` on two states, with the step in $h
central_diff() {
  local model=$1 action=$2 sp=$3 sm=$4 p m
  shift 4
  p=$("$hinge" dynamics "$model" "$action" "$@" <<< "$sp")
  m=$("$hinge" dynamics "$model" "$action" "$@" <<< "$sm")
  awk -v p="$p" -v m="$m" -v h="$h" 'BEGIN {
    n = split(p, P, " "); split(m, M, " ")
    for (i = 1; i <= n; i++) printf "%s%.17g", (i > 1 ? " " : ""), (P[i] - M[i]) / (2 * h) }'
}

# shift_vec VECTOR INDEX DELTA: the vector with DELTA added to its entry INDEX (from 0)
shift_vec() {
  awk -v s="$1" -v k="$2" -v d="$3" 'BEGIN {
    n = split(s, x, " "); x[k + 1] += d
    for (i = 1; i <= n; i++) printf "%s%.17g", (i > 1 ? " " : ""), x[i] }'
}
