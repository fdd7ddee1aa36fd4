#!/usr/bin/env python3
"""Writes the reference data for tests/fft/reference_test.cpp (numpy.fft / scipy.fft, float64).

Run from the repository root with a Python that has numpy and scipy:
    python3 tests/data/fft/gen_fft_reference.py
Each case is three lines:
    <func> <norm> <s: comma list or -> <dim: comma list or -> <in shape> <in kind r|c> <out shape> <out kind>
    <input values>   (complex values as re im pairs)
    <output values>
Shapes are comma lists ("-" for a rank-0 tensor). The inputs are small integers / 8 so that
they are exact in float and double; outputs carry 11 significant digits.
"""
import os
import sys

import numpy as np
import scipy.fft as sfft

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import refgen  # noqa: E402  (tests/data/refgen.py)

rng = np.random.default_rng(20261121)
HERE = os.path.dirname(os.path.abspath(__file__))


def rand(shape, cplx):
    return refgen.eighths(rng, shape, cplx)


def lst(v):
    return "-" if v is None else ",".join(str(int(t)) for t in v)


def vals(a, force_complex=False):
    return refgen.vals(a, force_complex, fmt="%.11g")


def case(out, func, norm, s, dim, x, y):
    kind = lambda a: "c" if np.iscomplexobj(a) else "r"
    out.append("%s %s %s %s %s %s %s %s" % (func, norm, lst(s), lst(dim), lst(x.shape), kind(x),
                                            lst(np.asarray(y).shape), kind(y)))
    out.append(vals(x))
    out.append(vals(y))


NORMS = ["backward", "ortho", "forward"]


def c2c_1d():
    out = []
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 12]:
        norm = NORMS[n % 3]
        x = rand((n,), True)
        case(out, "fft", norm, None, None, x, np.fft.fft(x, norm=norm))
        case(out, "ifft", norm, None, None, x, np.fft.ifft(x, norm=norm))
    x = rand((3, 5), True)
    for norm in NORMS:
        case(out, "fft", norm, [8], [0], x, np.fft.fft(x, 8, axis=0, norm=norm))
        case(out, "ifft", norm, [3], [-1], x, np.fft.ifft(x, 3, axis=-1, norm=norm))
    return out


def real_1d():
    out = []
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 12]:
        norm = NORMS[n % 3]
        xr = rand((n,), False)
        case(out, "rfft", norm, None, None, xr, np.fft.rfft(xr, norm=norm))
        case(out, "ihfft", norm, None, None, xr, np.fft.ihfft(xr, norm=norm))
        m = n // 2 + 1
        xc = rand((m,), True)
        for nn in sorted({2 * (m - 1), 2 * m - 1}):
            if nn >= 1:
                case(out, "irfft", norm, [nn], None, xc, np.fft.irfft(xc, nn, norm=norm))
                case(out, "hfft", norm, [nn], None, xc, np.fft.hfft(xc, nn, norm=norm))
    # defaults and padding / truncation along a chosen dim of a 2-D input
    xr = rand((4, 5), False)
    case(out, "rfft", "backward", [7], [0], xr, np.fft.rfft(xr, 7, axis=0))
    case(out, "rfft", "ortho", [4], [1], xr, np.fft.rfft(xr, 4, axis=1, norm="ortho"))
    xc = rand((4, 3), True)
    case(out, "irfft", "backward", None, [1], xc, np.fft.irfft(xc, axis=1))
    case(out, "irfft", "forward", [9], [0], xc, np.fft.irfft(xc, 9, axis=0, norm="forward"))
    case(out, "hfft", "ortho", None, [0], xc, np.fft.hfft(xc, axis=0, norm="ortho"))
    case(out, "ihfft", "forward", [6], [0], xr, np.fft.ihfft(xr, 6, axis=0, norm="forward"))
    return out


