#pragma once
/// @file gesvd.hpp
/// @brief Internal header: the singular value decomposition of one dense matrix (m >= n):
/// Householder bidiagonalization A = Q B P^H (B real upper bidiagonal; complex phases are absorbed
/// by the reflectors, LAPACK's zlarfg convention; real matrices in panels, see
/// bidiagonalize_panels), then the SVD of B: singular values alone, and vectors up to order
/// bdsdc_crossover, by implicit QR (bdsqr.hpp) with Q and P formed by the blocked orgqr and
/// rotated; larger vectors by divide and conquer (bdsdc.hpp) with the reflectors applied to B's
/// vectors (LAPACK's gesdd).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/dtype.hpp"
#include "tl/linalg/detail/aligned_buffer.hpp"
#include "tl/linalg/detail/bdsdc.hpp"
#include "tl/linalg/detail/bdsqr.hpp"
#include "tl/linalg/detail/gemm.hpp"
#include "tl/linalg/detail/geqrf.hpp"

namespace tl::linalg::detail {

template <class T>
TL_INLINE real_t<T> abs_sq(const T& v) {
  if constexpr (is_complex_v<T>) return v.re * v.re + v.im * v.im;
  else return v * v;
}

template <class T>
TL_INLINE real_t<T> real_of(const T& v) {
  if constexpr (is_complex_v<T>) return v.re;
  else return v;
}

/// Householder reflector (LAPACK's larfg): given alpha and x (len entries, stride inc), finds a
/// real beta and tau with (I - tau v v^H)^H [alpha; x] = [beta; 0], v = [1; x'], x' written over x.
template <class T>
T make_reflector(T& alpha, T* x, index_t len, index_t inc) {
  using Rl = real_t<T>;
  Rl xn2 = 0;
  for (index_t i = 0; i < len; ++i) xn2 += abs_sq(x[i * inc]);
  Rl ar, ai = 0;
  if constexpr (is_complex_v<T>) ar = alpha.re, ai = alpha.im;
  else ar = alpha;
  if (xn2 == Rl(0) && ai == Rl(0)) return T(0);
  const Rl beta = -std::copysign(std::sqrt(ar * ar + ai * ai + xn2), ar);
  T tau;
  if constexpr (is_complex_v<T>) tau = T((beta - ar) / beta, -ai / beta);
  else tau = (beta - ar) / beta;
  const T scal = T(1) / (alpha - T(beta));
  for (index_t i = 0; i < len; ++i) x[i * inc] = x[i * inc] * scal;
  alpha = T(beta);
  return tau;
}

/// Unblocked bidiagonalization of the row-major m x n matrix a (m >= n, row stride lda) in place:
/// d (n), e (n - 1) receive B; the left reflectors' vectors stay below the diagonal (taus in tq),
/// the right reflectors' right of the superdiagonal (taus in tp). Each step makes two passes over
/// the trailing matrix: w = v^H A, then per row the left update, the dot with the right reflector
/// and its update.
template <class T>
void bidiagonalize_unblocked(index_t m, index_t n, T* a, index_t lda, real_t<T>* d, real_t<T>* e, T* tq, T* tp,
                             std::vector<T>& w) {
  w.assign(static_cast<std::size_t>(n), T(0));
  for (index_t k = 0; k < n; ++k) {
    T* akk = a + k * lda + k;
    const T tau = make_reflector(*akk, akk + lda, m - k - 1, lda);
    tq[k] = tau;
    d[k] = real_of(*akk);
    const index_t nc = n - k - 1;  // trailing columns
    if (nc == 0) break;
    T* wk = w.data() + k + 1;
    // w = v^H A[k:, k+1:], v = [1; a[k+1:, k]].
    for (index_t j = 0; j < nc; ++j) wk[j] = akk[1 + j];
    for (index_t i = k + 1; i < m; ++i) {
      const T vi = conj_of(a[i * lda + k]);
      const T* row = a + i * lda + k + 1;
      for (index_t j = 0; j < nc; ++j) wk[j] += vi * row[j];
    }
    const T ctau = conj_of(tau);
    // Row k: left update, then its right reflector from the conjugated row.
    T* rk = akk + 1;
    for (index_t j = 0; j < nc; ++j) rk[j] = conj_of(rk[j] - ctau * wk[j]);
    const T taup = make_reflector(rk[0], rk + 1, nc - 1, 1);
    tp[k] = taup;
    e[k] = real_of(rk[0]);
    // rk[1:] now holds u (u0 = 1).
    for (index_t i = k + 1; i < m; ++i) {
      T* row = a + i * lda + k + 1;
      const T f = ctau * a[i * lda + k];
      for (index_t j = 0; j < nc; ++j) row[j] -= f * wk[j];
      T s = row[0];
      if constexpr (is_complex_v<T>) {
        for (index_t j = 1; j < nc; ++j) s += row[j] * rk[j];
      } else {
        s += dotc(rk + 1, row + 1, nc - 1);  // packets
      }
      const T g = taup * s;
      row[0] -= g;
      for (index_t j = 1; j < nc; ++j) row[j] -= g * conj_of(rk[j]);
    }
  }
}

/// y[0:n) += a0 x0 + a1 x1 + a2 x2 + a3 x3 for four contiguous real vectors: y is read and written
/// once for four rows, and the four rows are four streams for the memory system to fetch ahead.
template <class T>
void axpy4(index_t n, const T (&a)[4], const T* const (&x)[4], T* y) {
  using P = packet_t<T>;
  constexpr index_t W = static_cast<index_t>(P::size);
  const P a0(a[0]), a1(a[1]), a2(a[2]), a3(a[3]);
  index_t c = 0;
  for (; c + W <= n; c += W) {
    P t = P::load_unaligned(y + c);
    t = tl::detail::simd_fma(P::load_unaligned(x[0] + c), a0, t);
    t = tl::detail::simd_fma(P::load_unaligned(x[1] + c), a1, t);
    t = tl::detail::simd_fma(P::load_unaligned(x[2] + c), a2, t);
    t = tl::detail::simd_fma(P::load_unaligned(x[3] + c), a3, t);
    t.store_unaligned(y + c);
  }
  for (; c < n; ++c) y[c] += a[0] * x[0][c] + a[1] * x[1][c] + a[2] * x[2][c] + a[3] * x[3][c];
}

/// d[k] = x_k . y (k < 4) for four contiguous real vectors x_k: y is loaded once for four rows.
template <class T>
void dot4(index_t n, const T* const (&x)[4], const T* y, T (&d)[4]) {
  using P = packet_t<T>;
  constexpr index_t W = static_cast<index_t>(P::size);
  P s0(T(0)), s1(T(0)), s2(T(0)), s3(T(0));
  index_t c = 0;
  for (; c + W <= n; c += W) {
    const P yc = P::load_unaligned(y + c);
    s0 = tl::detail::simd_fma(P::load_unaligned(x[0] + c), yc, s0);
    s1 = tl::detail::simd_fma(P::load_unaligned(x[1] + c), yc, s1);
    s2 = tl::detail::simd_fma(P::load_unaligned(x[2] + c), yc, s2);
    s3 = tl::detail::simd_fma(P::load_unaligned(x[3] + c), yc, s3);
  }
  d[0] = xsimd::hadd(s0);
  d[1] = xsimd::hadd(s1);
  d[2] = xsimd::hadd(s2);
  d[3] = xsimd::hadd(s3);
  for (; c < n; ++c)
    for (int k = 0; k < 4; ++k) d[k] += x[k][c] * y[c];
}

/// Panel width and crossover of the blocked bidiagonalization.
inline constexpr index_t gebrd_block = 32, gebrd_crossover = 128;

/// Blocked bidiagonalization of a real row-major m x n matrix (m >= n, row stride n; LAPACK's
/// gebrd / labrd): panels of gebrd_block steps whose left and right reflectors are built against
/// the trailing matrix as it was before the panel, with the pending update A - V Y^T - X U^T
/// applied to each new column and row and folded into each matrix-vector product; the trailing
/// matrix then takes that update by two GEMMs. Same storage as bidiagonalize_unblocked. Returns
/// the number of columns done (the rest is left to the unblocked code).
template <class T>
index_t bidiagonalize_panels(index_t m, index_t n, T* a, T* d, T* e, T* tq, T* tp) {
  static_assert(!is_complex_v<T>, "tl: the blocked bidiagonalization is written for real matrices");
  constexpr index_t nb = gebrd_block;
  const auto sz = [](index_t v) { return static_cast<std::size_t>(v); };
  // X (m x nb) and Y (n x nb), row-major; V = the panel's left vectors (columns of a), U = its
  // right vectors (rows of a), each with its unit entry written in place during the panel.
  std::vector<T> X(sz(m * nb)), Y(sz(n * nb)), tmp(sz(n)), p(sz(nb)), q(sz(nb + 1));
  index_t k0 = 0;
  for (; n - k0 > gebrd_crossover; k0 += nb) {
    for (index_t j = 0; j < nb; ++j) {
      const index_t k = k0 + j, nc = n - k - 1;
      // Column k (rows k..m-1) takes the panel's pending update.
      for (index_t l = 0; l < j; ++l) p[sz(l)] = a[(k0 + l) * n + k];
      for (index_t r = k; r < m; ++r) {
        const T* ar = a + r * n + k0;
        const T* xr = X.data() + r * nb;
        const T* yk = Y.data() + k * nb;
        T s(0);
        for (index_t l = 0; l < j; ++l) s += ar[l] * yk[l] + xr[l] * p[sz(l)];
        a[r * n + k] -= s;
      }
      // Left reflector: v = a[k:, k] with v(k) = 1.
      T* akk = a + k * n + k;
      const T tau = make_reflector(*akk, akk + n, m - k - 1, n);
      tq[k] = tau;
      d[k] = *akk;
      *akk = T(1);
      // Y(k+1:n, j) = tau (A^T v - Y p - U^T q), p = V^T v, q = X^T v over rows k..m-1.
      std::fill_n(tmp.data(), nc, T(0));
      std::fill_n(p.data(), j, T(0));
      std::fill_n(q.data(), j, T(0));
      for (index_t r = k; r < m; ++r) {
        const T vr = a[r * n + k];
        if (r + 4 <= m) {  // four rows per sweep over tmp (axpy4)
          const T vs[4] = {vr, a[(r + 1) * n + k], a[(r + 2) * n + k], a[(r + 3) * n + k]};
          const T* const rows[4] = {a + r * n + k + 1, a + (r + 1) * n + k + 1, a + (r + 2) * n + k + 1,
                                    a + (r + 3) * n + k + 1};
          axpy4(nc, vs, rows, tmp.data());
          for (int h = 0; h < 4; ++h) {
            const T* ar = a + (r + h) * n + k0;
            const T* xr = X.data() + (r + h) * nb;
            for (index_t l = 0; l < j; ++l) {
              p[sz(l)] += ar[l] * vs[h];
              q[sz(l)] += xr[l] * vs[h];
            }
          }
          r += 3;
          continue;
        }
        const T* row = a + r * n + k + 1;
        for (index_t c = 0; c < nc; ++c) tmp[sz(c)] += vr * row[c];
        const T* ar = a + r * n + k0;
        const T* xr = X.data() + r * nb;
        for (index_t l = 0; l < j; ++l) {
          p[sz(l)] += ar[l] * vr;
          q[sz(l)] += xr[l] * vr;
        }
      }
      for (index_t c = 0; c < nc; ++c) {
        const T* yc = Y.data() + (k + 1 + c) * nb;
        T s = tmp[sz(c)];
        for (index_t l = 0; l < j; ++l) s -= yc[l] * p[sz(l)];
        tmp[sz(c)] = s;
      }
      for (index_t l = 0; l < j; ++l) {
        const T* ul = a + (k0 + l) * n + k + 1;
        const T ql = q[sz(l)];
        for (index_t c = 0; c < nc; ++c) tmp[sz(c)] -= ul[c] * ql;
      }
      for (index_t c = 0; c < nc; ++c) Y[sz((k + 1 + c) * nb + j)] = tau * tmp[sz(c)];
      // Row k (columns k+1..n-1) takes the pending update, now including this step's Y column.
      T* rk = akk + 1;
      const T* ak = a + k * n + k0;
      for (index_t c = 0; c < nc; ++c) {
        const T* yc = Y.data() + (k + 1 + c) * nb;
        T s(0);
        for (index_t l = 0; l <= j; ++l) s += yc[l] * ak[l];
        rk[c] -= s;
      }
      for (index_t l = 0; l < j; ++l) {
        const T xl = X[sz(k * nb + l)];
        const T* ul = a + (k0 + l) * n + k + 1;
        for (index_t c = 0; c < nc; ++c) rk[c] -= ul[c] * xl;
      }
      // Right reflector: u = a[k, k+1:] with u(0) = 1.
      const T taup = make_reflector(rk[0], rk + 1, nc - 1, 1);
      tp[k] = taup;
      e[k] = rk[0];
      rk[0] = T(1);
      // X(k+1:m, j) = taup (A u - V s - X t), s = Y^T u (j + 1 values), t = U u (j values).
      for (index_t l = 0; l <= j; ++l) q[sz(l)] = T(0);
      for (index_t c = 0; c < nc; ++c) {
        const T* yc = Y.data() + (k + 1 + c) * nb;
        for (index_t l = 0; l <= j; ++l) q[sz(l)] += yc[l] * rk[c];
      }
      for (index_t l = 0; l < j; ++l) {
        p[sz(l)] = dotc(rk, a + (k0 + l) * n + k + 1, nc);
      }
      T dots[4] = {};
      for (index_t r = k + 1; r < m; ++r) {
        const index_t h = (r - k - 1) % 4;
        if (h == 0 && r + 4 <= m) {  // four rows per sweep over rk (dot4)
          const T* const rows[4] = {a + r * n + k + 1, a + (r + 1) * n + k + 1, a + (r + 2) * n + k + 1,
                                    a + (r + 3) * n + k + 1};
          dot4(nc, rows, rk, dots);
        } else if (h == 0) {
          for (index_t t = 0; r + t < m; ++t) dots[t] = dotc(rk, a + (r + t) * n + k + 1, nc);
        }
        T acc = dots[h];  // packets (real: no conjugation)
        const T* ar = a + r * n + k0;
        const T* xr = X.data() + r * nb;
        for (index_t l = 0; l <= j; ++l) acc -= ar[l] * q[sz(l)];
        for (index_t l = 0; l < j; ++l) acc -= xr[l] * p[sz(l)];
        X[sz(r * nb + j)] = taup * acc;
      }
    }
    // The trailing matrix: A22 -= V Y^T + X U (the units of V and U still in place).
    const index_t k1 = k0 + nb;
    gemm<T>(m - k1, n - k1, nb, T(-1), mat_ref<T>{a + k1 * n + k0, n, 1, false},
            mat_ref<T>{Y.data() + k1 * nb, 1, nb, false}, T(1), a + k1 * n + k1, n, 1);
    gemm<T>(m - k1, n - k1, nb, T(-1), mat_ref<T>{X.data() + k1 * nb, nb, 1, false},
            mat_ref<T>{a + k0 * n + k1, n, 1, false}, T(1), a + k1 * n + k1, n, 1);
    for (index_t k = k0; k < k1; ++k) {
      a[k * n + k] = d[k];
      a[k * n + k + 1] = e[k];
    }
  }
  return k0;
}

/// Bidiagonalization of the row-major m x n matrix a (m >= n) in place (see
/// bidiagonalize_unblocked for the storage): real matrices above gebrd_crossover columns go
/// through bidiagonalize_panels first.
template <class T>
void bidiagonalize(index_t m, index_t n, T* a, real_t<T>* d, real_t<T>* e, T* tq, T* tp, std::vector<T>& w) {
  index_t k0 = 0;
  if constexpr (!is_complex_v<T>) k0 = bidiagonalize_panels(m, n, a, d, e, tq, tp);
  bidiagonalize_unblocked(m - k0, n - k0, a + k0 * n + k0, n, d + k0, e + k0, tq + k0, tp + k0, w);
}

/// Applies H = I - tau v v^H (v = [1; vt], vt len - 1 entries at stride inc) from the left to the
/// row-major block x (len rows, cols columns, row stride ldx).
template <class T>
void apply_reflector_left(T tau, const T* vt, index_t inc, index_t len, T* x, index_t cols, index_t ldx,
                          std::vector<T>& w) {
  if (tau == T(0) || cols <= 0) return;
  w.assign(static_cast<std::size_t>(cols), T(0));
  for (index_t j = 0; j < cols; ++j) w[j] = x[j];
  for (index_t i = 1; i < len; ++i) {
    const T vi = conj_of(vt[(i - 1) * inc]);
    const T* row = x + i * ldx;
    for (index_t j = 0; j < cols; ++j) w[j] += vi * row[j];
  }
  for (index_t i = 0; i < len; ++i) {
    const T f = tau * (i == 0 ? T(1) : vt[(i - 1) * inc]);
    T* row = x + i * ldx;
    for (index_t j = 0; j < cols; ++j) row[j] -= f * w[j];
  }
}

/// Exact power-of-two scale bringing max |a| near 1 (1 when a is zero, tiny or not finite).
template <class T>
real_t<T> svd_scale_exponent(const T* a, index_t len, int& ex) {
  using Rl = real_t<T>;
  Rl mx = 0;
  for (index_t i = 0; i < len; ++i) {
    if constexpr (is_complex_v<T>) mx = std::max({mx, std::abs(a[i].re), std::abs(a[i].im)});
    else mx = std::max(mx, std::abs(a[i]));
  }
  ex = 0;
  if (mx >= std::numeric_limits<Rl>::min() && mx <= std::numeric_limits<Rl>::max()) ex = -std::ilogb(mx);
  return std::ldexp(Rl(1), ex);
}

/// The left reflectors of the bidiagonalized a (m x n row-major, below the diagonal) as the
/// columns of a zeroed column-major m x `cols` work matrix with leading dimension ldq (cols >= n).
template <class Tag, class T>
T* svd_left_reflectors(index_t m, index_t n, const T* a, index_t cols, index_t ldq, std::unique_ptr<T[]>& big) {
  T* q = reusable_scratch<Tag>(static_cast<std::size_t>(ldq * cols), big);
  std::fill(q, q + ldq * cols, T(0));
  for (index_t k = 0; k < n; ++k)
    for (index_t i = k + 1; i < m; ++i) q[i + k * ldq] = a[i * n + k];
  return q;
}

/// The right reflectors of the bidiagonalized a (right of the superdiagonal) as the columns of a
/// zeroed column-major (n - 1) x (n - 1) work matrix with leading dimension ldp: P = diag(1, P').
template <class Tag, class T>
T* svd_right_reflectors(index_t n, const T* a, index_t ldp, std::unique_ptr<T[]>& big) {
  const index_t n1 = n - 1;
  T* p = reusable_scratch<Tag>(static_cast<std::size_t>(ldp * n1), big);
  std::fill(p, p + ldp * n1, T(0));
  for (index_t k = 0; k < n1; ++k)
    for (index_t i = k + 1; i < n1; ++i) p[i + k * ldp] = a[k * n + i + 1];
  return p;
}

/// Forms Q (ut = its first ucols columns as rows) and P (vh = P^H) of the bidiagonalization
/// A = Q B P^H by the blocked orgqr, for the implicit QR to rotate. The work matrices come from
/// per-thread buffers kept between calls (fresh pages would cost a page fault each).
template <class T>
void svd_form_qp(index_t m, index_t n, const T* a, const T* tq, const T* tp, T* ut, index_t ucols, T* vh) {
  const index_t ldq = padded_ld<T>(m);
  std::unique_ptr<T[]> qbig;
  T* q = svd_left_reflectors<struct svd_q_tag>(m, n, a, ucols, ldq, qbig);
  orgqr_cm(m, ucols, n, q, ldq, tq);
  for (index_t j = 0; j < ucols; ++j) std::copy_n(q + j * ldq, m, ut + j * m);
  // Row i of vh is the conjugated column i - 1 of P'.
  std::fill(vh, vh + n * n, T(0));
  vh[0] = T(1);
  const index_t n1 = n - 1;
  if (n1 == 0) return;
  const index_t ldp = padded_ld<T>(n1);
  std::unique_ptr<T[]> pbig;
  T* p = svd_right_reflectors<struct svd_p_tag>(n, a, ldp, pbig);
  orgqr_cm(n1, n1, n1, p, ldp, tp);
  for (index_t i = 1; i < n; ++i)
    for (index_t j = 1; j < n; ++j) vh[i * n + j] = conj_of(p[(j - 1) + (i - 1) * ldp]);
}

/// The singular vectors by divide and conquer (LAPACK's gesdd): B = Ub diag(s) Vb^T
/// (bidiagonal_dc), then U = Q diag(Ub, I) and V = P Vb by applying the reflectors to Ub and Vb
/// (ormqr: 2 n^3 flops each for a square matrix, where forming Q and P and multiplying would take
/// 4/3 n^3 + 2 n^3). s, ut and vh come out in descending order of the singular values.
template <class T>
bool svd_vectors_dc(index_t m, index_t n, const T* a, real_t<T>* s, const real_t<T>* e, const T* tq, const T* tp,
                    T* ut, index_t ucols, T* vh) {
  using Rl = real_t<T>;
  const std::size_t nn = static_cast<std::size_t>(n * n);
  std::unique_ptr<Rl[]> bbig;
  Rl* ub = reusable_scratch<struct svd_dc_tag>(2 * nn, bbig);
  Rl* vb = ub + nn;
  if (!bidiagonal_dc<Rl>(n, s, e, ub, n, vb, n)) return false;
  std::unique_ptr<T[]> qbig, cbig;
  const index_t ldq = padded_ld<T>(m);
  const T* q = svd_left_reflectors<struct svd_q_tag>(m, n, a, n, ldq, qbig);
  T* c = reusable_scratch<struct svd_c_tag>(static_cast<std::size_t>(ldq * ucols), cbig);
  for (index_t j = 0; j < ucols; ++j) {
    T* col = c + j * ldq;
    std::fill(col, col + m, T(0));
    if (j < n)
      for (index_t i = 0; i < n; ++i) col[i] = T(ub[i + j * n]);
    else
      col[j] = T(1);
  }
  ormqr_cm(false, m, ucols, n, q, ldq, tq, c, ldq);
  // bidiagonal_dc's order is ascending: the rows of ut and vh are written in descending order.
  std::reverse(s, s + n);
  for (index_t j = 0; j < ucols; ++j) std::copy_n(c + j * ldq, m, ut + (j < n ? n - 1 - j : j) * m);
  // V = diag(1, P') Vb, column-major with leading dimension ldp; row i of vh is conj(column i).
  const index_t n1 = n - 1, ldp = padded_ld<T>(n);
  std::unique_ptr<T[]> pbig;
  const T* p = svd_right_reflectors<struct svd_p_tag>(n, a, padded_ld<T>(n1), pbig);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) c[i + j * ldp] = T(vb[i + j * n]);
  ormqr_cm(false, n1, n, n1, p, padded_ld<T>(n1), tp, c + 1, ldp);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) vh[(n - 1 - i) * n + j] = conj_of(c[j + i * ldp]);
  return true;
}

