#!/usr/bin/env python3
"""Derives the polynomial coefficients of include/tl/special/detail/bessel_jy_kernel.hpp
(Bessel functions of the first and second kind, orders 0 and 1), tgamma_kernel.hpp and airy_kernel.hpp.

Chebyshev interpolants computed with mpmath at 40 digits, converted to monomial form in
u in [-1, 1] (helpers from fit_gamma_bessel_coefficients.py); for each the script prints the
term count, the maximum relative error of the double Horner form on a grid, the last Chebyshev
coefficient and the C++ `horner<...>` argument list.

  x < 2, u = x^2 / 2 - 1 (11 terms):
    J0(x);  J1(x) / x;  D = (Y0(x) - 2/pi log(x / z0) J0(x)) / (x^2 - z0^2), z0 the first zero of Y0;
    E = (Y1(x) - 2/pi (log(x) J1(x) - 1/x)) / x          (D and E are entire in x^2)
  modulus and phase, J_n = M_n cos(x - (2n+1) pi/4 + alpha_n), Y_n = M_n sin(...):
    x in [2, 8], u = 16 / (3x) - 5/3 (21 terms):   sqrt(x) M_n,  alpha_n
    x >= 8, u = 128 / x^2 - 1 (15 terms):          sqrt(x) M_n,  x alpha_n
  float results: sqrt(x) M_n on [8, inf) in 7 terms (about 1e-12 relative), below 2 the x < 2
  forms in 8 terms each, and below 8 the
  zeros factored out: J0 / ((x^2 - j01^2)(x^2 - j02^2)) and J1 / (x (x^2 - j11^2)(x^2 - j12^2)) in
  u = x^2 / 32 - 1 on [0, 8] (12 and 11 terms), Y0 / ((x - y02)(x - y03)) and
  Y1 / ((x - y11)(x - y12)) in u = (x - 5) / 3 on [2, 8] (21 and 23 terms)

Run (from this folder): /usr/bin/python3 fit_bessel_jy_coefficients.py
"""
import mpmath as mp

from fit_gamma_bessel_coefficients import cheb_coeffs, horner, to_monomial

mp.mp.dps = 40


def mp_pair(n, x):
    """M_n(x) and alpha_n(x)."""
    J, Y = mp.besselj(n, x), mp.bessely(n, x)
    a = mp.atan2(Y, J) - (x - (2 * n + 1) * mp.pi / 4)
    return mp.sqrt(J * J + Y * Y), a - 2 * mp.pi * mp.nint(a / (2 * mp.pi))


def fit(name, g, n, grid=600):
    c = cheb_coeffs(g, n)
    m = [float(v) for v in to_monomial(c)]
    err = 0
    for i in range(grid):
        u = -1 + 2 * i / (grid - 1)
        ref = g(mp.mpf(u))
        err = max(err, abs((horner(m, u) - ref) / ref) if ref != 0 else 0)
    print(f"// {name}: {n} terms, max relative error {float(err):.3g}, last coefficient {float(abs(c[-1])):.3g}")
    print("horner<" + ", ".join(repr(v) for v in m) + ">")


z0 = mp.besselyzero(0, 1)
print(f"// z0 = {mp.nstr(z0, 25)}: hi {float(z0)!r}, lo {float(z0 - mp.mpf(float(z0)))!r}, log {float(mp.log(z0))!r}")


def y_of(u):
    return max((u + 1) * 2, mp.mpf(10) ** -60)


def small_d(u):
    y = y_of(u)
    if abs(y - z0 ** 2) < mp.mpf(10) ** -30:
        y += mp.mpf(10) ** -25
    x = mp.sqrt(y)
    return (mp.bessely(0, x) - 2 / mp.pi * mp.log(x / z0) * mp.besselj(0, x)) / (y - z0 ** 2)


def small_e(u):
    x = mp.sqrt(y_of(u))
    return (mp.bessely(1, x) - 2 / mp.pi * (mp.log(x) * mp.besselj(1, x) - 1 / x)) / x


