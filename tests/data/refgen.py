"""Helpers shared by the reference-data generators under tests/data (run with Debian's python3)."""
import numpy as np


def eighths(rng, shape, cplx):
    """Random multiples of 1/8 in [-1, 1], exact in float and double; complex when cplx."""
    x = rng.integers(-8, 9, size=shape) / 8.0
    if cplx:
        x = x + 1j * (rng.integers(-8, 9, size=shape) / 8.0)
    return x


def normals(rng, shape, cplx):
    """Standard normal samples; complex (independent real and imaginary parts) when cplx."""
    x = rng.standard_normal(shape)
    if cplx:
        x = x + 1j * rng.standard_normal(shape)
    return x


def vals(a, force_complex=False, fmt=None):
    """The entries of a, flattened and space separated, complex ones as "re im": repr (exact round
    trip) or the printf format fmt."""
    a = np.asarray(a).ravel()
    one = (lambda v: fmt % v) if fmt else (lambda v: repr(float(v)))
    if np.iscomplexobj(a) or force_complex:
        a = a.astype(complex)
        return " ".join(f"{one(v.real)} {one(v.imag)}" for v in a)
    return " ".join(one(v) for v in a)
