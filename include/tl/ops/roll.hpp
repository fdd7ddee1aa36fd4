#pragma once
/// @file roll.hpp
/// @brief tl::roll: rotates a tensor's elements along dims (torch.roll).
///
/// @code
/// auto r = tl::roll(t, 1, 0);            // t: [[0, 1, 2], [3, 4, 5]] -> [[3, 4, 5], [0, 1, 2]]
/// auto f = tl::roll(t, 1);               // no dims: rolls the flattened tensor -> [[5, 0, 1], [2, 3, 4]]
/// auto g = tl::roll(t, {1, -1}, {0, 1}); // one shift per dim
/// @endcode
///
/// Built from narrow views and tl::cat, so it runs on the operand's device (CPU or CUDA) and is
/// differentiable under autograd (the gradient is the opposite roll).
#include <type_traits>
#include <utility>
#include <vector>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/ops/cat.hpp"

namespace tl {
namespace detail {

template <class T, std::size_t R>
tensor<T, R> roll_impl(const char* op, tensor<T, R> x, const std::vector<index_t>& shifts,
                       const std::vector<index_t>& dims) {
  if (shifts.empty()) throw value_error(cat_str("tl::", op, ": shifts must not be empty"));
  if (dims.empty()) {
    if (shifts.size() != 1)
      throw value_error(cat_str("tl::", op, ": shifts and dims must align when dims is not given, but got ",
                                shifts.size(), " shifts and no dims"));
    if constexpr (R == 1) {
      return roll_impl<T, 1>(op, std::move(x), shifts, {0});
    } else {
      const shape_t<R> s = x.shape();
      // A rank-1 view (or copy) of the elements in row-major order, rolled, and given back its shape.
      tensor<T, 1> flat = x.reshape(shape_t<1>{x.numel()});
      return roll_impl<T, 1>(op, std::move(flat), shifts, {0}).reshape(s);
    }
  } else {
    if (shifts.size() != dims.size())
      throw value_error(cat_str("tl::", op, ": shifts and dims must align, but got ", shifts.size(),
                                " shifts and ", dims.size(), " dims"));
    bool moved = false;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const std::size_t d = wrap_dim(op, dims[i], R);
      if constexpr (R > 0) {
        const index_t n = x.shape()[d];
        if (n == 0) continue;
        const index_t s = ((shifts[i] % n) + n) % n;  // the first s output elements come from the end
        if (s == 0) continue;
        const auto di = static_cast<index_t>(d);
        x = cat({x.narrow(di, n - s, s), x.narrow(di, 0, n - s)}, di);
        moved = true;
      }
    }
    // torch.roll always returns a new tensor, never a view of its input.
    return moved ? x : x.clone();
  }
}

}  // namespace detail

/// @brief Rolls `x` by `shifts[i]` positions along `dims[i]` (torch.roll): element j moves to
/// (j + shift) mod extent. A negative shift rolls the other way; a dim may repeat (its shifts add).
/// Without dims, `shifts` must hold one value and the flattened tensor is rolled, the shape kept.
/// Errors (tl::value_error / tl::index_error, naming tl::roll): empty shifts, shifts and dims of
/// different lengths, a dim out of range. Always returns a new contiguous tensor.
template <expression E>
auto roll(E&& x, const std::vector<index_t>& shifts, const std::vector<index_t>& dims = {}) {
  using D = std::remove_cvref_t<E>;
  using T = typename D::value_type;
  return detail::roll_impl<T, D::rank>("roll", tensor<T, D::rank>(std::forward<E>(x)), shifts, dims);
}
/// @brief roll(x, shift): rolls the flattened tensor by `shift`, keeping its shape.
template <expression E>
auto roll(E&& x, index_t shift) {
  return roll(std::forward<E>(x), std::vector<index_t>{shift});
}
/// @brief roll(x, shift, dim): rolls along one dim.
template <expression E>
auto roll(E&& x, index_t shift, index_t dim) {
  return roll(std::forward<E>(x), std::vector<index_t>{shift}, std::vector<index_t>{dim});
}

}  // namespace tl
