#pragma once
/// @file inv.hpp
/// @brief tl::linalg::inv and inv_ex: the inverse of square matrices by LU with partial pivoting
/// (torch.linalg.inv / inv_ex).
///
/// @code
/// auto ai = tl::linalg::inv(a);                  // a: [*, n, n]
/// auto [ai2, info] = tl::linalg::inv_ex(a);      // never throws for a singular a
/// @endcode
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/lu_factor.hpp"
#include "tl/linalg/lu_solve.hpp"
#include "tl/linalg/solve.hpp"

namespace tl::linalg {

/// @brief inv_ex's result: the inverse and info (int32, the batch shape; 0, or the 1-based index
/// of the first zero pivot of the LU factorization).
template <class T, std::size_t R>
struct inv_ex_result {
  tensor<T, R> inverse;
  tensor<std::int32_t, R - 2> info;
};

namespace detail {
template <bool Throw, expression E>
auto inv_impl(const char* op, E&& A) {
  check_matrix_arg<E>();
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if (tl::detail::expression_device(A).is_cuda()) {
    // On cuSOLVER: solve(A, I) (getrf, then getrs on the identity).
    const tensor<T, R> a(A);
    require_square(op, a.shape());
    const auto id = tl::eye<T>(a.shape()[R - 1], a.shape()[R - 1]).to(a.device()).expand(a.shape());
    auto r = device_solve<Throw, T, R, R>(op, a, id, true);
    return inv_ex_result<T, R>{std::move(r.result), std::move(r.info)};
  }
  if constexpr (records_grad<T>())
    if (tl::detail::must_record(A)) return record_inv<Throw>(op, A);
  auto lu = working_copy(std::forward<E>(A));
  const auto& s = lu.shape();
  require_square(op, s);
  const index_t n = s[R - 1];
  batch_bcast<R - 2> bc;
  for (std::size_t q = 0; q + 2 < R; ++q) {
    bc.shape[q] = s[q];
    bc.astr[q] = lu.strides()[q];
  }
  auto [piv, info] = factor_square(lu);
  if constexpr (Throw) throw_on_info(op, info, "the input matrix is singular");
  std::vector<index_t> ipiv(static_cast<std::size_t>(piv.numel()));
  for (index_t i = 0; i < piv.numel(); ++i) ipiv[static_cast<std::size_t>(i)] = piv.data()[i] - 1;
  tensor<T, R> x(s);
  const index_t nb = batch_count(s);
  std::fill(x.data(), x.data() + x.numel(), T(0));
  for (index_t b = 0; b < nb; ++b)
    for (index_t i = 0; i < n; ++i) x.data()[b * n * n + i * n + i] = T(1);
  lu_solve_inplace(lu.data(), ipiv.data(), n, bc, x.data(), n, true, false);
  return inv_ex_result<T, R>{std::move(x), std::move(info)};
}
}  // namespace detail

/// @brief The inverse of a square matrix or a batch of them (torch.linalg.inv). Throws
/// tl::linalg_error naming the batch element and the zero pivot for a singular matrix.
template <expression E>
auto inv(E&& A) {
  return detail::inv_impl<true>("inv", std::forward<E>(A)).inverse;
}

/// @brief As inv, but a singular matrix is reported in `info` instead of thrown (unless
/// `check_errors`); its "inverse" then holds infinities or NaNs (torch.linalg.inv_ex).
template <expression E>
auto inv_ex(E&& A, bool check_errors = false) {
  if (check_errors) return detail::inv_impl<true>("inv_ex", std::forward<E>(A));
  return detail::inv_impl<false>("inv_ex", std::forward<E>(A));
}

}  // namespace tl::linalg
