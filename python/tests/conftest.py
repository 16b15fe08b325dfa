"""Shared fixtures of the Python package's tests: the source tree, the hinge program (the
HINGE_CLI environment variable, which CTest sets) and states drawn for a model."""
import os
import shutil
import subprocess

import numpy as np
import pytest

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def source(*parts):
    return os.path.join(SOURCE, *parts)


@pytest.fixture(scope="session")
def cli():
    exe = os.environ.get("HINGE_CLI") or shutil.which("hinge")
    if not exe:
        pytest.skip("no hinge program (set HINGE_CLI)")
    return exe


def run_cli(exe, model, action, rows, *options):
    """`hinge dynamics MODEL ACTION` on rows of numbers (one state per row, %.17g, which
    round-trips float64 exactly); its output as a float64 array, one row per state."""
    text = "".join(" ".join("%.17g" % x for x in r) + "\n" for r in rows)
    out = subprocess.run([exe, "dynamics", model, action, *options], input=text,
                         capture_output=True, text=True, check=True).stdout
    return np.array([[float(x) for x in line.split()] for line in out.splitlines()])


def random_states(model, n, seed):
    """n states (q, v, w) of model: q near neutral moved on the group (unit quaternions), v and
    w (a third vector: tau, vdot or x) standard normal"""
    rng = np.random.default_rng(seed)
    q0 = np.tile(model.neutral(), (n, 1))
    q = model.integrate(q0, rng.uniform(-1, 1, (n, model.nv)), 1.0)
    return q, rng.standard_normal((n, model.nv)), rng.standard_normal((n, model.nv))
