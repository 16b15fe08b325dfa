#!/bin/bash
# menagerie.sh: hinge's MJCF reader against MuJoCo over MuJoCo Menagerie (or any folder of MJCF
# files). Every .xml file whose root element is <mujoco> is compared (tests/mujoco/mjcf_agree:
# hinge's M, bias, ID and FD against MuJoCo's at random states, docs/mjcf.md); files MuJoCo's
# library refuses (newer MJCF, missing assets) are counted apart.
#   bash tests/tools/menagerie.sh MENAGERIE_DIR [BUILD_DIR] [STATES]
# Prints one tab-separated line per file, then the counts. Not run in CI (CI cannot fetch
# Menagerie); exit status 1 when fewer than 95% of the files MuJoCo loads agree to 1e-9.
set -u
dir=${1:?usage: menagerie.sh MENAGERIE_DIR [BUILD_DIR] [STATES]}
build=${2:-build}
states=${3:-20}
tool=$build/tests/mjcf_agree
[ -x "$tool" ] || { echo "menagerie.sh: $tool not built (needs libmujoco-dev)" >&2; exit 2; }
printf 'file\tstatus\tnv\terr_M\terr_bias\terr_ID\terr_FD\twhy\n'
loads=0 agree=0 refused=0
while IFS= read -r f; do
  head -c 4096 "$f" | grep -q '<mujoco' || continue
  line=$("$tool" --states "$states" "$f" 2>/dev/null)
  printf '%s\n' "${line#"$dir"/}"
  case $(printf '%s' "$line" | cut -f2) in
    "MuJoCo refuses") refused=$((refused + 1)) ;;
    agree) loads=$((loads + 1)); agree=$((agree + 1)) ;;
    *) loads=$((loads + 1)) ;;
  esac
done < <(find "$dir" -name '*.xml' | sort)
echo "MuJoCo 2.2.2 loads $loads files (refuses $refused); hinge agrees to 1e-9 on $agree"
[ "$loads" -gt 0 ] && [ $((agree * 100)) -ge $((loads * 95)) ]
