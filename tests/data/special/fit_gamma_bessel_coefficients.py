#!/usr/bin/env python3
"""Derives the polynomial coefficients of include/tl/special/detail/gamma_kernel.hpp and
bessel_kernel.hpp.

Each approximation is a Chebyshev interpolant of a smooth function on an interval, computed with
mpmath at 50 significant digits and converted to monomial form in the interpolation variable
u in [-1, 1]. The script prints, for each, the C++ `horner<...>` argument list (lowest order
first) and the maximum relative error of a double-precision Horner evaluation on a dense grid.

  gammaln:  K1(t) = lgamma(1 + t) / (t (t - 1))   t in [-0.25, 0.75]   (x in (0, 1.75))
            K2(s) = lgamma(2 + s) / (s (s + 1))   s in [-0.25, 1]      (x in [1.75, 3))
  digamma:  R(t) = psi(1 + t) / (t - t0)      t in [0, 2]          (t0 = x0 - 1, x0 the zero of psi)
  trigamma (float results, evaluated in double):
            T(t) = (y + 3/8) psi'(y)          t = 1 / (y + 3/8) in (0, 8/11]   (y = x + 1 >= 1)
  gammaln (float results, evaluated in double):
            K(y) = lgamma(y) / ((y - 1)(y - 2))             y in [1, 2.5]
            S(z) = (lgamma(x) - (x - 1/2) log x + x - log(2 pi) / 2) x,  z = 1 / x^2 in (0, 0.16]
  digamma (float results, evaluated in double):
            U(t) = (psi(y) - log(y + 3/8)) / t   t = 1 / (y + 3/8) in (0, 8/11]   (y = x + 1 >= 1)
            Z(h) = psi(x0 + h) / h               h in [-1/32, 1/32]   (x0 the zero of psi)
  i0e:      e^-x I0(x)                        x in [0, 8]
            sqrt(x) e^-x I0(x)                1/x in (0, 1/8]
  i1e:      e^-x I1(x) / x                    x in [0, 8]
            sqrt(x) e^-x I1(x)                1/x in (0, 1/8]
  k0:       K0(x) + log(x/2) I0(x)            x^2 in [0, 1]        (entire in x^2)
  k1:       x K1(x) - x log(x/2) I1(x)        x^2 in [0, 1]        (entire in x^2)
            sqrt(x) e^x K0(x), sqrt(x) e^x K1(x)  1/x in (0, 1]
  float results, evaluated in double (shorter fits, about 2e-11 relative):
  i0, i1:   I0(x), 2 I1(x) / x                x^2 in [0, 64]       (entire in x^2)
            sqrt(x) e^-x I0(x), sqrt(x) e^-x I1(x)   1/x in (0, 1/8]
  k0, k1:   the same four functions as in double, with fewer terms
Exact Taylor coefficients (printed too): I0(x) = sum (x^2/4)^k / k!^2 and
2 I1(x) / x = sum (x^2/4)^k / (k! (k + 1)!) in powers of x^2, 13 terms each (for x <= 1), and
sin(x) / x = sum (-x^2)^k / (2k + 1)! (9 terms, for |x| < 1/2).

Run (from this folder): /usr/bin/python3 fit_gamma_bessel_coefficients.py
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 50


def cheb_coeffs(f, n):
    th = [mp.pi * (j + mp.mpf("0.5")) / n for j in range(n)]
    fv = [f(mp.cos(t)) for t in th]
    return [2 * mp.fsum(fv[j] * mp.cos(k * th[j]) for j in range(n)) / n for k in range(n)]


def to_monomial(c):
    n = len(c)
    T = [[mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]]
    for k in range(2, n):
        a = [mp.mpf(0)] + [2 * v for v in T[k - 1]]
        b = T[k - 2] + [mp.mpf(0)] * (len(a) - len(T[k - 2]))
        T.append([a[i] - b[i] for i in range(len(a))])
    m = [mp.mpf(0)] * n
    for k in range(n):
        for i, v in enumerate(T[k]):
            m[i] += (c[k] / 2 if k == 0 else c[k]) * v
    return m


def horner(m, u):
    p = 0.0
    for v in reversed(m):
        p = p * u + v
    return p


def fit(name, f, n, grid=2001):
    """f is a function of u in [-1, 1]."""
    m = [float(v) for v in to_monomial(cheb_coeffs(f, n))]
    us = [mp.mpf(-1) + 2 * mp.mpf(i) / (grid - 1) for i in range(grid)]
    err = max(abs((horner(m, float(u)) - f(mp.mpf(float(u)))) / f(mp.mpf(float(u)))) for u in us)
    print(f"// {name}: {n} terms, max relative error of the double Horner form {float(err):.3g}")
    print("horner<" + ", ".join(repr(v) for v in m) + ">")
    return m


def on(a, b, g):
    a, b = mp.mpf(a), mp.mpf(b)
    return lambda u: g((u * (b - a) + (a + b)) / 2)


def lg_over(z0):
    # lgamma(z0 + t) / ((t + z0 - 1)(t + z0 - 2)): the zeros of lgamma at 1 and 2 divided out
    def g(t):
        d = (t + z0 - 1) * (t + z0 - 2)
        if abs(d) < mp.mpf(10) ** -40:
            return mp.diff(lambda v: mp.loggamma(z0 + v), t, 1) / (2 * t + 2 * z0 - 3)
        return mp.loggamma(z0 + t) / d
    return g


X0 = mp.findroot(lambda x: mp.psi(0, x), 1.46)
T0 = X0 - 1


def r_of(t):
    if abs(t - T0) < mp.mpf(10) ** -30:
        return mp.psi(1, 1 + t)
    return mp.psi(0, 1 + t) / (t - T0)


def trigamma_t(t):
    # (y + c) psi'(y) as a function of t = 1 / (y + c), c = 3/8: tends to 1 as t -> 0 (y -> inf),
    # smooth on [0, 1 / (1 + c)]
    if t == 0:
        return mp.mpf(1)
    return mp.psi(1, 1 / t - mp.mpf(3) / 8) / t


def stirling_s(z):
    # x (lgamma(x) - (x - 1/2) log x + x - log(2 pi) / 2) as a function of z = 1 / x^2: 1/12 at z = 0
    if z == 0:
        return mp.mpf(1) / 12
    x = 1 / mp.sqrt(z)
    return x * (mp.loggamma(x) - (x - mp.mpf(1) / 2) * mp.log(x) + x - mp.log(2 * mp.pi) / 2)


def digamma_u(t):
    # (psi(y) - log(y + 3/8)) / t with t = 1 / (y + 3/8): -7/8 at t = 0
    if t == 0:
        return -mp.mpf(7) / 8
    return (mp.psi(0, 1 / t - mp.mpf(3) / 8) - mp.log(1 / t)) / t


def digamma_z(h):
    return mp.psi(1, X0) if abs(h) < mp.mpf(10) ** -30 else mp.psi(0, X0 + h) / h


def i_small(k):
    return lambda x: (mp.exp(-x) * mp.besseli(k, x)) / (x if k == 1 and x != 0 else 1) if not (k == 1 and x == 0) else mp.mpf(0.5)


def i_large(k):
    def g(t):  # t = 1 / x
        if t == 0:
            return 1 / mp.sqrt(2 * mp.pi)
        x = 1 / t
        return mp.sqrt(x) * mp.exp(-x) * mp.besseli(k, x)
    return g


def i0_of_y(y):
    return mp.besseli(0, mp.sqrt(y))


def i1_of_y(y):
    return mp.mpf(1) if y == 0 else 2 * mp.besseli(1, mp.sqrt(y)) / mp.sqrt(y)


def k_small_a(y):
    if y == 0:
        return -mp.euler  # the limit of K0(x) + log(x/2) I0(x) at 0
    x = mp.sqrt(y)
    return mp.besselk(0, x) + mp.log(x / 2) * mp.besseli(0, x)


def k_small_b(y):
    if y == 0:
        return mp.mpf(1)
    x = mp.sqrt(y)
    return x * mp.besselk(1, x) - x * mp.log(x / 2) * mp.besseli(1, x)


def k_large(k):
    def g(t):
        if t == 0:
            return mp.sqrt(mp.pi / 2)
        x = 1 / t
        return mp.sqrt(x) * mp.exp(x) * mp.besselk(k, x)
    return g


def ffit(name, f, n, grid=4001):
    """A fit for kernels computed in float: the coefficients rounded to float, the constant term
    also as hi + lo (the kernels add lo in the last Horner step). Prints the C++ argument list and
    the maximum relative error, in units of 2^-24, of the float Horner form with fused
    multiply-adds (each step rounded once to float) and lo added to the last step's product."""
    m = to_monomial(cheb_coeffs(f, n))
    mf = [float(np.float32(float(v))) for v in m]
    lo = float(np.float32(float(m[0] - mp.mpf(mf[0]))))
    worst = 0
    for i in range(grid):
        u = mp.mpf(float(np.float32(float(-1 + mp.mpf(2) * i / (grid - 1)))))
        p = mp.mpf(mf[-1])
        for c in reversed(mf[1:-1]):
            p = mp.mpf(float(np.float32(float(p * u + c))))
        p = mp.mpf(float(np.float32(float(p * u + lo)))) + mf[0]
        p = mp.mpf(float(np.float32(float(p))))
        ref = f(u)
        worst = max(worst, abs((p - ref) / ref))
    print(f"// {name}: {n} terms in float, c0 lo = {lo!r}f, float Horner max relative error {float(worst) * 2 ** 24:.3f} x 2^-24")
    print("horner(u, " + ", ".join(repr(v) + "f" for v in mf) + ")")
    return mf


