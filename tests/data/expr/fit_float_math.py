#!/usr/bin/env python3
"""Derives the float polynomial coefficients of include/tl/expr/simd_math.hpp.

Each approximation is a Chebyshev interpolant of a smooth function, computed at 50 significant
digits with mpmath, converted to monomial form in its own variable and rounded to float. The
script prints the coefficient lists (lowest order first, as C++ float literals) and the maximum
relative error of the rounded polynomial against the function over a dense grid, evaluated in
mpmath (so the figure is the approximation error alone, without float evaluation rounding).

  exp:  e^r  = 1 + r + r^2 E(r),            |r| <= ln(2)/2
  sin:  sin r = r + r^3 S(r^2),             |r| <= pi/4
  cos:  cos r = 1 - r^2/2 + r^4 C(r^2),     |r| <= pi/4
  tanh: tanh x = x + x^3 T(x^2),            |x| <= 0.9

Run with Debian's python3 (mpmath and numpy): python3 fit_float_math.py
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 50


def cheb_fit(f, a, b, n):
    """Monomial coefficients (in the variable t of [a, b]) of f's degree n-1 Chebyshev interpolant."""
    th = [mp.pi * (j + mp.mpf("0.5")) / n for j in range(n)]
    u = [mp.cos(t) for t in th]
    fv = [f((b - a) / 2 * uj + (b + a) / 2) for uj in u]
    c = [2 * mp.fsum(fv[j] * mp.cos(k * th[j]) for j in range(n)) / n for k in range(n)]
    c[0] /= 2
    # Chebyshev series in u -> monomials in u.
    T = [[mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]]
    for k in range(2, n):
        nxt = [mp.mpf(0)] + [2 * v for v in T[k - 1]]
        for i, v in enumerate(T[k - 2]):
            nxt[i] -= v
        T.append(nxt)
    mu = [mp.mpf(0)] * n
    for k in range(n):
        for i, v in enumerate(T[k]):
            mu[i] += c[k] * v
    # u = (2 t - (a + b)) / (b - a): expand the powers of u in t.
    s, o = 2 / (b - a), -(a + b) / (b - a)
    mt = [mp.mpf(0)] * n
    for i in range(n):
        for k in range(i + 1):
            mt[k] += mu[i] * mp.binomial(i, k) * s**k * o ** (i - k)
    return [float(np.float32(float(v))) for v in mt]


def poly(cs, t):
    p = mp.mpf(0)
    for v in reversed(cs):
        p = p * t + mp.mpf(v)
    return p


def report(name, cs, full, ref, lo, hi):
    worst = 0
    for k in range(4001):
        x = lo + (hi - lo) * mp.mpf(k) / 4000
        if x == 0:
            continue
        worst = max(worst, abs(full(cs, x) / ref(x) - 1))
    lits = ", ".join(np.format_float_scientific(np.float32(v), unique=True) + "f" for v in cs)
    print(f"{name}: {{{lits}}}  max rel. error {mp.nstr(worst, 3)} (float eps/2 = 5.96e-08)")


ln2h = mp.log(2) / 2
E = cheb_fit(lambda r: (mp.exp(r) - 1 - r) / r**2 if r != 0 else mp.mpf("0.5"), -ln2h, ln2h, 6)
report("exp E", E, lambda c, r: 1 + r + r * r * poly(c, r), mp.exp, -ln2h, ln2h)

q = (mp.pi / 4) ** 2
S = cheb_fit(lambda t: (mp.sin(mp.sqrt(t)) / mp.sqrt(t) - 1) / t if t != 0 else -mp.mpf(1) / 6, 0, q, 4)
report("sin S", S, lambda c, r: r + r**3 * poly(c, r * r), mp.sin, -mp.pi / 4, mp.pi / 4)
C = cheb_fit(lambda t: (mp.cos(mp.sqrt(t)) - 1 + t / 2) / t**2 if t != 0 else mp.mpf(1) / 24, 0, q, 4)
report("cos C", C, lambda c, r: 1 - r * r / 2 + r**4 * poly(c, r * r), mp.cos, -mp.pi / 4, mp.pi / 4)

th = mp.mpf("0.9") ** 2
T = cheb_fit(lambda t: (mp.tanh(mp.sqrt(t)) / mp.sqrt(t) - 1) / t if t != 0 else -mp.mpf(1) / 3, 0, th, 9)
report("tanh T", T, lambda c, x: x + x**3 * poly(c, x * x), mp.tanh, 0, mp.mpf("0.9"))
