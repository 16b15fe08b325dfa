"""Differential dynamic programming (DDP) on hinge's dynamics, solved twice: iLQR (first-order
dynamics derivatives only) and full DDP (with the second-order tensors of the dynamics,
contracted with the value gradient in the backward pass), on a cart-pole swing-up and a 3-DoF
arm's reach. docs/linearization.md ("A use: differential dynamic programming") derives the
equations and holds the measured table.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/ddp.py

DDP is D. Mayne's "A second-order gradient method for determining optimal trajectories of
non-linear discrete-time systems" (D. Jacobson and D. Mayne, "Differential Dynamic
Programming"); the regularized backward pass, the line search and the regularization schedule
are those of Y. Tassa, T. Erez and E. Todorov, "Synthesis and stabilization of complex behaviors
through online trajectory optimization".

The state is x = (q, v) (every joint revolute or prismatic, so q is a vector and q ⊕ d = q + d),
the control u the torques of the actuated DoFs (tau = S u), and the discrete map semi-implicit
Euler with step h:

    a  = ABA(q, v, S u)
    v' = v + h a
    q' = q + h v'  =  q + h v + h² a

Its first and second derivatives are exact for this map (no finite differences anywhere).
"""
import os
import sys
import time

import numpy as np

import hinge

HERE = os.path.dirname(os.path.abspath(__file__))


class Problem:
    """An optimal-control problem on a hinge model: the discrete map above, N steps of h from x0,
    the controls u acting on the DoFs `actuated` (tau = S u), and the cost

        J = Σ_t h (½ (x_t − x*)ᵀ Q (x_t − x*) + ½ u_tᵀ R u_t) + ½ (x_N − x*)ᵀ Qf (x_N − x*)."""

    def __init__(self, name, model, actuated, h, N, x0, goal, Q, R, Qf):
        if model.nq != model.nv:
            raise ValueError("%s: every joint must be revolute or prismatic (nq = nv)" % name)
        self.name, self.model, self.h, self.N = name, model, h, N
        self.nv = model.nv
        self.n = 2 * model.nv
        self.m = len(actuated)
        self.S = np.zeros((self.nv, self.m))
        self.S[actuated, np.arange(self.m)] = 1.0
        self.x0, self.goal = np.asarray(x0, float), np.asarray(goal, float)
        self.Q, self.R, self.Qf = Q, R, Qf

    # ---- the discrete map and its derivatives -----------------------------------------------

    def step(self, x, u):
        """f(x, u): one semi-implicit Euler step"""
        nv, h = self.nv, self.h
        q, v = x[:nv], x[nv:]
        a = self.model.aba(q, v, self.S @ u)
        v1 = v + h * a                                  # v' = v + h a
        return np.concatenate([q + h * v1, v1])         # q' = q + h v'

    def derivatives(self, X, U):
        """f_x (N, n, n) and f_u (N, n, m) at the N pairs (x_t, u_t), one batched call:

            ∂v'/∂q = h a_q,   ∂v'/∂v = I + h a_v,   ∂v'/∂u = h M⁻¹ S
            ∂q'/∂· = h² a_·  plus I (∂q'/∂q) and h I (∂q'/∂v)"""
        nv, h = self.nv, self.h
        _, aq, av, minv = self.model.aba_derivatives(X[:, :nv], X[:, nv:], U @ self.S.T)
        au = minv @ self.S
        eye = np.eye(nv)
        fx = np.empty((len(X), self.n, self.n))
        fx[:, :nv, :nv] = eye + h * h * aq
        fx[:, :nv, nv:] = h * eye + h * h * av
        fx[:, nv:, :nv] = h * aq
        fx[:, nv:, nv:] = eye + h * av
        fu = np.concatenate([h * h * au, h * au], axis=1)
        return fx, fu

    def second_derivatives(self, X, U):
        """f_xx (N, n, n, n) and f_xu (N, n, n, m), in the layout of the second-order bindings:
        T[t, l, m, k] = ∂/∂(second)_k of the first-order matrix's entry [l, m]. The map is
        affine in a and the identity and h terms are constant, so every second derivative is a
        second derivative of a, times h² (rows of q') or h (rows of v'):

            f_xx = c ⊗ [[a_qq, a_qv], [a_vq, a_vv]],   f_xu = c ⊗ [[a_qτ S], [a_vτ S]],   f_uu = 0

        with c = (h², h) by row block, a_vq[l, m, k] = a_qv[l, k, m] (v is a vector: the mixed
        derivative's two orders agree), a_vτ = 0 and a_ττ = 0 (a = M⁻¹(q)(τ − b(q, v)) is affine
        in τ, and M⁻¹ does not depend on v)."""
        nv, n, h = self.nv, self.n, self.h
        _, aqq, avv, aqv, aqt = self.model.aba_second_derivatives(X[:, :nv], X[:, nv:],
                                                                  U @ self.S.T)
        axx = np.empty((len(X), nv, n, n))
        axx[:, :, :nv, :nv] = aqq
        axx[:, :, :nv, nv:] = aqv                        # ∂/∂v_k (∂a/∂q_m)
        axx[:, :, nv:, :nv] = aqv.transpose(0, 1, 3, 2)  # ∂/∂q_k (∂a/∂v_m)
        axx[:, :, nv:, nv:] = avv
        axu = np.zeros((len(X), nv, n, self.m))
        # ∂/∂u_j (∂a/∂q_m) = Σ_k a_qτ[., m, k] S[k, j]; zero along v (a_vτ = 0)
        axu[:, :, :nv, :] = aqt @ self.S
        c = np.concatenate([np.full(nv, h * h), np.full(nv, h)])[None, :, None, None]
        fxx = c * np.concatenate([axx, axx], axis=1)
        fxu = c * np.concatenate([axu, axu], axis=1)
        return fxx, fxu

    # ---- cost ---------------------------------------------------------------------------------

    def rollout(self, U, X=None, K=None, k=None, alpha=1.0):
        """the states from x0 under U, or under the feedback policy
        u_t = U_t + alpha k_t + K_t (x_t − X_t) about a nominal (X, U); returns (X, U)"""
        Xn = np.empty((self.N + 1, self.n))
        Un = np.empty_like(U)
        Xn[0] = self.x0
        for t in range(self.N):
            u = U[t] if K is None else U[t] + alpha * k[t] + K[t] @ (Xn[t] - X[t])
            Un[t] = u
            Xn[t + 1] = self.step(Xn[t], u)
        return Xn, Un

    def cost(self, X, U):
        dx = X - self.goal
        run = 0.5 * self.h * (np.einsum("ti,ij,tj->", dx[:-1], self.Q, dx[:-1])
                              + np.einsum("ti,ij,tj->", U, self.R, U))
        return run + 0.5 * dx[-1] @ self.Qf @ dx[-1]

    def cost_derivatives(self, X, U):
        """l_x (N, n), l_u (N, m), l_xx, l_uu (constant) and the terminal Φ_x, Φ_xx"""
        dx = X - self.goal
        return (self.h * dx[:-1] @ self.Q, self.h * U @ self.R, self.h * self.Q,
                self.h * self.R, self.Qf @ dx[-1], self.Qf)


