#pragma once
/// @file gesvd.hpp
/// @brief Internal header: the singular value decomposition of one dense matrix (m >= n):
/// Householder bidiagonalization A = Q B P^H (B real upper bidiagonal; complex phases are absorbed
/// by the reflectors, LAPACK's zlarfg convention; real matrices in panels, see
/// bidiagonalize_panels), Q and P formed by the blocked orgqr, then implicit-shift QR on B (Golub-Kahan steps
/// with Wilkinson shifts of B^T B, deflation after Demmel-Kahan's relative test, zero diagonal
/// entries chased out with plain rotations). The rotations of up to 16 sweeps are recorded and
/// applied to the singular vector rows together, as a wavefront over L1-sized column chunks
/// (rotation_batch).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/dtype.hpp"
#include "tl/linalg/detail/aligned_buffer.hpp"
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

template <class T>
TL_INLINE T conj_of(const T& v) {
  if constexpr (is_complex_v<T>) return tl::conj(v);
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

/// x = c x + s y, y = c y - s x on len reals.
template <class Rl>
TL_INLINE void rotate_rows(Rl* __restrict x, Rl* __restrict y, index_t len, Rl c, Rl s) {
  for (index_t i = 0; i < len; ++i) {
    const Rl a = x[i], b = y[i];
    x[i] = c * a + s * b;
    y[i] = c * b - s * a;
  }
}

/// The rotation sequences of up to `max_sweeps` QR sweeps, kept to be applied to the singular
/// vector rows together. Sweep q rotates rows (lo_q + j, lo_q + j + 1) for j < cnt_q, in order.
/// apply() runs them as a wavefront: rotation j of sweep q at step t = j + 2 q, which keeps every
/// dependency (a rotation of sweep q touches rows that sweep q - 1 finished with two steps
/// earlier), so each column chunk of a row is read and written once per batch while it stays in
/// L1, instead of once per sweep from the outer caches.
template <class Rl>
struct rotation_batch {
  static constexpr int max_sweeps = 32;
  static constexpr index_t chunk = 32;  // columns per wavefront: 2 max_sweeps + 2 rows of it fit in L1
  /// Below this order the vectors fit in L1 and each sweep is applied at once (apply_sweep).
  static constexpr index_t min_order = 64;
  index_t n;
  int count = 0;
  index_t lo[max_sweeps] = {}, cnt[max_sweeps] = {};
  std::vector<Rl> c, s;  // [sweep][j]
  std::vector<Rl> buf;   // the packed column chunk
  explicit rotation_batch(index_t n_) : n(n_), c(static_cast<std::size_t>(max_sweeps * n_)), s(c.size()) {}
  bool full() const { return count == max_sweeps; }
  /// One sweep's rotations (rows first + j, first + j + 1 for j < k), in order, in place.
  static void apply_sweep(Rl* x, index_t ld, index_t len, index_t first, const Rl* cs, const Rl* sn, index_t k) {
    for (index_t j = 0; j < k; ++j) rotate_rows(x + (first + j) * ld, x + (first + j + 1) * ld, len, cs[j], sn[j]);
  }
  void add(index_t first, const Rl* cs, const Rl* sn, index_t k) {
    lo[count] = first;
    cnt[count] = k;
    std::copy(cs, cs + k, c.begin() + count * n);
    std::copy(sn, sn + k, s.begin() + count * n);
    ++count;
  }
  /// The kept sweeps on rows jmin.. of x (row stride ld, w reals per row), as a wavefront.
  void wavefront(Rl* x, index_t ld, index_t w, index_t jmin, index_t jend) const {
    for (index_t t = jmin; t < jend + 2 * (count - 1); ++t)
      for (int q = 0; q < count; ++q) {
        const index_t j = t - 2 * q;
        if (j < lo[q] || j >= lo[q] + cnt[q]) continue;
        const index_t k = q * n + j - lo[q];
        rotate_rows(x + (j - jmin) * ld, x + (j + 1 - jmin) * ld, w, c[k], s[k]);
      }
  }
  /// Applies the kept sweeps, in order, to the rows of x (row stride ld, len reals per row) and
  /// forgets them.
  void apply(Rl* x, index_t ld, index_t len) {
    if (count == 0 || x == nullptr) {
      count = 0;
      return;
    }
    index_t jmin = lo[0], jend = lo[0] + cnt[0];
    for (int q = 1; q < count; ++q) {
      jmin = std::min(jmin, lo[q]);
      jend = std::max(jend, lo[q] + cnt[q]);
    }
    const index_t rows = jend - jmin + 1;
    if (len < chunk) {  // short rows: the rows in flight fit in L1 as they lie
      wavefront(x + jmin * ld, ld, len, jmin, jend);
      count = 0;
      return;
    }
    // Each column chunk is copied to a packed buffer first: for power-of-two sizes the rows of
    // x lie a multiple of 4 KiB apart, and the 2 max_sweeps + 2 rows in flight would share a few
    // L1 sets.
    buf.resize(static_cast<std::size_t>(rows * chunk));
    Rl* b = buf.data();
    index_t c0 = 0;
    for (; c0 + chunk <= len; c0 += chunk) {
      for (index_t r = 0; r < rows; ++r)
        for (index_t i = 0; i < chunk; ++i) b[r * chunk + i] = x[(jmin + r) * ld + c0 + i];
      wavefront(b, chunk, chunk, jmin, jend);
      for (index_t r = 0; r < rows; ++r)
        for (index_t i = 0; i < chunk; ++i) x[(jmin + r) * ld + c0 + i] = b[r * chunk + i];
    }
    if (c0 < len) wavefront(x + jmin * ld + c0, ld, len - c0, jmin, jend);
    count = 0;
  }
};

template <class Rl>
TL_INLINE void givens(Rl y, Rl z, Rl& c, Rl& s, Rl& r) {
  r = std::hypot(y, z);
  if (r == Rl(0)) {
    c = 1;
    s = 0;
  } else {
    c = y / r;
    s = z / r;
  }
}

/// Singular values of the n x n upper bidiagonal (d, e) by implicit-shift QR. Rotations are applied
/// to the rows 0..n-1 of ut (row stride ldu, ulen reals per row; the left singular vectors as rows)
/// and of vh (the right ones), either of which may be null. Returns false when it did not
/// converge. On return d holds the singular values, unsorted and possibly negative (the caller
/// fixes signs and order).
template <class Rl>
bool bidiagonal_qr(index_t n, Rl* d, Rl* e, Rl* ut, index_t ldu, index_t ulen, Rl* vh, index_t ldv, index_t vlen) {
  if (n <= 1) return true;
  const Rl eps = std::numeric_limits<Rl>::epsilon();
  const Rl tiny = std::numeric_limits<Rl>::min();
  Rl anorm = 0;
  for (index_t i = 0; i < n; ++i) anorm = std::max(anorm, std::abs(d[i]));
  for (index_t i = 0; i + 1 < n; ++i) anorm = std::max(anorm, std::abs(e[i]));
  if (anorm == Rl(0)) return true;
  for (index_t i = 0; i < n; ++i) d[i] /= anorm;
  for (index_t i = 0; i + 1 < n; ++i) e[i] /= anorm;
  std::vector<Rl> rot(static_cast<std::size_t>(4 * n));
  Rl *cu = rot.data(), *su = cu + n, *cv = su + n, *sv = cv + n;
  // The sweeps' rotations are applied to ut and vh in batches (rotation_batch) from order 64 up.
  const bool batched = n >= rotation_batch<Rl>::min_order;
  rotation_batch<Rl> bu(ut && batched ? n : 0), bv(vh && batched ? n : 0);
  const auto flush = [&] {
    bv.apply(vh, ldv, vlen);
    bu.apply(ut, ldu, ulen);
  };
  const auto negligible = [&](index_t i) {
    return std::abs(e[i]) <= eps * (std::abs(d[i]) + std::abs(d[i + 1])) || std::abs(e[i]) <= tiny;
  };
  const long long maxit = 8LL * n * n + 64;
  const Rl zero_tol = static_cast<Rl>(n) * tiny;
  long long iter = 0;
  index_t hi = n - 1;
  while (hi > 0) {
    if (negligible(hi - 1)) {
      e[hi - 1] = 0;
      --hi;
      continue;
    }
    index_t lo = hi - 1;
    while (lo > 0 && !negligible(lo - 1)) --lo;
    if (lo > 0) e[lo - 1] = 0;
    // A zero on the diagonal (where the shifted step would stall): rotate its row (or, at the
    // bottom, its column) out of the block. Small non-zero entries are left to the QR steps, so
    // singular values far below eps * |B| keep their accuracy.
    index_t z = -1;
    for (index_t i = lo; i <= hi; ++i)
      if (std::abs(d[i]) <= zero_tol) {
        d[i] = 0;
        z = i;
        break;
      }
    if (z >= 0) {
      flush();
      Rl c, s, r;
      if (z < hi) {
        Rl f = e[z];
        e[z] = 0;
        for (index_t j = z + 1; j <= hi; ++j) {
          givens(d[j], f, c, s, r);
          d[j] = r;
          if (ut) rotate_rows(ut + j * ldu, ut + z * ldu, ulen, c, s);
          if (j < hi) {
            f = -s * e[j];
            e[j] = c * e[j];
          }
        }
      } else {
        Rl f = e[hi - 1];
        e[hi - 1] = 0;
        for (index_t j = hi - 1; j >= lo; --j) {
          givens(d[j], f, c, s, r);
          d[j] = r;
          if (vh) rotate_rows(vh + j * ldv, vh + hi * ldv, vlen, c, s);
          if (j > lo) {
            f = -s * e[j - 1];
            e[j - 1] = c * e[j - 1];
          }
        }
      }
      continue;
    }
    if (++iter > maxit) {
      flush();
      return false;
    }
    // Wilkinson shift: the eigenvalue of the trailing 2 x 2 of B^T B nearer its last entry.
    const Rl dm = d[hi - 1], em = hi - 1 > lo ? e[hi - 2] : Rl(0), fm = e[hi - 1], dn = d[hi];
    const Rl t11 = dm * dm + em * em, t12 = dm * fm, t22 = dn * dn + fm * fm;
    const Rl dl = (t11 - t22) / 2;
    const Rl den = dl + std::copysign(std::hypot(dl, t12), dl);
    const Rl mu = den == Rl(0) ? t22 : t22 - t12 * (t12 / den);
    Rl y = d[lo] * d[lo] - mu, zz = d[lo] * e[lo];
    for (index_t k = lo; k < hi; ++k) {
      Rl c, s, r;
      givens(y, zz, c, s, r);
      if (k > lo) e[k - 1] = r;
      Rl a = d[k], b = e[k];
      d[k] = c * a + s * b;
      e[k] = c * b - s * a;
      const Rl bulge = s * d[k + 1];
      d[k + 1] = c * d[k + 1];
      cv[k - lo] = c;
      sv[k - lo] = s;
      givens(d[k], bulge, c, s, r);
      d[k] = r;
      a = e[k];
      b = d[k + 1];
      e[k] = c * a + s * b;
      d[k + 1] = c * b - s * a;
      if (k + 1 < hi) {
        zz = s * e[k + 1];
        e[k + 1] = c * e[k + 1];
      }
      y = e[k];
      cu[k - lo] = c;
      su[k - lo] = s;
    }
    if (!batched) {
      if (vh) rotation_batch<Rl>::apply_sweep(vh, ldv, vlen, lo, cv, sv, hi - lo);
      if (ut) rotation_batch<Rl>::apply_sweep(ut, ldu, ulen, lo, cu, su, hi - lo);
      continue;
    }
    if (vh) bv.add(lo, cv, sv, hi - lo);
    if (ut) bu.add(lo, cu, su, hi - lo);
    if (bu.full() || bv.full()) flush();
  }
  flush();
  for (index_t i = 0; i < n; ++i) d[i] *= anorm;
  return true;
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
  if (ut) {
    // Q = H(0) ... H(n-1) (m x ucols) by the blocked orgqr on a column-major copy of the left
    // reflectors; column j of Q is row j of ut.
    // The work matrices come from per-thread buffers kept between calls (fresh pages would cost a
    // page fault each), zeroed here.
    const index_t ldq = padded_ld<T>(m);
    std::unique_ptr<T[]> qbig;
    T* q = reusable_scratch<struct svd_q_tag>(static_cast<std::size_t>(ldq * ucols), qbig);
    std::fill(q, q + ldq * ucols, T(0));
    for (index_t k = 0; k < n; ++k)
      for (index_t i = k + 1; i < m; ++i) q[i + k * ldq] = a[i * n + k];
    orgqr_cm(m, ucols, n, q, ldq, tq.data());
    for (index_t j = 0; j < ucols; ++j) std::copy_n(q + j * ldq, m, ut + j * m);
    // P = diag(1, P'), P' = G(0) ... G(n-2) on indices 1..n-1, the same way; vh = P^H, so row i
    // of vh is the conjugated column i - 1 of P'.
    std::fill(vh, vh + n * n, T(0));
    vh[0] = T(1);
    const index_t n1 = n - 1;
    if (n1 > 0) {
      const index_t ldp = padded_ld<T>(n1);
      std::unique_ptr<T[]> pbig;
      T* p = reusable_scratch<struct svd_p_tag>(static_cast<std::size_t>(ldp * n1), pbig);
      std::fill(p, p + ldp * n1, T(0));
      for (index_t k = 0; k < n1; ++k)
        for (index_t i = k + 1; i < n1; ++i) p[i + k * ldp] = a[k * n + i + 1];
      orgqr_cm(n1, n1, n1, p, ldp, tp.data());
      for (index_t i = 1; i < n; ++i)
        for (index_t j = 1; j < n; ++j) vh[i * n + j] = conj_of(p[(j - 1) + (i - 1) * ldp]);
    }
  }
  Rl* utr = reinterpret_cast<Rl*>(ut);
  Rl* vhr = reinterpret_cast<Rl*>(vh);
  if (!bidiagonal_qr<Rl>(n, s, e.data(), utr, m * cf, m * cf, vhr, n * cf, n * cf)) return false;
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
