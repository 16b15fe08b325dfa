#!/usr/bin/env bash
# bench_mc.sh: Monte Carlo campaign throughput (runs per second) on 1 and 2 threads and on 1 and
# 2 MPI ranks, and the campaign's overhead per run against the same runs made by plain
# `hinge run` processes. Prints figures and ratios; checks nothing.
# usage: tests/bench/bench_mc.sh [HINGE] [RUNS]   (defaults: build/hinge, 100)
set -euo pipefail
cd "$(dirname "$0")/../.."
hinge=${1:-build/hinge}
runs=${2:-100}
campaign=scenes/campaigns/heatshield_mc.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# seconds taken by a command
seconds() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

echo "campaign $campaign, $runs runs, $(nproc) cores"
t_plain=0
# plain hinge run of the nominal scene with the campaign's end time, no plots: 20 processes
n_plain=20
sed 's/^time: {start: 0, end: 40}/time: {start: 0, end: 28}/' scenes/heatshield.yaml > "$tmp/nominal.yaml"
t_plain=$(seconds bash -c "for i in \$(seq $n_plain); do $hinge run $tmp/nominal.yaml --headless --quiet --no-plots --out $tmp/plain; done")
per_plain=$(echo "$t_plain / $n_plain" | bc -l)
printf "%-28s %8.4f s per run\n" "hinge run (one process)" "$per_plain"
for mode in "threads 1" "threads 2" "mpi 1" "mpi 2"; do
  set -- $mode
  if [ "$1" = threads ]; then
    t=$(seconds "$hinge" mc $campaign --runs "$runs" --threads "$2" --out "$tmp/$1$2" --quiet)
  else
    command -v mpirun > /dev/null || continue
    t=$(seconds mpirun --oversubscribe -n "$2" "$hinge" mc $campaign --runs "$runs" \
      --out "$tmp/$1$2" --quiet)
  fi
  rate=$(echo "$runs / $t" | bc -l)
  eval "rate_$1$2=$rate"
  printf "%-28s %8.2f runs/s  (%6.4f s per run; %.2f x hinge run's rate)\n" "mc, $1 $2" \
    "$rate" "$(echo "$t / $runs" | bc -l)" "$(echo "$rate * $per_plain" | bc -l)"
done
printf "speed-up 2 threads / 1 thread: %.2f\n" "$(echo "$rate_threads2 / $rate_threads1" | bc -l)"
if [ -n "${rate_mpi2:-}" ]; then
  printf "speed-up 2 ranks / 1 rank:     %.2f\n" "$(echo "$rate_mpi2 / $rate_mpi1" | bc -l)"
fi
same=yes
for m in threads2 mpi1 mpi2; do
  if [ -d "$tmp/$m" ] && ! cmp -s "$tmp/threads1/runs.csv" "$tmp/$m/runs.csv"; then
    echo "runs.csv of $m differs from 1 thread's"
    same=no
  fi
done
[ $same = yes ] && echo "runs.csv identical across threads and ranks"
