#!/usr/bin/env python3
"""demand.py: a scripted torque demand as an external controller (hinge's controller protocol 1,
sim/control/controller_proc.h), for tests/test_control_sim.c: at its k-th step it writes
(demand[k], 0, 0), N m about the body's x axis (0 after the list ends)."""
import sys

header = sys.stdin.readline().split()
if header[:2] != ["hinge-control", "1"]:
    print("demand.py: not hinge's protocol 1: %r" % header, file=sys.stderr)
    sys.exit(2)
demand = []
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "end":
        break
    if w and w[0] == "param" and w[1] == "demand":
        demand = [float(x) for x in w[2:]]
k = 0
for line in sys.stdin:
    w = line.split()
    if not w or w[0] == "finish":
        break
    u = demand[k] if k < len(demand) else 0.0
    k += 1
    sys.stdout.write("%r 0 0\n" % u)
    sys.stdout.flush()
