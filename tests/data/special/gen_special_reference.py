#!/usr/bin/env python3
"""Reference values for tests/special/*_test.cpp, computed with mpmath at 50+ significant digits.

Writes one file per function, <name>.txt, with lines
    <dtype> <x> [<y>] <reference>
where dtype is f (x, y exactly representable as float) or d (double), arguments are printed
exactly (17 significant digits) and the reference to 21 significant digits. Samples cover every
region of the algorithms and their switch points (erf family: |x| = 0.5, 0.75; ndtr: |x| = 1/sqrt 2;
inverse functions: arguments approaching the ends of their domains), log-spaced ranges for
tails, and the subnormal range.

The gamma and Bessel group (gammaln, digamma, polygamma, multigammaln, i0, i0e, i1, i1e) has
its own random stream and 240 samples per dtype, and k0, k1, k0e, k1e (the modified Bessel
functions of the second kind, plain and scaled) and spherical_bessel_j0 another, with 120; polygamma and multigammaln rows carry the
integer order n or dimension p in the first argument column.

Run (from this folder): /usr/bin/python3 gen_special_reference.py [names...]   (all by default)
"""
import math
import os
import random

import mpmath as mp
import numpy as np

mp.mp.dps = 50
HERE = os.path.dirname(os.path.abspath(__file__))
N = 360  # random samples per dtype per function, plus the fixed points


def f32(v):
    return float(np.float32(v))


def lin(lo, hi):
    return lambda r: r.uniform(lo, hi)


def logu(lo, hi, sign=1):
    return lambda r: sign * math.exp(r.uniform(math.log(lo), math.log(hi)))


def sample(regions, fixed, dt, rng):
    """N samples spread over the regions (each a callable drawing one value), plus fixed points."""
    out = []
    for i in range(N):
        v = regions[i % len(regions)](rng)
        out.append(f32(v) if dt == "f" else v)
    for v in fixed:
        out.append(f32(v) if dt == "f" else v)
    return out


def fmt(v):
    if mp.isinf(v):
        return "inf" if v > 0 else "-inf"
    if mp.isnan(v):
        return "nan"
    return mp.nstr(v, 21, min_fixed=1, max_fixed=0) if v != 0 else "0"


def ndtri_ref(p):
    p = mp.mpf(p)
    if p == 0:
        return mp.ninf
    with mp.workdps(60 + int(max(0, -mp.log10(min(p, 1 - p) if p != 1 else 1)))):
        if p == 1:
            return mp.inf
        return mp.sqrt(2) * mp.erfinv(2 * p - 1)


def erfinv_ref(y):
    y = mp.mpf(y)
    with mp.workdps(80):
        return mp.erfinv(y)


def erfcx_ref(x):
    x = mp.mpf(x)
    if x > 1e4:  # asymptotic series: the 12th term is below 1e-90 here
        t = 1 / (2 * x * x)
        return mp.fsum((-1) ** k * mp.fac2(2 * k - 1) * t ** k for k in range(12)) / (x * mp.sqrt(mp.pi))
    return mp.exp(x * x) * mp.erfc(x)


def sinc_ref(x):
    x = mp.mpf(x)
    return mp.mpf(1) if x == 0 else mp.sinpi(x) / (mp.pi * x)


