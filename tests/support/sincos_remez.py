#!/usr/bin/env python3
"""The minimax polynomials of hg_sincos (dynamics/algebra/spatial.h), by the Remez exchange in 50-digit
arithmetic (python3-mpmath). With z = r^2 on [0, (pi/4)^2]:
  sin r = r - r z ps(z),  ps of degree 5, weighted for the relative error of sin r;
  cos r = 1 - z pc(z),    pc of degree 6, weighted for the relative error of cos r.
Prints each fit's largest weighted error and its coefficients, z^0 first, as doubles."""
import mpmath as mp

mp.mp.dps = 50
Z = (mp.pi / 4) ** 2


def sin_target(z):
    r = mp.sqrt(z)
    return (r - mp.sin(r)) / r**3


def sin_weight(z):  # error of sin r = r^3 * error of ps, relative to sin r
    r = mp.sqrt(z)
    return r**3 / mp.sin(r)


def cos_target(z):
    r = mp.sqrt(z)
    return (1 - mp.cos(r)) / z


def cos_weight(z):  # error of cos r = z * error of pc, relative to cos r
    return z / mp.cos(mp.sqrt(z))


def remez(f, w, n, a, b, iters=30, grid=4000):
    """coefficients of the degree-n polynomial p minimizing max |w (p - f)| on [a, b], and that max"""
    m = n + 2
    # start from the Chebyshev extrema
    x = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / (m - 1)) for i in range(m)]
    for _ in range(iters):
        # p(x_i) - f(x_i) = (-1)^i E / w(x_i) on the reference
        A = mp.matrix(m, m)
        rhs = mp.matrix(m, 1)
        for i in range(m):
            for j in range(n + 1):
                A[i, j] = x[i] ** j
            A[i, n + 1] = (-1) ** i / w(x[i])
            rhs[i] = f(x[i])
        sol = mp.lu_solve(A, rhs)
        c = [sol[j] for j in range(n + 1)]
        pts = [a + (b - a) * k / grid for k in range(grid + 1)]
        err = [w(t) * (mp.polyval(c[::-1], t) - f(t)) for t in pts]
        # the new reference: the largest error of each run of one sign
        ext, k = [], 0
        while k <= grid:
            sign, best = mp.sign(err[k]), k
            while k <= grid and mp.sign(err[k]) == sign:
                if abs(err[k]) > abs(err[best]):
                    best = k
                k += 1
            ext.append(best)
        while len(ext) > m:
            ext.pop(0 if abs(err[ext[0]]) < abs(err[ext[-1]]) else -1)
        if len(ext) == m:
            x = [pts[e] for e in ext]
    return c, max(abs(e) for e in err)


# the weights vanish at z = 0, where both fits are exact to far below an ulp: start just above
for name, f, w, n in (("ps", sin_target, sin_weight, 5), ("pc", cos_target, cos_weight, 6)):
    c, worst = remez(f, w, n, Z * mp.mpf("1e-6"), Z)
    print("%s: degree %d, largest relative error %s" % (name, n, mp.nstr(worst, 3)))
    for j, cj in enumerate(c):
        print("  z^%d  %r" % (j, float(cj)))
