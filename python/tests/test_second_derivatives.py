"""Model.rnea_second_derivatives and Model.aba_second_derivatives against central differences
of the first-order bindings (rnea_derivatives, crba, aba_derivatives) along each direction:
T[l, m, k] = d/dx_k (first-order matrix)[l, m] (docs/linearization.md), q moved on the group
by integrate (q (+) h e_k, the trivialization of the first-order derivatives)."""
import numpy as np
import pytest

import hinge
from conftest import random_states, source

# a fixed-base arm (revolute joints) and a floating quadruped (a free joint: the group
# perturbation, not symmetric in m and k within the joint)
MODELS = [("assets/robots/panda_style.urdf", False), ("assets/robots/quadruped_style.urdf", True)]

H = 1e-5


def central(f, nv, move):
    """the central difference of the array function f along each of the nv directions, stacked
    on a last axis: out[..., k] = (f(move(+h e_k)) - f(move(-h e_k))) / 2h"""
    cols = []
    for k in range(nv):
        e = np.zeros(nv)
        e[k] = H
        cols.append((f(*move(e)) - f(*move(-e))) / (2 * H))
    return np.stack(cols, axis=-1)


def close(a, b):
    # central differences with h = 1e-5: truncation O(h^2 |f'''|) ~ 1e-10 and rounding
    # ~ 1e-16 |f| / h ~ 1e-11 |f| per entry; 1e-6 of the tensor's scale leaves room for the
    # third derivatives of a 7- to 18-DoF model and catches any wrong term (order 1)
    scale = 1 + np.abs(b).max()
    assert a.shape == b.shape
    err = np.abs(a - b).max()
    assert err <= 1e-6 * scale, err


@pytest.mark.parametrize("path,floating", MODELS)
def test_rnea_second_derivatives(path, floating):
    m = hinge.Model.from_urdf(source(path), floating=floating)
    nv = m.nv
    Q, V, A = random_states(m, 1, 7)
    q, v, a = Q[0], V[0], A[0]
    qq, vv, qv, dM = m.rnea_second_derivatives(q, v, a)
    for t in (qq, vv, qv, dM):
        assert t.shape == (nv, nv, nv) and t.dtype == np.float64
    at_q = lambda e: (m.integrate(q, e, 1.0), v)
    at_v = lambda e: (q, v + e)
    close(qq, central(lambda q1, v1: m.rnea_derivatives(q1, v1, a)[0], nv, at_q))
    close(vv, central(lambda q1, v1: m.rnea_derivatives(q1, v1, a)[1], nv, at_v))
    close(qv, central(lambda q1, v1: m.rnea_derivatives(q1, v1, a)[0], nv, at_v))
    close(dM, central(lambda q1, v1: m.crba(q1), nv, at_q))
    # the documented symmetries
    assert np.allclose(vv, vv.transpose(0, 2, 1), atol=1e-9 * (1 + np.abs(vv).max()))
    assert np.allclose(dM, dM.transpose(1, 0, 2), atol=1e-9 * (1 + np.abs(dM).max()))


@pytest.mark.parametrize("path,floating", MODELS)
def test_aba_second_derivatives(path, floating):
    m = hinge.Model.from_urdf(source(path), floating=floating)
    nv = m.nv
    Q, V, T = random_states(m, 1, 8)
    q, v, tau = Q[0], V[0], T[0]
    qdd, qq, vv, qv, qt = m.aba_second_derivatives(q, v, tau)
    assert np.allclose(qdd, m.aba(q, v, tau), rtol=1e-12, atol=1e-12)
    at_q = lambda e: (m.integrate(q, e, 1.0), v, tau)
    at_v = lambda e: (q, v + e, tau)
    at_t = lambda e: (q, v, tau + e)
    dq = lambda *x: m.aba_derivatives(*x)[1]
    close(qq, central(dq, nv, at_q))
    close(vv, central(lambda *x: m.aba_derivatives(*x)[2], nv, at_v))
    close(qv, central(dq, nv, at_v))
    close(qt, central(dq, nv, at_t))


def test_batch():
    m = hinge.Model.from_urdf(source("assets/robots/panda_style.urdf"))
    Q, V, A = random_states(m, 3, 9)
    batched = m.rnea_second_derivatives(Q, V, A)
    assert batched[0].shape == (3, m.nv, m.nv, m.nv)
    for b in range(3):
        one = m.rnea_second_derivatives(Q[b], V[b], A[b])
        for x, y in zip(batched, one):
            assert np.array_equal(x[b], y)
    qdd = m.aba_second_derivatives(Q, V, A)[0]
    assert qdd.shape == (3, m.nv)


@pytest.mark.parametrize("path,floating", MODELS)
def test_contract(path, floating):
    """the sums over the output, [m, k] = Σ_l lam_l T[l, m, k], against the tensors (checked
    above) summed with einsum: the same products in another order, with lamᵀM⁻¹ formed first in
    forward dynamics (M's conditioning on these models keeps that below 1e-10 of the scale;
    a missing term is of order one), for one state and a batch of three"""
    m = hinge.Model.from_urdf(source(path), floating=floating)
    Q, V, X = random_states(m, 3, 10)
    lam = np.random.default_rng(11).uniform(-1, 1, (3, m.nv))
    for fd in (False, True):
        full = m.aba_second_derivatives if fd else m.rnea_second_derivatives
        contract = m.aba_second_derivatives_contract if fd else m.rnea_second_derivatives_contract
        batched = contract(Q, V, X, lam)
        for b in range(3):
            T = full(Q[b], V[b], X[b])
            H = contract(Q[b], V[b], X[b], lam[b])
            if fd:
                assert np.array_equal(H[0], T[0])
                T, H = T[1:], H[1:]
            for t, h, hb in zip(T, H, batched[1:] if fd else batched):
                assert h.shape == (m.nv, m.nv)
                ref = np.einsum("l,lmk->mk", lam[b], t)
                assert np.abs(h - ref).max() <= 1e-10 * (1 + np.abs(ref).max())
                assert np.array_equal(hb[b], h)
