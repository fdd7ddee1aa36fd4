#!/usr/bin/env python3
"""Reference values for tests/special/*_test.cpp, computed with mpmath at 50+ significant digits.

Writes one file per function, <name>.txt, with lines
    <dtype> <x> [<y>] <reference>
where dtype is f (x, y exactly representable as float) or d (double), arguments are printed
exactly (17 significant digits) and the reference to 21 significant digits. Samples cover every
region of the algorithms and their switch points (erf family: |x| = 0.5, 0.75; ndtr: |x| = 1/sqrt 2;
inverse functions: arguments approaching the ends of their domains), log-spaced ranges for
tails, and the subnormal range.

Run (from this folder): /usr/bin/python3 gen_special_reference.py
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


def main():
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
