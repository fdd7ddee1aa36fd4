#!/usr/bin/env python3
"""Writes the reference data for tests/linalg/norm_test.cpp and tests/linalg/matrix_func_test.cpp.

Run from the repository root with a Python that has numpy, scipy, mpmath and torch (Debian's python3):
    python3 tests/data/linalg/gen_linalg_norms.py
Outputs, in tests/data/linalg/:
  linalg_norms_reference.txt  vector and matrix norms (torch.linalg.vector_norm / matrix_norm,
                              cross-checked against numpy.linalg.norm)
  linalg_expm_reference.txt   matrix exponentials computed with mpmath at 50 digits (mpmath.expm),
                              cross-checked against scipy.linalg.expm
Each case is three lines:
    <op> <param> <kind r|c> <rank> <extents...>
    <input values, row-major>
    <result values, row-major>
op: vec_all (vector norm of order <param> over all dims), vec_last (over the last dim),
    mat (matrix norm of order <param> over the last two dims), expm (param "-").
Complex values are written as re im pairs; results carry 17 significant digits.
"""
import math
import os
import sys

import mpmath
import numpy as np
import scipy.linalg as sla
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import refgen  # noqa: E402  (tests/data/refgen.py)

rng = np.random.default_rng(20261122)
HERE = os.path.dirname(os.path.abspath(__file__))


def vals(a, force_complex=False):
    return refgen.vals(a, force_complex)


def rand(shape, cplx):
    return refgen.normals(rng, shape, cplx)


def head(op, param, cplx, shape):
    return f"{op} {param} {'c' if cplx else 'r'} {len(shape)} " + " ".join(str(s) for s in shape)


def ordtxt(o):
    if isinstance(o, str):
        return o
    if math.isinf(o):
        return "inf" if o > 0 else "-inf"
    return repr(float(o))


def norms(out):
    for cplx in (False, True):
        for shape in [(7,), (2, 3, 4), (1,), (5, 16)]:
            x = rand(shape, cplx)
            x.ravel()[1 % x.size] = 0.0  # a zero for ord 0 and negative orders
            xt = torch.tensor(x)
            for o in [2, 1, 0, 3, 0.5, -1, -2.5, math.inf, -math.inf]:
                r = torch.linalg.vector_norm(xt, o).numpy()
                if o not in (0,) and len(shape) == 1:
                    assert np.allclose(r, np.linalg.norm(x, o), rtol=1e-13)
                out += [head("vec_all", ordtxt(o), cplx, shape), vals(x), vals(r)]
                r = torch.linalg.vector_norm(xt, o, dim=-1).numpy()
                out += [head("vec_last", ordtxt(o), cplx, shape), vals(x), vals(r)]
        for shape in [(3, 3), (4, 2), (2, 5), (2, 3, 4), (1, 1)]:
            x = rand(shape, cplx)
            xt = torch.tensor(x)
            for o in ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]:
                r = torch.linalg.matrix_norm(xt, o).numpy()
                assert np.allclose(r, np.linalg.norm(x, o, axis=(-2, -1)), rtol=1e-13)
                out += [head("mat", ordtxt(o), cplx, shape), vals(x), vals(r)]


def expm(out):
    mpmath.mp.dps = 50
    cases = []
    for cplx in (False, True):
        for n in (1, 2, 3, 5, 8):
            for scale in (1e-3, 0.1, 0.5, 1.5, 4.0, 12.0, 60.0):
                a = rand((n, n), cplx)
                a = a * (scale / max(np.abs(a).sum(axis=0).max(), 1e-300))
                cases.append((cplx, a))
    # a strongly non-normal matrix and a large-norm one with a decaying exponential
    cases.append((False, np.array([[-1.0, 1e3], [0.0, -2.0]])))
    cases.append((False, np.array([[-50.0, 10.0, 0.0], [0.0, -60.0, 5.0], [1.0, 0.0, -70.0]])))
    for cplx, a in cases:
        m = mpmath.matrix(a.tolist())
        e = mpmath.expm(m)
        n = a.shape[0]
        r = np.array([[complex(e[i, j]) for j in range(n)] for i in range(n)])
        if not cplx:
            r = r.real
        s = sla.expm(a)
        assert np.allclose(r, s, rtol=1e-10, atol=1e-12 * np.abs(r).max()), (a, r, s)
        out += [head("expm", "-", cplx, a.shape), vals(a), vals(r)]


def main():
    out = []
    norms(out)
    with open(os.path.join(HERE, "linalg_norms_reference.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    out = []
    expm(out)
    with open(os.path.join(HERE, "linalg_expm_reference.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
