#pragma once
/// @file ldl_factor.hpp
/// @brief tl::linalg::ldl_factor and ldl_factor_ex: the LDLᵀ (or LDLᴴ) factorization of a
/// symmetric or Hermitian matrix with Bunch-Kaufman pivoting, in LAPACK's sytrf / hetrf form
/// (torch.linalg.ldl_factor / ldl_factor_ex).
///
/// @code
/// auto [LD, pivots] = tl::linalg::ldl_factor(a);                    // a: [*, n, n], symmetric
/// auto [LD2, piv2, info] = tl::linalg::ldl_factor_ex(h, /*hermitian=*/true);
/// auto x = tl::linalg::ldl_solve(LD, pivots, b);                    // a x = b
/// @endcode
#include <algorithm>
#include <cstdint>

#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/sytrf.hpp"

namespace tl::linalg {

/// @brief ldl_factor's result: `LD` holds L (unit lower, below the diagonal; its columns are
/// those of LAPACK's P1 L1 P2 L2 ... product) and the block diagonal D (the diagonal and, for a
/// 2 x 2 block in rows k, k + 1, the entry (k + 1, k)); the strict upper triangle is zero.
/// `pivots` (int32, [*, n], 1-based): p > 0 at step k for a 1 x 1 block with rows k and p - 1
/// interchanged; a pair of equal negative values -p at k, k + 1 for a 2 x 2 block with rows
/// k + 1 and p - 1 interchanged.
template <class T, std::size_t R>
struct ldl_factor_result {
  tensor<T, R> LD;
  tensor<std::int32_t, R - 1> pivots;
};

/// @brief ldl_factor_ex's result: as ldl_factor's plus `info` (int32, [*]): 0, or the 1-based
/// index i of the first diagonal entry D[i-1, i-1] that is exactly zero (or NaN): D is singular.
template <class T, std::size_t R>
struct ldl_factor_ex_result {
  tensor<T, R> LD;
  tensor<std::int32_t, R - 1> pivots;
  tensor<std::int32_t, R - 2> info;
};

namespace detail {

/// Copies the strict lower triangle of the row-major n x n matrix m onto its strict upper
/// triangle, transposed (or, with `back`, the upper one onto the lower), in 32 x 32 tiles.
template <class T>
void mirror_triangle(T* m, index_t n, bool back) {
  constexpr index_t tile = 32;
  for (index_t i0 = 0; i0 < n; i0 += tile)
    for (index_t j0 = 0; j0 <= i0; j0 += tile)
      for (index_t i = i0; i < std::min(n, i0 + tile); ++i)
        for (index_t j = j0; j < std::min(i, j0 + tile); ++j) {
          if (back) m[i * n + j] = m[j * n + i];
          else m[j * n + i] = m[i * n + j];
        }
}

/// Factors every matrix of `ld` (contiguous, row-major) in place: reads the lower triangle,
/// writes LAPACK's lower sytrf / hetrf output and zeros the strict upper triangle. The
/// factorization runs on the column-major view of the storage (columns of the lower triangle
/// contiguous), which holds the lower triangle once it is mirrored onto the upper one.
template <class T, class ExtA, class ExtP, class ExtI>
void ldl_factor_inplace(basic_tensor<T, ExtA>& ld, basic_tensor<std::int32_t, ExtP>& piv,
                        basic_tensor<std::int32_t, ExtI>& info, bool hermitian) {
  constexpr std::size_t R = ExtA::rank;
  const auto& s = ld.shape();
  const index_t n = s[R - 1];
  for_each_matrix(batch_count(s), n, [&](index_t b) {
    T* m = ld.data() + b * n * n;
    mirror_triangle(m, n, false);
    const colmajor<T> a{m, n};
    std::int32_t* pb = piv.data() + b * n;
    index_t inf = 0;
    if constexpr (is_complex_v<T>) inf = hermitian ? sytrf<T, true>(a, n, pb) : sytrf<T, false>(a, n, pb);
    else inf = sytrf<T, false>(a, n, pb);  // real: Hermitian is symmetric
    mirror_triangle(m, n, true);
    for (index_t i = 0; i + 1 < n; ++i) std::fill(m + i * n + i + 1, m + (i + 1) * n, T(0));
    info.data()[b] = static_cast<std::int32_t>(inf);
  });
}

/// Throws linalg_error for the first matrix whose ldl info is non-zero.
template <class Ext>
void throw_on_ldl_info(const char* op, const basic_tensor<std::int32_t, Ext>& info) {
  constexpr std::size_t RI = Ext::rank;
  for (index_t b = 0; b < info.numel(); ++b)
    if (const std::int32_t i = info.data()[b]; i > 0)
      throw linalg_error(cat_str("tl::linalg::", op, ": the input matrix is singular", batch_note(b, RI > 0),
                                 ": info = ", i, ", D[", i - 1, ", ", i - 1,
                                 "] of its LDL factorization is exactly zero (or NaN)"));
}

/// Factors A (any expression) into a new result; `op` names the function in errors.
template <expression E>
auto ldl_factor_impl(const char* op, E&& A, bool hermitian) {
  require_no_grad(op, A);
  check_matrix_arg<E>();
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  require_square(op, A.shape());
  ldl_factor_ex_result<T, R> r{working_copy(std::forward<E>(A)), {}, {}};
  const auto& s = r.LD.shape();
  shape_t<R - 1> ps{};
  shape_t<R - 2> is{};
  for (std::size_t q = 0; q + 2 < R; ++q) ps[q] = is[q] = s[q];
  ps[R - 2] = s[R - 1];
  r.pivots = tensor<std::int32_t, R - 1>(ps);
  r.info = tensor<std::int32_t, R - 2>(is);
  ldl_factor_inplace(r.LD, r.pivots, r.info, hermitian);
  return r;
}

}  // namespace detail

/// @brief LDLᵀ factorization with Bunch-Kaufman pivoting of a symmetric matrix or batch [*, n, n]
/// (LDLᴴ of a Hermitian one when `hermitian`), without checking for a singular D
/// (torch.linalg.ldl_factor_ex). Only the lower triangle of A is read (with `hermitian`, the
/// imaginary part of its diagonal is ignored); complex symmetric input (hermitian = false) uses
/// the transpose, not the conjugate transpose. `check_errors` throws tl::linalg_error where info
/// is non-zero. Inputs that require grad are refused (tl::autograd_error): torch 1.13 defines no
/// derivative for this function.
template <expression E>
auto ldl_factor_ex(E&& A, bool hermitian = false, bool check_errors = false) {
  auto r = detail::ldl_factor_impl("ldl_factor_ex", std::forward<E>(A), hermitian);
  if (check_errors) detail::throw_on_ldl_info("ldl_factor_ex", r.info);
  return r;
}

/// @brief LDLᵀ (LDLᴴ when `hermitian`) factorization with Bunch-Kaufman pivoting
/// (torch.linalg.ldl_factor); throws tl::linalg_error naming the batch element and info when D
/// has an exactly zero (or NaN) diagonal entry. Use ldl_factor_ex to factor singular matrices.
template <expression E>
auto ldl_factor(E&& A, bool hermitian = false) {
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  auto r = detail::ldl_factor_impl("ldl_factor", std::forward<E>(A), hermitian);
  detail::throw_on_ldl_info("ldl_factor", r.info);
  return ldl_factor_result<T, R>{std::move(r.LD), std::move(r.pivots)};
}

}  // namespace tl::linalg