def gradient(problem, X, U, fx, fu):
    """∂J/∂U (N, m) by the adjoint recursion λ_N = Φ_x, λ_t = l_x + f_xᵀ λ_{t+1},
    ∂J/∂u_t = l_u + f_uᵀ λ_{t+1}: the convergence measure, the same for both methods"""
    lx, lu, _, _, lam, _ = problem.cost_derivatives(X, U)
    g = np.empty_like(U)
    for t in range(problem.N - 1, -1, -1):
        g[t] = lu[t] + fu[t].T @ lam
        lam = lx[t] + fx[t].T @ lam
    return g


def backward(problem, X, U, fx, fu, fxx, fxu, mu):
    """The backward pass (Tassa, Erez and Todorov, eq. 5 to 11), with the state regularization
    V'_xx + mu I in Q_uu and Q_ux. With fxx given (full DDP) the tensor terms
    V'_x · f_xx, V'_x · f_xu are added (V'_x · f_uu = 0 here). Returns (k, K, dV) with dV the
    expected change's terms (Σ kᵀ Q_u, Σ ½ kᵀ Q_uu k), or None when Q_uu is not positive
    definite (the caller raises mu)."""
    lx, lu, lxx, luu, Vx, Vxx = problem.cost_derivatives(X, U)
    N, n, m = problem.N, problem.n, problem.m
    k = np.empty((N, m))
    K = np.empty((N, m, n))
    dV = np.zeros(2)
    eye = mu * np.eye(n)
    for t in range(N - 1, -1, -1):
        A, B = fx[t], fu[t]
        Qx = lx[t] + A.T @ Vx
        Qu = lu[t] + B.T @ Vx
        Qxx = lxx + A.T @ Vxx @ A
        VxxB = (Vxx + eye) @ B
        Quu = luu + B.T @ Vxx @ B
        Qux = B.T @ Vxx @ A
        Quu_reg = luu + B.T @ VxxB
        Qux_reg = VxxB.T @ A
        if fxx is not None:
            # Σ_l V'_x[l] f_l,xx: the second-order terms iLQR leaves out
            Qxx = Qxx + np.einsum("l,lmk->mk", Vx, fxx[t])
            # (m, n): Cux[j, i] = Σ_l V'_x[l] ∂²f_l/∂x_i∂u_j
            Cux = np.einsum("l,lij->ji", Vx, fxu[t])
            Qux = Qux + Cux
            Qux_reg = Qux_reg + Cux
        try:
            L = np.linalg.cholesky(Quu_reg)
        except np.linalg.LinAlgError:
            return None
        sol = np.linalg.solve(L.T, np.linalg.solve(L, np.column_stack([Qu, Qux_reg])))
        k[t], K[t] = -sol[:, 0], -sol[:, 1:]
        dV += [k[t] @ Qu, 0.5 * k[t] @ Quu @ k[t]]
        # the value's expansion at t (Tassa, Erez and Todorov, eq. 11, with the unregularized
        # Q_uu and Q_ux)
        Vx = Qx + K[t].T @ Quu @ k[t] + K[t].T @ Qu + Qux.T @ k[t]
        Vxx = Qxx + K[t].T @ Quu @ K[t] + K[t].T @ Qux + Qux.T @ K[t]
        Vxx = 0.5 * (Vxx + Vxx.T)
    return k, K, dV