UNARY = {
    # name: (reference, regions for double, regions for float, fixed points)
    "erf": (mp.erf,
            [lin(-0.75, 0.75), lin(0.4, 0.8), lin(-6, 6), logu(1e-300, 1e-3), logu(1e-10, 6, -1), lin(0.74, 0.76)],
            [lin(-0.75, 0.75), lin(0.4, 0.8), lin(-4, 4), logu(1e-37, 1e-3), logu(1e-6, 4, -1)],
            [0.5, 0.75, -0.75, 1e-310, 5.9, 6.0, 10.0]),
    "erfc": (mp.erfc,
             [lin(-0.75, 0.75), lin(0.4, 0.8), lin(-6, 27), logu(0.5, 27), logu(1e-300, 0.5), lin(-1, -0.4)],
             [lin(-0.75, 0.75), lin(0.4, 0.8), lin(-4, 10), logu(0.5, 9.2), logu(1e-37, 0.5)],
             [0.5, -0.5, 0.75, 26.5, 27.2, -6.0]),
    "erfcx": (erfcx_ref,
              [lin(-1, 1), lin(0.4, 0.6), logu(0.5, 1e300), lin(-26, 0), logu(1e-300, 0.5), lin(2, 50)],
              [lin(-1, 1), lin(0.4, 0.6), logu(0.5, 1e37), lin(-9, 0), logu(1e-37, 0.5), lin(2, 50)],
              [0.5, 2.0, 1e8, 1e20, -26.0]),
    "ndtr": (mp.ncdf,
             [lin(-2, 2), lin(0.6, 0.8), lin(-0.8, -0.6), lin(-38, 9), logu(0.7, 38, -1), logu(1e-300, 0.7)],
             [lin(-2, 2), lin(0.6, 0.8), lin(-0.8, -0.6), lin(-14, 6), logu(0.7, 14, -1), logu(1e-37, 0.7)],
             [-0.70710678118654752, 0.70710678118654752, -37.5, 8.5]),
    "log_ndtr": (lambda x: mp.log1p(-mp.ncdf(-x)) if x > 0 else mp.log(mp.ncdf(x)),
                 [lin(-2, 2), lin(0.6, 0.8), lin(-0.8, -0.6), lin(-40, 38), logu(0.7, 1e150, -1), logu(0.7, 38)],
                 [lin(-2, 2), lin(0.6, 0.8), lin(-0.8, -0.6), lin(-40, 14), logu(0.7, 1e18, -1), logu(0.7, 14)],
                 [-1e10, -100.0, 5.0, 30.0]),
    "erfinv": (erfinv_ref,
               [lin(-1, 1), lin(-0.5, 0.5), lambda r: 1 - math.exp(r.uniform(math.log(1e-16), math.log(0.5))),
                lambda r: -1 + math.exp(r.uniform(math.log(1e-16), math.log(0.5))), logu(1e-300, 1e-3)],
               [lin(-1, 1), lin(-0.5, 0.5), lambda r: 1 - math.exp(r.uniform(math.log(6e-8), math.log(0.5))),
                lambda r: -1 + math.exp(r.uniform(math.log(6e-8), math.log(0.5))), logu(1e-37, 1e-3)],
               [0.5, -0.5, 1 - 2 ** -53, 0.999, 1e-300]),
    "ndtri": (ndtri_ref,
              [lin(0, 1), lin(0.2, 0.3), lin(0.7, 0.8), logu(1e-300, 0.25), lambda r: 1 - math.exp(r.uniform(math.log(1e-16), math.log(0.25)))],
              [lin(0, 1), lin(0.2, 0.3), lin(0.7, 0.8), logu(1e-37, 0.25), lambda r: 1 - math.exp(r.uniform(math.log(6e-8), math.log(0.25)))],
              [0.25, 0.75, 0.5 - 2 ** -30, 1e-310, 1e-30]),
    "expit": (lambda x: 1 / (1 + mp.exp(-x)),
              [lin(-40, 40), lin(-745, 40), lin(-5, 5)], [lin(-20, 20), lin(-100, 20), lin(-5, 5)], [0.0]),
    "logit": (lambda x: mp.log(x / (1 - x)),
              [lin(0, 1), lin(0.2, 0.8), lin(0.45, 0.55), logu(1e-300, 0.2), lambda r: 1 - math.exp(r.uniform(math.log(1e-16), math.log(0.2)))],
              [lin(0, 1), lin(0.2, 0.8), lin(0.45, 0.55), logu(1e-37, 0.2), lambda r: 1 - math.exp(r.uniform(math.log(6e-8), math.log(0.2)))],
              [0.25, 0.75, 0.5 + 2 ** -20]),
    "exp2": (lambda x: mp.power(2, x), [lin(-1070, 1023), lin(-2, 2)], [lin(-149, 127), lin(-2, 2)], [0.5]),
    "expm1": (mp.expm1, [lin(-40, 700), lin(-1, 1), logu(1e-300, 1e-3)], [lin(-20, 88), lin(-1, 1), logu(1e-37, 1e-3)], [1e-10]),
    "log1p": (mp.log1p, [lin(-1, 1), logu(1e-300, 1e300), lin(-1, -0.99)], [lin(-1, 1), logu(1e-37, 1e37), lin(-1, -0.99)], [1e-10]),
    "sinc": (sinc_ref, [lin(-8, 8), lin(-1e6, 1e6), logu(1e-300, 1e-2)], [lin(-8, 8), lin(-1e4, 1e4), logu(1e-37, 1e-2)], [0.5, 1.5, 1e-8]),
    "entr": (lambda x: -x * mp.log(x), [logu(1e-300, 1e300), lin(0, 3), lin(0.9, 1.1)], [logu(1e-37, 1e37), lin(0, 3), lin(0.9, 1.1)], [1.0, 0.5]),
}

BINARY = {
    "xlogy": (lambda x, y: x * mp.log(y),
              [(lin(-10, 10), logu(1e-300, 1e300)), (lin(-3, 3), lin(0.5, 2)), (logu(1e-300, 1e300), lin(0.9, 1.1))],
              [(lin(-10, 10), logu(1e-37, 1e37)), (lin(-3, 3), lin(0.5, 2)), (logu(1e-30, 1e30), lin(0.9, 1.1))]),
    "xlog1py": (lambda x, y: x * mp.log1p(y),
                [(lin(-10, 10), logu(1e-300, 1e300)), (lin(-3, 3), lin(-0.99, 1)), (logu(1e-300, 1e300), logu(1e-20, 1e-1))],
                [(lin(-10, 10), logu(1e-37, 1e37)), (lin(-3, 3), lin(-0.99, 1)), (logu(1e-30, 1e30), logu(1e-20, 1e-1))]),
}


