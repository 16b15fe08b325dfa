"""Overhead of the Python package against the C calls it makes (docs/python.md, Speed).

  PYTHONPATH=BUILD/python /usr/bin/python3 python/bench/bench_python.py BUILD

1. hinge.Model.aba on one state of the 7-DoF Panda-style arm (two finger DoFs more: nv = 9)
   against the same C call in a C loop (Model._time_aba): the per-call overhead.
2. aba on a (10000, nv) batch against 10,000 C calls in a C loop: the ratio.
3. Simulation.step(output.dt) over scenes/humanoid.yaml's 10 s against `hinge run` of the same
   scene (its summary.txt wall time: the time inside the run, outputs written): the ratio.
Each time is the best of 5 repeats (the machine is shared)."""
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

import hinge

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SOURCE, "build")


def best(f, repeat=5):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return min(out)


arm = hinge.Model.from_urdf(os.path.join(SOURCE, "assets/robots/panda_style.urdf"))
rng = np.random.default_rng(0)
q = arm.integrate(arm.neutral(), rng.uniform(-1, 1, arm.nv), 1.0)
v, tau = rng.standard_normal(arm.nv), rng.standard_normal(arm.nv)
N = 20000
c_call = min(arm._time_aba(q, v, tau, N) for _ in range(5))
def single():
    for _ in range(N):
        arm.aba(q, v, tau)
py_call = best(single) / N
print("aba, one state (nv %d): C %.3f us, Python %.3f us, overhead %.3f us per call"
      % (arm.nv, 1e6 * c_call, 1e6 * py_call, 1e6 * (py_call - c_call)))

B = 10000
Q = arm.integrate(np.tile(q, (B, 1)), rng.uniform(-1, 1, (B, arm.nv)), 1.0)
V, T = rng.standard_normal((B, arm.nv)), rng.standard_normal((B, arm.nv))
c_loop = min(arm._time_aba(Q, V, T, 1) for _ in range(5)) * B
py_batch = best(lambda: arm.aba(Q, V, T))
print("aba, batch of %d: C loop %.3f ms, Python %.3f ms, ratio %.3f"
      % (B, 1e3 * c_loop, 1e3 * py_batch, py_batch / c_loop))

scene = os.path.join(SOURCE, "scenes/humanoid.yaml")
def run_py():
    with hinge.Simulation(hinge.Scene.load(scene)) as sim:
        while sim.t < sim.t_end:
            sim.step(0.02)
py_sim = best(run_py)
walls = []
with tempfile.TemporaryDirectory() as out:
    for _ in range(5):
        subprocess.run([os.path.join(BUILD, "hinge"), "run", scene, "--headless", "--no-plots",
                        "--quiet", "--out", out], check=True, capture_output=True)
        with open(os.path.join(out, "summary.txt")) as f:
            m = re.search(r"wall[^0-9]*([0-9.eE+-]+)", f.read())
        walls.append(float(m.group(1)))
c_sim = min(walls)
print("humanoid.yaml 10 s in 0.02 s steps: hinge run %.3f s, Python %.3f s, ratio %.3f"
      % (c_sim, py_sim, py_sim / c_sim))
