#!/usr/bin/env python3
"""Writes the reference data for tests/linalg/qr_test.cpp, eigh_test.cpp and lstsq_test.cpp.

Run from the repository root with Debian's python3 (numpy, scipy, torch):
    python3 tests/data/linalg/gen_linalg_decomp.py
Output: tests/data/linalg/decomp_reference.txt. Each case is a header line and four value lines:
    <op> <kind r|c> <m> <n> <k> <cond>
    <A: m*n values, row-major>
    <B: m*k values, or "-">
    <first result>
    <second result, or "-">
Complex values are written as re im pairs (eigenvalues and residuals are real); results carry 17 significant digits, computed in
float64. Inputs are small integers / 8 (exact in float and double) except the Hilbert matrices
(1 / (i + j + 1) rounded to double).

ops:
  geqrf     torch.geqrf(A): the packed reflectors and R (m*n values), then tau (min(m, n))
  eigvalsh  scipy.linalg.eigvalsh(A) (ascending); A Hermitian; cond is ||A||_2
  lstsq     X = scipy.linalg.lstsq(A, B) (the minimum-norm solution), then the squared residual
            norms of each column of B when m > n and A has full rank ("-" otherwise); k is the
            number of columns of B; cond is the 2-norm condition number (inf when rank deficient)
"""
import os

import numpy as np
import scipy.linalg as sla
import torch

import gen_linalg  # the sibling generator: same value format

# The sibling's small-integer / 8 generator, drawing from this script's own seed.
gen_linalg.rng = np.random.default_rng(20261122)
rand = gen_linalg.rand
HERE = os.path.dirname(os.path.abspath(__file__))


def vals(a):
    return "-" if a is None else gen_linalg.vals(a)


def case(out, op, cplx, a, b, r1, r2, cond):
    m, n = a.shape
    k = 0 if b is None else b.shape[1]
    out.append(f"{op} {'c' if cplx else 'r'} {m} {n} {k} {float(cond)!r}")
    out += [vals(a), vals(b), vals(r1), vals(r2)]


def hilbert(n):
    return np.array([[1.0 / (i + j + 1) for j in range(n)] for i in range(n)])


def main():
    out = []
    for cplx in (False, True):
        for m, n in ((1, 1), (3, 3), (6, 4), (4, 6), (24, 24), (40, 29)):
            a = rand((m, n), cplx)
            q, tau = torch.geqrf(torch.from_numpy(a))
            case(out, "geqrf", cplx, a, None, q.numpy(), tau.numpy(), np.linalg.cond(a))
        for n in (1, 2, 5, 16, 33):
            g = rand((n, n), cplx)
            a = (g + g.conj().T) / 2  # exact: sums of multiples of 1/8, halved
            case(out, "eigvalsh", cplx, a, None, sla.eigvalsh(a), None, np.linalg.norm(a, 2))
        # Repeated eigenvalues: Q diag Q^T built exactly is not possible; a block-diagonal matrix.
        a = np.kron(np.eye(3), rand((4, 4), False))
        a = (a + a.T) / 2
        if cplx:
            a = a + 0j
        case(out, "eigvalsh", cplx, a, None, sla.eigvalsh(a), None, np.linalg.norm(a, 2))
        for m, n, k in ((1, 1, 1), (5, 3, 2), (30, 12, 3), (12, 12, 2), (4, 7, 2), (60, 20, 1)):
            a = rand((m, n), cplx)
            if m == 1:
                a = a + 1.5  # never the zero 1 x 1 matrix
            b = rand((m, k), cplx)
            x = sla.lstsq(a, b)[0]
            res = None
            if m > n and np.linalg.matrix_rank(a) == n:
                res = (np.abs(b - a @ x) ** 2).sum(axis=0)
            case(out, "lstsq", cplx, a, b, x, res, np.linalg.cond(a))
        # Rank deficient: rank 3 of 9 columns (integer products / 64, exact).
        a = rand((14, 3), cplx) @ rand((3, 9), cplx)
        b = rand((14, 2), cplx)
        case(out, "lstsq", cplx, a, b, sla.lstsq(a, b)[0], None, float("inf"))
    for n in (4, 8, 12):
        h = hilbert(n)
        case(out, "eigvalsh", False, h, None, sla.eigvalsh(h), None, np.linalg.norm(h, 2))
        q, tau = torch.geqrf(torch.from_numpy(h))
        case(out, "geqrf", False, h, None, q.numpy(), tau.numpy(), np.linalg.cond(h))
    with open(os.path.join(HERE, "decomp_reference.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
