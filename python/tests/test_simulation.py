"""hinge.Scene and hinge.Simulation against `hinge run` of the same scene: the same runtime
calls, so the recorded rows agree bit for bit with trajectory.csv (%.17g)."""
import csv
import os
import subprocess

import numpy as np
import pytest

import hinge
from conftest import source

HEATSHIELD = source("scenes/heatshield.yaml")


def test_run_matches_cli(cli, tmp_path):
    subprocess.run([cli, "run", HEATSHIELD, "--headless", "--no-plots", "--quiet", "--t-end", "20",
                    "--out", str(tmp_path)], check=True, capture_output=True)
    with open(tmp_path / "trajectory.csv") as f:
        rows = list(csv.DictReader(f))
    with hinge.Simulation(hinge.Scene.load(HEATSHIELD), t_end=20) as sim:
        while sim.t < 20:
            sim.step(0.5)
        out = sim.outputs(frame=False)
        assert np.array_equal(out["time"], [float(r["time"]) for r in rows])
        for k, axis in enumerate(["x", "y", "z", "qw", "qx", "qy", "qz"]):
            assert np.array_equal(out["capsule.q.%d" % k],
                                  [float(r["capsule.q." + axis]) for r in rows])
        ev = sim.events()
        assert [e["name"] for e in ev] == ["release"] and 16 < ev[0]["t"] < 18
        assert ev[0]["momentum_change"] == 0 and ev[0]["conserves"]
        # the budget closes (the scene's own claim: drift tiny while drag removes energy)
        assert sim.budget()["max_drift"] < 1e-9
        assert sim.joint("separation")["mode"] == "free"
        assert sim.clearance(["capsule"], ["shield"]) > 1


def test_commands_and_overrides(tmp_path):
    scene = hinge.Scene.load(HEATSHIELD, overrides={"bodies.shield.inertia.mass": 600})
    sim = hinge.Simulation(scene)
    sim.run_until(18)
    assert sim.joint("separation")["mode"] == "free"
    sim.command("lock separation")
    assert sim.joint("separation")["mode"] == "locked"
    assert np.all(sim.joint("separation")["v"] == 0)
    assert sim.events()[-1]["name"] == "lock separation"
    with pytest.raises(hinge.Error, match="nope"):
        sim.command("lock nope")
    with pytest.raises(hinge.Error):
        sim.command("frobnicate")
    path = tmp_path / "cp.txt"
    sim.write_checkpoint(str(path))
    assert path.stat().st_size > 0
    df = sim.outputs()
    # the row of the instant a run stops at is written when the run goes on (or finishes)
    assert df["time"].iloc[-1] == 17.95
    sim.close()
    for call in (lambda: sim.t, lambda: sim.step(0.1), lambda: sim.command("lock separation"),
                 lambda: sim.joint("separation"), lambda: sim.outputs()):
        with pytest.raises(hinge.Error, match="closed"):
            call()


def test_checkpoint_resumes(tmp_path):
    """a checkpoint written at 10 s and resumed by a new simulation: both go on to 25 s through
    the release (17 s) to the same state; a checkpoint of another scene is refused. (Not bit for
    bit: the resumed run restarts its integrator at 10 s, the first one does not; `hinge run
    --checkpoint-every` restarts too, and its resumed runs are bit for bit.)"""
    path = tmp_path / "cp.txt"
    a = hinge.Simulation(hinge.Scene.load(HEATSHIELD), t_end=25)
    a.run_until(10)
    a.write_checkpoint(str(path))
    a.run_until(25)
    b = hinge.Simulation(hinge.Scene.load(HEATSHIELD), t_end=25)
    b.resume(str(path))
    assert b.t == 10
    b.run_until(25)
    # the two integrations differ by their error control after 10 s at the scene's rtol (1e-8
    # relative per step): 8e-8 of the capsule's 0.6 m drift in x, 1e-4 m/s of 110 m/s at most
    assert np.allclose(a.q, b.q, rtol=1e-6, atol=1e-6) and np.allclose(a.v, b.v, rtol=1e-6, atol=1e-6)
    assert [e["name"] for e in b.events()][-1] == "release"
    c = hinge.Simulation(hinge.Scene.load(source("scenes/pendulum.yaml")))
    with pytest.raises(hinge.Error):
        c.resume(str(path))


def test_bad_scenes():
    with pytest.raises(hinge.Error, match=r"heatshield.yaml: 'bodies.nope.mass'"):
        hinge.Scene.load(HEATSHIELD, overrides={"bodies.nope.mass": 1})
    bad = source("tests/data/scenes_bad")
    for name in sorted(os.listdir(bad))[:20]:
        with pytest.raises(hinge.Error, match=r"%s:\d+:\d+: " % name):
            hinge.Simulation(hinge.Scene.load(os.path.join(bad, name)))
    sim = hinge.Simulation(hinge.Scene.load(HEATSHIELD))
    with pytest.raises(ValueError):
        sim.run_until(float("nan"))
    with pytest.raises(KeyError):
        sim.joint("nope")


def test_mc_matches_cli(cli, tmp_path):
    campaign = source("scenes/campaigns/heatshield_mc.yaml")
    subprocess.run([cli, "mc", campaign, "--runs", "6", "--seed", "7", "--threads", "2",
                    "--out", str(tmp_path), "--no-plots", "--quiet"], check=True, capture_output=True)
    with open(tmp_path / "runs.csv") as f:
        rows = list(csv.DictReader(f))
    res = hinge.mc.run(campaign, runs=6, seed=7, threads=3, frame=False)
    assert list(res["run"]) == [int(r["run"]) for r in rows]
    assert all(res["ok"]) and list(res["error"]) == [""] * 6
    for name in rows[0]:
        if name not in ("run", "status", "error"):
            assert np.array_equal(res[name], [float(r[name]) for r in rows]), name
    assert set(res["recontact"]) <= {0.0, 1.0}
    df = hinge.mc.run(campaign, runs=2, seed=7)
    assert df["clearance_1s"].iloc[1] == res["clearance_1s"][1]
    with pytest.raises(hinge.Error, match="no_such.yaml"):
        hinge.mc.run("no_such.yaml")