fit("J0, x < 2", lambda u: mp.besselj(0, mp.sqrt(y_of(u))), 11)
fit("J1 / x, x < 2", lambda u: mp.besselj(1, mp.sqrt(y_of(u))) / mp.sqrt(y_of(u)), 11)
fit("D (Y0), x < 2", small_d, 11)
fit("E (Y1), x < 2", small_e, 11)


def x_mid(u):
    return 1 / ((u * mp.mpf(0.375) + mp.mpf(0.625)) / 2)


def x_far(u):
    return 8 / mp.sqrt((u + 1) / 2) if u > -1 else mp.inf


for n in (0, 1):
    fit(f"sqrt(x) M{n}, x in [2, 8]", lambda u: mp_pair(n, x_mid(u))[0] * mp.sqrt(x_mid(u)), 21)
    fit(f"alpha{n}, x in [2, 8]", lambda u: mp_pair(n, x_mid(u))[1], 21)
    fit(f"sqrt(x) M{n}, x >= 8", lambda u: mp.sqrt(2 / mp.pi) if x_far(u) == mp.inf else mp_pair(n, x_far(u))[0] * mp.sqrt(x_far(u)), 15)
    fit(f"x alpha{n}, x >= 8", lambda u: mp.mpf(4 * n * n - 1) / 8 if x_far(u) == mp.inf else mp_pair(n, x_far(u))[1] * x_far(u), 15)

# Float results (evaluated in double, about 2e-11 relative is enough: the double value then rounds once):
# above 8 the moduli with fewer terms (the phases keep the double fits: near a zero of J_n or Y_n the result's
# relative error is the phase's absolute error over the distance to the zero).
for n in (0, 1):
    fit(f"float: sqrt(x) M{n}, x >= 8", lambda u: mp.sqrt(2 / mp.pi) if x_far(u) == mp.inf else mp_pair(n, x_far(u))[0] * mp.sqrt(x_far(u)), 7)

# Float results below 8, the zeros factored out (each held as hi + lo, so the factor x - z or
# x^2 - z^2 keeps relative accuracy next to the zero): J0 = (x^2 - j01^2)(x^2 - j02^2) P(u) and
# J1 = x (x^2 - j11^2)(x^2 - j12^2) Q(u) with u = x^2 / 32 - 1 on [0, 8] (12 and 11 terms; entire in
# x^2); Y0 = (x - y02)(x - y03) R(u) and Y1 = (x - y11)(x - y12) S(u) with u = (x - 5) / 3 on [2, 8]
# (21 and 23 terms; the logarithmic branch point at 0 limits the convergence).
def nudge(v, zs):
    """v moved off a removable singularity (the quotient's limit there is the same)."""
    return v + mp.mpf(10) ** -20 if any(abs(v - z) < mp.mpf(10) ** -25 for z in zs) else v


def print_zero(name, z):
    print(f"// {name} = {mp.nstr(z, 25)}: hi {float(z)!r}, lo {float(z - mp.mpf(float(z)))!r}")


jz = {n: [mp.besseljzero(n, k) for k in (1, 2)] for n in (0, 1)}
yz = {0: [mp.besselyzero(0, k) for k in (2, 3)], 1: [mp.besselyzero(1, k) for k in (1, 2)]}
for n in (0, 1):
    for k, z in enumerate(jz[n]):
        print_zero(f"j{n}{k + 1}^2", z * z)
    for k, z in enumerate(yz[n]):
        print_zero(f"y{n}{k + (2 if n == 0 else 1)}", z)


def j_near(n):
    def g(u):
        t = nudge(32 * (u + 1), [z * z for z in jz[n]])
        x = mp.sqrt(t)
        q = mp.besselj(0, x) if n == 0 else (mp.besselj(1, x) / x if t > 0 else mp.mpf(1) / 2)
        return q / ((t - jz[n][0] ** 2) * (t - jz[n][1] ** 2))
    return g


def y_near(n):
    def g(u):
        x = nudge(5 + 3 * u, yz[n])
        return mp.bessely(n, x) / ((x - yz[n][0]) * (x - yz[n][1]))
    return g


