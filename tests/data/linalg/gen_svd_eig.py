#!/usr/bin/env python3
"""Writes the reference data for tests/linalg/svd_test.cpp, eig_test.cpp and pinv_rank_test.cpp.

Run from the repository root with a Python that has numpy (Debian's python3):
    python3 tests/data/linalg/gen_svd_eig.py
Output: tests/data/linalg/svd_eig_reference.txt. Each case is a header line and two value lines:
    <op> <kind r|c> <m> <n> <p>
    <A: m*n values, row-major>
    <result values>
Complex values are written as re im pairs. Inputs are small integers / 8 (exact in float and
double) except the Hilbert matrices (rounded to double); results carry 17 significant digits.
ops:
  svdvals  the singular values, descending (numpy.linalg.svd, LAPACK gesdd in float64); p is "-"
  eigvals  the eigenvalues (numpy.linalg.eigvals, LAPACK geev in float64), always written complex,
           in no particular order; p is "-"
  cond     numpy.linalg.cond(A, p) for p in none, 2, -2, fro, nuc, inf, -inf, 1, -1
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import refgen  # noqa: E402  (tests/data/refgen.py)

rng = np.random.default_rng(20261122)
HERE = os.path.dirname(os.path.abspath(__file__))


def rand(shape, cplx):
    return refgen.eighths(rng, shape, cplx)


def hilbert(n):
    i = np.arange(n)
    return 1.0 / (i[:, None] + i[None, :] + 1.0)


def vals(a, force_complex=False):
    return refgen.vals(a, force_complex)


def main():
    out = []

    def case(op, a, res, p="-", force_complex=False):
        cplx = np.iscomplexobj(a)
        out.append(f"{op} {'c' if cplx else 'r'} {a.shape[0]} {a.shape[1]} {p}")
        out.append(vals(a) if a.size else "-")
        out.append(vals(res, force_complex) if np.asarray(res).size else "-")

    for cplx in (False, True):
        for (m, n) in [(1, 1), (2, 2), (4, 4), (6, 3), (3, 6), (12, 12), (25, 17), (17, 25), (40, 40)]:
            a = rand((m, n), cplx)
            case("svdvals", a, np.linalg.svd(a, compute_uv=False))
        # rank-deficient: rank 3 products of small-integer factors (exact)
        for (m, n) in [(8, 8), (10, 6)]:
            a = rand((m, 3), cplx) @ rand((3, n), cplx)
            case("svdvals", a, np.linalg.svd(a, compute_uv=False))
        for n in (1, 2, 3, 5, 8, 12, 30, 50):
            a = rand((n, n), cplx)
            case("eigvals", a, np.linalg.eigvals(a), force_complex=True)
        a = rand((6, 6), cplx)
        for p in ("none", "2", "-2", "fro", "nuc", "inf", "-inf", "1", "-1"):
            pp = {"none": None, "inf": np.inf, "-inf": -np.inf, "fro": "fro", "nuc": "nuc"}.get(p)
            if pp is None and p != "none":
                pp = int(p)
            case("cond", a, np.array([np.linalg.cond(a, pp)]), p)
    for n in (4, 8, 12):
        h = hilbert(n)
        case("svdvals", h, np.linalg.svd(h, compute_uv=False))
    # real matrices with complex-conjugate eigenvalue pairs and a rotation
    case("eigvals", np.array([[0.0, -1.0], [1.0, 0.0]]), np.array([1j, -1j]), force_complex=True)
    h = hilbert(6)
    for p in ("none", "2", "-2", "fro", "nuc", "inf", "1"):
        pp = {"none": None, "inf": np.inf, "fro": "fro", "nuc": "nuc"}.get(p)
        if pp is None and p != "none":
            pp = int(p)
        case("cond", h, np.array([np.linalg.cond(h, pp)]), p)
    with open(os.path.join(HERE, "svd_eig_reference.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
