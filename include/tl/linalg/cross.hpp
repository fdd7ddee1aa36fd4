#pragma once
/// @file cross.hpp
/// @brief tl::linalg::cross: the cross product of 3-vectors along a dim (torch.linalg.cross),
/// with broadcasting over the other dims.
///
/// @code
/// auto c = tl::linalg::cross(a, b);         // a, b: [*, 3] -> [*, 3]
/// @endcode
#include <type_traits>
#include <utility>

#include "tl/linalg/detail/batch.hpp"
#include "tl/ops/cat.hpp"

namespace tl::linalg {

/// @brief a x b along `dim` (torch.linalg.cross(a, b, dim=-1)): a and b have the same rank and
/// dtype (any arithmetic or complex dtype; no conjugation), extent 3 along `dim` (else
/// shape_error), the other dims broadcast. Differentiable in both inputs.
template <expression A, expression B>
auto cross(A&& a, B&& b, index_t dim = -1) {
  using T = detail::value_of_t<A>;
  constexpr std::size_t R = std::remove_cvref_t<A>::rank;
  static_assert(std::is_same_v<T, detail::value_of_t<B>>,
                "tl: linalg::cross expects a and b of the same dtype (as torch); convert one with tl::astype");
  static_assert(R == std::remove_cvref_t<B>::rank,
                "tl: linalg::cross: inputs must have the same number of dimensions (as in torch)");
  static_assert(R >= 1, "tl: linalg::cross takes tensors of rank >= 1");
  const tensor<T, R> x(std::forward<A>(a));
  const tensor<T, R> y(std::forward<B>(b));
  const std::size_t d = tl::detail::wrap_dim("linalg::cross", dim, R);
  if (x.shape()[d] != 3 || y.shape()[d] != 3)
    throw shape_error(detail::cat_str("tl::linalg::cross: inputs dimension ", dim, " must have length 3, got ",
                                      x.shape()[d], " and ", y.shape()[d], " (shapes ", detail::shape_str(x.shape()),
                                      " and ", detail::shape_str(y.shape()), ")"));
  const auto s = tl::detail::broadcast_shapes("linalg::cross", x.shape(), y.shape());
  const auto xe = x.expand(s);
  const auto ye = y.expand(s);
  const auto i = static_cast<index_t>(d);
  auto c = [&](index_t k) { return xe.select(i, k); };
  auto e = [&](index_t k) { return ye.select(i, k); };
  // Three fused component expressions stacked along dim: differentiable (through select,
  // the elementwise products and stack) and on the inputs' device.
  using part = tensor<T, R - 1>;
  return tl::stack({part(c(1) * e(2) - c(2) * e(1)), part(c(2) * e(0) - c(0) * e(2)), part(c(0) * e(1) - c(1) * e(0))},
                   i);
}

}  // namespace tl::linalg
