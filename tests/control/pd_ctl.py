#!/usr/bin/env python3
"""pd_ctl.py: the PD controller of pd_ctl.c as an external process (hinge's controller protocol 1,
sim/control/controller_proc.h), and misbehaving variants for tests/test_controller_lib.c.

    python3 pd_ctl.py [MODE]
MODE: ok (the default), die (exits with status 3 at t >= 0.3), sleep (stops answering at
t >= 0.3), garbage (writes 'hello' at t >= 0.3), few (writes no number at t >= 0.3), error (answers
'error too hot' at t >= 0.3), long (an endless line at t >= 0.3); slowstart (sleeps 1.5 s before
reading its setup, then answers as ok), slowstart-sleep (both)."""
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
if mode.startswith("slowstart"):
    time.sleep(1.5)
    mode = mode[len("slowstart-"):] if mode != "slowstart" else "ok"
params = {}
header = sys.stdin.readline().split()
if header[:2] != ["hinge-control", "1"]:
    print("pd_ctl.py: not hinge's protocol 1: %r" % header, file=sys.stderr)
    sys.exit(2)
nin, nout = int(header[4]), int(header[5])
for line in sys.stdin:
    w = line.split()
    if not w:
        continue
    if w[0] == "end":
        break
    if w[0] == "param":
        params[w[1]] = [float(x) for x in w[2:]]
kp, kd, target = params["kp"][0], params["kd"][0], params["target"][0]
out = sys.stdout
for line in sys.stdin:
    w = line.split()
    if w[0] == "finish":
        break
    t = float(w[1])
    q, v = float(w[2]), float(w[3])
    if t >= 0.3 and mode != "ok":
        if mode == "die":
            sys.exit(3)
        if mode == "sleep":
            time.sleep(60)
        if mode == "garbage":
            out.write("hello\n")
        elif mode == "few":
            out.write("\n")
        elif mode == "error":
            out.write("error too hot\n")
        elif mode == "long":
            while True:
                out.write("1" * 65536)
        out.flush()
        continue
    tau = kp * (target - q) + kd * (0.0 - v)
    out.write(repr(tau) + "\n")
    out.flush()
