#pragma once
/// @file syev.hpp
/// @brief Internal header: the symmetric / Hermitian eigenproblem: Householder reduction to a
/// real symmetric tridiagonal matrix (LAPACK's sytrd / hetrd, lower, blocked) and the implicit
/// QL algorithm with Wilkinson shifts on it, optionally accumulating the eigenvectors.
///
/// Reduction: Q^H A Q = T with Q = H(0) ... H(n-2), H(i) = I - tau_i v_i v_i^H, v_i(0:i+1) = 0,
/// v_i(i+1) = 1. Each step is a Hermitian matrix-vector product and a rank-2 update of the
/// trailing lower triangle (column-major, so both run down contiguous columns); in panels of 32
/// steps the rank-2 updates are deferred and applied as one GEMM update (see hetrd_lower). larfg's beta is
/// real, so T is real even for complex A; the phases stay in Q.
///
/// QL: for each l, find the first negligible e(m) (|e(m)| <= eps * max_j (|d(j)| + |e(j)|)), then
/// chase a bulge from m up to l with Givens rotations after a shift from the 2 x 2 block at l,
/// until e(l) is negligible. The rotations act on pairs of rows of Y = (Q Z)^T, contiguous in
/// row-major storage (and, for complex Q, on interleaved real and imaginary parts alike).
///
/// Eigenvectors above 32 rows: divide and conquer on T (tridiagonal_dc), then V = Q Z by the
/// blocked reflectors.
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
#include "tl/linalg/detail/geqrf.hpp"
#include "tl/linalg/detail/gesvd.hpp"
#include "tl/linalg/detail/secular.hpp"