def solve(problem, U0, second_order, max_iter=300, tol=1e-8, log=None):
    """iLQR (second_order False) or DDP (True) from the controls U0, with the same line search
    (alpha = 1, 1/2, ..., 1/1024; accepted when the cost falls by at least 1e-4 of the expected
    decrease) and the same regularization schedule (Tassa, Erez and Todorov: factor Δ0 = 1.6,
    mu_min = 1e-6, mu = 0 below it; mu starts at 0). Stops when ‖∂J/∂U‖ ≤ tol (largest entry).
    Returns a dict: X, U, cost, converged, iterations, and the lists costs and grads (‖∂J/∂U‖,
    largest entry) per iterate, mus and alphas per step."""
    U = np.array(U0, float)
    X, U = problem.rollout(U)
    J = problem.cost(X, U)
    mu, delta, delta0, mu_min, mu_max = 0.0, 1.0, 1.6, 1e-6, 1e12
    hist = {"costs": [], "grads": [], "mus": [], "alphas": []}
    converged = False
    for it in range(max_iter + 1):
        fx, fu = problem.derivatives(X[:-1], U)
        g = np.abs(gradient(problem, X, U, fx, fu)).max()
        hist["costs"].append(J)
        hist["grads"].append(g)
        if log:
            step = "" if it == 0 else "  (step: mu %.1e, alpha %.4g)" % (hist["mus"][-1],
                                                                        hist["alphas"][-1])
            log("  %3d  cost %.12e  |dJ/dU| %.3e%s" % (it, J, g, step))
        if g <= tol:
            converged = True
            break
        if it == max_iter:
            break
        fxx, fxu = problem.second_derivatives(X[:-1], U) if second_order else (None, None)
        while True:
            res = backward(problem, X, U, fx, fu, fxx, fxu, mu)
            if res is not None:
                k, K, dV = res
                alpha = 1.0
                while alpha >= 1.0 / 1024:
                    try:
                        Xn, Un = problem.rollout(U, X, K, k, alpha)
                        Jn = problem.cost(Xn, Un)
                    except hinge.Error:
                        Jn = np.inf      # the rollout blew up (a non-finite acceleration)
                    expected = alpha * dV[0] + alpha * alpha * dV[1]
                    # Armijo on the model's decrease; at rounding level, any non-increase
                    tiny = expected > -1e-14 * abs(J)
                    if Jn - J <= 1e-4 * expected or (tiny and Jn <= J):
                        break
                    alpha *= 0.5
                else:
                    res = None
            if res is not None:
                break
            # no descent: raise mu
            delta = max(delta0, delta * delta0)
            mu = max(mu_min, mu * delta)
            if mu > mu_max:
                raise RuntimeError("%s: regularization above %g" % (problem.name, mu_max))
        X, U, J = Xn, Un, Jn
        hist["mus"].append(mu)
        hist["alphas"].append(alpha)
        # success: lower mu
        delta = min(1.0 / delta0, delta / delta0)
        mu = mu * delta if mu * delta > mu_min else 0.0
    return dict(X=X, U=U, cost=J, converged=converged, iterations=len(hist["costs"]) - 1, **hist)


