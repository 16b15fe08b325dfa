"""python/examples/ddp.py: the discrete map's derivatives against central differences (first
order of the map itself, second order of the analytic first-order derivatives), and DDP (with
the second-order tensors of aba_second_derivatives) against iLQR on the cart-pole swing-up and
the 3-DoF arm: the same optimum, no more iterations, quadratic convergence at the end
(docs/linearization.md, "A use: differential dynamic programming")."""
import sys

import numpy as np
import pytest

from conftest import source

sys.path.insert(0, source("python", "examples"))
import ddp  # noqa: E402

SYSTEMS = [ddp.cartpole, ddp.arm]


def central(f, x, h):
    """the central difference of the array function f at x along each coordinate, stacked on a
    last axis: out[..., k] = (f(x + h e_k) - f(x - h e_k)) / 2h"""
    cols = []
    for k in range(len(x)):
        e = np.zeros(len(x))
        e[k] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.stack(cols, axis=-1)


def close(a, b, rel):
    scale = 1 + np.abs(b).max()
    assert a.shape == b.shape
    err = np.abs(a - b).max()
    assert err <= rel * scale, (err, scale)


@pytest.mark.parametrize("make", SYSTEMS, ids=lambda m: m.__name__)
def test_map_derivatives(make):
    p = make()
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, p.n)
    u = rng.standard_normal(p.m)
    fx, fu = (d[0] for d in p.derivatives(x[None], u[None]))
    fxx, fxu = (d[0] for d in p.second_derivatives(x[None], u[None]))
    assert fxx.shape == (p.n, p.n, p.n) and fxu.shape == (p.n, p.n, p.m)
    # first order against differences of the map: h = 1e-6 leaves a truncation of
    # h^2 |f'''| ~ 1e-12 and a rounding of ~1e-16 |f| / h ~ 1e-10; 1e-7 catches any wrong term
    # (each is at least h^2 |a_x| ~ 1e-4 of the matrix)
    close(fx, central(lambda y: p.step(y, u), x, 1e-6), 1e-7)
    close(fu, central(lambda w: p.step(x, w), u, 1e-6), 1e-7)
    # second order against differences of the analytic first order, as
    # test_second_derivatives.py does for the bindings (h = 1e-5: truncation ~1e-10, rounding
    # ~1e-11 of the scale); the smallest terms, h^2 a_xx, are ~1e-4 of the tensor's scale
    dfx = lambda y: p.derivatives(y[None], u[None])[0][0]
    dfu_x = lambda y: p.derivatives(y[None], u[None])[1][0]
    dfx_u = lambda w: p.derivatives(x[None], w[None])[0][0]
    dfu_u = lambda w: p.derivatives(x[None], w[None])[1][0]
    close(fxx, central(dfx, x, 1e-5), 1e-6)
    close(fxu, central(dfx_u, u, 1e-5), 1e-6)
    # the mixed derivative's other order: d/dx_k (df_l/du_j) = f_xu[l, k, j]
    close(fxu.transpose(0, 2, 1), central(dfu_x, x, 1e-5), 1e-6)
    # f_uu = 0: the map is affine in u (M^-1 depends on q only)
    close(np.zeros((p.n, p.m, p.m)), central(dfu_u, u, 1e-5), 1e-9)
    # v is a vector and q moves by addition: the Hessian of every row is symmetric
    assert np.allclose(fxx, fxx.transpose(0, 2, 1), atol=1e-12 * (1 + np.abs(fxx).max()))


@pytest.mark.parametrize("make", SYSTEMS, ids=lambda m: m.__name__)
def test_ddp_against_ilqr(make):
    p = make()
    U0 = np.zeros((p.N, p.m))
    ilqr = ddp.solve(p, U0, second_order=False)
    full = ddp.solve(p, U0, second_order=True)
    assert ilqr["converged"] and full["converged"]
    # the same optimum: both stop at |dJ/dU| <= 1e-8 (cost ~1), so the costs agree to second
    # order in the residual gradient (measured 1e-11 and 7e-13) and the controls to
    # g / (the smallest curvature, h R ~ 2e-4): measured 2.3e-4 and 5.3e-5 N against controls
    # of 16 to 19 N
    assert abs(full["cost"] - ilqr["cost"]) <= 1e-9 * (1 + abs(ilqr["cost"]))
    assert np.abs(full["U"] - ilqr["U"]).max() <= 1e-4 * np.abs(ilqr["U"]).max()
    # no more iterations (measured: cart-pole 56 against 127, arm 13 against 39)
    assert full["iterations"] <= ilqr["iterations"]
    # DDP ends with full steps (alpha 1 over its last two), the last one unregularized. A mu
    # raised far from the optimum shrinks by the schedule's factor at each accepted step and is
    # 0 once below mu_min, so whether it is gone one step earlier depends on the path, which
    # round-off in the tensors moves (measured: cart-pole 0 and 0, arm 0 and 0; on an earlier build
    # whose tensors differed by round-off, cart-pole 1.0e-5 then 0)
    assert full["alphas"][-2:] == [1.0, 1.0] and full["mus"][-1] == 0.0
    # quadratic convergence: the last two steps each cut |dJ/dU| by 20 or more (measured 482 and
    # 2.7e4, 21 and 1.5e5), and g_k <= C g_{k-1}^2 with C = 1e4. C depends on the path, which
    # round-off moves: cart-pole 48 and 408, arm 36 and 0.11 on one build; on a build whose tensors
    # agree with it to an ulp but sum M^-1's products in another order, cart-pole 6.2 and
    # 2.2e3 (then 1.2e3 on a step past tol). From g_{k-1} = 1e-6 down the bound demands a cut
    # by 100 or more, 1e4 g_{k-1} where a linear rate (iLQR's: 0.7 to 0.85) keeps the same cut
    g = np.array(full["grads"])
    assert np.all(g[-2:] <= g[-3:-1] / 20)
    assert g[-2] <= 1e4 * g[-3] ** 2
    assert g[-1] <= 1e4 * g[-2] ** 2 + 1e-9
    # and iLQR converges linearly: its last five steps each cut |dJ/dU| by a steady factor
    # (measured 0.845 and 0.72), never by 20
    gl = np.array(ilqr["grads"])
    rates = gl[-5:] / gl[-6:-1]
    assert np.all(rates > 0.3) and np.all(rates < 1) and np.ptp(rates) < 0.05