def pole_inf(f):
    return lambda x: mp.inf if (x <= 0 and x == mp.floor(x)) else f(x)


def gammaln_ref(x):
    if x <= 0 and x == mp.floor(x):
        return mp.inf
    return mp.re(mp.loggamma(x))


def digamma_ref(x):
    if x == 0:
        return mp.ninf  # torch: -inf at +0
    if x <= 0 and x == mp.floor(x):
        return mp.nan
    return mp.digamma(x)


def scaled_i(k):
    return lambda x: mp.exp(-abs(x)) * mp.besseli(k, x)


def multigammaln_ref(p, x):
    return p * (p - 1) / mp.mpf(4) * mp.log(mp.pi) + mp.fsum(mp.re(mp.loggamma(x - mp.mpf(j) / 2)) for j in range(int(p)))


N2 = 240
GAMMA_UNARY = {
    "gammaln": (gammaln_ref,
                [lin(0, 3), lin(0.9, 1.1), lin(1.9, 2.1), logu(1e-300, 1e-2), lin(3, 10), logu(8, 1e300), lin(-10, 0),
                 logu(1e-300, 1, -1), lin(-200, -10), lin(7.5, 8.5)],
                [lin(0, 3), lin(0.9, 1.1), lin(1.9, 2.1), logu(1e-37, 1e-2), lin(3, 10), logu(8, 1e36), lin(-10, 0),
                 logu(1e-37, 1, -1), lin(-40, -10), lin(7.5, 8.5)],
                [1.0, 2.0, 0.5, 1.75, 0.75, 3.0, 8.0, 1e-310, 2.5e305, -0.5, -2.5]),
    "digamma": (digamma_ref,
                [lin(0, 3), lin(1.4, 1.5), logu(1e-300, 1e-2), lin(3, 10), logu(8, 1e300), lin(-10, 0), logu(1e-300, 1, -1),
                 lin(-200, -10), lin(7.5, 8.5)],
                [lin(0, 3), lin(1.4, 1.5), logu(1e-37, 1e-2), lin(3, 10), logu(8, 1e37), lin(-10, 0), logu(1e-37, 1, -1),
                 lin(-40, -10), lin(7.5, 8.5)],
                [1.0, 2.0, 3.0, 1.4616321449683623, 8.0, 1e-310, -0.5, -2.5]),
    "i0": (lambda x: mp.besseli(0, x), [lin(-8, 8), lin(-30, 30), lin(-713, 713), logu(1e-300, 1)],
           [lin(-8, 8), lin(-30, 30), lin(-90, 90), logu(1e-37, 1)], [8.0, -8.0, 0.0, 700.5, 713.0]),
    "i0e": (scaled_i(0), [lin(-8, 8), lin(-30, 30), logu(8, 1e300), logu(1e-300, 1)],
            [lin(-8, 8), lin(-30, 30), logu(8, 1e37), logu(1e-37, 1)], [8.0, -8.0, 0.0, 1e10]),
    "i1": (lambda x: mp.besseli(1, x), [lin(-8, 8), lin(-30, 30), lin(-713, 713), logu(1e-300, 1)],
           [lin(-8, 8), lin(-30, 30), lin(-90, 90), logu(1e-37, 1)], [8.0, -8.0, 1e-310, 700.5, 713.0]),
    "i1e": (scaled_i(1), [lin(-8, 8), lin(-30, 30), logu(8, 1e300), logu(1e-300, 1)],
            [lin(-8, 8), lin(-30, 30), logu(8, 1e37), logu(1e-37, 1)], [8.0, -8.0, 1e-310, 1e10]),
}


