#!/usr/bin/env python3
"""Derives the coefficients of Temme's uniform asymptotic expansion used by
include/tl/special/detail/igamma_kernel.hpp (DiDonato & Morris, ACM TOMS 12 (1986); DLMF 8.12):

    Q(a, x) = erfc(eta sqrt(a / 2)) / 2 + R,   P(a, x) = erfc(-eta sqrt(a / 2)) / 2 - R,
    R = exp(-a eta^2 / 2) / sqrt(2 pi a) sum_k>=0 C_k(eta) a^-k,   C_k(eta) = sum_n d_kn eta^n,

with lambda = x / a, mu = lambda - 1 and eta^2 / 2 = mu - log(1 + mu), eta of the sign of mu.
All coefficients are exact rationals (Python fractions), rounded to double once:
  - mu(eta) = sum m_j eta^j from eta (1 + mu) = mu dmu/deta: m_1 = 1,
    (n + 1) m_n = m_(n-1) - sum_(j=2..n-1) m_j (n + 1 - j) m_(n+1-j);
  - C_0 = 1 / mu - 1 / eta, C_k = C_(k-1)' / eta + (-1)^k g_k / mu, where Gamma*(a) =
    Gamma(a) / (sqrt(2 pi / a) (a / e)^a) ~ sum_k g_k a^-k (exp of Stirling's series);
    the 1 / eta poles cancel (checked).
For 1 <= a < 8 the kernel's prefactor x^a e^-x / Gamma(a) = sqrt(a / (2 pi)) exp(-E - S(a)), with
E = x - a - a log(x / a), needs Stirling's correction S(a) = lgamma(a) - (a - 1/2) log a + a -
log(2 pi) / 2 below the range of its series: a S(a) is interpolated in u = 1 / a in [1/8, 1]
(Chebyshev, monomial form in the variable 16/7 u - 9/7, printed with its maximum relative error;
the kernel evaluates its even and odd terms side by side).
The script prints the C++ cases of the rows C_k (each cut where its terms no longer matter in the
kernel's region), the interpolant, then the largest relative error of the truncated expansion
(evaluated in double) against mpmath at a few points.

Run (from this folder): /usr/bin/python3 fit_igamma_coefficients.py
"""
from fractions import Fraction as F

import mpmath as mp

from fit_gamma_bessel_coefficients import fit, on

K, N = 25, 25  # rows (powers of 1 / a) and terms per row (powers of eta)
M = N + 2 * K + 2  # length of the series of mu needed
ETA_MAX, A_MIN = 0.35, 10.0  # the kernel's region: |x / a - 1| <= 0.3, a >= 10


def binom(n, k):
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


def bernoulli_exact(n):
    b = [F(0)] * (n + 1)
    b[0] = F(1)
    for m in range(1, n + 1):
        b[m] = -sum(binom(m + 1, j) * b[j] for j in range(m)) / F(m + 1)
    return b


def gamma_star_coeffs(k):
    """g_0 .. g_(k-1) of Gamma*(a) ~ sum g_j a^-j = exp(sum_j B_2j / (2j (2j - 1)) a^(1 - 2j))."""
    b = bernoulli_exact(2 * k + 2)
    s = [F(0)] * k  # the exponent as a series in 1 / a
    for j in range(1, k + 1):
        if 2 * j - 1 < k:
            s[2 * j - 1] = b[2 * j] / (2 * j * (2 * j - 1))
    # e = exp(s): e' = s' e  ->  n e_n = sum_(j=1..n) j s_j e_(n-j)
    e = [F(1)] + [F(0)] * (k - 1)
    for n in range(1, k):
        e[n] = sum(j * s[j] * e[n - j] for j in range(1, n + 1)) / n
    return e


def mu_series(m):
    mu = [F(0), F(1)] + [F(0)] * (m - 1)
    for n in range(2, m + 1):
        mu[n] = (mu[n - 1] - sum(mu[j] * (n + 1 - j) * mu[n + 1 - j] for j in range(2, n))) / (n + 1)
    return mu


def series_inverse(c, m):
    """1 / sum c_j t^j to m terms (c_0 != 0)."""
    r = [F(0)] * m
    r[0] = 1 / c[0]
    for n in range(1, m):
        r[n] = -sum(c[j] * r[n - j] for j in range(1, min(n, len(c) - 1) + 1)) / c[0]
    return r


def coefficients():
    mu = mu_series(M + 1)
    s = series_inverse(mu[1:], M)  # eta / mu
    g = gamma_star_coeffs(K + 1)
    c = [s[n + 1] for n in range(M - 1)]  # C_0 = (S - 1) / eta
    rows = [c[:N]]
    for k in range(1, K):
        dc = [(n + 1) * c[n + 1] for n in range(len(c) - 1)]  # C'
        sign = (-1) ** k
        assert dc[0] + sign * g[k] * s[0] == 0, "the 1 / eta pole must cancel"
        c = [dc[n + 1] + sign * g[k] * s[n + 1] for n in range(len(dc) - 1)]
        rows.append(c[:N])
    return rows


def temme_q(d, a, x):
    """Q by the truncated expansion evaluated in double (mpmath only for eta and erfc)."""
    a, x = mp.mpf(a), mp.mpf(x)
    mu = x / a - 1
    eta = mp.sqrt(2 * (mu - mp.log1p(mu))) * mp.sign(mu)
    tot = 0.0
    for k in reversed(range(K)):
        ck = 0.0
        for v in reversed(d[k]):
            ck = ck * float(eta) + v
        tot = tot / float(a) + ck
    return mp.erfc(eta * mp.sqrt(a / 2)) / 2 + mp.exp(-a * eta ** 2 / 2) / mp.sqrt(2 * mp.pi * a) * tot


def main():
    mp.mp.dps = 40
    rows = coefficients()
    d = [[float(v) for v in r] for r in rows]
    # Row k keeps the terms that matter for |eta| <= ETA_MAX at a >= A_MIN (the region the kernel
    # uses the expansion in): |d_kn| ETA_MAX^n A_MIN^-k >= 2^-64 / 4 (|C_0| >= 1/4 there).
    trimmed = []
    for k, r in enumerate(d):
        n = len(r)
        while n > 1 and abs(r[n - 1]) * ETA_MAX ** (n - 1) / A_MIN ** k < 2.0 ** -66:
            n -= 1
        trimmed.append(r[:n])
    print(f"// C_k(eta) for k < {K}, |eta| <= {ETA_MAX}, a >= {A_MIN}: {sum(map(len, trimmed))} coefficients")
    for k, r in enumerate(trimmed):
        print(f"case {k}: return horner<" + ", ".join(repr(v) for v in r) + ">(eta);")
    stirling = on(mp.mpf(1) / 8, 1, lambda u: (mp.loggamma(1 / u) - (1 / u - mp.mpf(1) / 2) * mp.log(1 / u) + 1 / u - mp.log(2 * mp.pi) / 2) / u)
    fit("a S(a), u = 1 / a in [1/8, 1]", stirling, 23)
    for a, x in ((10, 7), (10, 13), (20, 14), (20, 26), (100, 75), (100, 130), (1000, 1030), (1e4, 1e4 + 1)):
        ref = mp.gammainc(a, x, mp.inf, regularized=True)
        print(f"// a = {a}, x = {x}: relative error {float(abs(temme_q(trimmed, a, x) / ref - 1)):.3g}")


if __name__ == "__main__":
    main()