def c2c_nd():
    out = []
    x = rand((2, 3, 4), True)
    for norm in NORMS:
        case(out, "fftn", norm, None, None, x, np.fft.fftn(x, norm=norm))
        case(out, "ifftn", norm, None, None, x, np.fft.ifftn(x, norm=norm))
    case(out, "fft2", "backward", None, None, x, np.fft.fft2(x))
    case(out, "ifft2", "ortho", [6, 3], None, x, np.fft.ifft2(x, [6, 3], norm="ortho"))
    case(out, "fftn", "backward", [2, 7], [2, 0], x, np.fft.fftn(x, [2, 7], axes=[2, 0]))
    case(out, "fftn", "forward", [4, 4], None, x, np.fft.fftn(x, [4, 4], norm="forward"))
    case(out, "ifftn", "backward", None, [-1, 0], x, np.fft.ifftn(x, axes=[-1, 0]))
    case(out, "fft2", "backward", None, [0, 2], x, np.fft.fft2(x, axes=[0, 2]))
    return out


def real_nd():
    out = []
    xr = rand((2, 3, 4), False)
    case(out, "rfftn", "backward", None, None, xr, np.fft.rfftn(xr))
    case(out, "rfftn", "ortho", [5, 3], [2, 0], xr, np.fft.rfftn(xr, [5, 3], axes=[2, 0], norm="ortho"))
    case(out, "rfft2", "forward", None, None, xr, np.fft.rfft2(xr, norm="forward"))
    case(out, "rfft2", "backward", [4, 5], [0, 1], xr, np.fft.rfft2(xr, [4, 5], axes=[0, 1]))
    xc = rand((2, 3, 3), True)
    case(out, "irfftn", "backward", None, None, xc, np.fft.irfftn(xc))
    case(out, "irfftn", "ortho", [5, 5], [0, 2], xc, np.fft.irfftn(xc, [5, 5], axes=[0, 2], norm="ortho"))
    case(out, "irfft2", "forward", None, None, xc, np.fft.irfft2(xc, norm="forward"))
    case(out, "irfft2", "backward", [3, 7], None, xc, np.fft.irfft2(xc, [3, 7]))
    case(out, "hfftn", "backward", None, None, xc, sfft.hfftn(xc))
    case(out, "hfft2", "ortho", [4, 5], None, xc, sfft.hfft2(xc, [4, 5], norm="ortho"))
    case(out, "hfftn", "forward", None, [2, 0], xc, sfft.hfftn(xc, axes=[2, 0], norm="forward"))
    case(out, "ihfftn", "backward", None, None, xr, sfft.ihfftn(xr))
    case(out, "ihfft2", "ortho", [3, 5], None, xr, sfft.ihfft2(xr, [3, 5], norm="ortho"))
    case(out, "ihfftn", "forward", None, [0, 1], xr, sfft.ihfftn(xr, axes=[0, 1], norm="forward"))
    return out


def helpers():
    out = []
    x = rand((4, 5), True)
    case(out, "fftshift", "backward", None, None, x, np.fft.fftshift(x))
    case(out, "ifftshift", "backward", None, [1], x, np.fft.ifftshift(x, axes=[1]))
    case(out, "fftshift", "backward", None, [0], x, np.fft.fftshift(x, axes=[0]))
    for n in [1, 4, 5, 8, 9]:
        z = np.zeros(1)
        case(out, "fftfreq", "backward", [n], None, z, np.fft.fftfreq(n, 0.5))
        case(out, "rfftfreq", "backward", [n], None, z, np.fft.rfftfreq(n, 0.5))
    return out


def main():
    for name, rows in [("fft_c2c_1d.txt", c2c_1d()), ("fft_real_1d.txt", real_1d()), ("fft_c2c_nd.txt", c2c_nd()), ("fft_real_nd.txt", real_nd()),
                       ("fft_helpers.txt", helpers())]:
        with open(os.path.join(HERE, name), "w") as f:
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
