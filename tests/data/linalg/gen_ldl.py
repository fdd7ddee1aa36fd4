#!/usr/bin/env python3
"""Writes the reference data for tests/linalg/ldl_test.cpp.

Run from the repository root with Debian's python3 (numpy, scipy, torch 1.13):
    /usr/bin/python3 tests/data/linalg/gen_ldl.py
Output: tests/data/linalg/ldl_reference.txt. Each case is a header line and five value lines:
    <kind sym|herm> <dtype r|c> <n> <k> <info> <cond>
    <A: n*n values, row-major; the strict upper triangle holds garbage (never read)>
    <LD: n*n values, LAPACK's lower sytrf / hetrf output with the upper triangle zeroed>
    <pivots: n integers>
    <B: n*k values, or "-">
    <X = torch.linalg.ldl_solve(LD, pivots, B), or "-" when info != 0>
Complex values are written as re im pairs. LD and the pivots come from scipy.linalg.lapack
?sytrf / zhetrf (lower), the exact LAPACK output; the script checks that torch.linalg.ldl_factor_ex
returns the same pivots and info and LD to rounding. All cases have n < 64, so LAPACK runs its
unblocked sytf2 / hetf2. Inputs are small integers / 8 (exact in float and double); cond is the
2-norm condition number (inf when singular).
"""
import os

import numpy as np
import scipy.linalg.lapack as lapack
import torch

import gen_linalg  # the sibling generator: same value format

gen_linalg.rng = np.random.default_rng(20261123)
rand = gen_linalg.rand
vals = gen_linalg.vals
HERE = os.path.dirname(os.path.abspath(__file__))


def factor(a, herm):
    """LAPACK's lower factorization of the lower triangle of a (upper triangle zeroed)."""
    if np.iscomplexobj(a):
        f = lapack.zhetrf if herm else lapack.zsytrf
    else:
        f = lapack.dsytrf
    ld, piv, info = f(a, lower=1)
    assert info >= 0
    return np.tril(ld), piv.astype(np.int64), int(info)


def full(a, herm):
    """The symmetric / Hermitian matrix whose lower triangle is that of a."""
    low = np.tril(a, -1)
    d = np.diag(np.diag(a).real) if herm else np.diag(np.diag(a))
    return low + (low.conj().T if herm else low.T) + d


def case(out, herm, a, k):
    n = a.shape[0]
    cplx = np.iscomplexobj(a)
    ld, piv, info = factor(a, herm)
    # torch 1.13 returns the same factorization (it calls the same LAPACK routine).
    t = torch.linalg.ldl_factor_ex(torch.from_numpy(a), hermitian=herm)
    assert int(t.info) == info, (int(t.info), info)
    assert np.array_equal(t.pivots.numpy(), piv), (t.pivots, piv)
    assert np.allclose(t.LD.numpy(), ld, rtol=1e-12, atol=1e-12, equal_nan=True)
    m = full(a, herm)
    cond = np.linalg.cond(m) if info == 0 and np.all(np.isfinite(m)) else float("inf")
    b = x = None
    if info == 0 and k > 0 and np.all(np.isfinite(m)):
        b = rand((n, k), cplx)
        x = torch.linalg.ldl_solve(t.LD, t.pivots, torch.from_numpy(b), hermitian=herm).numpy()
        assert np.allclose(m @ x, b, atol=1e-10 * cond * (1 + np.abs(x).max()))
    # Garbage in the strict upper triangle: the factorization must not read it.
    shown = np.tril(a) + np.triu(np.full((n, n), 7.0 + (3j if cplx else 0)), 1)
    out.append(f"{'herm' if herm else 'sym'} {'c' if cplx else 'r'} {n} {0 if b is None else k} {info} {float(cond)!r}")
    out.append(vals(shown) if n else "-")
    out.append(vals(ld) if n else "-")
    out.append(" ".join(str(int(p)) for p in piv) if n else "-")
    out += [vals(b) if b is not None else "-", vals(x) if x is not None else "-"]


def main():
    out = []
    for cplx in (False, True):
        kinds = (False, True) if cplx else (False,)
        for herm in kinds:
            for n, k in ((1, 1), (2, 2), (3, 1), (5, 3), (8, 2), (17, 4), (24, 3)):
                g = rand((n, n), cplx)
                case(out, herm, g + g.T, k)
            # Zero diagonals force 2 x 2 pivots (and interchanges).
            for n, k in ((2, 1), (6, 2), (13, 3)):
                g = rand((n, n), cplx)
                a = g + g.T
                np.fill_diagonal(a, 0)
                case(out, herm, a, k)
            # A small diagonal next to large off-diagonal entries: 2 x 2 blocks deeper in.
            g = rand((9, 9), cplx)
            a = g + g.T
            np.fill_diagonal(a, 1 / 64)
            a[5, 2] = a[2, 5] = 8
            case(out, herm, a, 2)
            # Singular: an exactly zero column, and exact cancellation (rank one).
            case(out, herm, np.zeros((3, 3), dtype=complex if cplx else float), 1)
            v = rand((4, 1), False) + 0.25
            one = v @ v.T
            case(out, herm, one + 0j if cplx else one, 1)
            case(out, herm, np.array([[1.0, 2.0], [2.0, 4.0]], dtype=complex if cplx else float), 1)
    # NaN: on the diagonal (info = 1), and off it (a 2 x 2 block).
    case(out, False, np.array([[np.nan, 1.0], [1.0, 2.0]]), 1)
    case(out, False, np.array([[1.0, np.nan], [np.nan, 2.0]]), 1)
    with open(os.path.join(HERE, "ldl_reference.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
