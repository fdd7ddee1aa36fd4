#pragma once
/// @file tensorinv.hpp
/// @brief tl::linalg::tensorinv: the inverse of a tensor as a linear map between its first `ind`
/// dims and the rest (torch.linalg.tensorinv).
///
/// @code
/// auto ai = tl::linalg::tensorinv(a, 2);   // a: [4, 6, 8, 3] -> [8, 3, 4, 6]
/// @endcode
#include <cstdint>
#include <utility>

#include "tl/linalg/inv.hpp"

namespace tl::linalg {

/// @brief The tensor X of shape A.shape[ind:] + A.shape[:ind] with tensordot(A, X, ind) = I
/// (torch.linalg.tensorinv(A, ind=2)): the inverse of A reshaped to a prod(A.shape[:ind]) square
/// matrix. ind must be positive (value_error) and the two products equal (shape_error); a
/// singular A throws linalg_error.
template <expression E>
auto tensorinv(E&& A, index_t ind = 2) {
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  static_assert(detail::gemm_type_v<T>, "tl: linalg::tensorinv takes float, double or complex tensors");
  static_assert(R >= 1, "tl: linalg::tensorinv takes a tensor of rank >= 1");
  if (ind <= 0)
    throw value_error(detail::cat_str("tl::linalg::tensorinv: expected a strictly positive integer for 'ind', got ", ind));
  const tensor<T, R> a = detail::readable(std::forward<E>(A));
  const auto& s = a.shape();
  const std::size_t k = static_cast<std::size_t>(std::min<index_t>(ind, static_cast<index_t>(R)));
  index_t lead = 1, rest = 1;
  shape_t<R> os{};
  for (std::size_t q = 0; q < R; ++q) (q < k ? lead : rest) *= s[q];
  for (std::size_t q = 0; q < R; ++q) os[q] = q + k < R ? s[q + k] : s[q + k - R];
  if (lead != rest)
    throw shape_error(detail::cat_str("tl::linalg::tensorinv: expected prod(A.shape[ind:]) == prod(A.shape[:ind]) for "
                                      "A of shape ", detail::shape_str(s), " and ind = ", ind, ", got ", rest, " != ",
                                      lead));
  const tensor<T, 2> m = a.reshape(shape_t<2>{lead, rest});
  const tensor<T, 2> mi = [&] {
    if constexpr (detail::records_grad<T>())
      if (tl::detail::must_record(m)) return detail::record_inv<true>("tensorinv", m).inverse;
    return detail::inv_impl<true>("tensorinv", m).inverse;
  }();
  return tensor<T, R>(mi.reshape(os));
}

}  // namespace tl::linalg