def tail(result, last=5):
    """the last iterations' rows: (iteration, ‖∂J/∂U‖ g_k, g_k / g_{k-1}, g_k / g_{k-1}², J_k − J
    at the end). Linear convergence: g_k / g_{k-1} tends to a constant rate below 1; quadratic:
    g_k / g_{k-1}² stays bounded while g_k / g_{k-1} falls towards 0."""
    g, c = np.asarray(result["grads"]), np.asarray(result["costs"])
    rows = []
    for i in range(max(1, len(g) - last), len(g)):
        rows.append((i, g[i], g[i] / g[i - 1], g[i] / g[i - 1] ** 2, c[i] - c[-1]))
    return rows


# ---- the two systems --------------------------------------------------------------------------

def cartpole():
    """the cart-pole of cartpole.urdf swung up: from hanging at rest to upright at rest (pole at
    pi, cart back at 0) in 2.5 s (h = 0.02, N = 125), the cart pushed by u (N)"""
    model = hinge.Model.from_urdf(os.path.join(HERE, "cartpole.urdf"))
    return Problem("cart-pole", model, actuated=[0], h=0.02, N=125,
                   x0=[0, 0, 0, 0], goal=[0, np.pi, 0, 0],
                   Q=np.diag([0.1, 0.1, 0.01, 0.01]), R=np.diag([0.01]),
                   Qf=np.diag([100.0, 100.0, 10.0, 10.0]))


def arm():
    """the 3-DoF arm of arm3.urdf from hanging straight down at rest (shoulder at pi/2) to a
    posture at rest (yaw 1, shoulder -0.5, elbow 1) in 1.5 s (h = 0.01, N = 150), every joint
    driven"""
    model = hinge.Model.from_urdf(os.path.join(HERE, "arm3.urdf"))
    return Problem("arm3", model, actuated=[0, 1, 2], h=0.01, N=150,
                   x0=[0, np.pi / 2, 0, 0, 0, 0], goal=[1.0, -0.5, 1.0, 0, 0, 0],
                   Q=np.diag([1.0, 1.0, 1.0, 0.01, 0.01, 0.01]), R=0.01 * np.eye(3),
                   Qf=np.diag([1000.0, 1000.0, 1000.0, 10.0, 10.0, 10.0]))


SYSTEMS = [cartpole, arm]


def main():
    verbose = "-q" not in sys.argv[1:]
    rows = []
    for make in SYSTEMS:
        for second_order in (False, True):
            p = make()
            name = "DDP" if second_order else "iLQR"
            print("%s, %s (n = %d, m = %d, N = %d)" % (p.name, name, p.n, p.m, p.N))
            t0 = time.perf_counter()
            r = solve(p, np.zeros((p.N, p.m)), second_order, log=print if verbose else None)
            wall = time.perf_counter() - t0
            print("  %s after %d iterations, cost %.12g, %.2f s (%.1f ms per iteration)"
                  % ("converged" if r["converged"] else "NOT converged", r["iterations"],
                     r["cost"], wall, 1e3 * wall / max(1, r["iterations"])))
            print("  last iterations:    k   |dJ/dU|    g_k/g_k-1  g_k/g_k-1^2  J_k - J_end")
            for it, g, r1, r2, dj in tail(r):
                print("                   %4d  %.3e  %.3e  %.3e    %.3e" % (it, g, r1, r2, dj))
            rows.append((p.name, name, r["iterations"], r["cost"], wall, r["converged"]))
    print("\n| system | method | iterations | final cost | wall time (s) |")
    print("|---|---|---:|---:|---:|")
    for s, meth, it, J, wall, ok in rows:
        print("| %s | %s | %d%s | %.10f | %.2f |" % (s, meth, it, "" if ok else " (not converged)",
                                                    J, wall))
    return 0 if all(r[5] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
