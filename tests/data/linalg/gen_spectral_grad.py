#!/usr/bin/env python3
"""Writes the reference gradients for tests/linalg/autograd_spectral_test.cpp.

Run from the repository root with a Python that has torch 1.13 (Debian's python3):
    python3 tests/data/linalg/gen_spectral_grad.py
Output: tests/data/linalg/spectral_grad_reference.txt. Each case is three lines:
    <op> <kind r|c> <m> <n> <flag>
    <A: m*n values, row-major>
    <dL/dA: m*n values (torch's gradient, the conjugate Wirtinger derivative for complex A)>
Complex values are written as re im pairs. Inputs are integers / 8 (exact in double).

The losses (weights w(i) = cos(0.7 i + 0.2), cw(i) = w(i) + i sin(0.3 i + 0.5), flat index i):
  svd      flag = full_matrices: sum(S * w) + sum(|U| * w) + sum(|Vh| * w)
  svduvh   (flag 0) Re sum(U Vh * cw)          (reduced; U Vh is invariant to the phases)
  svdvals  sum(S * w)
  eig      Re sum(L^2 * (0.3 + 0.7i)) + sum(|V| * r), r(i, j) = w(i): both invariant to the order
           of the eigenpairs and to the phases of the eigenvectors
  eigvals  Re sum(L^2 * (0.3 + 0.7i)) + Im sum(L^3) / 10
  pinv     flag = hermitian: Re sum(pinv(A) * cw) (cw real for real A)
"""
import math
import os

import torch

torch.manual_seed(20261122)
HERE = os.path.dirname(os.path.abspath(__file__))
D, C = torch.float64, torch.complex128


def w(n, cplx):
    re = torch.tensor([math.cos(0.7 * i + 0.2) for i in range(n)], dtype=D)
    if not cplx:
        return re
    return torch.complex(re, torch.tensor([math.sin(0.3 * i + 0.5) for i in range(n)], dtype=D))


def rand(m, n, cplx, sym=False):
    a = torch.randint(-8, 9, (m, n), dtype=D) / 8.0
    if cplx:
        a = torch.complex(a, torch.randint(-8, 9, (m, n), dtype=D) / 8.0)
    if sym:
        a = a + a.mH
    return a


def vals(t):
    t = t.detach().reshape(-1)
    if t.is_complex():
        return " ".join(f"{float(v.real)!r} {float(v.imag)!r}" for v in t)
    return " ".join(repr(float(v)) for v in t)


def loss(op, a, flag):
    cplx = a.is_complex()
    if op == "svd":
        u, s, vh = torch.linalg.svd(a, full_matrices=bool(flag))
        return ((s * w(s.numel(), False).reshape(s.shape)).sum() + (u.abs() * w(u.numel(), False).reshape(u.shape)).sum()
                + (vh.abs() * w(vh.numel(), False).reshape(vh.shape)).sum())
    if op == "svduvh":
        u, s, vh = torch.linalg.svd(a, full_matrices=False)
        p = u @ vh
        return (p * w(p.numel(), cplx).reshape(p.shape)).sum().real if cplx else (p * w(p.numel(), False).reshape(p.shape)).sum()
    if op == "svdvals":
        s = torch.linalg.svdvals(a)
        return (s * w(s.numel(), False)).sum()
    if op == "eig":
        l, v = torch.linalg.eig(a)
        r = w(v.shape[0], False).unsqueeze(-1).expand(v.shape)
        return (l * l * complex(0.3, 0.7)).sum().real + (v.abs() * r).sum()
    if op == "eigvals":
        l = torch.linalg.eigvals(a)
        return (l * l * complex(0.3, 0.7)).sum().real + (l ** 3).sum().imag / 10
    if op == "pinv":
        p = torch.linalg.pinv(a, hermitian=bool(flag))
        q = p * w(p.numel(), cplx).reshape(p.shape)
        return q.sum().real if cplx else q.sum()
    raise ValueError(op)


CASES = [
    ("svd", 3, 2, 0), ("svd", 2, 3, 0), ("svd", 3, 3, 0), ("svd", 3, 2, 1), ("svd", 2, 3, 1),
    ("svduvh", 3, 2, 0), ("svduvh", 2, 3, 0), ("svduvh", 3, 3, 0),
    ("svdvals", 3, 2, 0), ("svdvals", 2, 3, 0),
    ("eig", 3, 3, 0), ("eig", 4, 4, 0), ("eigvals", 3, 3, 0),
    ("pinv", 3, 2, 0), ("pinv", 2, 3, 0), ("pinv", 3, 3, 1),
]


def main():
    out = []
    for cplx in (False, True):
        for op, m, n, flag in CASES:
            a = rand(m, n, cplx, sym=(op == "pinv" and flag == 1)).requires_grad_()
            (g,) = torch.autograd.grad(loss(op, a, flag), a)
            out.append(f"{op} {'c' if cplx else 'r'} {m} {n} {flag}")
            out.append(vals(a))
            out.append(vals(g))
    with open(os.path.join(HERE, "spectral_grad_reference.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
