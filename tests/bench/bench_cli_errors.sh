#!/bin/bash
# bench_cli_errors.sh BENCH_DYNAMICS: a model name that names nothing is refused with the names
# expected and exit code 2, with or without --urdf (it used to print an empty run and pass)
b=$1
check() {
  local want=$1; shift
  out=$("$b" "$@" 2>&1); rc=$?
  if [ $rc -ne 2 ] || ! grep -qF "$want" <<<"$out"; then
    echo "FAIL: $b $* gave rc=$rc: $out"; exit 1
  fi
}
check "unknown model 'nosuch': expected arm7, chain30" --model nosuch
check "unknown model 'chain31'" --calls chain31
check "expected urdf or urdf_merged" --urdf /dev/null --model arm7
echo ok
