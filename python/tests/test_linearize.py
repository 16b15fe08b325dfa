"""hinge.linearize against `hinge linearize` of the same scene: the same steps and C calls
(dynamics/algorithms/linearize.h), so A.csv and B.csv (%.17g) agree bit for bit."""
import csv
import subprocess

import numpy as np
import pytest

import hinge
from conftest import source


def table(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0][1:], [r[0] for r in rows[1:]], np.array([[float(x) for x in r[1:]] for r in rows[1:]])


@pytest.mark.parametrize("scene,args,kw", [
    ("scenes/chain.yaml", ["--equilibrium"], {"equilibrium": True}),
    ("scenes/humanoid.yaml", ["--at", "1"], {"t": 1}),       # prescribed joints, joint springs
    ("scenes/deploy.yaml", ["--at", "0.5", "--rest"], {"t": 0.5, "rest": True}),
])
def test_against_cli(cli, tmp_path, scene, args, kw):
    subprocess.run([cli, "linearize", source(scene), *args, "--out", str(tmp_path), "--no-plots"],
                   check=True, capture_output=True)
    r = hinge.linearize(source(scene), **kw)
    cols, states, A = table(tmp_path / "A.csv")
    assert states == r.states and cols == r.states and np.array_equal(A, r.A)
    cols, _, B = table(tmp_path / "B.csv")
    assert cols == r.inputs and np.array_equal(B, r.B)
    with open(tmp_path / "modes.csv") as f:
        modes = list(csv.DictReader(f))
    # modes.csv prints %.9g: the same eigenvalues to 9 digits
    lam = np.array([float(m["re"]) + 1j * float(m["im"]) for m in modes])
    scale = np.abs(r.eigenvalues).max()
    assert np.allclose(lam, r.eigenvalues, rtol=1e-8, atol=1e-9 * scale)
    assert r.A.shape == (2 * len(r.inputs), 2 * len(r.inputs))


def test_equilibrium_and_refusals():
    r = hinge.linearize(hinge.Scene.load(source("scenes/chain.yaml")), equilibrium=True)
    assert r.equilibrium["converged"] and np.abs(r.xdot0).max() < 1e-9
    # a chain hanging in gravity: undamped modes, real w^2 > 0
    assert np.all(r.w2 > 0)
    with pytest.raises(hinge.SingularError, match="no equilibrium"):
        hinge.linearize(source("scenes/pendulum.yaml"), equilibrium=True)
    with pytest.raises(hinge.Error, match="closed loops"):
        hinge.linearize(source("scenes/fourbar.yaml"))
    with pytest.raises(ValueError, match="outside the scene's time"):
        hinge.linearize(source("scenes/chain.yaml"), t=1e9)
