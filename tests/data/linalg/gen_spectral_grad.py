#!/usr/bin/env python3
"""Writes the reference gradients for tests/linalg/autograd_spectral_test.cpp.

Run from the repository root with a Python that has torch 1.13 (Debian's python3):
    python3 tests/data/linalg/gen_spectral_grad.py
Output: tests/data/linalg/spectral_grad_reference.txt. Each case is three lines:
    <op> <kind r|c> <m> <n> <flag>
    <A: m*n values, row-major>
    <dL/dA: m*n values (torch's gradient, the conjugate Wirtinger derivative for complex A)>
Complex values are written as re im pairs. Inputs are integers / 8 (exact in double).

The loss of a case is Re sum(p * c) summed over the probes p listed for it (each a function of A
with complex values, the same as `probe` in the test), c = cw (flat index i over p's elements, a
[*, k] result counted as [*, k, 1]: cw(i) = cos(0.7 i + 0.2) + i sin(0.3 i + 0.5)) or, for eig and
eigvals, whose eigenpairs tl and torch order differently, the constant 0.3 + 0.7i:
  svd      flag 0: S, |U|, |Vh|, U Vh (reduced); flag 1 (full_matrices): |U[:, :k] Vh[:k, :]|
  svdvals  S
  eig      L, |V|, V diag(L^2) V^-1
  eigvals  L
  pinv     flag 0: pinv(A); flag 1: pinv(A + A^H, hermitian=True)
"""
import math
import os

import torch

torch.manual_seed(20261122)
HERE = os.path.dirname(os.path.abspath(__file__))
D, C = torch.float64, torch.complex128


def cw(n):
    return torch.complex(torch.tensor([math.cos(0.7 * i + 0.2) for i in range(n)], dtype=D),
                         torch.tensor([math.sin(0.3 * i + 0.5) for i in range(n)], dtype=D))


def rand(m, n, cplx):
    a = torch.randint(-8, 9, (m, n), dtype=D) / 8.0
    if cplx:
        a = torch.complex(a, torch.randint(-8, 9, (m, n), dtype=D) / 8.0)
    return a


def vals(t):
    t = t.detach().reshape(-1)
    if t.is_complex():
        return " ".join(f"{float(v.real)!r} {float(v.imag)!r}" for v in t)
    return " ".join(repr(float(v)) for v in t)


def probes(op, a, flag):
    if op == "svd" and flag:
        u, s, vh = torch.linalg.svd(a, full_matrices=True)
        k = s.shape[-1]
        return [(u[..., :, :k] @ vh[..., :k, :]).abs()]
    if op == "svd":
        u, s, vh = torch.linalg.svd(a, full_matrices=False)
        return [s.unsqueeze(-1), u.abs(), vh.abs(), u @ vh]
    if op == "svdvals":
        return [torch.linalg.svdvals(a).unsqueeze(-1)]
    if op == "eig":
        l, v = torch.linalg.eig(a)
        return [l.unsqueeze(-1), v.abs(), torch.linalg.solve(v, v * (l * l).unsqueeze(-2), left=False)]
    if op == "eigvals":
        return [torch.linalg.eigvals(a).unsqueeze(-1)]
    if op == "pinv":
        return [torch.linalg.pinv(a + a.mH, hermitian=True) if flag else torch.linalg.pinv(a)]
    raise ValueError(op)


def loss(op, a, flag):
    total = 0
    for p in probes(op, a, flag):
        c = complex(0.3, 0.7) if op in ("eig", "eigvals") else cw(p.numel()).reshape(p.shape)
        total = total + (p.to(C) * c).real.sum()
    return total


CASES = [
    ("svd", 3, 2, 0), ("svd", 2, 3, 0), ("svd", 3, 3, 0), ("svd", 3, 2, 1), ("svd", 2, 3, 1),
    ("svdvals", 3, 2, 0), ("svdvals", 2, 3, 0),
    ("eig", 3, 3, 0), ("eig", 4, 4, 0), ("eigvals", 3, 3, 0),
    ("pinv", 3, 2, 0), ("pinv", 2, 3, 0), ("pinv", 3, 3, 1),
]


def main():
    out = []
    for cplx in (False, True):
        for op, m, n, flag in CASES:
            a = rand(m, n, cplx).unsqueeze(0).requires_grad_()
            (g,) = torch.autograd.grad(loss(op, a, flag), a)
            out.append(f"{op} {'c' if cplx else 'r'} {m} {n} {flag}")
            out.append(vals(a))
            out.append(vals(g))
    with open(os.path.join(HERE, "spectral_grad_reference.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
