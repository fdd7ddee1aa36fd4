#pragma once
/// @file syev.hpp
/// @brief Internal header: the symmetric / Hermitian eigenproblem: Householder reduction to a
/// real symmetric tridiagonal matrix (LAPACK's sytrd / hetrd, lower, unblocked) and the implicit
/// QL algorithm with Wilkinson shifts on it, optionally accumulating the eigenvectors.
///
/// Reduction: Q^H A Q = T with Q = H(0) ... H(n-2), H(i) = I - tau_i v_i v_i^H, v_i(0:i+1) = 0,
/// v_i(i+1) = 1. Each step is a Hermitian matrix-vector product and a rank-2 update of the
/// trailing lower triangle (column-major, so both run down contiguous columns). larfg's beta is
/// real, so T is real even for complex A; the phases stay in Q.
///
/// QL: for each l, find the first negligible e(m) (|e(m)| <= eps * max_j (|d(j)| + |e(j)|)), then
/// chase a bulge from m up to l with Givens rotations after a shift from the 2 x 2 block at l,
/// until e(l) is negligible. The rotations act on pairs of rows of Y = (Q Z)^T, contiguous in
/// row-major storage (and, for complex Q, on interleaved real and imaginary parts alike).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"
#include "tl/linalg/detail/geqrf.hpp"
#include "tl/linalg/detail/gesvd.hpp"

namespace tl::linalg::detail {

/// Reduces the Hermitian n x n column-major matrix w (lower triangle read, leading dimension n)
/// to tridiagonal form: d (n), e (n; e[n-1] = 0), tau (n - 1). The reflectors' tails are left in
/// w below the subdiagonal.
template <class T>
void hetrd_lower(index_t n, T* w, real_t<T>* d, real_t<T>* e, T* tau) {
  using R = real_t<T>;
  std::vector<T> p(static_cast<std::size_t>(n));
  for (index_t i = 0; i + 1 < n; ++i) {
    T* col = w + i * n + i + 1;  // x = A(i+1:n, i)
    const index_t s = n - i - 1;
    const T t = make_reflector(col[0], col + 1, s - 1);
    tau[i] = t;
    e[i] = real_part(col[0]);
    d[i] = real_part(w[i + i * n]);
    if (t == T(0)) continue;
    const T beta = col[0];
    col[0] = T(1);
    const T* v = col;
    T* S = w + (i + 1) * n + i + 1;  // the trailing s x s block, leading dimension n
    // p = tau * S v, S Hermitian from its lower triangle.
    std::fill_n(p.data(), s, T(0));
    for (index_t j = 0; j < s; ++j) {
      const T* sj = S + j * n;
      const T vj = v[j];
      T* pc = p.data();
      for (index_t q = j + 1; q < s; ++q) pc[q] += sj[q] * vj;
      pc[j] += T(real_part(sj[j])) * vj + dotc(sj + j + 1, v + j + 1, s - j - 1);
    }
    T pv(0);
    for (index_t q = 0; q < s; ++q) {
      p[static_cast<std::size_t>(q)] *= t;
      pv += conj_if(p[static_cast<std::size_t>(q)], true) * v[q];
    }
    // w = p - (tau / 2) (p^H v) v; S -= v w^H + w v^H.
    const T c = R(0.5) * t * pv;
    for (index_t q = 0; q < s; ++q) p[static_cast<std::size_t>(q)] -= c * v[q];
    for (index_t j = 0; j < s; ++j) {
      T* sj = S + j * n;
      const T wj = conj_if(p[static_cast<std::size_t>(j)], true), vj = conj_if(v[j], true);
      for (index_t q = j; q < s; ++q) sj[q] -= v[q] * wj + p[static_cast<std::size_t>(q)] * vj;
    }
    col[0] = beta;
  }
  if (n > 0) {
    d[n - 1] = real_part(w[(n - 1) + (n - 1) * n]);
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

/// Eigen-decomposition of one Hermitian n x n matrix given column-major (lower triangle) in w.
/// Writes ascending eigenvalues to `vals` and, when `vecs`, the eigenvectors as the columns of the
/// row-major n x n `vecs`. Returns false on non-convergence. NaN or infinite input gives NaN.
template <class T>
bool heev(index_t n, T* w, real_t<T>* vals, T* vecs) {
  using R = real_t<T>;
  if (n == 0) return true;
  std::vector<R> d(static_cast<std::size_t>(n)), e(static_cast<std::size_t>(n));
  std::vector<T> tau(static_cast<std::size_t>(std::max<index_t>(n - 1, 1)));
  hetrd_lower(n, w, d.data(), e.data(), tau.data());
  bool finite = true;
  for (index_t i = 0; i < n; ++i) finite = finite && std::isfinite(d[i]) && std::isfinite(e[i]);
  if (!finite) {
    std::fill_n(vals, n, std::numeric_limits<R>::quiet_NaN());
    if (vecs) std::fill_n(vecs, n * n, T(std::numeric_limits<R>::quiet_NaN()));
    return true;
  }
  std::vector<T> y;
  if (vecs) {
    // Y = Q^T as a row-major matrix is Q column-major: Q = diag(1, Q'), Q' = the product of the
    // reflectors stored in w(1:n, 0:n-1).
    y.assign(static_cast<std::size_t>(n * n), T(0));
    y[0] = T(1);
    for (index_t j = 0; j + 1 < n; ++j) std::copy_n(w + j * n + 1, n - 1, y.data() + (j + 1) * n + 1);
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
