#pragma once
/// @file cat.hpp
/// @brief tl::cat and tl::stack: join tensors of one dtype and rank along a (new) dim.
#include <initializer_list>
#include <vector>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/eval/cpu/assign.hpp"

namespace tl {

namespace detail {
// Records cat for autograd (defined in tl/autograd/detail/list_ops.hpp).
template <class T, class Ext>
void record_cat(tensor<T, Ext::rank>& out, const basic_tensor<T, Ext>* ts, std::size_t count, std::size_t d);

template <class T, class Ext>
tensor<T, Ext::rank> cat_impl(const char* op, const basic_tensor<T, Ext>* ts, std::size_t count, index_t dim) {
  constexpr std::size_t R = Ext::rank;
  if (count == 0) throw value_error(cat_str("tl::", op, ": expected a non-empty list of tensors"));
  const std::size_t d = wrap_dim(op, dim, R);
  if constexpr (TL_AUTOGRAD && category<T>() >= 2) {
    bool rg = false;
    for (std::size_t i = 0; i < count; ++i) rg = rg || ts[i].requires_grad();
    if (rg && is_grad_enabled()) {
      tensor<T, R> out = [&] {
        no_grad guard;
        return cat_impl(op, ts, count, dim);
      }();
      record_cat(out, ts, count, d);
      return out;
    }
  }
  shape_t<R> out_shape = ts[0].shape();
  out_shape[d] = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const auto& s = ts[i].shape();
    for (std::size_t k = 0; k < R; ++k)
      if (k != d && s[k] != ts[0].shape()[k])
        throw shape_error(cat_str("tl::", op, ": tensor ", i, " has shape ", shape_str(s), " but tensor 0 has shape ",
                                  shape_str(ts[0].shape()), "; all extents except dim ", d, " must match (extent ",
                                  s[k], " vs ", ts[0].shape()[k], " at dim ", k, ")"));
    out_shape[d] += s[d];
    check_same_device(op, ts[0].device(), ts[i].device());
  }
  tensor<T, R> out(out_shape, ts[0].device());
  index_t off = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const index_t n = ts[i].shape()[d];
    if (n > 0) out.narrow(static_cast<index_t>(d), off, n).copy_(ts[i]);
    off += n;
  }
  return out;
}

template <class T, class Ext>
tensor<T, Ext::rank + 1> stack_impl(const basic_tensor<T, Ext>* ts, std::size_t count, index_t dim) {
  constexpr std::size_t R = Ext::rank;
  if (count == 0) throw value_error("tl::stack: expected a non-empty list of tensors");
  const std::size_t d = wrap_dim("stack", dim, R + 1);
  for (std::size_t i = 1; i < count; ++i)
    if (ts[i].shape() != ts[0].shape())
      throw shape_error(cat_str("tl::stack: every tensor must have the same shape, but tensor 0 has shape ",
                                shape_str(ts[0].shape()), " and tensor ", i, " has shape ", shape_str(ts[i].shape())));
  std::vector<tensor<T, R + 1>> parts;
  parts.reserve(count);
  for (std::size_t i = 0; i < count; ++i) parts.push_back(ts[i].unsqueeze(static_cast<index_t>(d)));
  return cat_impl("stack", parts.data(), count, static_cast<index_t>(d));
}
}  // namespace detail

/// @brief Concatenates tensors of the same dtype and rank along `dim` (torch.cat); every other
/// extent must match. Inputs may be non-contiguous views; the result is a new contiguous tensor on
/// the inputs' device (they must share one).
///
/// @code
/// auto c = tl::cat({a, b}, -1);   // a: [2, 3], b: [2, 4]  ->  [2, 7]
/// @endcode
template <class T, class Ext>
tensor<T, Ext::rank> cat(const std::vector<basic_tensor<T, Ext>>& tensors, index_t dim = 0) {
  static_assert(Ext::rank >= 1, "tl: cat needs tensors of rank >= 1 (zero-dim tensors cannot be concatenated; use stack)");
  return detail::cat_impl("cat", tensors.data(), tensors.size(), dim);
}
/// @brief cat over a braced list: `tl::cat({a, b, c}, 0)`.
template <class T, class Ext>
tensor<T, Ext::rank> cat(std::initializer_list<basic_tensor<T, Ext>> tensors, index_t dim = 0) {
  static_assert(Ext::rank >= 1, "tl: cat needs tensors of rank >= 1 (zero-dim tensors cannot be concatenated; use stack)");
  return detail::cat_impl("cat", tensors.begin(), tensors.size(), dim);
}

/// @brief Stacks tensors of identical shape along a new dim `dim` in [-rank-1, rank] (torch.stack).
///
/// @code
/// auto s = tl::stack({a, b}, 1);  // a, b: [2, 3]  ->  [2, 2, 3]
/// @endcode
template <class T, class Ext>
tensor<T, Ext::rank + 1> stack(const std::vector<basic_tensor<T, Ext>>& tensors, index_t dim = 0) {
  return detail::stack_impl(tensors.data(), tensors.size(), dim);
}
/// @brief stack over a braced list: `tl::stack({a, b}, 0)`.
template <class T, class Ext>
tensor<T, Ext::rank + 1> stack(std::initializer_list<basic_tensor<T, Ext>> tensors, index_t dim = 0) {
  return detail::stack_impl(tensors.begin(), tensors.size(), dim);
}

}  // namespace tl
