#pragma once
/// @file geev.hpp
/// @brief Internal header: eigenvalues and right eigenvectors of one dense square matrix, in
/// complex arithmetic: Householder reduction to upper Hessenberg form A = Z H Z^H, complex Schur
/// form T = Q^H H Q by single-shift implicit QR (Wilkinson shifts, exceptional shifts every 10
/// stalled iterations, deflation on small subdiagonals), eigenvectors of T by back-substitution,
/// back-transformed by (Z Q) in one GEMM and normalized as LAPACK's geev (unit 2-norm, the largest
/// component real).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "tl/linalg/detail/gemm.hpp"
#include "tl/linalg/detail/gesvd.hpp"

namespace tl::linalg::detail {

template <class Rl>
TL_INLINE Rl cabs1(const complex<Rl>& z) {
  return std::abs(z.re) + std::abs(z.im);
}

/// The eigenvalues w (n) of the row-major n x n complex matrix h (destroyed) and, when vr is not
/// null, the right eigenvectors as the columns of vr (row-major n x n). Returns false when the QR
/// iteration did not converge.
template <class Rl>
bool eig_complex(index_t n, complex<Rl>* h, complex<Rl>* w, complex<Rl>* vr) {
  using C = complex<Rl>;
  if (n == 0) return true;
  const bool vectors = vr != nullptr;
  // Exact power-of-two scaling towards max |h| ~ 1.
  int ex = 0;
  const Rl sc = svd_scale_exponent(h, n * n, ex);
  if (ex != 0)
    for (index_t i = 0; i < n * n; ++i) h[i] = h[i] * C(sc);
  // Hessenberg reduction: h <- H_k^H h H_k for k = 0..n-3; the reflectors' tails stay below the
  // subdiagonal (taus in tau).
  std::vector<C> tau(static_cast<std::size_t>(n), C(0)), wk;
  for (index_t k = 0; k + 2 < n; ++k) {
    C* x = h + (k + 1) * n + k;
    const C t = make_reflector(*x, x + n, n - k - 2, n);
    tau[k] = t;
    if (t == C(0)) continue;
    const C* vt = x + n;  // v = [1; vt], stride n
    // Left: rows k+1.., columns k+1..
    apply_reflector_left(conj_of(t), vt, n, n - k - 1, h + (k + 1) * n + k + 1, n - k - 1, n, wk);
    // Right: all rows, columns k+1..: h <- h - t (h v) v^H.
    for (index_t i = 0; i < n; ++i) {
      C* row = h + i * n + k + 1;
      C s = row[0];
      for (index_t j = 1; j < n - k - 1; ++j) s += row[j] * vt[(j - 1) * n];
      const C g = t * s;
      row[0] -= g;
      for (index_t j = 1; j < n - k - 1; ++j) row[j] -= g * conj_of(vt[(j - 1) * n]);
    }
  }
  // zt = Z^T (row j = column j of Z), Z = H_0 H_1 ... accumulated backwards.
  std::vector<C> zt;
  if (vectors) {
    std::vector<C> z(static_cast<std::size_t>(n * n), C(0));
    for (index_t i = 0; i < n; ++i) z[i * n + i] = C(1);
    for (index_t k = n - 2; k-- > 0;)
      apply_reflector_left(tau[k], h + (k + 2) * n + k, n, n - k - 1, z.data() + (k + 1) * n + k + 1, n - k - 1, n,
                           wk);
    zt.resize(static_cast<std::size_t>(n * n));
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) zt[j * n + i] = z[i * n + j];
  }
  for (index_t i = 2; i < n; ++i)
    for (index_t j = 0; j + 1 < i; ++j) h[i * n + j] = C(0);

