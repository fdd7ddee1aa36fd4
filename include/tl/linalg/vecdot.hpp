#pragma once
/// @file vecdot.hpp
/// @brief tl::linalg::vecdot: the dot product of vectors along a dim, conjugating the first
/// argument (torch.linalg.vecdot), with broadcasting over the other dims.
///
/// @code
/// auto d = tl::linalg::vecdot(x, y);        // x: [*, n], y: [*, n] -> [*]: sum conj(x) * y
/// auto e = tl::linalg::vecdot(x, y, 0);     // along dim 0 of the broadcast shape
/// @endcode
#include <type_traits>
#include <utility>

#include "tl/expr/elementwise.hpp"
#include "tl/linalg/detail/batch.hpp"
#include "tl/reduce/sum.hpp"

namespace tl::linalg {

/// @brief sum over `dim` of conj(x) * y, x and y broadcast together (torch.linalg.vecdot(x, y,
/// dim=-1)). Same dtype required (float, double, complex); the result has rank max(Rx, Ry) - 1.
/// Shapes that do not broadcast throw shape_error; a dim out of range throws index_error.
template <expression X, expression Y>
auto vecdot(X&& x, Y&& y, index_t dim = -1) {
  using T = detail::value_of_t<X>;
  static_assert(std::is_same_v<T, detail::value_of_t<Y>>,
                "tl: linalg::vecdot expects x and y of the same dtype (as torch); convert one with tl::astype");
  static_assert(std::is_floating_point_v<T> || is_complex_v<T>,
                "tl: linalg::vecdot takes float, double or complex tensors");
  static_assert(std::remove_cvref_t<X>::rank >= 1 && std::remove_cvref_t<Y>::rank >= 1,
                "tl: linalg::vecdot takes tensors of rank >= 1");
  const auto xs = x.shape();
  const auto ys = y.shape();
  constexpr std::size_t R = std::max(std::remove_cvref_t<X>::rank, std::remove_cvref_t<Y>::rank);
  (void)tl::detail::broadcast_shapes("linalg::vecdot", xs, ys);
  (void)tl::detail::wrap_dim("linalg::vecdot", dim, R);
  return tensor<T, R - 1>(tl::sum(tl::conj(std::forward<X>(x)) * std::forward<Y>(y), dim));
}

}  // namespace tl::linalg
