#pragma once
/// @file matrix_power.hpp
/// @brief tl::linalg::matrix_power: integer powers of square matrices by binary exponentiation
/// (torch.linalg.matrix_power); negative powers invert first.
///
/// @code
/// auto a3 = tl::linalg::matrix_power(a, 3);     // a a a, two products
/// auto ai2 = tl::linalg::matrix_power(a, -2);   // inv(a)^2
/// @endcode
#include <cstdint>
#include <optional>
#include <utility>

#include "tl/linalg/inv.hpp"
#include "tl/ops/matmul.hpp"

namespace tl::linalg {

/// @brief A^n for a square matrix or a batch of them (torch.linalg.matrix_power(A, n)): n = 0 gives
/// identities, n < 0 the power -n of inv(A) (a singular A throws the linalg_error of inv).
/// About 2 log2(|n|) matrix products. A non-square A throws shape_error.
template <expression E>
auto matrix_power(E&& A, std::int64_t n) {
  detail::check_matrix_arg<E>();
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  tensor<T, R> a = detail::readable(std::forward<E>(A));
  detail::require_square("matrix_power", a.shape());
  const auto& s = a.shape();
  if (n == 0) {
    tensor<T, R> r(s);
    const index_t m = s[R - 1], nb = detail::batch_count(s);
    std::fill(r.data(), r.data() + r.numel(), T(0));
    for (index_t b = 0; b < nb; ++b)
      for (index_t i = 0; i < m; ++i) r.data()[(b * m + i) * m + i] = T(1);
    return r;
  }
  if (n < 0) a = inv(a);
  // |n| without overflow for n = INT64_MIN
  std::uint64_t k = n < 0 ? std::uint64_t(0) - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  std::optional<tensor<T, R>> r;
  tensor<T, R> base = a;
  while (true) {
    if (k & 1) r = r ? tensor<T, R>(tl::matmul(*r, base)) : base;
    k >>= 1;
    if (!k) break;
    base = tensor<T, R>(tl::matmul(base, base));
  }
  // never an alias of the input (n = 1)
  if (r->storage_handle() == a.storage_handle() && n > 0) return tensor<T, R>(r->clone());
  return std::move(*r);
}

}  // namespace tl::linalg
