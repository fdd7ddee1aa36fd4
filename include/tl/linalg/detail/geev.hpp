#pragma once
/// @file geev.hpp
/// @brief Internal header: eigenvalues and right eigenvectors of one dense square matrix:
/// Householder reduction to upper Hessenberg form A = Z H Z^H, then for complex input the complex
/// Schur form T = Q^H H Q by single-shift implicit QR (Wilkinson shifts, exceptional shifts every
/// 10 stalled iterations, deflation on small subdiagonals), for real input the real Schur form by
/// Francis double-shift QR in real arithmetic (eig_real); eigenvectors of T by back-substitution
/// (complex, or for real input in real arithmetic on the quasi-triangular T), back-transformed by
/// (Z Q) in one GEMM and normalized as LAPACK's geev (unit 2-norm, the largest component real).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
#include <vector>

#include "tl/core/simd_shuffle.hpp"
#include "tl/linalg/detail/aligned_buffer.hpp"
#include "tl/linalg/detail/gemm.hpp"
#include "tl/linalg/detail/geqrf.hpp"
#include "tl/linalg/detail/gesvd.hpp"

namespace tl::linalg::detail {

template <class Rl>
TL_INLINE Rl cabs1(const complex<Rl>& z) {
  return std::abs(z.re) + std::abs(z.im);
}
template <class Rl>
requires std::is_floating_point_v<Rl> TL_INLINE Rl cabs1(Rl x) { return std::abs(x); }

/// The QR iteration's bookkeeping for the Hessenberg h (n x n, row-major): max |h| (cabs1), and
/// the start l of the unreduced block ending at row hi, with the negligible subdiagonal h(l, l-1)
/// set to 0 (l = 0 when there is none).
template <class S>
struct qr_deflation {
  index_t n;
  S* h;
  real_t<S> anorm = 0;
  qr_deflation(index_t n_, S* h_) : n(n_), h(h_) {
    for (index_t i = 0; i < n * n; ++i) anorm = std::max(anorm, cabs1(h[i]));
  }
  index_t split(index_t hi) const {
    using Rl = real_t<S>;
    const Rl eps = std::numeric_limits<Rl>::epsilon(), tiny = std::numeric_limits<Rl>::min();
    index_t l = hi;
    for (; l > 0; --l) {
      Rl tst = cabs1(h[(l - 1) * n + l - 1]) + cabs1(h[l * n + l]);
      if (tst == Rl(0)) tst = anorm;
      if (cabs1(h[l * n + l - 1]) <= std::max(eps * tst, tiny)) {
        h[l * n + l - 1] = S(0);
        break;
      }
    }
    return l;
  }
};

/// Columns k0 .. n-3 of the Householder reduction of the row-major n x n matrix h to upper
/// Hessenberg form, one reflector at a time: h <- H_k^H h H_k, the reflector's tail left below the
/// subdiagonal of column k and its tau in tau[k]. Three passes over the trailing matrix per column.
template <class S>
void hessenberg_unblocked(index_t n, S* h, index_t k0, S* tau) {
  std::vector<S> wk, v(static_cast<std::size_t>(n)), vc(v);
  for (index_t k = k0; k + 2 < n; ++k) {
    S* x = h + (k + 1) * n + k;
    const S t = make_reflector(*x, x + n, n - k - 2, n);
    tau[k] = t;
    if (t == S(0)) continue;
    const S* vt = x + n;  // v = [1; vt], stride n
    const index_t m = n - k - 1;
    // Left: rows k+1.., columns k+1..
    apply_reflector_left(conj_of(t), vt, n, m, h + (k + 1) * n + k + 1, m, n, wk);
    // Right: all rows, columns k+1..: h <- h - t (h v) v^H, with v copied out contiguously.
    v[0] = vc[0] = S(1);
    for (index_t j = 1; j < m; ++j) {
      v[j] = vt[(j - 1) * n];
      vc[j] = conj_of(v[j]);
    }
    for (index_t i = 0; i < n; ++i) {
      S* row = h + i * n + k + 1;
      const S g = t * dotc(vc.data(), row, m);  // sum_j row_j v_j
      for (index_t j = 0; j < m; ++j) row[j] -= g * vc[j];
    }
  }
}

/// Panel width and crossover (trailing order below which the reduction goes one reflector at a
/// time) of the blocked Hessenberg reduction.
inline constexpr index_t gehrd_block = 32, gehrd_crossover = 128;

/// y[i] = sum_j a[(r0 + i) * lda + j] * v[j] (j < len) for rows i < rows: the panel's one
/// matrix-vector product, four rows per pass over v for real types.
template <class S>
void hessenberg_rows_times(index_t rows, index_t len, const S* a, index_t lda, const S* vc, S* y) {
  index_t i = 0;
  if constexpr (!is_complex_v<S>) {
    for (; i + 4 <= rows; i += 4) {
      const S* const x[4] = {a + i * lda, a + (i + 1) * lda, a + (i + 2) * lda, a + (i + 3) * lda};
      S d[4];
      dot4(len, x, vc, d);
      for (int q = 0; q < 4; ++q) y[i + q] = d[q];
    }
  }
  for (; i < rows; ++i) y[i] = dotc(vc, a + i * lda, len);  // sum_j conj(vc_j) a_ij = sum_j a_ij v_j
}

/// One panel of the blocked Hessenberg reduction (after LAPACK's gehrd / lahr2): the b reflectors
/// of columns p .. p+b-1, Q = H_p ... H_{p+b-1} = I - V T V^H, then h <- Q^H h Q on the rest of the
/// matrix by GEMMs. Within the panel only its own columns are updated, through Y = A V T (A the
/// matrix at the panel's start): column j of A Q is a_j - Y conj(V(j, :))^T, then Q^H is applied to
/// it, and its reflector extends V, T and Y. Afterwards A Q = A - Y V^H on every row, and
/// Q^H = I - V T^H V^H on rows p+1.. of the trailing columns. Buffers: V (m x b, m = n - p - 1 rows
/// p+1 .., column-major), T (b x b column-major), Y (n x b column-major), work (b * n + 2 n).
template <class S>
void hessenberg_panel(index_t n, S* h, index_t p, index_t b, S* tau, S* V, S* T, S* Y, S* work) {
  const index_t m = n - p - 1;
  std::fill(V, V + m * b, S(0));
  std::fill(T, T + b * b, S(0));
  S* col = work;       // column j, rows p+1 ..
  S* vc = work + n;    // conj(v_j) over columns j+1 ..
  S* wv = work + 2 * n;  // b values
  for (index_t jj = 0; jj < b; ++jj) {
    const index_t j = p + jj;
    for (index_t r = 0; r < m; ++r) col[r] = h[(p + 1 + r) * n + j];
    if (jj > 0) {
      // Right: col -= Y(p+1.., 0:jj) conj(V(j, 0:jj)); row j of A is row jj - 1 of V.
      for (index_t c = 0; c < jj; ++c) {
        const S f = conj_of(V[(jj - 1) + c * m]);
        const S* yc = Y + p + 1 + c * n;
        for (index_t r = 0; r < m; ++r) col[r] -= yc[r] * f;
      }
      // Left: col <- (I - V T^H V^H) col.
      for (index_t c = 0; c < jj; ++c) wv[c] = dotc(V + c * m + c, col + c, m - c);
      for (index_t i = jj; i-- > 0;) {
        S sum(0);
        for (index_t c = 0; c <= i; ++c) sum += conj_of(T[c + i * b]) * wv[c];
        wv[i] = sum;
      }
      for (index_t c = 0; c < jj; ++c) {
        const S f = wv[c];
        const S* vcol = V + c * m;
        for (index_t r = c; r < m; ++r) col[r] -= vcol[r] * f;
      }
    }
    for (index_t r = 0; r < m; ++r) h[(p + 1 + r) * n + j] = col[r];
    // The reflector of column j (rows j+1 ..), its unit at row j+1 = row jj of V.
    S* x = h + (j + 1) * n + j;
    const S t = make_reflector(*x, x + n, n - j - 2, n);
    tau[j] = t;
    S* vj = V + jj * m;
    vj[jj] = S(1);
    for (index_t r = jj + 1; r < m; ++r) vj[r] = h[(p + 1 + r) * n + j];
    // Y(p+1.., jj) = t (A(p+1.., j+1..) v - Y(p+1.., 0:jj) V(:, 0:jj)^H v).
    const index_t len = m - jj;
    for (index_t q = 0; q < len; ++q) vc[q] = conj_of(vj[jj + q]);
    S* yj = Y + jj * n;
    hessenberg_rows_times(m, len, h + (p + 1) * n + j + 1, n, vc, yj + p + 1);
    for (index_t c = 0; c < jj; ++c) wv[c] = dotc(V + c * m + jj, vj + jj, len);
    for (index_t c = 0; c < jj; ++c) {
      const S f = wv[c];
      const S* yc = Y + p + 1 + c * n;
      for (index_t r = 0; r < m; ++r) yj[p + 1 + r] -= yc[r] * f;
    }
    for (index_t r = 0; r < m; ++r) yj[p + 1 + r] = t * yj[p + 1 + r];
    // T(0:jj, jj) = -t T(0:jj, 0:jj) V^H v, T(jj, jj) = t.
    for (index_t i = 0; i < jj; ++i) {
      S sum(0);
      for (index_t c = i; c < jj; ++c) sum += T[i + c * b] * wv[c];
      T[i + jj * b] = -t * sum;
    }
    T[jj + jj * b] = t;
  }
  // Y(0:p+1, :) = A(0:p+1, p+1..) V T (rows the panel left alone).
  gemm<S>(p + 1, b, m, S(1), mat_ref<S>{h + p + 1, n, 1}, mat_ref<S>{V, 1, m}, S(0), Y, 1, n);
  for (index_t i = 0; i <= p; ++i)
    for (index_t c = b; c-- > 0;) {
      S sum(0);
      for (index_t q = 0; q <= c; ++q) sum += Y[i + q * n] * T[q + c * b];
      Y[i + c * n] = sum;
    }
  // A <- A - Y V^H: rows 0..p on columns p+1 .., rows p+1 .. on the columns right of the panel.
  gemm<S>(p + 1, m, b, S(-1), mat_ref<S>{Y, 1, n}, mat_ref<S>{V, m, 1, true}, S(1), h + p + 1, n, 1);
  const index_t nt = n - p - b;  // trailing columns p+b ..
  gemm<S>(m, nt, b, S(-1), mat_ref<S>{Y + p + 1, 1, n}, mat_ref<S>{V + (b - 1), m, 1, true}, S(1),
          h + (p + 1) * n + p + b, n, 1);
  // A <- Q^H A on rows p+1 .. of the trailing columns.
  apply_block_reflector_left(m, nt, b, V, T, true, h + (p + 1) * n + p + b, n, index_t(1), work);
}

/// Householder reduction of the row-major n x n matrix h (real or complex) to upper Hessenberg
/// form, h <- Z^H h Z, in place with the entries below the subdiagonal zeroed: blocked panels of
/// gehrd_block reflectors while more than gehrd_crossover columns remain, then one reflector at a
/// time. Returns Z^T (row j = column j of Z) when vectors is set, else an empty vector.
template <class S>
std::vector<S> hessenberg_reduce(index_t n, S* h, bool vectors) {
  // The reflectors' tails stay below the subdiagonal, their taus in tau.
  std::vector<S> tau(static_cast<std::size_t>(n), S(0));
  index_t p = 0;
  if (n > gehrd_crossover) {
    constexpr index_t nb = gehrd_block;
    std::vector<S> V(static_cast<std::size_t>(n * nb)), T(static_cast<std::size_t>(nb * nb)),
        Y(static_cast<std::size_t>(n * nb)), work(static_cast<std::size_t>(nb * n + 2 * n));
    for (; n - p > gehrd_crossover; p += nb) hessenberg_panel(n, h, p, nb, tau.data(), V.data(), T.data(), Y.data(), work.data());
  }
  hessenberg_unblocked(n, h, p, tau.data());
  // zt = Z^T, Z = H_0 H_1 ... H_{n-3} = diag(1, Z'): Z' by the blocked orgqr on a column-major copy
  // of the reflectors (reflector k acts on rows k+1.., its unit there); row j of zt is column j of Z.
  std::vector<S> zt;
  if (vectors && n > 0) {
    zt.assign(static_cast<std::size_t>(n * n), S(0));
    zt[0] = S(1);
    const index_t n1 = n - 1, nr = std::max<index_t>(n - 2, 0);
    if (n1 > 0) {
      const index_t ld = padded_ld<S>(n1);
      std::vector<S> q(static_cast<std::size_t>(ld * n1));
      for (index_t k = 0; k < nr; ++k)
        for (index_t i = k + 1; i < n1; ++i) q[static_cast<std::size_t>(i + k * ld)] = h[(i + 1) * n + k];
      orgqr_cm(n1, n1, nr, q.data(), ld, tau.data());
      for (index_t j = 0; j < n1; ++j) std::copy_n(q.data() + j * ld, n1, zt.data() + (j + 1) * n + 1);
    }
  }
  for (index_t i = 2; i < n; ++i)
    for (index_t j = 0; j + 1 < i; ++j) h[i * n + j] = S(0);
  return zt;
}

template <class Rl>
void normalize_eigenvectors(index_t n, complex<Rl>* vr);

/// The right eigenvectors (columns of the row-major vr) from the complex Schur form: t upper
/// triangular (row-major n x n) and zt = (Z Q)^T. Back-substitution for the eigenvectors of t, one
/// GEMM to transform them back, and LAPACK geev's normalization (unit 2-norm, the largest
/// component real).
template <class Rl>
void schur_eigenvectors(index_t n, const complex<Rl>* h, const complex<Rl>* zt, Rl anorm, complex<Rl>* vr) {
  using C = complex<Rl>;
  const Rl eps = std::numeric_limits<Rl>::epsilon();
  const Rl tiny = std::numeric_limits<Rl>::min();
  // Column k of X solves (T - t_kk I) x = 0 with x_k = 1, x_j = 0 for j > k.
  std::vector<C> xm(static_cast<std::size_t>(n * n), C(0));
  const Rl smin = std::max(eps * anorm, tiny);
  const Rl big = std::sqrt(std::numeric_limits<Rl>::max()) * eps;
  std::vector<C> x(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k) {
    const C lam = h[k * n + k];
    std::fill(x.begin(), x.end(), C(0));
    x[k] = C(1);
    for (index_t i = k - 1; i >= 0; --i) {
      C sum = C(0);
      for (index_t j = i + 1; j <= k; ++j) sum += h[i * n + j] * x[j];
      C den = h[i * n + i] - lam;
      if (cabs1(den) < smin) den = C(smin);
      x[i] = -(sum / den);
      if (cabs1(x[i]) > big) {
        const C f = C(Rl(1) / cabs1(x[i]));
        for (index_t j = i; j <= k; ++j) x[j] = x[j] * f;
      }
    }
    for (index_t i = 0; i <= k; ++i) xm[i * n + k] = x[i];
  }
  // V = (Z Q) X, (Z Q)(r, j) = zt[j * n + r].
  gemm<C>(n, n, n, C(1), mat_ref<C>{zt, 1, n}, mat_ref<C>{xm.data(), n, 1}, C(0), vr, n, 1);
  normalize_eigenvectors(n, vr);
}

/// LAPACK geev's normalization of the eigenvectors (the columns of the row-major n x n vr): unit
/// 2-norm, the largest component real and positive.
template <class Rl>
void normalize_eigenvectors(index_t n, complex<Rl>* vr) {
  using C = complex<Rl>;
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

/// Exact power-of-two scaling of h towards max |h| ~ 1 (the exponent in ex), then
/// hessenberg_reduce.
template <class S>
std::vector<S> scale_and_reduce(index_t n, S* h, bool vectors, int& ex) {
  const real_t<S> sc = svd_scale_exponent(h, n * n, ex);
  if (ex != 0)
    for (index_t i = 0; i < n * n; ++i) h[i] = h[i] * S(sc);
  return hessenberg_reduce(n, h, vectors);
}

/// Undoes the power-of-two scaling of the eigenvalues.
template <class Rl>
void unscale_eigenvalues(index_t n, complex<Rl>* w, int ex) {
  if (ex != 0)
    for (index_t i = 0; i < n; ++i) w[i] = complex<Rl>(std::ldexp(w[i].re, -ex), std::ldexp(w[i].im, -ex));
}

/// The eigenvalues w (n) of the row-major n x n complex matrix h (destroyed) and, when vr is not
/// null, the right eigenvectors as the columns of vr (row-major n x n). Returns false when the QR
/// iteration did not converge.
template <class Rl>
bool eig_complex(index_t n, complex<Rl>* h, complex<Rl>* w, complex<Rl>* vr) {
  using C = complex<Rl>;
  if (n == 0) return true;
  const bool vectors = vr != nullptr;
  int ex = 0;
  std::vector<C> zt = scale_and_reduce(n, h, vectors, ex);

  // Single-shift QR to upper triangular T (the whole of T updated when vectors are wanted).
  const qr_deflation<C> defl(n, h);
  const Rl anorm = defl.anorm;
  index_t hi = n - 1;
  index_t its = 0, total = 0;
  const index_t maxit = 30 * std::max<index_t>(10, n) * std::max<index_t>(1, n);
  while (hi >= 0) {
    const index_t l = defl.split(hi);
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
  if (vectors) schur_eigenvectors<Rl>(n, h, zt.data(), anorm, vr);
  unscale_eigenvalues(n, w, ex);
  return true;
}

/// Applies P = I - tau v v^T, v = [1, v1, v2] (v2 unused when nr = 2), from the left to nr
/// consecutive rows (stride ld) of len values each: rows <- P rows.
template <class Rl>
void apply_reflector3_rows(Rl* r, index_t ld, index_t len, index_t nr, Rl tau, Rl v1, Rl v2) {
  Rl* __restrict r_0 = r;
  Rl* __restrict r_1 = r + ld;
  if (nr == 3) {
    Rl* __restrict r_2 = r + 2 * ld;
    using P = packet_t<Rl>;
    constexpr index_t W = static_cast<index_t>(P::size);
    const P pt(tau), p1(v1), p2(v2);
    index_t j = 0;
    for (; j + W <= len; j += W) {
      const P a = P::load_unaligned(r_0 + j), b = P::load_unaligned(r_1 + j), c = P::load_unaligned(r_2 + j);
      const P t = pt * tl::detail::simd_fma(p2, c, tl::detail::simd_fma(p1, b, a));
      (a - t).store_unaligned(r_0 + j);
      tl::detail::simd_fma(-t, p1, b).store_unaligned(r_1 + j);
      tl::detail::simd_fma(-t, p2, c).store_unaligned(r_2 + j);
    }
    for (; j < len; ++j) {
      const Rl t = tau * (r_0[j] + v1 * r_1[j] + v2 * r_2[j]);
      r_0[j] -= t;
      r_1[j] -= t * v1;
      r_2[j] -= t * v2;
    }
  } else {
    for (index_t j = 0; j < len; ++j) {
      const Rl t = tau * (r_0[j] + v1 * r_1[j]);
      r_0[j] -= t;
      r_1[j] -= t * v1;
    }
  }
}

/// One row r of a double-shift sweep over the window l .. hi (entry c at row[c * stride]): P_k
/// (k = ka .. kb-1, v = [1, v1, v2] on entries k .. k+2, the one at hi-1 on two) applied in order,
/// the entries in flight kept in registers. rec holds (tau, v1, v2) per k from l (tau 0: skipped).
template <class Rl>
void sweep_right_row(Rl* row, index_t stride, index_t ka, index_t kb, index_t l, index_t hi, const Rl* rec) {
  if (ka >= kb) return;
  Rl x0 = row[ka * stride], x1 = row[(ka + 1) * stride];
  for (index_t k = ka; k < kb; ++k) {
    const Rl* q = rec + 3 * (k - l);
    const bool three = k + 2 <= hi;
    Rl x2 = three ? row[(k + 2) * stride] : Rl(0);
    const Rl t = q[0] * (x0 + q[1] * x1 + q[2] * x2);
    row[k * stride] = x0 - t;
    x0 = x1 - t * q[1];
    x1 = x2 - t * q[2];
  }
  row[kb * stride] = x0;
  if (kb < hi) row[(kb + 1) * stride] = x1;  // at kb = hi, x1 is past the window (and 0)
}

/// sweep_right_row on one packet of rows at once: entry c of the packet's rows is the packet at
/// b + (c - kv) * stride, and every reflector k = kv .. hi-1 applies to all of them. Reflector k's
/// scalar t_k (per row) is tau_k (x0 + v1 x1 + v2 x2) on the entries as they are when it comes; in
/// terms of the starting values o (entries k, k+1, k+2), t_k = tau_k (o_k + v1_k o_k+1 + v2_k o_k+2)
/// - p_k t_k-1 - q_k t_k-2 with p_k = tau_k (v1_k-1 + v1_k v2_k-1), q_k = tau_k v2_k-2, and entry k
/// ends as o_k - v2_k-2 t_k-2 - v1_k-1 t_k-1 - t_k: one FMA per reflector on the loop-carried path.
template <class Rl>
TL_INLINE void sweep_right_packet(Rl* b, index_t stride, index_t kv, index_t l, index_t hi, const Rl* rec) {
  using P = packet_t<Rl>;
  P t1(Rl(0)), t2(Rl(0));           // t_k-1, t_k-2
  Rl v1m1 = 0, v2m1 = 0, v2m2 = 0;  // v1_k-1, v2_k-1, v2_k-2
  for (index_t k = kv; k < hi; ++k) {
    const Rl* q = rec + 3 * (k - l);
    const Rl tau = q[0], v1 = q[1], v2 = q[2];
    Rl* bc = b + (k - kv) * stride;
    const P o0 = P::load_unaligned(bc), o1 = P::load_unaligned(bc + stride);
    const P o2 = k + 2 <= hi ? P::load_unaligned(bc + 2 * stride) : P(Rl(0));
    const P a = tl::detail::simd_fma(o2, P(tau * v2), tl::detail::simd_fma(o1, P(tau * v1), P(tau) * o0));
    const P t = tl::detail::simd_fma(P(-tau * (v1m1 + v1 * v2m1)), t1, tl::detail::simd_fma(P(-tau * v2m2), t2, a));
    tl::detail::simd_fma(P(-v2m2), t2, tl::detail::simd_fma(P(-v1m1), t1, o0 - t)).store_unaligned(bc);
    t2 = t1;
    t1 = t;
    v2m2 = v2m1;
    v1m1 = v1;
    v2m1 = v2;
  }
  Rl* bh = b + (hi - kv) * stride;  // entry hi: reflectors hi-2 (as its third entry) and hi-1
  tl::detail::simd_fma(P(-v2m2), t2, tl::detail::simd_fma(P(-v1m1), t1, P::load_unaligned(bh))).store_unaligned(bh);
}

/// The sweeps' reflectors for the rows of an n x n row-major matrix z (sweep_right_row's P_k acting
/// on rows k .. k+2), queued and applied in order in batches: to all of Z^T, or (right_of_window)
/// to T's columns right of each sweep's window, which the iteration never reads again. Each batch
/// goes over z in column strips copied to a block that stays in L2 (about 256 KiB), one packet of
/// columns at a time through sweep_right_packet, so that z streams from memory once per batch
/// instead of once per sweep.
template <class Rl>
struct sweep_queue {
  struct item {
    index_t l, hi;
    std::size_t rec;
  };
  Rl* z;
  index_t n;
  bool right_of_window;
  std::vector<item> sweeps;
  std::vector<Rl> recs, buf;
  static constexpr std::size_t batch = 3 * 16384;
  sweep_queue(Rl* z_, index_t n_, bool right_of_window_) : z(z_), n(n_), right_of_window(right_of_window_) {}
  void push(index_t l, index_t hi, const Rl* rec) {
    sweeps.push_back(item{l, hi, recs.size()});
    recs.insert(recs.end(), rec, rec + 3 * (hi - l));
    if (recs.size() >= batch) flush();
  }
  /// The first column sweep s reaches.
  index_t first_column(const item& s) const { return right_of_window ? s.hi + 1 : 0; }
  void flush() {
    if (sweeps.empty()) return;
    constexpr index_t L = static_cast<index_t>(packet_t<Rl>::size);
    const index_t nv = n - n % L;
    const index_t strip = std::max<index_t>(
        L, (index_t(256 * 1024) / (static_cast<index_t>(sizeof(Rl)) * std::max<index_t>(n, 1))) / L * L);
    // Each strip is copied to a contiguous block first: in place, a power-of-two n would put the
    // strip's rows (a stride of n values) in a handful of cache sets.
    buf.resize(static_cast<std::size_t>(n * strip));
    for (index_t c0 = 0; c0 < nv; c0 += strip) {
      const index_t sw = std::min(strip, nv - c0);
      index_t lo = n, hi = -1;  // the rows the batch reaches in this strip
      for (const item& s : sweeps)
        if (first_column(s) < c0 + sw) lo = std::min(lo, s.l), hi = std::max(hi, s.hi);
      if (hi < 0) continue;
      for (index_t r = lo; r <= hi; ++r) std::copy_n(z + r * n + c0, sw, buf.data() + r * sw);
      for (const item& s : sweeps) {
        Rl* const b = buf.data() + s.l * sw;
        const Rl* const rec = recs.data() + s.rec;
        index_t c = std::max<index_t>(first_column(s) - c0, 0);
        for (; c < sw && c % L != 0; ++c) sweep_right_row(buf.data() + c, sw, s.l, s.hi, s.l, s.hi, rec);
        for (; c < sw; c += L) sweep_right_packet(b + c, sw, s.l, s.l, s.hi, rec);
      }
      for (index_t r = lo; r <= hi; ++r) std::copy_n(buf.data() + r * sw, sw, z + r * n + c0);
    }
    for (const item& s : sweeps)
      for (index_t c = std::max(nv, first_column(s)); c < n; ++c)
        sweep_right_row(z + c, n, s.l, s.hi, s.l, s.hi, recs.data() + s.rec);
    sweeps.clear();
    recs.clear();
  }
};

/// The right reflectors of a double-shift sweep over the window l .. hi on the rows above the
/// bulge, deferred to the sweep's end: row r (r0 <= r < hi - 1) takes P_k for k > r (k >= l) in
/// order. Rows go in groups of one packet's lanes, transposed into buf block by block in registers
/// (column c of the group at buf[c * lanes]) so that each reflector is six FMAs on packets; the first reflectors of a group
/// inside the window, which miss its upper rows, and the last rows go one row at a time.
template <class Rl>
void sweep_right_rows(Rl* h, index_t n, index_t r0, index_t l, index_t hi, const Rl* rec, std::vector<Rl>& buf) {
  using P = packet_t<Rl>;
  constexpr index_t L = static_cast<index_t>(P::size);
  const index_t rend = hi - 1;  // rows r0 .. rend - 1
  index_t g = r0;
  for (; g + L <= rend; g += L) {
    // Reflectors k < kv reach only some rows of the group (k > r); from kv on, all of them.
    const index_t kv = std::max(l, g + L);
    for (index_t r = g; r < g + L; ++r) sweep_right_row(h + r * n, index_t(1), std::max(l, r + 1), kv, l, hi, rec);
    if (kv >= hi) continue;
    const index_t w = hi + 1 - kv;  // columns kv .. hi
    buf.resize(static_cast<std::size_t>(w * L));
    Rl* b = buf.data();
    Rl* const top = h + g * n + kv;  // the group's rows from column kv
    const index_t wv = w - w % L;
    for (index_t c = 0; c < wv; c += L) {  // L x L blocks, transposed in registers
      P r[L];
      for (index_t lane = 0; lane < L; ++lane) r[lane] = P::load_unaligned(top + lane * n + c);
      tl::detail::transpose_square(r);
      for (index_t j = 0; j < L; ++j) r[j].store_unaligned(b + (c + j) * L);
    }
    for (index_t lane = 0; lane < L; ++lane)
      for (index_t c = wv; c < w; ++c) b[c * L + lane] = top[lane * n + c];
    sweep_right_packet(b, L, kv, l, hi, rec);
    for (index_t c = 0; c < wv; c += L) {
      P r[L];
      for (index_t j = 0; j < L; ++j) r[j] = P::load_unaligned(b + (c + j) * L);
      tl::detail::transpose_square(r);
      for (index_t lane = 0; lane < L; ++lane) r[lane].store_unaligned(top + lane * n + c);
    }
    for (index_t lane = 0; lane < L; ++lane)
      for (index_t c = wv; c < w; ++c) top[lane * n + c] = b[c * L + lane];
  }
  for (; g < rend; ++g) sweep_right_row(h + g * n, index_t(1), std::max(l, g + 1), hi, l, hi, rec);
}

/// The eigenvalues of the real 2 x 2 block [a b; c d]: e1, e2, with e1 the one of positive
/// imaginary part for a complex pair, and for a real pair the one farther from d (so that e1 - d,
/// which the complex Schur step divides by, is not small).
template <class Rl>
void eig2x2(Rl a, Rl b, Rl c, Rl d, complex<Rl>& e1, complex<Rl>& e2) {
  const Rl p = Rl(0.5) * (a - d), bc = b * c, disc = p * p + bc;
  if (disc >= Rl(0)) {
    const Rl z = p + std::copysign(std::sqrt(disc), p);
    e1 = complex<Rl>(d + z, 0);
    e2 = complex<Rl>(z != Rl(0) ? d - bc / z : d, 0);
  } else {
    const Rl im = std::sqrt(-disc);
    e1 = complex<Rl>(d + p, im);
    e2 = complex<Rl>(d + p, -im);
  }
}

/// x[i0 .. i1] -= ... : one step of the upward solve for the eigenvector of the quasi-triangular
/// t (row-major n x n) for lam, on the 1 x 1 block at row i or the 2 x 2 block at rows i-1, i
/// (two), given the right-hand sides r (rows i-1, i; -sum_j t(i, j) x_j). Pivots below smin are
/// replaced by smin, as LAPACK's trevc perturbs them. S is the real or complex scalar of x.
template <class Rl, class S>
TL_INLINE void quasi_solve_step(const Rl* t, index_t n, index_t i, bool two, S lam, Rl smin, S r0, S r1, S* x) {
  if (!two) {
    S den = S(t[i * n + i]) - lam;
    if (cabs1(den) < smin) den = S(smin);
    x[i] = r1 / den;
    return;
  }
  const S a11 = S(t[(i - 1) * n + i - 1]) - lam, a12 = S(t[(i - 1) * n + i]), a21 = S(t[i * n + i - 1]),
          a22 = S(t[i * n + i]) - lam;
  S det = a11 * a22 - a12 * a21;
  if (cabs1(det) < smin) det = S(smin);
  x[i - 1] = (r0 * a22 - a12 * r1) / det;
  x[i] = (a11 * r1 - a21 * r0) / det;
}

/// The right eigenvectors (columns of the row-major complex vr) of the real matrix with real Schur
/// form t (row-major n x n, destroyed) and Schur vectors zt = Z^T, its eigenvalues w as the
/// iteration returned them (pairs: positive imaginary part first). In real arithmetic as LAPACK's
/// trevc: 2 x 2 blocks with real eigenvalues are first made triangular by a rotation (on t and
/// Z); the eigenvector of a real eigenvalue is real, that of a pair's first eigenvalue is
/// computed in complex arithmetic with its real and imaginary parts kept as two real columns of
/// X; V = Z X is one real GEMM, expanded to the complex columns (the pair's second one the
/// conjugate) and normalized as geev.
template <class Rl>
void real_schur_eigenvectors(index_t n, Rl* t, Rl* zt, const complex<Rl>* w, Rl anorm, complex<Rl>* vr) {
  using C = complex<Rl>;
  const auto T = [&](index_t i, index_t j) -> Rl& { return t[i * n + j]; };
  for (index_t m = 1; m < n; ++m) {
    if (T(m, m - 1) == Rl(0)) continue;
    if (w[m - 1].im == Rl(0)) {  // a real pair: rotate [a b; c d] to upper triangular, e1 first
      const Rl a0 = w[m - 1].re - T(m, m), cc = T(m, m - 1), r = std::hypot(a0, cc);
      const Rl al = a0 / r, be = cc / r;
      for (index_t j = m - 1; j < n; ++j) {
        const Rl p = T(m - 1, j), q = T(m, j);
        T(m - 1, j) = al * p + be * q;
        T(m, j) = al * q - be * p;
      }
      for (index_t i = 0; i <= m; ++i) {
        const Rl p = T(i, m - 1), q = T(i, m);
        T(i, m - 1) = p * al + q * be;
        T(i, m) = q * al - p * be;
      }
      T(m, m - 1) = 0;
      T(m - 1, m - 1) = w[m - 1].re;
      T(m, m) = w[m].re;
      Rl* z0 = zt + (m - 1) * n;
      Rl* z1 = z0 + n;
      for (index_t i = 0; i < n; ++i) {
        const Rl p = z0[i], q = z1[i];
        z0[i] = p * al + q * be;
        z1[i] = q * al - p * be;
      }
    }
    ++m;  // blocks do not overlap
  }
  const Rl eps = std::numeric_limits<Rl>::epsilon(), tiny = std::numeric_limits<Rl>::min();
  const Rl smin = std::max(eps * anorm, tiny);
  const Rl big = std::sqrt(std::numeric_limits<Rl>::max()) * eps;
  std::vector<Rl> xm(static_cast<std::size_t>(n * n), Rl(0)), xr(static_cast<std::size_t>(n)), xi(xr);
  std::vector<C> xc(static_cast<std::size_t>(n));
  // Rows i of the upward solve: i and i-1 together when they hold a 2 x 2 block.
  const auto block_two = [&](index_t i) { return i > 0 && T(i, i - 1) != Rl(0); };
  for (index_t k = n - 1; k >= 0; --k) {
    if (!block_two(k)) {  // real eigenvalue lam = t(k, k): x_k = 1, x_j = 0 for j > k
      const Rl lam = T(k, k);
      std::fill(xr.begin(), xr.end(), Rl(0));
      xr[k] = 1;
      for (index_t i = k - 1; i >= 0; --i) {
        const bool two = block_two(i);
        const Rl r1 = -dot_contiguous(t + i * n + i + 1, xr.data() + i + 1, k - i);
        const Rl r0 = two ? -dot_contiguous(t + (i - 1) * n + i + 1, xr.data() + i + 1, k - i) : Rl(0);
        quasi_solve_step<Rl, Rl>(t, n, i, two, lam, smin, r0, r1, xr.data());
        const index_t lo = two ? i - 1 : i;
        const Rl mx = std::max(std::abs(xr[lo]), std::abs(xr[i]));
        if (mx > big)
          for (index_t j = lo; j <= k; ++j) xr[j] /= mx;
        i = lo;
      }
      for (index_t i = 0; i <= k; ++i) xm[i * n + k] = xr[i];
      continue;
    }
    // The pair at rows k-1, k; lam = w[k-1] (positive imaginary part): the block's eigenvector
    // (lam - d, c), then upward in complex arithmetic, real and imaginary parts in xr, xi.
    const C lam = w[k - 1];
    std::fill(xr.begin(), xr.end(), Rl(0));
    std::fill(xi.begin(), xi.end(), Rl(0));
    xr[k - 1] = lam.re - T(k, k);
    xi[k - 1] = lam.im;
    xr[k] = T(k, k - 1);
    for (index_t i = k - 2; i >= 0; --i) {
      const bool two = block_two(i);
      const index_t len = k - i;
      const C r1(-dot_contiguous(t + i * n + i + 1, xr.data() + i + 1, len),
                 -dot_contiguous(t + i * n + i + 1, xi.data() + i + 1, len));
      const C r0 = two ? C(-dot_contiguous(t + (i - 1) * n + i + 1, xr.data() + i + 1, len),
                           -dot_contiguous(t + (i - 1) * n + i + 1, xi.data() + i + 1, len))
                       : C(0);
      quasi_solve_step<Rl, C>(t, n, i, two, lam, smin, r0, r1, xc.data());
      const index_t lo = two ? i - 1 : i;
      for (index_t j = lo; j <= i; ++j) {
        xr[j] = xc[j].re;
        xi[j] = xc[j].im;
      }
      const Rl mx = std::max(cabs1(xc[lo]), cabs1(xc[i]));
      if (mx > big)
        for (index_t j = lo; j <= k; ++j) {
          xr[j] /= mx;
          xi[j] /= mx;
        }
      i = lo;
    }
    for (index_t i = 0; i <= k; ++i) {
      xm[i * n + k - 1] = xr[i];
      xm[i * n + k] = xi[i];
    }
    --k;
  }
  // V = Z X (real), Z(r, j) = zt[j * n + r]; then the complex columns.
  std::vector<Rl> v(static_cast<std::size_t>(n * n));
  gemm<Rl>(n, n, n, Rl(1), mat_ref<Rl>{zt, 1, n}, mat_ref<Rl>{xm.data(), n, 1}, Rl(0), v.data(), n, 1);
  for (index_t k = 0; k < n; ++k) {
    if (k + 1 < n && block_two(k + 1)) {
      for (index_t i = 0; i < n; ++i) {
        vr[i * n + k] = C(v[i * n + k], v[i * n + k + 1]);
        vr[i * n + k + 1] = C(v[i * n + k], -v[i * n + k + 1]);
      }
      ++k;
    } else {
      for (index_t i = 0; i < n; ++i) vr[i * n + k] = C(v[i * n + k], 0);
    }
  }
  normalize_eigenvectors(n, vr);
}

/// The eigenvalues w (n) of the row-major n x n real matrix h (destroyed) and, when vr is not null,
/// the right eigenvectors as the columns of vr (row-major n x n, complex). Real arithmetic
/// throughout the iteration: Hessenberg reduction, Francis double-shift implicit QR (3-element
/// reflectors chasing the bulge, shifts from the trailing 2 x 2 block, exceptional shifts after 10
/// and 20 stalled iterations) to the real Schur form T = Q^T H Q with 1 x 1 and 2 x 2 diagonal
/// blocks (pairs: the eigenvalue of positive imaginary part first, LAPACK's order). For
/// eigenvectors, real_schur_eigenvectors finishes in real arithmetic. Returns false when the
/// iteration did not converge.
template <class Rl>
bool eig_real(index_t n, Rl* h, complex<Rl>* w, complex<Rl>* vr) {
  using C = complex<Rl>;
  if (n == 0) return true;
  const bool vectors = vr != nullptr;
  int ex = 0;
  std::vector<Rl> zt = scale_and_reduce(n, h, vectors, ex);

  const qr_deflation<Rl> defl(n, h);
  const Rl anorm = defl.anorm;
  const auto H = [&](index_t i, index_t j) -> Rl& { return h[i * n + j]; };
  index_t hi = n - 1, its = 0, total = 0;
  const index_t maxit = 30 * std::max<index_t>(10, n) * std::max<index_t>(1, n);
  std::vector<Rl> sweep, sweep_buf;
  sweep_queue<Rl> zq(zt.data(), n, false), tq(h, n, true);
  while (hi >= 0) {
    const index_t l = defl.split(hi);
    if (l == hi) {  // a 1 x 1 block
      w[hi] = C(H(hi, hi), 0);
      --hi;
      its = 0;
      continue;
    }
    if (l == hi - 1) {  // a 2 x 2 block (made triangular below when eigenvectors are wanted)
      eig2x2(H(hi - 1, hi - 1), H(hi - 1, hi), H(hi, hi - 1), H(hi, hi), w[hi - 1], w[hi]);
      hi -= 2;
      its = 0;
      continue;
    }
    if (++total > maxit) return false;
    ++its;
    // The shifts: the eigenvalues of the trailing 2 x 2 block (as their sum and product), or an
    // exceptional pair after 10 and 20 iterations without deflation.
    Rl tr, det;
    if (its == 10 || its == 20) {
      const Rl e = std::abs(H(hi, hi - 1)) + std::abs(H(hi - 1, hi - 2));
      const Rl h11 = Rl(0.75) * e + H(hi, hi);
      tr = 2 * h11;
      det = h11 * h11 + Rl(0.4375) * e * e;
    } else {
      tr = H(hi - 1, hi - 1) + H(hi, hi);
      det = H(hi - 1, hi - 1) * H(hi, hi) - H(hi - 1, hi) * H(hi, hi - 1);
    }
    // First column of (H - s1 I)(H - s2 I), scaled against overflow.
    Rl x = H(l, l) * H(l, l) + H(l, l + 1) * H(l + 1, l) - tr * H(l, l) + det;
    Rl y = H(l + 1, l) * (H(l, l) + H(l + 1, l + 1) - tr);
    Rl z = H(l + 1, l) * H(l + 2, l + 1);
    const index_t c1 = hi + 1;  // columns of T the left reflectors touch at once (the rest: tq)
    const index_t r0 = vectors ? 0 : l;       // first row the right reflectors touch
    // The right reflectors' action on the rows above the bulge (r0 .. k-1, which nothing later in
    // the sweep reads) is deferred to the end of the sweep, where each row takes the sweep's
    // reflectors in order (sweep_right_rows). Everything else is applied at once.
    sweep.assign(static_cast<std::size_t>(3 * (hi - l)), Rl(0));
    for (index_t k = l; k < hi; ++k) {
      const bool three = k + 2 <= hi;
      if (k > l) {
        x = H(k, k - 1);
        y = H(k + 1, k - 1);
        z = three ? H(k + 2, k - 1) : Rl(0);
      }
      const Rl scale = std::abs(x) + std::abs(y) + std::abs(z);
      if (scale == Rl(0)) continue;  // tau 0 in sweep: the identity
      x /= scale;
      y /= scale;
      z /= scale;
      // P = I - tau v v^T, v = [1, v1, v2], P [x y z]^T = [beta 0 0]^T.
      const Rl beta = -std::copysign(std::sqrt(x * x + y * y + z * z), x);
      const Rl tau = (beta - x) / beta, f = Rl(1) / (x - beta);
      const Rl v1 = y * f, v2 = three ? z * f : Rl(0);
      Rl* rec = sweep.data() + 3 * (k - l);
      rec[0] = tau;
      rec[1] = v1;
      rec[2] = v2;
      if (k > l) {
        H(k, k - 1) = beta * scale;
        H(k + 1, k - 1) = 0;
        if (three) H(k + 2, k - 1) = 0;
      }
      // Left: rows k.. of T. Right: columns k.. of T on rows k .. k+3.
      const index_t nr = three ? 3 : 2;
      apply_reflector3_rows(h + k * n + k, n, c1 - k, nr, tau, v1, v2);
      const index_t rend = std::min(k + 3, hi);
      for (index_t i = k; i <= rend; ++i) {
        Rl* row = h + i * n + k;
        const Rl t = tau * (row[0] + v1 * row[1] + (three ? v2 * row[2] : Rl(0)));
        row[0] -= t;
        row[1] -= t * v1;
        if (three) row[2] -= t * v2;
      }
    }
    sweep_right_rows(h, n, r0, l, hi, sweep.data(), sweep_buf);
    if (vectors) zq.push(l, hi, sweep.data());  // Z <- Z P_l ... P_hi-1 (rows of Z^T), batched
    if (vectors && hi + 1 < n) tq.push(l, hi, sweep.data());  // T's columns right of the window, batched
  }
  if (vectors) {
    zq.flush();
    tq.flush();
    real_schur_eigenvectors<Rl>(n, h, zt.data(), w, anorm, vr);
  }
  unscale_eigenvalues(n, w, ex);
  return true;
}

}  // namespace tl::linalg::detail