/// Orders above this take the divide-and-conquer bidiagonal SVD when the vectors are wanted (the
/// two paths measured level at 48 for double, divide and conquer 1.1x faster at 64 and 1.45x at
/// 256 on the Zen 4 machine of docs/benchmarks.md).
inline constexpr index_t bdsdc_crossover = 48;

/// The SVD of one m x n row-major matrix a (m >= n; destroyed). s receives the n singular values in
/// descending order. With vectors: ut (ucols x m, ucols = n or m) receives U^T (row j = column j
/// of U) and vh (n x n) V^H, both ordered like s. Returns false when the QR iteration failed.
template <class T>
bool svd_tall(index_t m, index_t n, T* a, real_t<T>* s, T* ut, index_t ucols, T* vh) {
  using Rl = real_t<T>;
  if (n == 0) {
    if (ut) {
      std::fill(ut, ut + ucols * m, T(0));
      for (index_t i = 0; i < ucols; ++i) ut[i * m + i] = T(1);
    }
    return true;
  }
  int ex = 0;
  const Rl sc = svd_scale_exponent(a, m * n, ex);
  if (ex != 0)
    for (index_t i = 0; i < m * n; ++i) a[i] = a[i] * T(sc);
  std::vector<Rl> e(static_cast<std::size_t>(n));
  std::vector<T> tq(static_cast<std::size_t>(n)), tp(static_cast<std::size_t>(n)), w;
  bidiagonalize(m, n, a, s, e.data(), tq.data(), tp.data(), w);
  constexpr index_t cf = is_complex_v<T> ? 2 : 1;
  Rl* utr = reinterpret_cast<Rl*>(ut);
  Rl* vhr = reinterpret_cast<Rl*>(vh);
  if (ut && n > bdsdc_crossover) {
    if (!svd_vectors_dc(m, n, a, s, e.data(), tq.data(), tp.data(), ut, ucols, vh)) return false;
  } else {
    if (ut) svd_form_qp(m, n, a, tq.data(), tp.data(), ut, ucols, vh);
    if (!bidiagonal_qr<Rl>(n, s, e.data(), utr, m * cf, m * cf, vhr, n * cf, n * cf)) return false;
  }
  // Signs, then descending order (the vectors' rows permuted alike).
  for (index_t i = 0; i < n; ++i) {
    if (s[i] < Rl(0)) {
      s[i] = -s[i];
      if (vh)
        for (index_t j = 0; j < n; ++j) vh[i * n + j] = -vh[i * n + j];
    }
    if (ex != 0) s[i] = std::ldexp(s[i], -ex);
  }
  std::vector<index_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), index_t{0});
  std::stable_sort(perm.begin(), perm.end(), [&](index_t x, index_t y) { return s[x] > s[y]; });
  bool sorted = true;
  for (index_t i = 0; i < n; ++i) sorted = sorted && perm[i] == i;
  if (!sorted) {
    std::vector<Rl> s2(s, s + n);
    for (index_t i = 0; i < n; ++i) s[i] = s2[perm[i]];
    const auto permute_rows = [&](T* x, index_t len) {
      std::vector<T> tmp(x, x + n * len);
      for (index_t i = 0; i < n; ++i) std::copy_n(tmp.data() + perm[i] * len, len, x + i * len);
    };
    if (ut) permute_rows(ut, m);
    if (vh) permute_rows(vh, n);
  }
  return true;
}

}  // namespace tl::linalg::detail
