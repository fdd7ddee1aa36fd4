#!/usr/bin/env python3
"""Derives the polynomial coefficients used by include/tl/special/detail/erf_kernel.hpp.

Each approximation is a Chebyshev interpolant computed at 60 significant digits with mpmath and
converted to monomial form in the interpolation variable u in [-1, 1] (the conversion is well
conditioned for these smooth functions: all coefficients stay below 1 in magnitude). The script
prints the coefficient lists (lowest order first) and the maximum relative error of a
double-precision Horner evaluation over a dense grid.

  erf(x) / x         = P(u),  u = 2 x^2 / 0.5625 - 1,               0 <= x <= 0.75
  x exp(x^2) erfc(x) = H(u),  u = affine map of t = 1 - 2K / (x + K),  0.5 <= x <= inf, K = 3
  erfinv(y) / y      = E1(u), u = w / 3.125 - 1,                      w = -log(1 - y^2) <= 6.25
  erfinv(y)          = E2(u), u = (s - 3.25) / 0.75,                  s = sqrt(w) in [2.5, 4]
  erfinv(y)          = E3(u), u = (s - 5.25) / 1.25,                  s in [4, 6.5]
  float results (erfinv_f1_head + erfinv_f1_rest, erfinv_f2: fewer terms; F1 from u^3 on in float,
  the rest in double):
  erfinv(y) / y      = F1(u), u = w / 3.125 - 1,                      w <= 6.25
  erfinv(y)          = F2(u), u = (s - 3.3125) / 0.8125,              s in [2.5, 4.125]
  erf(x) / x and x exp(x^2) erfc(x) with 8 and 16 terms (log_ndtr's float kernel)
  (asin(r) / r - 1) / z = A(u), u = 8 z - 1, z = r^2 in [0, 1/4]     (acos of the Chebyshev polynomials)

Run: python3 fit_special_coefficients.py
"""
import mpmath as mp

mp.mp.dps = 60
K = mp.mpf(3)
XA = mp.mpf("0.5")
TA = 1 - 2 * K / (XA + K)
TB = mp.mpf(1)


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


def erf_over_x(u):
    s = (u + 1) * mp.mpf("0.5625") / 2
    x = mp.sqrt(s)
    return 2 / mp.sqrt(mp.pi) if x == 0 else mp.erf(x) / x


def h_of_u(u):
    t = (u * (TB - TA) + (TB + TA)) / 2
    if t >= 1:
        return 1 / mp.sqrt(mp.pi)
    x = K * (1 + t) / (1 - t)
    return x * mp.erfc(x) * mp.exp(x * x)


def y_of_w(w):
    return mp.sqrt(-mp.expm1(-w))


def erfinv_over_y(u):
    w = mp.mpf("3.125") * (u + 1)
    if w == 0:
        return mp.sqrt(mp.pi) / 2
    y = y_of_w(w)
    return mp.erfinv(y) / y


def erfinv_of_s(lo, hi):
    def f(u):
        s = lo + (hi - lo) * (u + 1) / 2
        return mp.erfinv(y_of_w(s * s))
    return f


def asin_r(u):
    z = (u + 1) / 8
    if z == 0:
        return mp.mpf(1) / 6
    r = mp.sqrt(z)
    return (mp.asin(r) / r - 1) / z


def report(name, m, f, us):
    m = [float(v) for v in m]
    err = max(abs((horner(m, float(u)) - f(mp.mpf(u))) / f(mp.mpf(u))) for u in us)
    print(f"// {name}: {len(m)} terms, max relative error of the double Horner form {float(err):.3g}")
    print(",\n".join(repr(v) for v in m))


if __name__ == "__main__":
    grid = [mp.mpf(-1) + 2 * mp.mpf(i) / 4000 for i in range(4001)]
    report("erf(x)/x", to_monomial(cheb_coeffs(erf_over_x, 14)), erf_over_x, grid)
    report("x erfcx(x)", to_monomial(cheb_coeffs(h_of_u, 26)), h_of_u, grid)
    report("erfinv(y)/y in w", to_monomial(cheb_coeffs(erfinv_over_y, 26)), erfinv_over_y, grid)
    e2 = erfinv_of_s(mp.mpf("2.5"), mp.mpf(4))
    report("erfinv(y) in sqrt(w), [2.5, 4]", to_monomial(cheb_coeffs(e2, 20)), e2, grid)
    e3 = erfinv_of_s(mp.mpf(4), mp.mpf("6.5"))
    report("erfinv(y) in sqrt(w), [4, 6.5]", to_monomial(cheb_coeffs(e3, 22)), e3, grid)
    report("float: erfinv(y)/y in w", to_monomial(cheb_coeffs(erfinv_over_y, 14)), erfinv_over_y, grid)
    f2 = erfinv_of_s(mp.mpf("2.5"), mp.mpf("4.125"))
    report("float: erfinv(y) in sqrt(w), [2.5, 4.125]", to_monomial(cheb_coeffs(f2, 10)), f2, grid)
    report("(asin(r)/r - 1)/r^2", to_monomial(cheb_coeffs(asin_r, 14)), asin_r, grid)
    report("float: erf(x)/x", to_monomial(cheb_coeffs(erf_over_x, 8)), erf_over_x, grid)
    report("float: x erfcx(x)", to_monomial(cheb_coeffs(h_of_u, 16)), h_of_u, grid)
