#!/usr/bin/env python3
"""hot_clones.py LIBRARY OBJECT...: checks that the x86-64-v3 clones of HG_HOT functions
(dynamics/algebra/hot.h) call no baseline code of their own file.

gcc compiles an HG_HOT function twice, for any x86-64 and for x86-64-v3 (AVX2, FMA). A static
helper it calls but does not inline (a `static inline` one that gcc splits or leaves out of line)
is compiled once, for the baseline target, and the AVX2 clone then runs its vectors of four
doubles as pairs of SSE halves, through memory: in the derivatives' pair loops this made
hg_rnea_derivatives with M about 7x slower on a 100-DoF chain. The helpers of hot loops are
HG_INLINE (forced inline) for that reason.

For each named object of the static LIBRARY (objdump -d), every call from a function whose name
ends in `.arch_x86_64_v3` to a function defined in the same object must go to another such
clone (or the clone dispatcher). Prints each offending call; exit 1 if any, 77 (skipped) when
the objects hold no x86-64-v3 clone (clang, other architectures) or objdump is missing.
"""
import re
import shutil
import subprocess
import sys

SUFFIX = ".arch_x86_64_v3"


def main():
    if len(sys.argv) < 3:
        print("usage: hot_clones.py LIBRARY OBJECT...", file=sys.stderr)
        return 2
    lib, objects = sys.argv[1], set(sys.argv[2:])
    if not shutil.which("objdump"):
        print("hot_clones: no objdump, skipped")
        return 77
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib], capture_output=True,
                         text=True, check=True).stdout
    # per object: the functions it defines, and the calls (caller, callee) at a function's start
    defined, calls, obj, fn = {}, [], None, None
    for line in out.splitlines():
        m = re.match(r"^(\S+\.o):\s+file format", line)
        if m:
            obj, fn = m.group(1), None
            defined.setdefault(obj, set())
            continue
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1)
            defined[obj].add(fn)
            continue
        m = re.search(r"\b(?:call|jmp)\s+[0-9a-f]+ <([^>+]+)>", line)
        if m and obj in objects and fn and fn.endswith(SUFFIX):
            calls.append((obj, fn, m.group(1)))
    missing = objects - set(defined)
    if missing:
        print("hot_clones: %s not in %s" % (", ".join(sorted(missing)), lib), file=sys.stderr)
        return 2
    clones = sum(1 for o in objects for f in defined[o] if f.endswith(SUFFIX))
    if clones == 0:
        print("hot_clones: no x86-64-v3 clones in %s, skipped" % ", ".join(sorted(objects)))
        return 77
    bad = sorted({(o, f, t) for o, f, t in calls
                  if t in defined[o] and t != f and not t.endswith(SUFFIX)
                  and not t.endswith(".resolver")})
    for o, f, t in bad:
        print("%s: %s calls %s, compiled for the baseline target" % (o, f, t))
    print("hot_clones: %d clones in %d objects, %d calls of baseline code"
          % (clones, len(objects), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