namespace tl::linalg::detail {

/// p = S v for the Hermitian s x s column-major S (lower triangle read, leading dimension ld):
/// one pass down the columns, an axpy below the diagonal and a dot product per column. Real types
/// take four columns per sweep (one read and write of p for four columns, and four streams of S
/// for the memory system to fetch ahead): 2.0-2.2x faster than one column at a time for double
/// s = 256 to 1024 on the Zen 4 machine of docs/benchmarks.md.
template <class T>
void hemv_lower(index_t s, const T* S, index_t ld, const T* v, T* p) {
  std::fill_n(p, s, T(0));
  index_t j = 0;
  if constexpr (!is_complex_v<T>) {
    using P = packet_t<T>;
    constexpr index_t W = static_cast<index_t>(P::size);
    for (; j + 4 <= s; j += 4) {
      const T* c0 = S + j * ld;
      const T* c1 = c0 + ld;
      const T* c2 = c1 + ld;
      const T* c3 = c2 + ld;
      const T v0 = v[j], v1 = v[j + 1], v2 = v[j + 2], v3 = v[j + 3];
      // Rows j + 1 .. j + 3 (inside the 4 x 4 diagonal block).
      const T a0 = c0[j + 1] * v[j + 1] + c0[j + 2] * v[j + 2] + c0[j + 3] * v[j + 3];
      const T a1 = c1[j + 2] * v[j + 2] + c1[j + 3] * v[j + 3];
      const T a2 = c2[j + 3] * v[j + 3];
      p[j + 1] += c0[j + 1] * v0;
      p[j + 2] += c0[j + 2] * v0 + c1[j + 2] * v1;
      p[j + 3] += c0[j + 3] * v0 + c1[j + 3] * v1 + c2[j + 3] * v2;
      // Rows below the block: p += [c0 c1 c2 c3] (v0 .. v3), and four dot products with v.
      const P V0(v0), V1(v1), V2(v2), V3(v3);
      P A0(T(0)), A1(T(0)), A2(T(0)), A3(T(0));
      index_t q = j + 4;
      for (; q + W <= s; q += W) {
        const P x0 = P::load_unaligned(c0 + q), x1 = P::load_unaligned(c1 + q), x2 = P::load_unaligned(c2 + q),
                x3 = P::load_unaligned(c3 + q), vq = P::load_unaligned(v + q);
        P pq = P::load_unaligned(p + q);
        pq = tl::detail::simd_fma(x0, V0, pq);
        pq = tl::detail::simd_fma(x1, V1, pq);
        pq = tl::detail::simd_fma(x2, V2, pq);
        pq = tl::detail::simd_fma(x3, V3, pq);
        pq.store_unaligned(p + q);
        A0 = tl::detail::simd_fma(x0, vq, A0);
        A1 = tl::detail::simd_fma(x1, vq, A1);
        A2 = tl::detail::simd_fma(x2, vq, A2);
        A3 = tl::detail::simd_fma(x3, vq, A3);
      }
      T s0 = xsimd::hadd(A0), s1 = xsimd::hadd(A1), s2 = xsimd::hadd(A2), s3 = xsimd::hadd(A3);
      for (; q < s; ++q) {
        p[q] += c0[q] * v0 + c1[q] * v1 + c2[q] * v2 + c3[q] * v3;
        s0 += c0[q] * v[q];
        s1 += c1[q] * v[q];
        s2 += c2[q] * v[q];
        s3 += c3[q] * v[q];
      }
      p[j] += c0[j] * v0 + a0 + s0;
      p[j + 1] += c1[j + 1] * v1 + a1 + s1;
      p[j + 2] += c2[j + 2] * v2 + a2 + s2;
      p[j + 3] += c3[j + 3] * v3 + s3;
    }
  }
  for (; j < s; ++j) {
    const T* sj = S + j * ld;
    const T vj = v[j];
    for (index_t q = j + 1; q < s; ++q) p[q] += sj[q] * vj;
    p[j] += T(real_part(sj[j])) * vj + dotc(sj + j + 1, v + j + 1, s - j - 1);
  }
}

/// Panel width and crossover of the blocked tridiagonal reduction.
inline constexpr index_t hetrd_block = 32, hetrd_crossover = 128;

/// Reduces the Hermitian n x n column-major matrix w (lower triangle read, leading dimension ld)
/// to tridiagonal form: d (n), e (n; e[n-1] = 0), tau (n - 1). The reflectors' tails are left in
/// w below the subdiagonal. Blocked while more than hetrd_crossover columns remain (LAPACK's
/// latrd): a panel of hetrd_block reflectors is built against the trailing matrix as it was
/// before the panel, with the panel's pending update A - V W^H - W V^H applied to each new column
/// and to each matrix-vector product; then the trailing lower triangle takes that update by GEMMs
/// (column blocks, inner dimension 2 hetrd_block). The rest is unblocked (sytd2 / hetd2).
template <class T>
void hetrd_lower(index_t n, T* w, index_t ld, real_t<T>* d, real_t<T>* e, T* tau) {
  using R = real_t<T>;
  const auto sz = [](index_t v) { return static_cast<std::size_t>(v); };
  std::vector<T> p(sz(n));
  constexpr index_t nb = hetrd_block;
  index_t i0 = 0;
  if (n > hetrd_crossover) {
    // vw = [V W], wv = [W V] (n x 2 nb, column-major), V / W zero above their reflector.
    std::vector<T> vw(sz(n * 2 * nb)), wv(sz(n * 2 * nb)), y(sz(2 * nb));
    for (; n - i0 > hetrd_crossover; i0 += nb) {
      std::fill(vw.begin(), vw.end(), T(0));
      T* V = vw.data();
      T* W = vw.data() + n * nb;
      for (index_t j = 0; j < nb; ++j) {
        const index_t i = i0 + j;
        T* col = w + i * ld;
        // Column i (rows i..n-1) takes the panel's pending update.
        for (index_t l = 0; l < j; ++l) {
          const T a = conj_if(W[i + l * n], true), b = conj_if(V[i + l * n], true);
          const T* vl = V + l * n;
          const T* wl = W + l * n;
          for (index_t q = i; q < n; ++q) col[q] -= vl[q] * a + wl[q] * b;
        }
        col[i] = T(real_part(col[i]));
        T* x = col + i + 1;
        const index_t s = n - i - 1;
        const T t = make_reflector(x[0], x + 1, s - 1);
        tau[i] = t;
        e[i] = real_part(x[0]);
        d[i] = real_part(col[i]);
        T* v = V + j * n + i + 1;
        v[0] = T(1);
        std::copy_n(x + 1, s - 1, v + 1);
        T* pw = W + j * n + i + 1;
        if (t == T(0)) continue;  // W's column stays zero: H = I
        // p = S v - V (W^H v) - W (V^H v), S the trailing block before the panel's update.
        hemv_lower(s, w + (i + 1) * ld + i + 1, ld, v, pw);
        for (index_t l = 0; l < j; ++l) {
          y[sz(l)] = dotc(W + l * n + i + 1, v, s);
          y[sz(nb + l)] = dotc(V + l * n + i + 1, v, s);
        }
        for (index_t l = 0; l < j; ++l) {
          const T a = y[sz(l)], b = y[sz(nb + l)];
          const T* vl = V + l * n + i + 1;
          const T* wl = W + l * n + i + 1;
          for (index_t q = 0; q < s; ++q) pw[q] -= vl[q] * a + wl[q] * b;
        }
        for (index_t q = 0; q < s; ++q) pw[q] *= t;
        const T c = R(0.5) * t * dotc(pw, v, s);
        for (index_t q = 0; q < s; ++q) pw[q] -= c * v[q];
      }
      // The trailing lower triangle: A -= [V W] [W V]^H, column block by column block.
      std::copy_n(vw.data() + n * nb, n * nb, wv.data());
      std::copy_n(vw.data(), n * nb, wv.data() + n * nb);
      constexpr index_t bw = 128;
      for (index_t j0 = i0 + nb; j0 < n; j0 += bw) {
        const index_t cols = std::min(bw, n - j0);
        gemm<T>(n - j0, cols, 2 * nb, T(-1), mat_ref<T>{vw.data() + j0, 1, n}, mat_ref<T>{wv.data() + j0, n, 1, true},
                T(1), w + j0 * ld + j0, 1, ld);
      }
    }
  }
  for (index_t i = i0; i + 1 < n; ++i) {
    T* col = w + i * ld + i + 1;  // x = A(i+1:n, i)
    const index_t s = n - i - 1;
    const T t = make_reflector(col[0], col + 1, s - 1);
    tau[i] = t;
    e[i] = real_part(col[0]);
    d[i] = real_part(w[i + i * ld]);
    if (t == T(0)) continue;
    const T beta = col[0];
    col[0] = T(1);
    const T* v = col;
    T* S = w + (i + 1) * ld + i + 1;  // the trailing s x s block
    // p = tau * S v, S Hermitian from its lower triangle.
    hemv_lower(s, S, ld, v, p.data());
    T pv(0);
    for (index_t q = 0; q < s; ++q) {
      p[sz(q)] *= t;
      pv += conj_if(p[sz(q)], true) * v[q];
    }
    // w = p - (tau / 2) (p^H v) v; S -= v w^H + w v^H.
    const T c = R(0.5) * t * pv;
    for (index_t q = 0; q < s; ++q) p[sz(q)] -= c * v[q];
    for (index_t j = 0; j < s; ++j) {
      T* sj = S + j * ld;
      const T wj = conj_if(p[sz(j)], true), vj = conj_if(v[j], true);
      for (index_t q = j; q < s; ++q) sj[q] -= v[q] * wj + p[sz(q)] * vj;
    }
    col[0] = beta;
  }
  if (n > 0) {
    d[n - 1] = real_part(w[(n - 1) + (n - 1) * ld]);
    e[n - 1] = 0;
  }
}

/// Eigenvalues of the symmetric tridiagonal (d, e) by implicit QL, in place in d (unsorted).
/// With y, the rotations are applied to its rows (n rows of `len` reals, contiguous). Returns
/// false when an eigenvalue did not converge in 30 iterations.
template <class R>
bool tridiagonal_ql(index_t n, R* d, R* e, R* y, index_t len) {
  const R eps = std::numeric_limits<R>::epsilon();
  R shift_sum = 0, tst = 0;
  for (index_t l = 0; l < n; ++l) {
    tst = std::max(tst, std::abs(d[l]) + std::abs(e[l]));
    index_t m = l;
    while (m + 1 < n && std::abs(e[m]) > eps * tst) ++m;
    int iter = 0;
    while (m > l) {
      if (++iter > 30) return false;
      // Wilkinson-type shift from the leading 2 x 2 block.
      R g = d[l];
      R pp = (d[l + 1] - g) / (R(2) * e[l]);
      R r = std::hypot(pp, R(1));
      if (pp < 0) r = -r;
      d[l] = e[l] / (pp + r);
      d[l + 1] = e[l] * (pp + r);
      const R dl1 = d[l + 1];
      R h = g - d[l];
      for (index_t i = l + 2; i < n; ++i) d[i] -= h;
      shift_sum += h;
      // The QL sweep from m - 1 down to l.
      pp = d[m];
      R c = 1, c2 = 1, c3 = 1, s = 0, s2 = 0;
      const R el1 = e[l + 1];
      for (index_t i = m; i-- > l;) {
        c3 = c2;
        c2 = c;
        s2 = s;
        g = c * e[i];
        h = c * pp;
        r = std::hypot(pp, e[i]);
        e[i + 1] = s * r;
        s = e[i] / r;
        c = pp / r;
        pp = c * d[i] - s * g;
        d[i + 1] = h + s * (c * g + s * d[i]);
        if (y) rotate_rows(y + i * len, y + (i + 1) * len, len, c, -s);  // (c a - s b, s a + c b)
      }
      pp = -s * s2 * c3 * el1 * e[l] / dl1;
      e[l] = s * pp;
      d[l] = c * pp;
      m = l;
      while (m + 1 < n && std::abs(e[m]) > eps * tst) ++m;
    }
    d[l] += shift_sum;
    e[l] = 0;
  }
  return true;
}

/// Merges two solved halves (LAPACK's laed1 - laed3): on entry the n x n column-major block q
/// (leading dimension ldq) holds Q1 (m x m, top left) and Q2 (bottom right, zeros elsewhere), d the
/// two halves' eigenvalues, ascending within each, of T1 - |beta| e_m e_m^T and T2 - |beta| e_1 e_1^T
/// with beta the coupling entry. T = diag(Q1, Q2) (D + rho z z^T) diag(Q1, Q2)^T with z = (last row
/// of Q1, sign(beta) first row of Q2) / sqrt 2 and rho = 2 |beta|. Deflation: components with
/// rho |z_j| <= tol keep (d_j, column j); two close eigenvalues are rotated so that one of their z
/// entries vanishes. The other k eigenpairs of D + rho z z^T come from the secular equation, with
/// z recomputed from the roots (Gu and Eisenstat) so that the vectors are orthogonal to working
/// precision; the columns they mix are grouped into top-only, mixed and bottom-only so that two
/// GEMMs skip the zero blocks. On exit d is ascending and q holds the eigenvectors.
template <class R>
void tridiagonal_dc_merge(index_t n, index_t m, R* d, R beta, R* q, index_t ldq) {
  const R eps = std::numeric_limits<R>::epsilon();
  const auto sz = [](index_t v) { return static_cast<std::size_t>(v); };
  std::vector<R> z(sz(n));
  const R sgn = beta < 0 ? R(-1) : R(1), inv_sqrt2 = R(1) / std::sqrt(R(2));
  for (index_t j = 0; j < m; ++j) z[sz(j)] = q[(m - 1) + j * ldq] * inv_sqrt2;
  for (index_t j = m; j < n; ++j) z[sz(j)] = sgn * q[m + j * ldq] * inv_sqrt2;
  const R rho = 2 * std::abs(beta);
  std::vector<index_t> order(sz(n));
  for (index_t j = 0; j < n; ++j) order[sz(j)] = j;
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) { return d[a] < d[b]; });
  R dmax = 0, zmax = 0;
  for (index_t j = 0; j < n; ++j) dmax = std::max(dmax, std::abs(d[j])), zmax = std::max(zmax, std::abs(z[sz(j)]));
  const R tol = 8 * eps * std::max(dmax, zmax);
  // Deflation, walking the eigenvalues in ascending order. kind: 0 top only, 1 mixed, 2 bottom only.
  std::vector<int> kind(sz(n));
  for (index_t j = 0; j < n; ++j) kind[sz(j)] = j < m ? 0 : 2;
  std::vector<index_t> kept, deflated;
  dc_deflate(order, d, z.data(), rho, tol, kind.data(),
             [&](index_t p, index_t j, R c, R s) { rotate_rows(q + p * ldq, q + j * ldq, n, c, s); }, kept, deflated);
  const index_t k = static_cast<index_t>(kept.size());
  std::vector<R> vals(sz(n));
  // The output columns and the k x k matrix come from a per-thread buffer kept between calls.
  std::unique_ptr<R[]> big;
  R* out = reusable_scratch<struct tridiagonal_dc_tag>(sz(n * n + k * k), big);
  R* s = out + n * n;
  if (k > 0) {
    std::vector<R> dl(sz(k)), zl(sz(k));
    for (index_t i = 0; i < k; ++i) dl[sz(i)] = d[kept[sz(i)]], zl[sz(i)] = z[sz(kept[sz(i)])];
    // Normalize z (deflation removed part of its unit norm) into rho.
    R zz = 0;
    for (index_t i = 0; i < k; ++i) zz += zl[sz(i)] * zl[sz(i)];
    const R zn = std::sqrt(zz);
    for (index_t i = 0; i < k; ++i) zl[sz(i)] /= zn;
    const R rk = rho * zz;
    for (index_t i = 0; i < k; ++i) vals[sz(i)] = secular_root(k, i, dl.data(), zl.data(), rk, s + i * k);
    const auto gap = [&](index_t a, index_t b) { return dl[sz(a)] - dl[sz(b)]; };
    std::vector<R> zh(sz(k));
    secular_z(k, gap, s, zl.data(), zh.data());
    // Column i of S: zhat_j / (dl_j - lambda_i), normalized.
    for (index_t i = 0; i < k; ++i) {
      R* col = s + i * k;
      R nrm = 0;
      for (index_t j = 0; j < k; ++j) {
        col[j] = zh[sz(j)] / col[j];
        nrm += col[j] * col[j];
      }
      nrm = R(1) / std::sqrt(nrm);
      for (index_t j = 0; j < k; ++j) col[j] *= nrm;
    }
    // Rows 0..m-1 mix the top-only and mixed columns; rows m..n-1 the mixed and bottom-only ones.
    dc_vector_update(n, m, k, kept.data(), kind.data(), q, ldq, s, out);
  }
  for (index_t i = 0; i < n - k; ++i) {
    const index_t j = deflated[sz(i)];
    vals[sz(k + i)] = d[j];
    std::copy_n(q + j * ldq, n, out + (k + i) * n);
  }
  for (index_t j = 0; j < n; ++j) order[sz(j)] = j;
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) { return vals[sz(a)] < vals[sz(b)]; });
  for (index_t j = 0; j < n; ++j) {
    d[j] = vals[sz(order[sz(j)])];
    std::copy_n(out + order[sz(j)] * n, n, q + j * ldq);
  }
}