# Float results below 2 (Y0 and Y1 only; J takes the polynomials above): the same forms, 8 terms
# each (J0 8e-14, J1 / x 3e-15, D 1e-15 relative, E 2e-15 absolute).
fit("float: J0, x < 2", lambda u: mp.besselj(0, mp.sqrt(y_of(u))), 8)
fit("float: J1 / x, x < 2", lambda u: mp.besselj(1, mp.sqrt(y_of(u))) / mp.sqrt(y_of(u)), 8)
fit("float: D (Y0), x < 2", small_d, 8)
fit("float: E (Y1), x < 2", small_e, 8)
fit("float: J0 / ((x^2 - j01^2)(x^2 - j02^2)), x in [0, 8]", j_near(0), 12)
fit("float: J1 / (x (x^2 - j11^2)(x^2 - j12^2)), x in [0, 8]", j_near(1), 11)
fit("float: Y0 / ((x - y02)(x - y03)), x in [2, 8]", y_near(0), 21)
fit("float: Y1 / ((x - y11)(x - y12)), x in [2, 8]", y_near(1), 23)

# tgamma_kernel.hpp: R(t) = 1 / Gamma(1 + t), t in [0, 1], u = 2t - 1 (18 terms; entire).
fit("1 / Gamma(1 + t), t in [0, 1]", lambda u: 1 / mp.gamma(1 + (u + 1) / 2), 18)

# airy_kernel.hpp: Ai on [-2, 0] (u = x + 1) and [0, 1] (u = 2x - 1); f = 2 sqrt(pi) x^(1/4) e^zeta Ai(x),
# zeta = 2/3 x^(3/2), in 1/zeta on [1, 8] and in zeta8 / zeta above 8; for Ai(-x) = M cos(zeta - pi/4 + alpha),
# x^(1/4) M and alpha in 1/x on [2, 8], x^(1/4) M and zeta alpha in zeta8 / zeta above 8.
def airy_zeta(x):
    return 2 * x * mp.sqrt(x) / 3


def airy_pos_f(x):
    return mp.airyai(x) * 2 * mp.sqrt(mp.pi) * mp.root(x, 4) * mp.exp(airy_zeta(x))


def airy_neg(x):
    A, B = mp.airyai(-x), mp.airybi(-x)
    a = -mp.atan2(B, A) - (airy_zeta(x) - mp.pi / 4)
    return mp.sqrt(A * A + B * B), a - 2 * mp.pi * mp.nint(a / (2 * mp.pi))


z1, z8 = airy_zeta(mp.mpf(1)), airy_zeta(mp.mpf(8))
x_zinv = lambda u: mp.cbrt((3 / (u * (1 / z1 - 1 / z8) + 1 / z1 + 1 / z8)) ** 2)
x_far8 = lambda u: 8 / mp.cbrt(((u + 1) / 2) ** 2) if u > -1 else mp.inf
fit("Ai, x in [-2, 0]", lambda u: mp.airyai(u - 1), 23)
fit("Ai, x in [0, 1]", lambda u: mp.airyai((u + 1) / 2), 16)
fit("f, x in [1, 8]", lambda u: airy_pos_f(x_zinv(u)), 36)
fit("f, x >= 8", lambda u: mp.mpf(1) if x_far8(u) == mp.inf else airy_pos_f(x_far8(u)), 16)
fit("x^(1/4) M, -x in [2, 8]", lambda u: airy_neg(x_mid(u))[0] * mp.root(x_mid(u), 4), 30)
fit("alpha, -x in [2, 8]", lambda u: airy_neg(x_mid(u))[1], 30)
fit("x^(1/4) M, -x >= 8", lambda u: 1 / mp.sqrt(mp.pi) if x_far8(u) == mp.inf else airy_neg(x_far8(u))[0] * mp.root(x_far8(u), 4), 16)
fit("zeta alpha, -x >= 8", lambda u: -mp.mpf(5) / 72 if x_far8(u) == mp.inf else airy_neg(x_far8(u))[1] * airy_zeta(x_far8(u)), 16)
