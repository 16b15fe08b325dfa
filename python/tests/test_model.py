"""hinge.Model against `hinge dynamics` on the same states: the same C calls on the same model
(fixed links merged), so the numbers agree bit for bit."""
import gc
import threading

import numpy as np
import pytest

import hinge
from conftest import random_states, run_cli, source

MODELS = [("assets/robots/panda_style.urdf", False), ("assets/robots/ur5_style.urdf", False),
          ("tests/data/floating.urdf", False), ("assets/robots/quadruped_style.urdf", True),
          ("scenes/humanoid.yaml", False)]


def load(path, floating):
    if path.endswith(".yaml"):
        return hinge.Model.from_scene(source(path))
    return hinge.Model.from_urdf(source(path), floating=floating)


@pytest.mark.parametrize("path,floating", MODELS)
def test_against_cli(cli, path, floating):
    m = load(path, floating)
    q, v, w = random_states(m, 6, 1)
    opts = ["--floating"] if floating else []
    nv = m.nv
    def cli_rows(action, *vecs):
        return run_cli(cli, source(path), action, np.hstack(vecs), *opts)
    assert np.array_equal(m.aba(q, v, w), cli_rows("fd", q, v, w))
    assert np.array_equal(m.rnea(q, v, w), cli_rows("id", q, v, w))
    assert np.array_equal(m.crba(q).reshape(6, -1), cli_rows("mass", q))
    assert np.array_equal(m.bias(q, v), cli_rows("bias", q, v))
    assert np.array_equal(m.minv(q).reshape(6, -1), cli_rows("minv", q))
    dq, dv = m.rnea_derivatives(q, v, w)
    assert np.array_equal(np.hstack([dq.reshape(6, -1), dv.reshape(6, -1)]), cli_rows("did", q, v, w))
    qdd, dq, dv, dtau = m.aba_derivatives(q, v, w)
    assert np.array_equal(np.hstack([x.reshape(6, -1) for x in (dq, dv, dtau)]),
                          cli_rows("dfd", q, v, w))
    # the derivatives run the tree-frame pass, aba the body-local one where the model has it:
    # the same accelerations to round-off (1e-11 of the largest, ~1e3 for these states)
    ref = m.aba(q, v, w)
    assert np.allclose(qdd, ref, rtol=0, atol=1e-11 * np.abs(ref).max())
    # hybrid with the last movable joint prescribed
    name = [j["name"] for j in m.joints if j["nv"] > 0][-1]
    a, tau = m.hybrid(q, v, w, prescribed=[name])
    ref = run_cli(cli, source(path), "hybrid", np.hstack([q, v, w]), "--prescribed", name, *opts)
    assert np.array_equal(np.hstack([a, tau]), ref)
    # one state at a time gives the rows of the batch
    assert np.array_equal(m.aba(q[2], v[2], w[2]), m.aba(q, v, w)[2])
    assert m.aba(q[2], v[2], w[2]).shape == (nv,)


def test_info_and_group():
    m = hinge.Model.from_urdf(source("tests/data/floating.urdf"))
    assert (m.nq, m.nv) == (m.joints[-1]["q_offset"] + m.joints[-1]["nq"],
                            m.joints[-1]["v_offset"] + m.joints[-1]["nv"])
    q, v, _ = random_states(m, 4, 2)
    q1 = m.integrate(q, v, 0.3)
    # q1 (-) q = 0.3 v on the group, to round-off of the exponential and logarithm (1e-12 of
    # angles of order 1)
    assert np.allclose(m.difference(q, q1), 0.3 * v, atol=1e-12, rtol=0)
    arm = hinge.Model.from_urdf(source("assets/robots/panda_style.urdf"))
    j = {x["name"]: x for x in arm.joints}["panda_joint1"]
    assert j["type"] == "revolute" and j["lower"] < 0 < j["upper"]


def test_shapes_and_dtypes():
    m = hinge.Model.from_urdf(source("assets/robots/panda_style.urdf"))
    q, v, w = random_states(m, 3, 3)
    assert m.aba(q, v, w).dtype == np.float64 and m.aba(q, v, w).shape == (3, m.nv)
    assert m.crba(q).shape == (3, m.nv, m.nv) and m.crba(q[0]).shape == (m.nv, m.nv)
    # a single v broadcast against batched q, integer and float32 input converted
    assert np.array_equal(m.rnea(q, v[0], w[0]), np.vstack([m.rnea(x, v[0], w[0]) for x in q]))
    assert np.array_equal(m.bias(q[0].astype(np.float32), np.zeros(m.nv, int)),
                          m.bias(q[0].astype(np.float32).astype(np.float64), np.zeros(m.nv)))
    # a non-contiguous view reads the same numbers
    qq = np.repeat(q, 2, axis=0)[::2]
    assert np.array_equal(m.crba(qq), m.crba(q))


def test_bad_input_raises():
    m = hinge.Model.from_urdf(source("tests/data/floating.urdf"))
    q, v, w = random_states(m, 2, 4)
    with pytest.raises(ValueError, match=r"q: expected shape \(7,\)"):
        m.aba(q[:, :5], v, w)
    with pytest.raises(ValueError, match="different batch sizes"):
        m.aba(q, v[:1], w)
    bad = q.copy(); bad[1, 4] = np.nan
    with pytest.raises(ValueError, match="not a finite number"):
        m.rnea(bad, v, w)
    bad = q.copy(); bad[0, 3:7] *= 2
    with pytest.raises(ValueError, match="quaternion .* norm 2"):
        m.crba(bad)
    with pytest.raises(TypeError):
        m.aba("abc", v, w)
    with pytest.raises(ValueError, match="unknown joint 'nope'"):
        m.hybrid(q, v, w, prescribed=["nope"])
    with pytest.raises(ValueError):
        m.integrate(q, v, float("inf"))
    with pytest.raises(hinge.Error, match=r"malformed.urdf:\d+:"):
        hinge.Model.from_urdf(source("tests/data/urdf_bad/malformed.urdf"))
    with pytest.raises(hinge.Error, match="no_such_file"):
        hinge.Model.from_scene("no_such_file.yaml")
    m.close()
    with pytest.raises(hinge.Error, match="closed"):
        m.aba(q, v, w)
    with pytest.raises(hinge.Error, match="closed"):
        m.nq


def test_threads_share_a_model():
    m = hinge.Model.from_urdf(source("assets/robots/panda_style.urdf"))
    q, v, w = random_states(m, 2000, 5)
    ref = m.aba(q, v, w)
    out = [None] * 4
    def work(k):
        out[k] = m.aba(q, v, w)
    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in ts: t.start()
    for t in ts: t.join()
    assert all(np.array_equal(o, ref) for o in out)


def test_no_growth_over_10000_calls():
    import tracemalloc
    m = hinge.Model.from_urdf(source("assets/robots/panda_style.urdf"))
    q, v, w = random_states(m, 1, 6)
    def loop(n):
        for _ in range(n):
            m.aba(q[0], v[0], w[0]); m.crba(q[0]); m.aba_derivatives(q[0], v[0], w[0])
            try:
                m.aba(q[0, :3], v[0], w[0])
            except ValueError:
                pass
    loop(100)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    loop(10000)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    # tracemalloc sees every Python allocation: a leaked array or exception per call would add
    # > 100 bytes x 10,000 = 1 MB; 64 KB leaves room for the interpreter's own caches
    assert after - before < 65536
