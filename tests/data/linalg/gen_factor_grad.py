#!/usr/bin/env python3
"""Writes tests/data/linalg/factor_grad_reference.txt, torch 1.13's gradients for
tests/linalg/autograd_factor_test.cpp and tests/linalg/autograd_lu_test.cpp.

Run from the repository root with a Python that has torch 1.13 (Debian's python3):
    python3 tests/data/linalg/gen_factor_grad.py
Inputs are the deterministic matrices of tests/linalg/autograd_test_util.hpp (`input`): entry i
is sin(0.7 i + seed) (+ shift on the diagonal of the last two dims) with imaginary part
cos(1.3 i + seed) for complex dtypes. For each case the loss is sum(Re(f(A) * W)) with W =
input(f(A).shape, 0, 1.1) (real W for real-valued f); the file holds dL/dA.
Each case is one line:
    <case> <kind r|c> <count> <values, row-major; complex as re im pairs>
"""
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
INF = float("inf")


def make_input(shape, shift=0.0, seed=0.3, cplx=False):
    n = shape[-1]
    m = shape[-2] if len(shape) >= 2 else 1
    numel = math.prod(shape)
    vals = []
    for i in range(numel):
        a, b = math.sin(0.7 * i + seed), math.cos(1.3 * i + seed)
        r, c = (i // n) % m, i % n
        d = shift if len(shape) >= 2 and r == c else 0.0
        vals.append(complex(a + d, b) if cplx else a + d)
    dt = torch.complex128 if cplx else torch.float64
    return torch.tensor(vals, dtype=dt).reshape(shape)


def cat_qr(a, mode="reduced"):
    q, r = torch.linalg.qr(a, mode=mode)
    return torch.cat([q, r], dim=-1 if q.shape[-1] != r.shape[-1] else -2)


def cond_product(a, p):
    ref = torch.linalg.cond(a.detach(), p)
    out = torch.linalg.matrix_norm(a, p) * torch.linalg.matrix_norm(torch.linalg.inv(a), p)
    assert torch.allclose(out.detach(), ref, rtol=1e-12)
    return out


# name -> (input shape, shift, seed, function); functions of one [*, m, n] tensor, as the C++ test.
MATRIX_CASES = {
    "qr_tall": ((2, 4, 3), 1.0, 0.4, lambda v: cat_qr(v)),
    "qr_square": ((2, 3, 3), 1.0, 0.4, lambda v: cat_qr(v)),
    "qr_wide": ((2, 3, 5), 1.0, 0.4, lambda v: cat_qr(v)),
    "qr_complete_wide": ((2, 3, 5), 1.0, 0.4, lambda v: cat_qr(v, "complete")),
    "matrix_exp": ((2, 3, 3), 0.0, 0.4, torch.linalg.matrix_exp),
    "householder_product": ((2, 4, 3), 1.0, 0.4, lambda v: torch.linalg.householder_product(v, v[:, 0, :])),
    "vander": ((2, 3, 3), 0.0, 0.4, lambda v: torch.linalg.vander(v[:, :, 0])),
    "tensorinv": ((2, 2, 4), 2.0, 0.4, lambda v: torch.linalg.tensorinv(v.reshape(2, 2, 2, 2)).reshape(2, 2, 4)),
    "tensorsolve": ((2, 3, 3), 2.0, 0.4, lambda v: torch.linalg.tensorsolve(v[0], v[1, 0]).reshape(1, 1, 3)),
    "lu_tall": ((2, 4, 3), 0.2, 0.4, lambda v: torch.cat(torch.linalg.lu(v)[1:], dim=-2)),
    "lu_wide": ((2, 3, 4), 0.2, 0.4, lambda v: torch.cat(torch.linalg.lu(v)[1:], dim=-1)),
    "lu_factor_tall": ((2, 4, 3), 0.2, 0.4, lambda v: torch.linalg.lu_factor(v)[0]),
    "lu_factor_wide": ((2, 3, 4), 0.2, 0.4, lambda v: torch.linalg.lu_factor(v)[0]),
    # lstsq of the tall system v[:, :, :2] X = v[:, :, 2:] and of the wide one (minimum norm)
    "lstsq_tall": ((2, 4, 3), 1.0, 0.4, lambda v: torch.linalg.lstsq(v[:, :, :2], v[:, :, 2:]).solution),
    # (the C++ test passes B as a batch of vectors; torch 1.13's backward fails for vector right-hand
    # sides, so the reference takes the same B as one-column matrices, which has the same gradient)
    "lstsq_wide": ((2, 2, 4), 1.0, 0.4, lambda v: torch.linalg.lstsq(v[:, :, :3], v[:, :, 3:]).solution),
}

# real-valued functions, flattened
NORM_CASES = {
    "vector_norm_2": lambda v: torch.linalg.vector_norm(v, 2, dim=-1),
    "vector_norm_1": lambda v: torch.linalg.vector_norm(v, 1, dim=-1),
    "vector_norm_inf": lambda v: torch.linalg.vector_norm(v, INF, dim=-1),
    "vector_norm_-inf": lambda v: torch.linalg.vector_norm(v, -INF, dim=-1),
    "vector_norm_0.5": lambda v: torch.linalg.vector_norm(v, 0.5, dim=(0, 2)),
    "vector_norm_3": lambda v: torch.linalg.vector_norm(v, 3),
    "matrix_norm_fro": lambda v: torch.linalg.matrix_norm(v, "fro"),
    "matrix_norm_1": lambda v: torch.linalg.matrix_norm(v, 1),
    "matrix_norm_-1": lambda v: torch.linalg.matrix_norm(v, -1),
    "matrix_norm_inf": lambda v: torch.linalg.matrix_norm(v, INF, dim=(0, 2)),
    "matrix_norm_-inf": lambda v: torch.linalg.matrix_norm(v, -INF),
    "matrix_norm_2": lambda v: torch.linalg.matrix_norm(v, 2),
    "matrix_norm_-2": lambda v: torch.linalg.matrix_norm(v, -2, dim=(0, 2)),
    "matrix_norm_nuc": lambda v: torch.linalg.matrix_norm(v, "nuc", keepdim=True),
    "norm": lambda v: torch.linalg.norm(v),
    # torch 1.13's cond masks the inverse in place, so its backward raises; this is its formula
    # (the product of the norms of A and of inv(A)) out of place, as later torch versions do
    "cond_fro": lambda v: cond_product(v, "fro"),
    "cond_inf": lambda v: cond_product(v, INF),
    "cond_-1": lambda v: cond_product(v, -1),
    "cond_nuc": lambda v: cond_product(v, "nuc"),
    "cond_2": lambda v: torch.linalg.cond(v),
    "cond_-2": lambda v: torch.linalg.cond(v[:, :2, :], -2),
}
# zeros and ties: the subgradients torch picks
TIE_INPUT = [[1.0, -3.0, 3.0], [0.0, 0.0, 0.0], [2.0, -2.0, 1.0]]
TIE_CASES = {"ties_" + name: NORM_CASES[name]
             for name in ("vector_norm_2", "vector_norm_inf", "vector_norm_-inf", "matrix_norm_1", "matrix_norm_inf")}


def values(t):
    t = t.detach().reshape(-1)
    if t.is_complex():
        return [x for z in t.tolist() for x in (z.real, z.imag)]
    return t.tolist()


def grad_line(name, a, f):
    a = a.clone().requires_grad_(True)
    out = f(a)
    w = make_input(tuple(out.shape) if out.dim() >= 1 else (1,), 0.0, 1.1, out.is_complex()).reshape(out.shape)
    (out * w).real.sum().backward() if out.is_complex() else (out * w).sum().backward()
    kind = "c" if a.is_complex() else "r"
    vals = values(a.grad)
    return f"{name} {kind} {len(vals)} " + " ".join(repr(float(x)) for x in vals)


def main():
    lines = []
    for cplx in (False, True):
        for name, (shape, shift, seed, f) in MATRIX_CASES.items():
            lines.append(grad_line(name, make_input(shape, shift, seed, cplx), f))
        for name, f in NORM_CASES.items():
            lines.append(grad_line(name, make_input((2, 3, 3), 2.0, 0.4, cplx), f))
        ties = torch.tensor(TIE_INPUT, dtype=torch.complex128 if cplx else torch.float64).unsqueeze(0)
        for name, f in TIE_CASES.items():
            lines.append(grad_line(name, ties, f))
    with open(os.path.join(HERE, "factor_grad_reference.txt"), "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
