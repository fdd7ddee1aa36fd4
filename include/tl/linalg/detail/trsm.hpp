#pragma once
/// @file trsm.hpp
/// @brief Internal header: triangular solves with many right-hand sides (TRSM), recursive so that
/// almost all the work runs in the packed GEMM.
///
/// `trsm_left` solves op(A) X = B in place (B becomes X) for a triangular n x n A given by strides
/// (a transposed view of A is a triangular matrix of the other kind) and an n x nrhs B given by
/// strides. Splitting A = [A11 0; A21 A22] (lower) gives X1 = A11^-1 B1, B2 -= A21 X1 (GEMM),
/// X2 = A22^-1 B2; blocks of at most 16 rows are solved by substitution, one row of B at a time.
#include <algorithm>

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"
#include "tl/linalg/detail/aligned_buffer.hpp"
#include "tl/linalg/detail/gemm.hpp"

namespace tl::linalg::detail {

/// A strided matrix that is written: element (i, j) is p[i * rs + j * cs].
template <class T>
struct mut_ref {
  T* p;
  index_t rs, cs;
  TL_INLINE T& operator()(index_t i, index_t j) const { return p[i * rs + j * cs]; }
  mat_ref<T> as_const() const { return {p, rs, cs, false}; }
  mut_ref sub(index_t i, index_t j) const { return {p + i * rs + j * cs, rs, cs}; }
  mut_ref t() const { return {p, cs, rs}; }
};

template <class T>
TL_INLINE real_t<T> real_part(const T& v) {
  if constexpr (is_complex_v<T>) return v.re;
  else return v;
}

template <class T>
TL_INLINE T mat_at(const mat_ref<T>& a, index_t i, index_t j) {
  return conj_if(a.p[i * a.rs + j * a.cs], a.conj);
}
template <class T>
mat_ref<T> sub(const mat_ref<T>& a, index_t i, index_t j) {
  return {a.p + i * a.rs + j * a.cs, a.rs, a.cs, a.conj};
}
template <class T>
mat_ref<T> transposed(const mat_ref<T>& a) {
  return {a.p, a.cs, a.rs, a.conj};
}

/// B(i, :) -= s * B(p, :) over nrhs columns (vectorizes for unit column stride).
template <class T>
TL_INLINE void row_axpy(T* dst, const T* src, T s, index_t nrhs, index_t cs) {
  if (cs == 1) {
    for (index_t j = 0; j < nrhs; ++j) dst[j] -= s * src[j];
  } else {
    for (index_t j = 0; j < nrhs; ++j) dst[j * cs] -= s * src[j * cs];
  }
}

/// Substitution for small n (see trsm_left).
template <class T>
void trsm_left_small(bool upper, bool unit, index_t n, index_t nrhs, mat_ref<T> a, mut_ref<T> b) {
  for (index_t q = 0; q < n; ++q) {
    const index_t i = upper ? n - 1 - q : q;
    T* bi = &b(i, 0);
    const index_t p0 = upper ? i + 1 : 0, p1 = upper ? n : i;
    for (index_t p = p0; p < p1; ++p) {
      const T s = mat_at(a, i, p);
      if (s != T(0)) row_axpy(bi, &b(p, 0), s, nrhs, b.cs);
    }
    if (!unit) {
      const T d = mat_at(a, i, i);
      if (b.cs == 1) {
        for (index_t j = 0; j < nrhs; ++j) bi[j] = bi[j] / d;
      } else {
        for (index_t j = 0; j < nrhs; ++j) bi[j * b.cs] = bi[j * b.cs] / d;
      }
    }
  }
}

/// @brief Solves op(A) X = B in place: A is n x n lower (or upper) triangular, unit diagonal when
/// `unit` (the diagonal is then not read); entries of A outside its triangle are never read.
template <class T>
void trsm_left(bool upper, bool unit, index_t n, index_t nrhs, mat_ref<T> a, mut_ref<T> b) {
  if (n <= 0 || nrhs <= 0) return;
  if (n <= 16) {
    trsm_left_small(upper, unit, n, nrhs, a, b);
    return;
  }
  const index_t n1 = std::max<index_t>(16, (n / 2 + 15) / 16 * 16), n2 = n - n1;
  if (!upper) {
    trsm_left(upper, unit, n1, nrhs, a, b);
    gemm<T>(n2, nrhs, n1, T(-1), sub(a, n1, 0), b.sub(0, 0).as_const(), T(1), &b(n1, 0), b.rs, b.cs);
    trsm_left(upper, unit, n2, nrhs, sub(a, n1, n1), b.sub(n1, 0));
  } else {
    trsm_left(upper, unit, n2, nrhs, sub(a, n1, n1), b.sub(n1, 0));
    gemm<T>(n1, nrhs, n2, T(-1), sub(a, 0, n1), b.sub(n1, 0).as_const(), T(1), &b(0, 0), b.rs, b.cs);
    trsm_left(upper, unit, n1, nrhs, a, b);
  }
}

/// dst (n x m, row stride ldd) = src^T (src m x n, row stride lds, unit column stride), in 32 x 32
/// tiles so that both sides stay in cache. The inner loop runs along src's rows when
/// `read_rows` (contiguous reads), else along dst's rows (contiguous writes): the side whose row
/// stride may be a power of two is the contiguous one.
template <class T>
void transpose_tiles(index_t m, index_t n, const T* src, index_t lds, T* dst, index_t ldd, bool read_rows) {
  constexpr index_t tile = 32;
  for (index_t i0 = 0; i0 < m; i0 += tile)
    for (index_t j0 = 0; j0 < n; j0 += tile) {
      const index_t i1 = std::min(m, i0 + tile), j1 = std::min(n, j0 + tile);
      if (read_rows) {
        for (index_t i = i0; i < i1; ++i)
          for (index_t j = j0; j < j1; ++j) dst[j * ldd + i] = src[i * lds + j];
      } else {
        for (index_t j = j0; j < j1; ++j)
          for (index_t i = i0; i < i1; ++i) dst[j * ldd + i] = src[i * lds + j];
      }
    }
}

/// @brief Solves X op(A) = B in place (B is m x n, A n x n triangular): the transpose of
/// op(A)^T X^T = B^T, where the transpose of a lower triangular A is upper triangular. When B's
/// rows are contiguous, B^T is solved in a contiguous copy (the substitution steps then run
/// along rows instead of striding across them).
template <class T>
void trsm_right(bool upper, bool unit, index_t m, index_t n, mat_ref<T> a, mut_ref<T> b) {
  if (m <= 0 || n <= 0) return;
  if (b.cs != 1 || m == 1) {
    trsm_left(!upper, unit, n, m, transposed(a), b.t());
    return;
  }
  // The copy's row length is padded off powers of two (4 KiB aliasing in the tile transposes).
  const index_t ldt = m + 64 / static_cast<index_t>(sizeof(T)) + 1;
  static thread_local aligned_buffer<T> scratch;
  T* t = scratch.get(static_cast<std::size_t>(ldt * n));
  transpose_tiles(m, n, b.p, b.rs, t, ldt, true);
  trsm_left(!upper, unit, n, m, transposed(a), mut_ref<T>{t, ldt, 1});
  transpose_tiles(n, m, t, ldt, b.p, b.rs, false);
}

}  // namespace tl::linalg::detail
