#pragma once
/// @file potrf.hpp
/// @brief Internal header: Cholesky factorization A = L L^H of a Hermitian positive-definite
/// matrix (LAPACK's potrf, lower), recursive so that almost all the work runs in the GEMM.
///
/// Only the lower triangle of A is read. Splitting A = [A11 *; A21 A22]: L11 = chol(A11),
/// L21 = A21 L11^-H (TRSM), A22 -= L21 L21^H (the lower triangle only, recursively), then
/// L22 = chol(A22). Blocks of at most 64 columns use the unblocked algorithm (row-oriented dot
/// products, contiguous in row-major storage).
#include <algorithm>
#include <cmath>

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"
#include "tl/linalg/detail/gemm.hpp"
#include "tl/linalg/detail/trsm.hpp"

namespace tl::linalg::detail {

/// Unblocked lower Cholesky; returns 0 or the 1-based order of the first leading minor that is
/// not positive-definite (its diagonal value d is not > 0, NaN included).
template <class T>
index_t potrf_small(index_t n, mut_ref<T> a) {
  using R = real_t<T>;
  for (index_t j = 0; j < n; ++j) {
    T* rj = &a(j, 0);
    R d = real_part(a(j, j));
    if constexpr (is_complex_v<T>) {
      for (index_t p = 0; p < j; ++p) d -= rj[p * a.cs].re * rj[p * a.cs].re + rj[p * a.cs].im * rj[p * a.cs].im;
    } else if (a.cs == 1) {
      d -= dot_contiguous(rj, rj, j);
    } else {
      for (index_t p = 0; p < j; ++p) d -= rj[p * a.cs] * rj[p * a.cs];
    }
    if (!(d > R(0))) return j + 1;
    const R l = std::sqrt(d);
    a(j, j) = T(l);
    for (index_t i = j + 1; i < n; ++i) {
      T* ri = &a(i, 0);
      T s = a(i, j);
      if constexpr (!is_complex_v<T>) {
        if (a.cs == 1) s -= dot_contiguous(ri, rj, j);
        else
          for (index_t p = 0; p < j; ++p) s -= ri[p * a.cs] * rj[p * a.cs];
      } else {
        for (index_t p = 0; p < j; ++p) s -= ri[p * a.cs] * conj_if(rj[p * a.cs], true);
      }
      a(i, j) = s / T(l);
    }
  }
  return 0;
}

/// C -= A A^H on the lower triangle of the n x n C (A: n x k), recursively: the off-diagonal
/// block is one GEMM, diagonal blocks of at most 64 are full GEMMs whose strict upper part lands
/// in C's strict upper triangle (scratch for potrf).
template <class T>
void herk_lower(index_t n, index_t k, mat_ref<T> a, mut_ref<T> c) {
  if (n <= 0 || k <= 0) return;
  const mat_ref<T> ah{a.p, a.cs, a.rs, is_complex_v<T>};  // A^H
  if (n <= 64) {
    gemm<T>(n, n, k, T(-1), a, ah, T(1), c.p, c.rs, c.cs);
    return;
  }
  const index_t n1 = (n / 2 + 15) / 16 * 16;
  herk_lower<T>(n1, k, a, c);
  gemm<T>(n - n1, n1, k, T(-1), sub(a, n1, 0), ah, T(1), &c(n1, 0), c.rs, c.cs);
  herk_lower<T>(n - n1, k, sub(a, n1, 0), c.sub(n1, n1));
}

/// @brief In-place lower Cholesky of the n x n matrix `a` (lower triangle read and overwritten;
/// the strict upper triangle is used as scratch by the updates of the diagonal blocks). Returns 0 or the 1-based order of the first leading
/// minor that is not positive-definite.
template <class T>
index_t potrf(index_t n, mut_ref<T> a) {
  if (n <= 64) return potrf_small(n, a);
  const index_t n1 = (n / 2 + 15) / 16 * 16, n2 = n - n1;
  if (const index_t info = potrf(n1, a)) return info;
  // L21 L11^H = A21: a right-side solve with the upper triangular L11^H.
  const mat_ref<T> l11h{a.p, a.cs, a.rs, is_complex_v<T>};
  trsm_right<T>(true, false, n2, n1, l11h, a.sub(n1, 0));
  herk_lower<T>(n2, n1, a.sub(n1, 0).as_const(), a.sub(n1, n1));
  if (const index_t info = potrf(n2, a.sub(n1, n1))) return info + n1;
  return 0;
}

}  // namespace tl::linalg::detail