def log1p_q(f):
    # (log1p(f) - f + f^2 / 2) / f^3: 1/3 at f = 0
    if abs(f) < mp.mpf(10) ** -30:
        return mp.mpf(1) / 3
    return (mp.log1p(f) - f + f * f / 2) / f ** 3


def lgamma_m(x):
    # lgamma(1 + x) / x: -euler at x = 0
    if abs(x) < mp.mpf(10) ** -30:
        return -mp.euler
    return mp.loggamma(1 + x) / x


def taylor(name, coeffs):
    print(f"// {name}: {len(coeffs)} exact Taylor coefficients")
    print("horner<" + ", ".join(repr(float(c)) for c in coeffs) + ">")


if __name__ == "__main__":
    print(f"// x0 = {mp.nstr(X0, 25)}, t0 hi = {float(T0)!r}, lo = {float(T0 - mp.mpf(float(T0)))!r}")
    fit("lgamma K1", on("-0.25", "0.75", lg_over(1)), 22)
    fit("lgamma K2", on("-0.25", "1", lg_over(2)), 19)
    fit("R", on(0, 2, r_of), 30)
    fit("trigamma T (float)", on(0, mp.mpf(8) / 11, trigamma_t), 11)
    fit("lgamma K (float)", on(1, "2.5", lg_over(0)), 15)
    fit("lgamma S (float)", on(0, "0.16", stirling_s), 6)
    fit("digamma U (float)", on(0, mp.mpf(8) / 11, digamma_u), 11)
    fit("digamma Z (float)", on(-mp.mpf(1) / 32, mp.mpf(1) / 32, digamma_z), 6)
    x0hi = mp.mpf(float(X0))
    print(f"// x0 hi = {float(x0hi)!r}, lo = {float(X0 - x0hi)!r}")
    fit("I0 small", on(0, 8, i_small(0)), 30)
    fit("I0 large", on(0, "0.125", i_large(0)), 24)
    fit("I1 small", on(0, 8, i_small(1)), 30)
    fit("I1 large", on(0, "0.125", i_large(1)), 24)
    fit("K0 small", on(0, 1, k_small_a), 12)
    fit("K1 small", on(0, 1, k_small_b), 12)
    fit("K0 large", on(0, 1, k_large(0)), 34)
    fit("K1 large", on(0, 1, k_large(1)), 34)
    fit("I0 in x^2 (float)", on(0, 64, i0_of_y), 13)
    fit("2 I1 / x in x^2 (float)", on(0, 64, i1_of_y), 12)
    fit("I0 large (float)", on(0, "0.125", i_large(0)), 11)
    fit("I1 large (float)", on(0, "0.125", i_large(1)), 11)
    fit("K0 small (float)", on(0, 1, k_small_a), 6)
    fit("K1 small (float)", on(0, 1, k_small_b), 6)
    fit("K0 large (float)", on(0, 1, k_large(0)), 17)
    fit("K1 large (float)", on(0, 1, k_large(1)), 17)
    # gammaln on float packets computed in float
    ffit("lgamma M (float kernel)", on(0, "0.5", lgamma_m), 9)
    ffit("lgamma K on [0.5, 1.5] (float kernel)", on("0.5", "1.5", lg_over(0)), 14)
    ffit("lgamma K on [1.5, 3] (float kernel)", on("1.5", 3, lg_over(0)), 12)
    ffit("lgamma S (float kernel)", on(0, mp.mpf(1) / 9, stirling_s), 4)
    ffit("log1p Q (float kernel)", on("-0.25", "0.5", log1p_q), 11)
    taylor("I0 series in x^2", [mp.mpf(1) / (4 ** k * mp.factorial(k) ** 2) for k in range(13)])
    taylor("2 I1 / x series in x^2", [mp.mpf(1) / (4 ** k * mp.factorial(k) * mp.factorial(k + 1)) for k in range(13)])
    taylor("sin(x)/x series in x^2", [mp.mpf(-1) ** k / mp.factorial(2 * k + 1) for k in range(9)])
