#!/usr/bin/env python3
"""Writes the reference data for tests/linalg/reference_test.cpp.

Run from the repository root with a Python that has numpy and scipy (Debian's python3):
    python3 tests/data/linalg/gen_linalg.py
Output: tests/data/linalg/linalg_reference.txt. Each case is a header line and value lines:
    <op> <kind r|c> <n> <k> <cond>
    <A: n*n values, row-major>
    <B: n*k values, or "-">
    <result values>
Complex values are written as re im pairs. Inputs are small integers / 8 (exact in float and
double); results carry 17 significant digits. `cond` is the 2-norm condition number of A (the
tests scale their tolerances by it).

ops:
  solve     X = solve(A, B) (scipy.linalg.solve)
  inv       inv(A) (scipy.linalg.inv)
  det       det(A) (one value), then sign and logabsdet (numpy.linalg.slogdet) on a fourth line
  cholesky  L with A = L L^H (scipy.linalg.cholesky, lower); A Hermitian positive-definite
  hilbert   A = the n x n Hilbert matrix rounded to double (A is not written: the test builds it);
            results computed exactly in rational arithmetic from the rounded entries: the line
            after "-" is det(A), the next the entries of inv(A)
"""
import os
import sys
from fractions import Fraction

import numpy as np
import scipy.linalg as sla

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import refgen  # noqa: E402  (tests/data/refgen.py)

rng = np.random.default_rng(20261121)
HERE = os.path.dirname(os.path.abspath(__file__))


def rand(shape, cplx):
    return refgen.eighths(rng, shape, cplx)


def vals(a, force_complex=False):
    return refgen.vals(a, force_complex)


def case(out, op, cplx, n, k, a, b, res, extra=None):
    cond = np.linalg.cond(a) if (a is not None and n > 0) else 1.0
    out.append(f"{op} {'c' if cplx else 'r'} {n} {k} {float(cond)!r}")
    out.append(vals(a) if a is not None else "-")
    out.append(vals(b) if b is not None else "-")
    out.append(vals(res))
    if extra is not None:
        out.append(vals(extra))


def exact_det_inv(a):
    """det and inverse of a float matrix in exact rational arithmetic (Gauss-Jordan)."""
    n = a.shape[0]
    m = [[Fraction(float(a[i, j])) for j in range(n)] + [Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    det = Fraction(1)
    for c in range(n):
        p = next(r for r in range(c, n) if m[r][c] != 0)
        if p != c:
            m[c], m[p] = m[p], m[c]
            det = -det
        det *= m[c][c]
        piv = m[c][c]
        m[c] = [v / piv for v in m[c]]
        for r in range(n):
            if r != c and m[r][c] != 0:
                f = m[r][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    inv = np.array([[float(m[i][n + j]) for j in range(n)] for i in range(n)])
    return float(det), inv


def main():
    out = []
    for cplx in (False, True):
        for n, k in ((1, 1), (2, 3), (5, 2), (17, 4), (24, 3)):
            a = rand((n, n), cplx)
            a = a + np.eye(n) * (0.5 if n < 3 else 0.0)  # keep the tiny cases well conditioned
            b = rand((n, k), cplx)
            case(out, "solve", cplx, n, k, a, b, sla.solve(a, b))
        for n in (1, 3, 8, 20):
            a = rand((n, n), cplx) + np.eye(n) * 2
            case(out, "inv", cplx, n, 0, a, None, sla.inv(a))
        for n in (1, 2, 4, 9, 20):
            a = rand((n, n), cplx)
            sign, logabs = np.linalg.slogdet(a)
            case(out, "det", cplx, n, 0, a, None, np.array([np.linalg.det(a)]), np.array([sign, logabs]))
        for n in (1, 3, 10, 24):
            g = rand((n, n), cplx)
            a = g @ g.conj().T + n * np.eye(n)
            # a is exactly representable: integers / 64 of moderate size.
            case(out, "cholesky", cplx, n, 0, a, None, sla.cholesky(a, lower=True))
    for n in range(1, 13):
        h = np.array([[1.0 / (i + j + 1) for j in range(n)] for i in range(n)])
        det, inv = exact_det_inv(h)
        out.append(f"hilbert r {n} 0 {float(np.linalg.cond(h))!r}")
        out.append("-")
        out.append("-")
        out.append(repr(det))
        out.append(vals(inv))
    with open(os.path.join(HERE, "linalg_reference.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
