# makefile.sh: `make run`, `make build` and `make test` configure the build folder with the same
# CMake flags. A flag that differs between them (-DHINGE_WERROR=ON for make test alone) rewrites
# every target's flags.make, so `make test` after `make run` recompiled the whole tree. Read from
# `make -n` (nothing is built or installed; the hinge program is not used).
source "$(dirname "$0")/common.bash"

# the cmake configure line a target runs
configure() { make -n --no-print-directory -C .. "$1" 2>/dev/null | grep '^cmake -S '; }

for target in build run test; do
  line=$(configure "$target")
  [ -n "$line" ] && pass || fail "make $target: no cmake configure line in make -n"
  eval "line_$target=\$line"
done
expect_eq "make run and make build configure alike" "$line_run" "$line_build"
expect_eq "make test and make build configure alike" "$line_test" "$line_build"
expect_has "warnings are errors" "$line_test" "-DHINGE_WERROR=ON"
finish