/// Subproblems up to this size are solved by implicit QL.
inline constexpr index_t tridiagonal_dc_leaf = 32;

/// Recursive part of tridiagonal_dc (the matrix scaled, q's off-diagonal blocks zero).
template <class R>
bool tridiagonal_dc_solve(index_t n, R* d, const R* e, R* q, index_t ldq) {
  const auto sz = [](index_t v) { return static_cast<std::size_t>(v); };
  if (n <= tridiagonal_dc_leaf) {
    std::vector<R> ee(sz(n), R(0)), y(sz(n * n), R(0));
    std::copy_n(e, n - 1, ee.data());
    for (index_t i = 0; i < n; ++i) y[sz(i * n + i)] = R(1);
    if (!tridiagonal_ql(n, d, ee.data(), y.data(), n)) return false;
    std::vector<index_t> order(sz(n));
    for (index_t i = 0; i < n; ++i) order[sz(i)] = i;
    std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) { return d[a] < d[b]; });
    const std::vector<R> dd(d, d + n);
    for (index_t c = 0; c < n; ++c) {
      d[c] = dd[sz(order[sz(c)])];
      std::copy_n(y.data() + order[sz(c)] * n, n, q + c * ldq);
    }
    return true;
  }
  const index_t m = n / 2;
  const R beta = e[m - 1];
  d[m - 1] -= std::abs(beta);
  d[m] -= std::abs(beta);
  if (!tridiagonal_dc_solve(m, d, e, q, ldq) || !tridiagonal_dc_solve(n - m, d + m, e + m, q + m + m * ldq, ldq))
    return false;
  tridiagonal_dc_merge(n, m, d, beta, q, ldq);
  return true;
}

