#pragma once
/// @file geqrf.hpp
/// @brief Internal header: Householder QR (LAPACK's geqrf) and the product of Householder
/// reflectors (orgqr / ungqr), blocked with the compact WY representation.
///
/// Matrices are column-major here (the _cm suffix) (element (i, j) at p[i + j * ld]) so that reflectors are
/// contiguous; the public ops transpose on the way in and out.
///
/// geqrf: A = Q R with Q = H(0) H(1) ... H(k-1), H(i) = I - tau_i v_i v_i^H, v_i(0:i) = 0,
/// v_i(i) = 1, v_i(i+1:m) stored below the diagonal of column i, R on and above the diagonal
/// (LAPACK's layout and sign conventions: beta = -sign(re(alpha)) * ||(alpha, x)||, real).
/// Panels of NB columns are factored column by column; the block of reflectors is then written as
/// I - V T V^H (T upper triangular, LAPACK's larft) and applied to the trailing columns with two
/// GEMMs and a small triangular product (larfb).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"
#include "tl/linalg/detail/aligned_buffer.hpp"
#include "tl/linalg/detail/gemm.hpp"
#include "tl/linalg/detail/trsm.hpp"

namespace tl::linalg::detail {

/// Panel width of the blocked QR.
inline constexpr index_t qr_block = 64;

template <class T>
TL_INLINE real_t<T> abs2(const T& v) {
  if constexpr (is_complex_v<T>) return v.re * v.re + v.im * v.im;
  else return v * v;
}

/// sqrt(sum |x_i|^2) of n contiguous values, scaled so that it neither overflows nor underflows.
template <class T>
real_t<T> norm2(const T* x, index_t n) {
  using R = real_t<T>;
  R scale = 0;
  for (index_t i = 0; i < n; ++i) {
    if constexpr (is_complex_v<T>) scale = std::max({scale, std::abs(x[i].re), std::abs(x[i].im)});
    else scale = std::max(scale, std::abs(x[i]));
  }
  if (!(scale > R(0))) return scale;  // 0, or NaN propagated
  if (!std::isfinite(scale)) return scale;
  R s = 0;
  if (scale >= std::numeric_limits<R>::min()) {
    const R inv = R(1) / scale;
    for (index_t i = 0; i < n; ++i) s += abs2(T(x[i] * inv));
  } else {  // 1 / scale would overflow
    for (index_t i = 0; i < n; ++i) s += abs2(T(x[i] / scale));
  }
  return scale * std::sqrt(s);
}

/// sum_i conj(x_i) y_i over n contiguous values (packet dot products for real types).
template <class T>
T dotc(const T* x, const T* y, index_t n) {
  if constexpr (!is_complex_v<T>) {
    return dot_contiguous(x, y, n);
  } else {
    T s(0);
    for (index_t i = 0; i < n; ++i) s += conj_if(x[i], true) * y[i];
    return s;
  }
}

/// Generates an elementary reflector (LAPACK's larfg): given alpha and x (n - 1 contiguous values),
/// finds tau and v = (1, x') with H^H (alpha; x) = (beta; 0), H = I - tau v v^H, beta real.
/// x is overwritten by x', alpha by beta. Returns tau.
template <class T>
T make_reflector(T& alpha, T* x, index_t nx) {
  using R = real_t<T>;
  const R xnorm = norm2(x, nx);
  R ai = 0;
  if constexpr (is_complex_v<T>) ai = alpha.im;
  const R ar = real_part(alpha);
  if (xnorm == R(0) && ai == R(0)) return T(0);  // H = I
  R beta = std::hypot(std::hypot(ar, ai), xnorm);
  if (ar >= R(0)) beta = -beta;
  // A tiny column (rank-deficient inputs decay towards underflow): scale it up first so that
  // 1 / (alpha - beta) stays finite, and scale beta back at the end (as LAPACK's larfg).
  const R safmin = std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon();
  int knt = 0;
  if (std::abs(beta) < safmin) {
    const R up = R(1) / safmin;
    while (std::abs(beta) < safmin && knt < 20) {
      for (index_t i = 0; i < nx; ++i) x[i] *= up;
      alpha *= up;
      beta *= up;
      ++knt;
    }
    const R nx2 = norm2(x, nx);
    const R ar2 = real_part(alpha);
    R ai2 = 0;
    if constexpr (is_complex_v<T>) ai2 = alpha.im;
    beta = std::hypot(std::hypot(ar2, ai2), nx2);
    if (ar2 >= R(0)) beta = -beta;
  }
  const R ar_s = real_part(alpha);
  R ai_s = 0;
  if constexpr (is_complex_v<T>) ai_s = alpha.im;
  T tau;
  if constexpr (is_complex_v<T>) tau = T((beta - ar_s) / beta, -ai_s / beta);
  else tau = (beta - ar_s) / beta;
  const T scal = T(1) / (alpha - T(beta));
  for (index_t i = 0; i < nx; ++i) x[i] *= scal;
  for (int i = 0; i < knt; ++i) beta *= safmin;
  alpha = T(beta);
  return tau;
}

/// Applies H^H = I - conj(tau) v v^H (v contiguous, v[0] = 1 implied, length m) from the left to
/// the m x n column-major block c (leading dimension ldc).
template <class T>
void apply_reflector_left(index_t m, index_t n, const T* v, T tau, T* c, index_t ldc) {
  if (tau == T(0)) return;
  const T ct = conj_if(tau, true);
  for (index_t j = 0; j < n; ++j) {
    T* cj = c + j * ldc;
    const T w = ct * (cj[0] + dotc(v + 1, cj + 1, m - 1));
    cj[0] -= w;
    for (index_t i = 1; i < m; ++i) cj[i] -= v[i] * w;
  }
}

/// Step j of an unblocked QR of the m x n column-major a: the reflector of column j (rows j..m),
/// applied to columns j+1..n. Returns its tau.
template <class T>
T householder_step(index_t m, index_t n, index_t j, T* a, index_t lda) {
  T* cj = a + j + j * lda;
  const T tau = make_reflector(cj[0], cj + 1, m - j - 1);
  if (j + 1 < n) {
    const T beta = cj[0];
    cj[0] = T(1);
    apply_reflector_left(m - j, n - j - 1, cj, tau, cj + lda, lda);
    cj[0] = beta;
  }
  return tau;
}

/// Unblocked QR of the m x n column-major block a (LAPACK's geqr2); tau gets min(m, n) values.
template <class T>
void geqr2(index_t m, index_t n, T* a, index_t lda, T* tau) {
  const index_t k = std::min(m, n);
  for (index_t j = 0; j < k; ++j) tau[j] = householder_step(m, n, j, a, lda);
}

/// The block reflector of kb reflectors stored in the m x kb column-major block a (below the
/// diagonal, LAPACK's layout): V (m x kb, explicit unit diagonal and zeros above, column-major,
/// leading dimension m) and T (kb x kb upper triangular, column-major) with
/// H(0) ... H(kb-1) = I - V T V^H (LAPACK's larft, forward, columnwise).
template <class T>
void block_reflector(index_t m, index_t kb, const T* a, index_t lda, const T* tau, T* v, T* t) {
  std::vector<T> w(static_cast<std::size_t>(kb));
  for (index_t j = 0; j < kb; ++j) {
    T* vj = v + j * m;
    const T* aj = a + j * lda;
    for (index_t i = 0; i < std::min(j, m); ++i) vj[i] = T(0);
    if (j < m) vj[j] = T(1);
    for (index_t i = j + 1; i < m; ++i) vj[i] = aj[i];
  }
  for (index_t j = 0; j < kb; ++j) {
    T* tj = t + j * kb;
    for (index_t i = 0; i < kb; ++i) tj[i] = T(0);
    tj[j] = tau[j];
    if (tau[j] == T(0) || j == 0) continue;
    // w = V(:, 0:j)^H v_j, then T(0:j, j) = -tau_j T(0:j, 0:j) w.
    const T* vj = v + j * m;
    for (index_t p = 0; p < j; ++p) {
      w[static_cast<std::size_t>(p)] = j < m ? dotc(v + p * m + j, vj + j, m - j) : T(0);
    }
    for (index_t i = 0; i < j; ++i) {
      T s(0);
      for (index_t p = i; p < j; ++p) s += t[i + p * kb] * w[static_cast<std::size_t>(p)];
      tj[i] = -tau[j] * s;
    }
  }
}

/// Applies (I - V T V^H) (or its adjoint when `adjoint`) from the left to the m x n block c
/// (element (i, j) at c[i * rsc + j * csc]): W = V^H C, W = op(T) W, C -= V W (LAPACK's larfb).
/// V is m x kb column-major, T kb x kb upper triangular column-major; `work` holds kb * n values.
template <class T>
void apply_block_reflector_left(index_t m, index_t n, index_t kb, const T* v, const T* t, bool adjoint, T* c,
                                index_t rsc, index_t csc, T* work) {
  if (m == 0 || n == 0 || kb == 0) return;
  // W (kb x n, column-major) = V^H C.
  gemm<T>(kb, n, m, T(1), mat_ref<T>{v, m, 1, true}, mat_ref<T>{c, rsc, csc, false}, T(0), work, 1, kb);
  // W = op(T) W, T upper triangular: op(T) = T^H is lower (go down the rows backwards), T is upper.
  for (index_t j = 0; j < n; ++j) {
    T* wj = work + j * kb;
    if (adjoint) {
      for (index_t i = kb; i-- > 0;) {
        T s(0);
        for (index_t p = 0; p <= i; ++p) s += conj_if(t[p + i * kb], true) * wj[p];
        wj[i] = s;
      }
    } else {
      for (index_t i = 0; i < kb; ++i) {
        T s(0);
        for (index_t p = i; p < kb; ++p) s += t[i + p * kb] * wj[p];
        wj[i] = s;
      }
    }
  }
  // C -= V W.
  gemm<T>(m, n, kb, T(-1), mat_ref<T>{v, 1, m, false}, mat_ref<T>{work, 1, kb, false}, T(1), c, rsc, csc);
}

/// apply_block_reflector_left on a column-major block c (leading dimension ldc).
template <class T>
void apply_block_reflector_left(index_t m, index_t n, index_t kb, const T* v, const T* t, bool adjoint, T* c,
                                index_t ldc, T* work) {
  apply_block_reflector_left(m, n, kb, v, t, adjoint, c, index_t(1), ldc, work);
}

/// QR of an m x n panel (n <= qr_block), recursively: the left half, its block reflector applied
/// to the right half through the GEMM, then the right half below the left one's rows. Columns
/// of at most 16 are factored one by one.
template <class T>
void geqrf_panel(index_t m, index_t n, T* a, index_t lda, T* tau) {
  const index_t k = std::min(m, n);
  if (n <= 16 || k <= 16) {
    geqr2(m, n, a, lda, tau);
    return;
  }
  const index_t n1 = k / 2;  // reflectors of the left part (k may be m < n)
  geqrf_panel(m, n1, a, lda, tau);
  std::vector<T> v(static_cast<std::size_t>(m * n1)), t(static_cast<std::size_t>(n1 * n1)),
      work(static_cast<std::size_t>(n1 * (n - n1)));
  block_reflector(m, n1, a, lda, tau, v.data(), t.data());
  apply_block_reflector_left(m, n - n1, n1, v.data(), t.data(), true, a + n1 * lda, lda, work.data());
  geqrf_panel(m - n1, n - n1, a + n1 + n1 * lda, lda, tau + n1);
}

/// Blocked QR of the m x n column-major matrix a (leading dimension lda) in place; tau gets
/// min(m, n) values (LAPACK's geqrf).
template <class T>
void geqrf_cm(index_t m, index_t n, T* a, index_t lda, T* tau) {
  const index_t k = std::min(m, n);
  if (k == 0) return;
  if (k <= qr_block || n <= qr_block) {
    geqrf_panel(m, n, a, lda, tau);
    return;
  }
  std::vector<T> v(static_cast<std::size_t>(m * qr_block)), t(static_cast<std::size_t>(qr_block * qr_block)),
      work(static_cast<std::size_t>(qr_block * n));
  for (index_t j0 = 0; j0 < k; j0 += qr_block) {
    const index_t kb = std::min(qr_block, k - j0);
    T* aj = a + j0 + j0 * lda;
    geqrf_panel(m - j0, kb, aj, lda, tau + j0);
    if (j0 + kb < n) {
      block_reflector(m - j0, kb, aj, lda, tau + j0, v.data(), t.data());
      apply_block_reflector_left(m - j0, n - j0 - kb, kb, v.data(), t.data(), true, aj + kb * lda, lda,
                                 work.data());
    }
  }
}

/// Applies Q = H(0) ... H(k-1) (or Q^H when `adjoint`) from the left to the m x ncols
/// column-major c (LAPACK's ormqr / unmqr, left side); the k reflectors are stored below the
/// diagonal of the m x k column-major a. With `skip_leading` (forming Q from I, non-adjoint), block
/// j0 only touches columns >= j0 (the columns before are still unit vectors there).
template <class T>
void ormqr_cm(bool adjoint, index_t m, index_t ncols, index_t k, const T* a, index_t lda, const T* tau, T* c,
              index_t ldc, bool skip_leading = false) {
  if (ncols == 0 || k == 0) return;
  const index_t nblk = (k + qr_block - 1) / qr_block;
  const index_t kbmax = std::min(qr_block, k);  // workspaces sized for the widest block, not qr_block
  std::vector<T> v(static_cast<std::size_t>(m * kbmax)), t(static_cast<std::size_t>(kbmax * kbmax)),
      work(static_cast<std::size_t>(kbmax * ncols));
  for (index_t q = 0; q < nblk; ++q) {
    // Q^H = B(last)^H ... B(0)^H applies B(0)^H first; Q = B(0) ... B(last) applies B(last) first.
    const index_t b = adjoint ? q : nblk - 1 - q;
    const index_t j0 = b * qr_block, kb = std::min(qr_block, k - j0);
    const index_t c0 = skip_leading ? j0 : 0;
    block_reflector(m - j0, kb, a + j0 + j0 * lda, lda, tau + j0, v.data(), t.data());
    apply_block_reflector_left(m - j0, ncols - c0, kb, v.data(), t.data(), adjoint, c + j0 + c0 * ldc, ldc,
                               work.data());
  }
}

/// The first n columns of Q = H(0) ... H(k-1) (LAPACK's orgqr / ungqr): on entry the m x n
/// column-major a holds the k reflectors below its diagonal (m >= n >= k); on exit a holds Q.
template <class T>
void orgqr_cm(index_t m, index_t n, index_t k, T* a, index_t lda, const T* tau) {
  if (n == 0) return;
  std::unique_ptr<T[]> big;
  T* refl = reusable_scratch<struct orgqr_refl_tag>(static_cast<std::size_t>(std::max<index_t>(m * k, 1)), big);
  for (index_t j = 0; j < k; ++j) std::copy_n(a + j * lda, m, refl + j * m);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < m; ++i) a[i + j * lda] = i == j ? T(1) : T(0);
  ormqr_cm(false, m, n, k, refl, m, tau, a, lda, true);
}

}  // namespace tl::linalg::detail
