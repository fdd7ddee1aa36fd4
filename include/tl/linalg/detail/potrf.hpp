#pragma once
/// @file potrf.hpp
/// @brief Internal header: Cholesky factorization A = L L^H of a Hermitian positive-definite
/// matrix (LAPACK's potrf, lower), recursive so that almost all the work runs in the GEMM.
///
/// Only the lower triangle of A is read. Splitting A = [A11 *; A21 A22]: L11 = chol(A11),
/// L21 = A21 L11^-H (TRSM), A22 -= L21 L21^H (the lower triangle only, in GEMM blocks), then
/// L22 = chol(A22). Blocks of at most 32 columns use the unblocked algorithm (row-oriented dot
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
    } else {
      for (index_t p = 0; p < j; ++p) d -= rj[p * a.cs] * rj[p * a.cs];
    }
    if (!(d > R(0))) return j + 1;
    const R l = std::sqrt(d);
    a(j, j) = T(l);
    for (index_t i = j + 1; i < n; ++i) {
      T* ri = &a(i, 0);
      T s = a(i, j);
      for (index_t p = 0; p < j; ++p) s -= ri[p * a.cs] * conj_if(rj[p * a.cs], true);
      a(i, j) = s / T(l);
    }
  }
  return 0;
}

/// @brief In-place lower Cholesky of the n x n matrix `a` (lower triangle read and overwritten;
/// the strict upper triangle is used as scratch by the updates of the diagonal blocks). Returns 0 or the 1-based order of the first leading
/// minor that is not positive-definite.
template <class T>
index_t potrf(index_t n, mut_ref<T> a) {
  if (n <= 32) return potrf_small(n, a);
  const index_t n1 = (n / 2 + 15) / 16 * 16, n2 = n - n1;
  if (const index_t info = potrf(n1, a)) return info;
  // L21 L11^H = A21: a right-side solve with the upper triangular L11^H.
  const mat_ref<T> l11h{a.p, a.cs, a.rs, is_complex_v<T>};
  trsm_right<T>(true, false, n2, n1, l11h, a.sub(n1, 0));
  // A22 -= L21 L21^H, lower triangle, by block rows of 64: rows [i0, i1) x columns [0, i1).
  const mut_ref<T> l21 = a.sub(n1, 0);
  mat_ref<T> l21h{l21.p, l21.cs, l21.rs, is_complex_v<T>};  // L21^H: n1 x n2
  constexpr index_t bs = 64;
  for (index_t i0 = 0; i0 < n2; i0 += bs) {
    const index_t i1 = std::min(n2, i0 + bs);
    gemm<T>(i1 - i0, i1, n1, T(-1), sub(l21.as_const(), i0, 0), l21h, T(1), &a(n1 + i0, n1), a.rs, a.cs);
  }
  if (const index_t info = potrf(n2, a.sub(n1, n1))) return info + n1;
  return 0;
}

}  // namespace tl::linalg::detail