/// Eigenvalues (ascending, in d) and eigenvectors (the columns of the n x n column-major q, leading
/// dimension ldq) of the symmetric tridiagonal matrix with diagonal d and off-diagonal e (n - 1
/// values) by divide and conquer (Cuppen's splitting, LAPACK's stedc): the matrix is split in
/// halves by a rank-one tear, each half solved recursively (implicit QL below 33 rows), and the
/// halves merged through the secular equation, the eigenvector update being GEMMs. Returns false
/// when a QL leaf did not converge.
template <class R>
bool tridiagonal_dc(index_t n, R* d, const R* e, R* q, index_t ldq) {
  for (index_t j = 0; j < n; ++j) std::fill_n(q + j * ldq, n, R(0));
  R scale = 0;
  for (index_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(d[i]));
  for (index_t i = 0; i + 1 < n; ++i) scale = std::max(scale, std::abs(e[i]));
  if (scale == 0) {
    for (index_t i = 0; i < n; ++i) q[i + i * ldq] = R(1);
    return true;
  }
  std::vector<R> es(static_cast<std::size_t>(std::max<index_t>(n - 1, 1)));
  for (index_t i = 0; i < n; ++i) d[i] /= scale;
  for (index_t i = 0; i + 1 < n; ++i) es[static_cast<std::size_t>(i)] = e[i] / scale;
  const bool ok = tridiagonal_dc_solve(n, d, es.data(), q, ldq);
  for (index_t i = 0; i < n; ++i) d[i] *= scale;
  return ok;
}

