"""Controllers written in Python: the module is a controller library of the control ABI, so a
Python PD law runs exactly as tests/control/pd_ctl.c's pd_step (HINGE_PD_CTL, set by CTest)
does in the same scene: the same trajectory, bit for bit."""
import os

import numpy as np
import pytest

import hinge

PENDULUM = """gravity: [0, 0, -9.81]
bodies:
  - name: link
    joint: {type: revolute, name: j, axis: [0, 1, 0]}
    inertia: {mass: 2, com: [0.5, 0, 0], inertia: [0.01, 0.2, 0.2]}
actuators:
  - {name: m, type: motor, joint: j, effort: 30, gear: 20, rotor_inertia: 1e-4}
sensors:
  - {name: js, type: joint_state, joint: j, rate: 100}
controllers:
  - {name: c, type: library, library: %s, symbol: %s, rate: 100, inputs: [js], outputs: [m],
     params: {kp: 40, kd: 6, target: 0.7}}
integrator: {method: cvode-adams, rtol: 1e-10}
time: {start: 0, end: 3}
"""


def scene(tmp_path, library, symbol):
    path = tmp_path / ("%s.yaml" % symbol)
    path.write_text(PENDULUM % (library, symbol))
    return hinge.Scene.load(str(path))


class PD:
    """pd_step of tests/control/pd_ctl.c: tau = kp (target - q) + kd (0 - v)"""
    def __init__(self):
        self.steps, self.times = 0, []

    def init(self, setup):
        assert setup["name"] == "c" and setup["rate"] == 100 and setup["nin"] == 2
        assert setup["inputs"][0]["name"] == "js" and setup["outputs"][0]["kind"] == "motor"
        p = setup["params"]
        self.kp, self.kd, self.target = p["kp"][0], p["kd"][0], p["target"][0]

    def __call__(self, t, inp, out):
        self.steps += 1
        self.times.append(t)
        out[0] = self.kp * (self.target - inp[0]) + self.kd * (0.0 - inp[1])

    def set(self, param, values):
        setattr(self, param, values[0])

    def save(self):
        return np.array([self.kp, self.kd, self.target, self.steps])

    def load(self, x):
        self.kp, self.kd, self.target, self.steps = x[0], x[1], x[2], int(x[3])


def test_same_as_a_c_library(tmp_path):
    lib = os.environ.get("HINGE_PD_CTL")
    if not lib:
        pytest.skip("no pd_ctl library (set HINGE_PD_CTL)")
    a = hinge.Simulation(scene(tmp_path, lib, "pd_step"))
    a.run_until(3)
    pd = PD()
    b = hinge.Simulation(scene(tmp_path, hinge.controller_library, "python_step"),
                         controllers={"c": pd})
    b.run_until(3)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.v, b.v)
    # sampled at its rate: t = k / 100 from the start (the last sample at 3 s when the run ends
    # there is taken when the run goes on, as for every output row)
    assert pd.steps == len(pd.times) and np.allclose(np.diff(pd.times), 0.01, rtol=0, atol=1e-12)
    assert abs(b.q[0] - 0.7) < 0.2


def test_gains_returned_outputs_and_errors(tmp_path):
    pd = PD()
    sim = hinge.Simulation(scene(tmp_path, hinge.controller_library, "python_step"),
                           controllers={"c": pd})
    sim.run_until(0.5)
    sim.command("set_gain c kp 80")
    assert pd.kp == 80
    sim.write_checkpoint(str(tmp_path / "cp.txt"))
    # a step that returns its outputs instead of writing them
    ret = hinge.Simulation(scene(tmp_path, hinge.controller_library, "python_step"),
                           controllers={"c": lambda t, inp, out: np.array([-3.0 * inp[0]])})
    ret.run_until(0.5)
    def boom(t, inp, out):
        if t >= 0.2:
            raise RuntimeError("sensor went away")
    bad = hinge.Simulation(scene(tmp_path, hinge.controller_library, "python_step"),
                           controllers={"c": boom})
    with pytest.raises(hinge.Error, match="controller 'c' at t = 0.2.*sensor went away"):
        bad.run_until(1)
    wrong = hinge.Simulation(scene(tmp_path, hinge.controller_library, "python_step"),
                             controllers={"c": lambda t, inp, out: "no"})
    with pytest.raises(hinge.Error, match="returned <class 'str'>"):
        wrong.run_until(1)
    with pytest.raises(hinge.Error, match=r"python_step.yaml:\d+:\d+: controller 'c': .*no Python object"):
        hinge.Simulation(scene(tmp_path, hinge.controller_library, "python_step"))
    with pytest.raises(TypeError):
        hinge.Simulation(scene(tmp_path, hinge.controller_library, "python_step"),
                         controllers={"c": 3})