  // Single-shift QR to upper triangular T (the whole of T updated when vectors are wanted).
  const Rl eps = std::numeric_limits<Rl>::epsilon();
  const Rl tiny = std::numeric_limits<Rl>::min();
  Rl anorm = 0;
  for (index_t i = 0; i < n * n; ++i) anorm = std::max(anorm, cabs1(h[i]));
  index_t hi = n - 1;
  index_t its = 0, total = 0;
  const index_t maxit = 30 * std::max<index_t>(10, n) * std::max<index_t>(1, n);
  while (hi >= 0) {
    index_t l = hi;
    for (; l > 0; --l) {
      Rl tst = cabs1(h[(l - 1) * n + l - 1]) + cabs1(h[l * n + l]);
      if (tst == Rl(0)) tst = anorm;
      if (cabs1(h[l * n + l - 1]) <= std::max(eps * tst, tiny)) {
        h[l * n + l - 1] = C(0);
        break;
      }
    }
    if (l == hi) {
      w[hi] = h[hi * n + hi];
      --hi;
      its = 0;
      continue;
    }
    if (++total > maxit) return false;
    ++its;
    C mu;
    const C a = h[(hi - 1) * n + hi - 1], b = h[(hi - 1) * n + hi], c = h[hi * n + hi - 1], d = h[hi * n + hi];
    if (its % 10 == 0) {
      mu = d + C(Rl(0.75) * std::abs(c.re) + Rl(0.75) * std::abs(c.im));  // exceptional shift
    } else {
      const std::complex<Rl> hh = std::complex<Rl>((a - d) * C(Rl(0.5)));
      const std::complex<Rl> disc = std::sqrt(hh * hh + std::complex<Rl>(b * c));
      const C e1 = d + C(hh + disc), e2 = d + C(hh - disc);
      mu = cabs1(e1 - d) <= cabs1(e2 - d) ? e1 : e2;
    }
    const index_t c0 = vectors ? 0 : l, c1 = vectors ? n : hi + 1;  // rows / columns of T touched
    C x = h[l * n + l] - mu, y = h[(l + 1) * n + l];
    for (index_t k = l; k < hi; ++k) {
      if (k > l) {
        x = h[k * n + k - 1];
        y = h[(k + 1) * n + k - 1];
      }
      // G = [c s; -conj(s) c], c real, with G [x; y] = [r; 0].
      const Rl ax = std::hypot(x.re, x.im), r = std::hypot(ax, std::hypot(y.re, y.im));
      if (r == Rl(0)) continue;
      const C phase = ax == Rl(0) ? C(1) : x * C(Rl(1) / ax);
      const Rl cs = ax / r;
      const C sn = phase * conj_of(y) * C(Rl(1) / r);
      for (index_t j = (k > l ? k - 1 : k); j < c1; ++j) {
        const C p = h[k * n + j], q = h[(k + 1) * n + j];
        h[k * n + j] = C(cs) * p + sn * q;
        h[(k + 1) * n + j] = C(cs) * q - conj_of(sn) * p;
      }
      if (k > l) h[(k + 1) * n + k - 1] = C(0);
      const index_t rend = std::min(k + 2, hi);
      const C csn = conj_of(sn);
      for (index_t i = c0; i <= rend; ++i) {
        const C p = h[i * n + k], q = h[i * n + k + 1];
        h[i * n + k] = p * C(cs) + q * csn;
        h[i * n + k + 1] = q * C(cs) - p * sn;
      }
      if (vectors) {
        C* z0 = zt.data() + k * n;
        C* z1 = z0 + n;
        for (index_t i = 0; i < n; ++i) {
          const C p = z0[i], q = z1[i];
          z0[i] = p * C(cs) + q * csn;
          z1[i] = q * C(cs) - p * sn;
        }
      }
    }
  }
  if (vectors) {
    // Eigenvectors of T: column k of X solves (T - w_k I) x = 0 with x_k = 1, x_j = 0 for j > k.
    std::vector<C> xm(static_cast<std::size_t>(n * n), C(0));
    const Rl smin = std::max(eps * anorm, tiny);
    const Rl big = std::sqrt(std::numeric_limits<Rl>::max()) * eps;
    std::vector<C> x(static_cast<std::size_t>(n));
    for (index_t k = 0; k < n; ++k) {
      const C lam = h[k * n + k];
      std::fill(x.begin(), x.end(), C(0));
      x[k] = C(1);
      for (index_t i = k - 1; i >= 0; --i) {
        C s = C(0);
        for (index_t j = i + 1; j <= k; ++j) s += h[i * n + j] * x[j];
        C den = h[i * n + i] - lam;
        if (cabs1(den) < smin) den = C(smin);
        x[i] = -(s / den);
        if (cabs1(x[i]) > big) {
          const C f = C(Rl(1) / cabs1(x[i]));
          for (index_t j = i; j <= k; ++j) x[j] = x[j] * f;
        }
      }
      for (index_t i = 0; i <= k; ++i) xm[i * n + k] = x[i];
    }
    // V = (Z Q) X, (Z Q)(r, j) = zt[j * n + r].
    gemm<C>(n, n, n, C(1), mat_ref<C>{zt.data(), 1, n}, mat_ref<C>{xm.data(), n, 1}, C(0), vr, n, 1);
    for (index_t k = 0; k < n; ++k) {
      Rl mx = -1, nrm2 = 0;
      index_t im = 0;
      for (index_t i = 0; i < n; ++i) {
        const Rl a2 = abs_sq(vr[i * n + k]);
        nrm2 += a2;
        if (a2 > mx) {
          mx = a2;
          im = i;
        }
      }
      // Unit 2-norm, the largest component real and positive.
      const C big_c = vr[im * n + k];
      const Rl ab = std::hypot(big_c.re, big_c.im);
      const C f = ab > Rl(0) ? conj_of(big_c) * C(Rl(1) / (ab * std::sqrt(nrm2))) : C(1);
      for (index_t i = 0; i < n; ++i) vr[i * n + k] = vr[i * n + k] * f;
      vr[im * n + k].im = 0;
    }
  }
  if (ex != 0)
    for (index_t i = 0; i < n; ++i) w[i] = C(std::ldexp(w[i].re, -ex), std::ldexp(w[i].im, -ex));
  return true;
}

}  // namespace tl::linalg::detail
