#!/usr/bin/env python3
"""structure.py SOURCE_DIR BUILD_DIR: checks the layering of hinge's libraries from the build.

An arrow A -> B means that source file A includes a header of B's folder that B implements
(a quoted #include resolved in the include folders below) or calls a function or reads a
variable that B alone defines (read from the object files with nm: what A's object leaves
undefined and B's object defines). The check fails (exit 1) when
  - an arrow runs from a lower floor to a higher one (FLOORS below, lowest first), or
  - files call or include each other in a circle (a strongly connected set of two or more).
It prints every such arrow and circle with the names that tie it, then one line of counts.
`--graph` also prints every arrow between folders.
"""
import os
import re
import subprocess
import sys

# the floors, lowest first: a file may use its own floor and those below it, never one above
FLOORS = [
    "dynamics/algebra",
    "dynamics/multibody",
    "dynamics/algorithms",
    "integrators",
    "sim/readers",
    "sim/control",
    "sim/scene",
    "sim/collision",
    "sim/forces",
    "sim/runtime",
    "sim/output",
    "sim/campaign",
    "render",
    "cli",
]
SOURCE_EXT = (".c", ".cpp")


def folder_of(path):
    """the floor folder of a source path (relative to the source tree), or None"""
    best = None
    for f in FLOORS:
        if path.startswith(f + "/") and (best is None or len(f) > len(best)):
            best = f
    return best


def floor_index(path):
    return FLOORS.index(folder_of(path))


def sources(src):
    out = []
    for f in FLOORS:
        d = os.path.join(src, f)
        for name in sorted(os.listdir(d)):
            if name.endswith(SOURCE_EXT):
                out.append(f + "/" + name)
    return out


def headers(src):
    """header name -> its path, for the headers of the floor folders"""
    out = {}
    for f in FLOORS:
        d = os.path.join(src, f)
        for name in sorted(os.listdir(d)):
            if name.endswith(".h"):
                out[name] = f + "/" + name
    return out


def objects(src, build, files):
    """source path -> its object file in the build tree (CMake's layout)"""
    found = {}
    for root, _, names in os.walk(build):
        if "CMakeFiles" not in root:
            continue
        for name in names:
            if not name.endswith(".o"):
                continue
            obj = os.path.join(root, name)
            # build/<dir>/CMakeFiles/<target>.dir/<path relative to dir>.o
            rel = os.path.relpath(obj, build)
            parts = rel.split(os.sep)
            i = parts.index("CMakeFiles")
            base = "/".join(parts[:i])
            tail = "/".join(parts[i + 2:])[: -len(".o")]
            path = (base + "/" + tail) if base else tail
            if path in files and os.path.exists(os.path.join(src, path)):
                found.setdefault(path, obj)
    return found


def symbols(obj):
    """(defined, undefined) global symbol names of an object file"""
    res = subprocess.run(["nm", "-g", "--defined-only", obj], capture_output=True, text=True,
                         check=True)
    defined = {l.split()[-1] for l in res.stdout.splitlines() if l.strip()}
    res = subprocess.run(["nm", "-g", "--undefined-only", obj], capture_output=True, text=True,
                         check=True)
    undefined = {l.split()[-1] for l in res.stdout.splitlines() if l.strip()}
    # a target_clones function's resolver and clones carry the same name with a suffix
    strip = lambda s: re.sub(r"\.(resolver|default|arch_[a-z0-9_]+)$", "", s)
    return {strip(s) for s in defined}, {strip(s) for s in undefined}


def graph(src, build):
    files = sources(src)
    hdr = headers(src)
    objs = objects(src, build, set(files))
    missing = [f for f in files if f not in objs]
    defined, undefined = {}, {}
    for f, o in objs.items():
        defined[f], undefined[f] = symbols(o)
    owner = {}
    for f, names in defined.items():
        for n in names:
            owner.setdefault(n, set()).add(f)
    edges = {}  # (a, b) -> set of names
    for f in files:
        # calls: a name f leaves undefined that exactly one other file defines
        for n in undefined.get(f, ()):
            own = owner.get(n, set()) - {f}
            if len(own) == 1:
                edges.setdefault((f, next(iter(own))), set()).add(n)
        # includes: a header of another folder, tied to that folder's source of the same stem
        # when it has one (x.h -> x.c), else to the folder itself (types and inline code)
        text = open(os.path.join(src, f), encoding="utf-8", errors="replace").read()
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            h = hdr.get(os.path.basename(inc))
            if not h or folder_of(h) == folder_of(f):
                continue
            stem = h[: -len(".h")]
            target = next((stem + e for e in SOURCE_EXT if stem + e in files), h)
            edges.setdefault((f, target), set()).add("#include " + os.path.basename(inc))
    return files, edges, missing


def circles(files, edges):
    """strongly connected sets of two or more files (Tarjan), each sorted"""
    succ = {f: [] for f in files}
    for (a, b) in edges:
        if b in succ:
            succ[a].append(b)
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(succ[v]))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ[w])))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for f in files:
        if f not in index:
            visit(f)
    return sorted(out)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        print("usage: structure.py SOURCE_DIR BUILD_DIR [--graph]", file=sys.stderr)
        return 2
    src, build = args
    files, edges, missing = graph(src, build)
    if missing:
        print("structure: no object file for: " + ", ".join(missing) +
              " (build everything first)", file=sys.stderr)
        return 2
    bad = 0
    up = [(a, b) for (a, b) in edges if folder_of(b) and floor_index(b) > floor_index(a)]
    for a, b in sorted(up):
        print(f"UP {a} -> {b}: {', '.join(sorted(edges[(a, b)]))}")
    loops = circles(files, edges)
    for comp in loops:
        print(f"CIRCLE of {len(comp)} files: {', '.join(comp)}")
        for a in comp:
            for b in comp:
                if (a, b) in edges:
                    print(f"  {a} -> {b}: {', '.join(sorted(edges[(a, b)]))}")
    if "--graph" in argv:
        between = {}
        for (a, b) in edges:
            fa, fb = folder_of(a), folder_of(b)
            if fa != fb:
                between[(fa, fb)] = between.get((fa, fb), 0) + 1
        for (fa, fb), n in sorted(between.items(), key=lambda x: (FLOORS.index(x[0][0]), x[0][1])):
            print(f"ARROW {fa} -> {fb}: {n}")
    bad = len(up) + len(loops)
    print(f"structure: {len(files)} files, {len(edges)} arrows, {len(up)} up a floor, "
          f"{len(loops)} circles")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
