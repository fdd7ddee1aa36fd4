#pragma once
/// @file getrf.hpp
/// @brief Internal header: LU factorization with partial pivoting, P A = L U (LAPACK's getrf).
///
/// Blocked right-looking: for each block of nb columns, the m - j x nb panel is factored (by
/// recursive halving, so its updates are GEMMs too), its row interchanges are applied to the
/// columns left and right of it, the block row of U is solved with the unit lower triangle of the
/// panel (TRSM), and the trailing matrix gets A22 -= L21 U12 through the packed GEMM.
///
/// The pivot of a column is the entry of largest |re| + |im| (LAPACK's choice); a zero pivot is
/// recorded in `info` (1-based, the first one) and the factorization continues, as LAPACK does.
/// `ipiv[i]` (0-based here) is the row interchanged with row i at step i.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"
#include "tl/linalg/detail/gemm.hpp"
#include "tl/linalg/detail/trsm.hpp"

namespace tl::linalg::detail {

template <class T>
TL_INLINE real_t<T> abs1(const T& v) {
  if constexpr (is_complex_v<T>) return std::abs(v.re) + std::abs(v.im);
  else return std::abs(v);
}

/// Interchanges rows i and ipiv[i] of the n columns of `a`, for i in [k0, k1) (forward order) or
/// in reverse order.
template <class T>
void laswp(mut_ref<T> a, index_t ncols, const index_t* ipiv, index_t k0, index_t k1, bool reverse = false) {
  if (ncols <= 0) return;
  for (index_t q = k0; q < k1; ++q) {
    const index_t i = reverse ? k1 - 1 - (q - k0) : q;
    const index_t p = ipiv[i];
    if (p == i) continue;
    T* ri = &a(i, 0);
    T* rp = &a(p, 0);
    for (index_t j = 0; j < ncols; ++j) std::swap(ri[j * a.cs], rp[j * a.cs]);
  }
}

/// Recursive LU of an m x n panel (n small): pivots and info relative to the panel.
template <class T>
void getrf_recursive(index_t m, index_t n, mut_ref<T> a, index_t* ipiv, index_t& info, index_t row0, bool pivot) {
  const index_t kmin = std::min(m, n);
  if (kmin <= 0) return;
  if (m == 1) {  // one row: U is the row itself
    ipiv[0] = 0;
    if (a(0, 0) == T(0) && info == 0) info = row0 + 1;
    return;
  }
  if (n == 1) {
    index_t p = 0;
    real_t<T> best = abs1(a(0, 0));
    for (index_t i = 1; pivot && i < m; ++i) {
      const real_t<T> v = abs1(a(i, 0));
      if (v > best) best = v, p = i;
    }
    ipiv[0] = p;
    if (a(p, 0) != T(0)) {
      if (p != 0) std::swap(a(0, 0), a(p, 0));
      // Multiply by the reciprocal where it cannot overflow (LAPACK's rule), else divide.
      const T d = a(0, 0);
      if (abs1(d) >= std::numeric_limits<real_t<T>>::min() * 4) {
        const T r = T(1) / d;
        for (index_t i = 1; i < m; ++i) a(i, 0) *= r;
      } else {
        for (index_t i = 1; i < m; ++i) a(i, 0) = a(i, 0) / d;
      }
    } else if (info == 0) {
      info = row0 + 1;
    }
    return;
  }
  const index_t n1 = std::min(m, n) / 2, n2 = n - n1;
  // Left half.
  getrf_recursive(m, n1, a, ipiv, info, row0, pivot);
  laswp(a.sub(0, n1), n2, ipiv, 0, n1);
  // A12 = L11^-1 A12; A22 -= A21 A12.
  trsm_left<T>(false, true, n1, n2, a.as_const(), a.sub(0, n1));
  gemm<T>(m - n1, n2, n1, T(-1), a.sub(n1, 0).as_const(), a.sub(0, n1).as_const(), T(1), &a(n1, n1), a.rs, a.cs);
  // Right half.
  getrf_recursive(m - n1, n2, a.sub(n1, n1), ipiv + n1, info, row0 + n1, pivot);
  const index_t k2 = std::min(m - n1, n2);
  for (index_t i = n1; i < n1 + k2; ++i) ipiv[i] += n1;
  laswp(a.sub(0, 0), n1, ipiv, n1, n1 + k2);
}

/// @brief In-place LU with partial pivoting of the m x n matrix `a`; ipiv gets min(m, n) 0-based
/// row indices; returns info (0, or the 1-based index of the first zero pivot). With `pivot` false
/// no rows are interchanged (ipiv is the identity) and a zero diagonal entry is only reported.
template <class T>
index_t getrf(index_t m, index_t n, mut_ref<T> a, index_t* ipiv, bool pivot = true) {
  index_t info = 0;
  const index_t kmin = std::min(m, n);
  constexpr index_t nb = 128;
  if (kmin <= nb) {
    getrf_recursive(m, n, a, ipiv, info, 0, pivot);
    return info;
  }
  for (index_t j = 0; j < kmin; j += nb) {
    const index_t jb = std::min(nb, kmin - j);
    // Factor the panel A[j:m, j:j+jb].
    getrf_recursive(m - j, jb, a.sub(j, j), ipiv + j, info, j, pivot);
    for (index_t i = j; i < j + jb; ++i) ipiv[i] += j;
    // Interchanges to the left and right of the panel.
    laswp(a.sub(0, 0), j, ipiv, j, j + jb);
    const index_t nr = n - j - jb;
    if (nr > 0) {
      laswp(a.sub(0, j + jb), nr, ipiv, j, j + jb);
      trsm_left<T>(false, true, jb, nr, a.sub(j, j).as_const(), a.sub(j, j + jb));
      if (m - j - jb > 0)
        gemm<T>(m - j - jb, nr, jb, T(-1), a.sub(j + jb, j).as_const(), a.sub(j, j + jb).as_const(), T(1),
                &a(j + jb, j + jb), a.rs, a.cs);
    }
  }
  return info;
}

/// @brief Solves op(A) X = B in place with A's LU factors (P A = L U; lu and ipiv from getrf):
/// transpose == false: A X = B; true: A^T X = B; `conj` conjugates A as well (so transpose and
/// conj together solve A^H X = B).
template <class T>
void getrs(bool transpose, bool conj, index_t n, index_t nrhs, mat_ref<T> lu, const index_t* ipiv, mut_ref<T> b) {
  lu.conj = conj;
  if (!transpose) {
    laswp(b, nrhs, ipiv, 0, n);
    trsm_left<T>(false, true, n, nrhs, lu, b);
    trsm_left<T>(true, false, n, nrhs, lu, b);
  } else {
    // A^T = U^T L^T P: solve U^T, then L^T, then undo the interchanges in reverse order.
    const mat_ref<T> lt = transposed(lu);
    trsm_left<T>(false, false, n, nrhs, lt, b);
    trsm_left<T>(true, true, n, nrhs, lt, b);
    laswp(b, nrhs, ipiv, 0, n, true);
  }
}

}  // namespace tl::linalg::detail
