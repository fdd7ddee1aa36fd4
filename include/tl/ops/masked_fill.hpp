#pragma once
/// @file masked_fill.hpp
/// @brief tl::masked_fill (lazy, through tl::where) and the in-place tl::masked_fill_.
#include <type_traits>
#include <utility>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/eval/cpu/assign.hpp"
#include "tl/expr/elementwise.hpp"

namespace tl {

namespace detail {
template <class T, class S>
T masked_fill_value(const S& value) {
  static_assert(!is_complex_v<scalar_dtype_t<S>> || is_complex_v<T>,
                "tl: masked_fill cannot store a complex value in a real tensor");
  return cast_fn<T>{}(static_cast<scalar_dtype_t<S>>(value));
}
}  // namespace detail

/// @brief `value` where `mask` is true, else the elements of `t` (torch.masked_fill). Lazy: an
/// expression of t's dtype (the value is converted to it) and of the broadcast shape of t and mask.
///
/// @code
/// tl::tensor<float, 2> y = tl::masked_fill(x, x < 0.0f, 0.0f);  // relu
/// @endcode
template <expression E, expression M, scalar S>
auto masked_fill(E&& t, M&& mask, const S& value) {
  detail::require_host("masked_fill", t);
  detail::require_host("masked_fill", mask);
  using T = typename std::remove_cvref_t<E>::value_type;
  static_assert(std::is_same_v<typename std::remove_cvref_t<M>::value_type, bool>,
                "tl: masked_fill needs a bool mask (torch raises the same); compare first, e.g. x > 0");
  detail::broadcast_shapes("masked_fill", t.shape(), mask.shape());
  return tl::where(std::forward<M>(mask), detail::masked_fill_value<T>(value), std::forward<E>(t));
}

/// @brief Sets the elements of `t` where `mask` (broadcast to t's shape) is true to `value`, in
/// place (torch's Tensor.masked_fill_). Returns `t`.
///
/// @code
/// tl::masked_fill_(x, x != x, 0.0f);  // NaN -> 0
/// @endcode
template <class T, class Ext, expression M, scalar S>
const basic_tensor<T, Ext>& masked_fill_(const basic_tensor<T, Ext>& t, M&& mask, const S& value) {
  static_assert(std::is_same_v<typename std::remove_cvref_t<M>::value_type, bool>,
                "tl: masked_fill_ needs a bool mask (torch raises the same); compare first, e.g. x > 0");
  static_assert(std::remove_cvref_t<M>::rank <= Ext::rank,
                "tl: masked_fill_: the mask has a higher rank than the tensor, so it cannot broadcast to it");
  const auto ms = mask.shape();
  if (detail::broadcast_shapes("masked_fill_", ms, t.shape()) != t.shape())
    throw shape_error(detail::cat_str("tl::masked_fill_: a mask of shape ", detail::shape_str(ms),
                                      " cannot be broadcast to the tensor's shape ", detail::shape_str(t.shape())));
  t.copy_(tl::where(std::forward<M>(mask), detail::masked_fill_value<T>(value), t));
  return t;
}

}  // namespace tl