/// Eigen-decomposition of one Hermitian n x n matrix given column-major (lower triangle, leading
/// dimension ld) in w.
/// Writes ascending eigenvalues to `vals` and, when `vecs`, the eigenvectors as the columns of the
/// row-major n x n `vecs`. Returns false on non-convergence. NaN or infinite input gives NaN.
template <class T>
bool heev(index_t n, T* w, index_t ld, real_t<T>* vals, T* vecs) {
  using R = real_t<T>;
  if (n == 0) return true;
  std::vector<R> d(static_cast<std::size_t>(n)), e(static_cast<std::size_t>(n));
  std::vector<T> tau(static_cast<std::size_t>(std::max<index_t>(n - 1, 1)));
  hetrd_lower(n, w, ld, d.data(), e.data(), tau.data());
  bool finite = true;
  for (index_t i = 0; i < n; ++i) finite = finite && std::isfinite(d[i]) && std::isfinite(e[i]);
  if (!finite) {
    std::fill_n(vals, n, std::numeric_limits<R>::quiet_NaN());
    if (vecs) std::fill_n(vecs, n * n, T(std::numeric_limits<R>::quiet_NaN()));
    return true;
  }
  if (vecs && n > tridiagonal_dc_leaf) {
    // Divide and conquer on T = Z diag(vals) Z^T, then V = Q Z with Q's reflectors (blocked).
    std::vector<R> z(static_cast<std::size_t>(ld * n));
    if (!tridiagonal_dc(n, d.data(), e.data(), z.data(), ld)) return false;
    std::vector<T> v(z.begin(), z.end());
    ormqr_cm(false, n - 1, n, n - 1, w + 1, ld, tau.data(), v.data() + 1, ld);
    std::copy_n(d.data(), n, vals);
    for (index_t r = 0; r < n; ++r)
      for (index_t c = 0; c < n; ++c) vecs[r * n + c] = v[static_cast<std::size_t>(r + c * ld)];
    return true;
  }
  std::vector<T> y;
  if (vecs) {
    // Y = Q^T as a row-major matrix is Q column-major: Q = diag(1, Q'), Q' = the product of the
    // reflectors stored in w(1:n, 0:n-1).
    y.assign(static_cast<std::size_t>(n * n), T(0));
    y[0] = T(1);
    for (index_t j = 0; j + 1 < n; ++j) std::copy_n(w + j * ld + 1, n - 1, y.data() + (j + 1) * n + 1);
    orgqr_cm(n - 1, n - 1, n - 1, y.data() + n + 1, n, tau.data());
  }
  constexpr index_t cf = is_complex_v<T> ? 2 : 1;
  if (!tridiagonal_ql(n, d.data(), e.data(), vecs ? reinterpret_cast<R*>(y.data()) : static_cast<R*>(nullptr),
                      n * cf))
    return false;
  // Ascending order (selection sort: n swaps of eigenvector rows at most).
  std::vector<index_t> order(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](index_t a, index_t b) { return d[static_cast<std::size_t>(a)] < d[static_cast<std::size_t>(b)]; });
  for (index_t i = 0; i < n; ++i) vals[i] = d[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
  if (vecs)
    for (index_t r = 0; r < n; ++r)
      for (index_t c = 0; c < n; ++c) vecs[r * n + c] = y[static_cast<std::size_t>(order[static_cast<std::size_t>(c)] * n + r)];
  return true;
}

}  // namespace tl::linalg::detail