def gamma_group(names):
    rng = random.Random(20261122)
    for name, (ref, rd, rf, fixed) in GAMMA_UNARY.items():
        lines = []
        for dt, regions in (("d", rd), ("f", rf)):
            xs = [regions[i % len(regions)](rng) for i in range(N2)] + list(fixed)
            for x in xs:
                if dt == "f" and abs(x) > 3e38:
                    continue
                x = f32(x) if dt == "f" else x
                lines.append(f"{dt} {x!r} {fmt(ref(mp.mpf(x)))}")
        if name in names:
            with open(os.path.join(HERE, name + ".txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
    # polygamma: n in {1, 2, 3, 4, 6, 10}; x over (0, 1e6] (log-spaced), [0, 10], and negative x.
    lines = []
    for dt in ("d", "f"):
        for i in range(2 * N2):
            n = [1, 2, 3, 4, 6, 10][i % 6]
            x = [lin(0, 10), logu(1e-6 if dt == "f" else 1e-100, 1e6), lin(-10, 0)][(i // 6) % 3](rng)
            x = f32(x) if dt == "f" else x
            v = mp.psi(n, x) if not (x <= 0 and x == math.floor(x)) else mp.inf
            lines.append(f"{dt} {float(n)!r} {x!r} {fmt(v)}")
    if "polygamma" in names:
        with open(os.path.join(HERE, "polygamma.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    # multigammaln: p in {1, 2, 3, 5}, x > (p - 1) / 2.
    lines = []
    for dt in ("d", "f"):
        for i in range(N2):
            p = [1, 2, 3, 5][i % 4]
            x = (p - 1) / 2 + [lin(0, 3), logu(1e-3, 1e3), logu(1e3, 1e30)][(i // 4) % 3](rng)
            x = f32(x) if dt == "f" else x
            if x <= (p - 1) / 2:
                continue
            lines.append(f"{dt} {float(p)!r} {x!r} {fmt(multigammaln_ref(p, mp.mpf(x)))}")
    if "multigammaln" in names:
        with open(os.path.join(HERE, "multigammaln.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


N3 = 120
K_UNARY = {
    "k0": (lambda x: mp.besselk(0, x) if x != 0 else mp.inf,
           [lin(0, 2), lin(1.9, 2.1), lin(2, 30), lin(30, 700), logu(1e-300, 1e-2)],
           [lin(0, 2), lin(1.9, 2.1), lin(2, 30), lin(30, 100), logu(1e-37, 1e-2)], [2.0, 1.0, 745.0]),
    "k1": (lambda x: mp.besselk(1, x) if x != 0 else mp.inf,
           [lin(0, 2), lin(1.9, 2.1), lin(2, 30), lin(30, 700), logu(1e-300, 1e-2)],
           [lin(0, 2), lin(1.9, 2.1), lin(2, 30), lin(30, 100), logu(1e-37, 1e-2)], [2.0, 1.0, 745.0]),
    "k0e": (lambda x: mp.exp(x) * mp.besselk(0, x) if x != 0 else mp.inf,
            [lin(0, 2), lin(1.9, 2.1), lin(2, 30), logu(30, 1e300), logu(1e-300, 1e-2)],
            [lin(0, 2), lin(1.9, 2.1), lin(2, 30), logu(30, 1e37), logu(1e-37, 1e-2)], [2.0, 1.0]),
    "k1e": (lambda x: mp.exp(x) * mp.besselk(1, x) if x != 0 else mp.inf,
            [lin(0, 2), lin(1.9, 2.1), lin(2, 30), logu(30, 1e300), logu(1e-300, 1e-2)],
            [lin(0, 2), lin(1.9, 2.1), lin(2, 30), logu(30, 1e37), logu(1e-37, 1e-2)], [2.0, 1.0]),
    "spherical_bessel_j0": (lambda x: mp.sin(x) / x if x != 0 else mp.mpf(1),
                            [lin(-0.6, 0.6), lin(-20, 20), lin(-1e4, 1e4), logu(1e-300, 0.5)],
                            [lin(-0.6, 0.6), lin(-20, 20), lin(-1e4, 1e4), logu(1e-37, 0.5)], [0.5, -0.5, 0.0]),
}


def k_group(names):
    rng = random.Random(20261123)
    for name, (ref, rd, rf, fixed) in K_UNARY.items():
        lines = []
        for dt, regions in (("d", rd), ("f", rf)):
            for x in [regions[i % len(regions)](rng) for i in range(N3)] + list(fixed):
                x = f32(x) if dt == "f" else x
                lines.append(f"{dt} {x!r} {fmt(ref(mp.mpf(x)))}")
        if name in names:
            with open(os.path.join(HERE, name + ".txt"), "w") as f:
                f.write("\n".join(lines) + "\n")


# Group 3: bessel_j0/j1/y0/y1 (own random stream, N4 samples per dtype, plus points next to the
# zeros: z (1 + d) for relative offsets d down to 1e-15, z the first 40 zeros and a few far ones).
N4 = 240


def jy_ref(n, kind):
    def f(x):
        if x == 0:
            return mp.mpf(0) if (kind == "j" and n == 1) else (mp.mpf(1) if kind == "j" else mp.ninf)
        if x < 0 and kind == "y":
            return mp.nan
        with mp.workdps(60):
            return mp.besselj(n, x) if kind == "j" else mp.bessely(n, x)
    return f


def near_zeros(n, kind, rng, dt):
    zeros = [mp.besseljzero(n, k) if kind == "j" else mp.besselyzero(n, k) for k in list(range(1, 41)) + [100, 1000]]
    out = []
    for z in zeros:
        z = float(z)
        for d in (0.0, 1e-15, -1e-12, 1e-9, -1e-6, 1e-3) if dt == "d" else (0.0, 1e-7, -1e-5, 1e-3):
            out.append(z * (1 + d * rng.uniform(0.5, 1.5)))
    return out


JY = {
    "bessel_j0": (0, "j"), "bessel_j1": (1, "j"), "bessel_y0": (0, "y"), "bessel_y1": (1, "y"),
}


def jy_group(names):
    rng = random.Random(20261124)
    for name, (n, kind) in JY.items():
        ref = jy_ref(n, kind)
        sign = -1 if kind == "j" else 1
        lines = []
        for dt in ("d", "f"):
            top = 1e300 if dt == "d" else 3e38
            tiny = 1e-300 if dt == "d" else 1e-37
            regions = [lin(0, 2), lin(1.9, 2.1), lin(2, 8), lin(7.9, 8.1), lin(8, 100), lin(100, 5e5),
                       logu(tiny, 2), logu(2, top), lambda r: sign * r.uniform(0, 30)]
            xs = [regions[i % len(regions)](rng) for i in range(N4)]
            xs += near_zeros(n, kind, rng, dt) + [2.0, 8.0, 524288.0, 524289.0, 1.0, 0.5]
            for x in xs:
                x = f32(x) if dt == "f" else x
                lines.append(f"{dt} {x!r} {fmt(ref(mp.mpf(x)))}")
        if name in names:
            with open(os.path.join(HERE, name + ".txt"), "w") as f:
                f.write("\n".join(lines) + "\n")


def tgamma_ref(x):
    if x <= 0 and x == math.floor(x):
        return mp.nan if x != 0 else (mp.inf if math.copysign(1, x) > 0 else mp.ninf)
    return mp.gamma(x)


def tgamma_group(names):
    rng = random.Random(20261125)
    lines = []
    for dt in ("d", "f"):
        top, bottom, tiny = (171.6, -185, 1e-300) if dt == "d" else (35.0, -42.0, 1e-37)
        regions = [lin(0, 2), lin(0, 10), lin(8, top), lin(bottom, 0), lin(-10, 0), logu(tiny, 1),
                   logu(tiny, 1, -1), lambda r: r.randint(1, 40) * -1 + r.choice([-1, 1]) * 10 ** r.uniform(-12, -1)]
        xs = [regions[i % len(regions)](rng) for i in range(N4)] + [1.0, 2.0, 3.0, 0.5, -0.5, 10.0, 100.0, top, -1.5, -170.5]
        for x in xs:
            x = f32(x) if dt == "f" else x
            lines.append(f"{dt} {x!r} {fmt(tgamma_ref(mp.mpf(x)))}")
    if "tgamma" in names:
        with open(os.path.join(HERE, "tgamma.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


# Orthogonal polynomials: rows "<dtype> <x> <n> <reference>" (n integer-valued, some negative).
def _v(n, x):
    return mp.chebyu(n, x) - (mp.chebyu(n - 1, x) if n > 0 else 0)


def _w(n, x):
    return mp.chebyu(n, x) + (mp.chebyu(n - 1, x) if n > 0 else 0)


POLY = {
    # name: (reference(n, x), x regions)
    "chebyshev_polynomial_t": (mp.chebyt, [lin(-1, 1), lin(-1, 1), lin(-3, 3)]),
    "chebyshev_polynomial_u": (mp.chebyu, [lin(-1, 1), lin(-1, 1), lin(-3, 3)]),
    "chebyshev_polynomial_v": (_v, [lin(-1, 1), lin(-1, 1), lin(-3, 3)]),
    "chebyshev_polynomial_w": (_w, [lin(-1, 1), lin(-1, 1), lin(-3, 3)]),
    "shifted_chebyshev_polynomial_t": (lambda n, x: mp.chebyt(n, 2 * x - 1), [lin(0, 1), lin(0, 1), lin(-1, 2)]),
    "shifted_chebyshev_polynomial_u": (lambda n, x: mp.chebyu(n, 2 * x - 1), [lin(0, 1), lin(0, 1), lin(-1, 2)]),
    "shifted_chebyshev_polynomial_v": (lambda n, x: _v(n, 2 * x - 1), [lin(0, 1), lin(0, 1), lin(-1, 2)]),
    "shifted_chebyshev_polynomial_w": (lambda n, x: _w(n, 2 * x - 1), [lin(0, 1), lin(0, 1), lin(-1, 2)]),
    "hermite_polynomial_h": (mp.hermite, [lin(-3, 3), lin(-10, 10), lin(-30, 30)]),
    "hermite_polynomial_he": (lambda n, x: mp.hermite(n, x / mp.sqrt(2)) / mp.sqrt(2) ** n, [lin(-3, 3), lin(-10, 10), lin(-30, 30)]),
    "laguerre_polynomial_l": (lambda n, x: mp.laguerre(n, 0, x), [lin(0, 5), lin(0, 50), lin(-5, 0)]),
    "legendre_polynomial_p": (mp.legendre, [lin(-1, 1), lin(-1, 1), lin(-2, 2)]),
}
POLY_N = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 30, 50]


def poly_group(names):
    rng = random.Random(20261126)
    with mp.workdps(80):
        for name, (ref, regions) in POLY.items():
            lines = []
            for dt in ("d", "f"):
                for i in range(N4):
                    n = POLY_N[i % len(POLY_N)] if i % 23 else -rng.randint(1, 5)
                    x = regions[(i // len(POLY_N)) % len(regions)](rng)
                    x = f32(x) if dt == "f" else x
                    v = mp.mpf(0) if n < 0 else ref(n, mp.mpf(x))
                    lines.append(f"{dt} {x!r} {float(n)!r} {fmt(v)}")
            if name in names:
                with open(os.path.join(HERE, name + ".txt"), "w") as f:
                    f.write("\n".join(lines) + "\n")


# gammainc, gammaincc (rows "<dtype> <a> <x> <reference>") and zeta ("<dtype> <s> <q> <reference>").
def igamma_pairs(rng, dt):
    out = []
    for i in range(N4):
        k = i % 8
        if k == 0:
            a, x = rng.uniform(0, 1), math.exp(rng.uniform(math.log(1e-5), math.log(30)))
        elif k == 1:
            a, x = rng.uniform(1, 20), rng.uniform(0, 40)
        elif k == 2:
            a = rng.uniform(20, 200)
            x = a * (1 + rng.uniform(-0.3, 0.3))
        elif k == 3:
            a = math.exp(rng.uniform(math.log(200), math.log(1e4)))
            x = a * (1 + rng.uniform(-4.5, 4.5) / math.sqrt(a))
        elif k == 4:
            a, x = math.exp(rng.uniform(math.log(1e-6 if dt == "d" else 1e-5), 0)), rng.uniform(0.3, 1.3)
        elif k == 5:
            a = rng.uniform(0.5, 50)
            x = a * rng.uniform(0.05, 3)
        elif k == 6:
            a, x = rng.uniform(1, 8), rng.uniform(0.9, 1.2)
        else:
            a = math.exp(rng.uniform(math.log(1e-3), math.log(1e3)))
            x = math.exp(rng.uniform(math.log(1e-3), math.log(1e3)))
        if dt == "f":
            a, x = f32(a), f32(x)
        out.append((a, x))
    return out + [(1.0, 1.0), (0.5, 0.5), (8.0, 8.0), (20.0, 20.0), (100.0, 100.0), (1.0, 1.1), (3.0, 1e-10)]


def zeta_em(s, q, extra=0):
    """Euler-Maclaurin at 80 digits: the terms until q + N >= 2 s + 60 (and `extra` more), then the
    integral, half the next term and Bernoulli terms until they fall below 1e-70 of the sum."""
    with mp.workdps(80):
        s, q = mp.mpf(s), mp.mpf(q)
        n = max(0, int(mp.ceil(2 * s + 60 - q))) + extra
        total = mp.fsum((q + k) ** -s for k in range(n))
        w = q + n
        total += w ** (1 - s) / (s - 1) + w ** -s / 2
        for j in range(1, 200):
            t = mp.bernoulli(2 * j) / mp.factorial(2 * j) * mp.rf(s, 2 * j - 1) * w ** (-s - 2 * j + 1)
            total += t
            if abs(t) < mp.mpf(10) ** -70 * abs(total):
                break
        return total


def zeta_ref(s, q):
    # mpmath's zeta loses digits for larger s and q (at 50 digits, zeta(25, 392.58) is wrong from
    # the 10th digit, at 160 digits zeta(64, 31784.5) from the 14th): the reference is an 80-digit
    # Euler-Maclaurin sum, checked against the same sum truncated elsewhere and, loosely, against
    # mpmath.
    a, b = zeta_em(s, q), zeta_em(s, q, 37)
    assert abs(a - b) <= mp.mpf(10) ** -40 * abs(a), (s, q, a, b)
    with mp.workdps(160):
        c = mp.zeta(s, q) if q > 0 else a
    assert abs(a - c) <= mp.mpf(10) ** -10 * abs(a), (s, q, a, c)
    return a


def zeta_pairs(rng, dt):
    out = []
    for i in range(N4):
        k = i % 6
        if k == 0:
            s, q = rng.uniform(1.001, 2), math.exp(rng.uniform(math.log(1e-3), math.log(1e3)))
        elif k == 1:
            s, q = rng.uniform(2, 20), rng.uniform(0, 5)
        elif k == 2:
            s, q = rng.uniform(20, 100), rng.uniform(0.5, 30)
        elif k == 3:
            s, q = float(rng.randint(2, 12)), -rng.uniform(0, 15)
        elif k == 4:
            s, q = rng.uniform(1.1, 10), math.exp(rng.uniform(math.log(10), math.log(1e12 if dt == "d" else 1e8)))
        else:
            s, q = 1 + math.exp(rng.uniform(math.log(1e-8 if dt == "d" else 1e-4), math.log(1e-1))), rng.uniform(0.1, 3)
        if dt == "f":
            s, q = f32(s), f32(q)
        if q <= 0 and q == math.floor(q):
            q += 0.5
        out.append((s, q))
    return out + [(2.0, 1.0), (3.0, 1.0), (2.0, 0.5), (4.0, -1.5), (1.5, 9.0)]


def igamma_group(names):
    rng = random.Random(20261127)
    files = {"gammainc": [], "gammaincc": [], "zeta": []}
    with mp.workdps(50):
        for dt in ("d", "f"):
            for a, x in igamma_pairs(rng, dt):
                p = mp.gammainc(a, 0, x, regularized=True)
                q = mp.gammainc(a, x, mp.inf, regularized=True)
                files["gammainc"].append(f"{dt} {a!r} {x!r} {fmt(p)}")
                files["gammaincc"].append(f"{dt} {a!r} {x!r} {fmt(q)}")
            for s_, q_ in zeta_pairs(rng, dt):
                files["zeta"].append(f"{dt} {s_!r} {q_!r} {fmt(zeta_ref(s_, q_))}")
        # Denser rows where the error used to peak, from a stream of their own (appended, so the
        # rows above stay as they were): x near a for a in [10, 1e4] (Temme's expansion and its
        # edges), small a with x in [0.5, 3] (the continued fraction's slowest range), a in [1, 10]
        # with x in [a / 2, 2 a] (the prefactor there).
        extra = random.Random(20261122)
        for dt, n in (("d", 120), ("f", 30)):
            for i in range(3 * n):
                k = i % 3
                if k == 0:
                    a = math.exp(extra.uniform(math.log(10), math.log(1e4)))
                    x = a * (1 + extra.uniform(-1, 1) * (0.35 if i % 2 else min(0.35, 5 / math.sqrt(a))))
                elif k == 1:
                    a, x = math.exp(extra.uniform(math.log(1e-6 if dt == "d" else 1e-5), math.log(2))), extra.uniform(0.5, 3)
                else:
                    a = extra.uniform(1, 10)
                    x = a * math.exp(extra.uniform(-math.log(2), math.log(2)))
                if dt == "f":
                    a, x = f32(a), f32(x)
                p = mp.gammainc(a, 0, x, regularized=True)
                q = mp.gammainc(a, x, mp.inf, regularized=True)
                files["gammainc"].append(f"{dt} {a!r} {x!r} {fmt(p)}")
                files["gammaincc"].append(f"{dt} {a!r} {x!r} {fmt(q)}")
        # Integer orders shared by many q (the packet path of zeta with a scalar integer order),
        # from a stream of their own: q tiny, moderate, large and negative, values kept inside
        # the dtype's normal range.
        ints = random.Random(20261123)
        orders = (2, 3, 4, 5, 6, 8, 11, 16, 25, 40, 64)
        for dt, n in (("d", 176), ("f", 88)):
            tiny, big = (1e-300, 1e300) if dt == "d" else (1e-37, 1e37)
            for i in range(n):
                s, k = float(orders[i % len(orders)]), (i // len(orders)) % 4
                if k == 0:
                    q = math.exp(ints.uniform(math.log(1e-3), 0))
                elif k == 1:
                    q = ints.uniform(1, 40)
                elif k == 2:
                    q = math.exp(ints.uniform(math.log(40), math.log(1e8 if dt == "d" else 1e5)))
                else:
                    q = -ints.uniform(0, 20)
                if dt == "f":
                    q = f32(q)
                if q <= 0 and q == math.floor(q):
                    q += 0.5
                z = zeta_ref(s, q)
                if tiny < abs(z) < big:
                    files["zeta"].append(f"{dt} {s!r} {q!r} {fmt(z)}")
        # Tiny and subnormal a, from a stream of their own: Q is about a E1(x) and P rounds to 1
        # (the prefactor x^a e^-x / Gamma(a) = a x^a e^-x / Gamma(1 + a) must not go through the
        # large lgamma(a), nor 1 / a overflow).
        small = random.Random(20261129)
        for dt, n in (("d", 96), ("f", 48)):
            a_lo, a_hi, x_lo, x_hi = (1e-322, 1e-8, 1e-300, 600.0) if dt == "d" else (1e-44, 1e-4, 1e-37, 80.0)
            for i in range(n):
                a = math.exp(small.uniform(math.log(a_lo), math.log(a_hi)))
                x = math.exp(small.uniform(math.log(x_lo), math.log(x_hi)))
                if dt == "f":
                    a, x = f32(a), f32(x)
                if a == 0:
                    continue
                p = mp.gammainc(a, 0, x, regularized=True)
                q = mp.gammainc(a, x, mp.inf, regularized=True)
                files["gammainc"].append(f"{dt} {a!r} {x!r} {fmt(p)}")
                files["gammaincc"].append(f"{dt} {a!r} {x!r} {fmt(q)}")
    for name, lines in files.items():
        if name in names:
            with open(os.path.join(HERE, name + ".txt"), "w") as f:
                f.write("\n".join(lines) + "\n")


def airy_group(names):
    rng = random.Random(20261128)
    lines = []
    with mp.workdps(60):
        zeros = [float(mp.airyaizero(k)) for k in list(range(1, 31)) + [100, 1000]]
        for dt in ("d", "f"):
            top = 105.0 if dt == "d" else 30.0
            regions = [lin(-2, 1), lin(0.9, 1.1), lin(1, 8), lin(7.9, 8.1), lin(8, top), logu(8, 1e4, -1), lin(-8, -2),
                       lin(-2.1, -1.9), logu(1e4, 1e12 if dt == "d" else 1e6, -1), logu(1e-300 if dt == "d" else 1e-37, 1)]
            xs = [regions[i % len(regions)](rng) for i in range(N4)]
            for z in zeros:
                for d in ((0.0, 1e-14, -1e-10, 1e-6) if dt == "d" else (0.0, 1e-6, -1e-4)):
                    xs.append(z * (1 + d * rng.uniform(0.5, 1.5)))
            xs += [0.0, 1.0, -2.0, 8.0, -8.0, 2.0]
            for x in xs:
                x = f32(x) if dt == "f" else x
                lines.append(f"{dt} {x!r} {fmt(mp.airyai(mp.mpf(x)))}")
    if "airy_ai" in names:
        with open(os.path.join(HERE, "airy_ai.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


def trigamma_group(names):
    """polygamma(1, x) at the switch points of its own kernel: the recurrence below x = 9 (term
    counts that vary with the smallest lane), the asymptotic series from 9 on, the square of x that
    underflows below 2^-500, and negative x (the general polygamma kernel); rows carry n = 1."""
    rng = random.Random(20261123)
    rd = [lin(0, 9.5), lin(8.9, 9.1), logu(1e-300, 1e-140), logu(1e-140, 1), logu(9, 1e300), lin(-10, 0)]
    rf = [lin(0, 9.5), lin(8.9, 9.1), logu(1e-37, 1e-10), logu(1e-10, 1), logu(9, 1e37), lin(-10, 0)]
    fixed = [9.0, math.nextafter(9.0, 0), 2.0 ** -500, math.nextafter(2.0 ** -500, 0), 1.0, 0.5]
    lines = []
    for dt, regions in (("d", rd), ("f", rf)):
        xs = [regions[i % len(regions)](rng) for i in range(2 * N2)] + fixed
        for x in xs:
            x = f32(x) if dt == "f" else x
            v = mp.psi(1, x) if not (x <= 0 and x == math.floor(x)) else mp.inf
            lines.append(f"{dt} 1.0 {x!r} {fmt(v)}")
    if "trigamma" in names:
        with open(os.path.join(HERE, "trigamma.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


def main():
    import sys
    names = set(sys.argv[1:])
    gamma = set(GAMMA_UNARY) | {"polygamma", "multigammaln"}
    if not names or names & gamma:
        gamma_group(names or gamma)
    if not names or names & set(K_UNARY):
        k_group(names or set(K_UNARY))
    if not names or names & set(JY):
        jy_group(names or set(JY))
    if not names or "tgamma" in names:
        tgamma_group(names or {"tgamma"})
    if not names or names & set(POLY):
        poly_group(names or set(POLY))
    igam = {"gammainc", "gammaincc", "zeta"}
    if not names or names & igam:
        igamma_group(names or igam)
    if not names or "airy_ai" in names:
        airy_group(names or {"airy_ai"})
    if not names or "trigamma" in names:
        trigamma_group(names or {"trigamma"})
    if names and not names - gamma - set(K_UNARY) - set(JY) - {"tgamma"} - set(POLY) - igam - {"airy_ai", "trigamma"}:
        return
    rng = random.Random(20261121)
    for name, (ref, rd, rf, fixed) in UNARY.items():
        lines = []
        for dt, regions in (("d", rd), ("f", rf)):
            for x in sample(regions, fixed, dt, rng):
                lines.append(f"{dt} {x!r} {fmt(ref(mp.mpf(x)))}")
        with open(os.path.join(HERE, name + ".txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    for name, (ref, rd, rf) in BINARY.items():
        lines = []
        for dt, regions in (("d", rd), ("f", rf)):
            for i in range(N):
                gx, gy = regions[i % len(regions)]
                x, y = gx(rng), gy(rng)
                if dt == "f":
                    x, y = f32(x), f32(y)
                lines.append(f"{dt} {x!r} {y!r} {fmt(ref(mp.mpf(x), mp.mpf(y)))}")
        with open(os.path.join(HERE, name + ".txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
