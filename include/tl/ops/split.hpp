#pragma once
/// @file split.hpp
/// @brief tl::split and tl::chunk: views of consecutive pieces of a tensor along a dim.
#include <vector>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"

namespace tl {

/// @brief Splits `t` along `dim` into views of `split_size` elements each (the last may be
/// smaller), like torch.split with an integer. An empty dim gives one empty view.
///
/// @code
/// auto parts = tl::split(t, 2, 0);  // t: [5, 3]  ->  [2, 3], [2, 3], [1, 3]
/// @endcode
template <class T, class Ext>
std::vector<tensor<T, Ext::rank>> split(const basic_tensor<T, Ext>& t, index_t split_size, index_t dim = 0) {
  static_assert(Ext::rank >= 1, "tl: split needs a tensor of rank >= 1");
  const std::size_t d = detail::wrap_dim("split", dim, Ext::rank);
  const index_t n = t.shape()[d];
  if (split_size < 0)
    throw value_error(detail::cat_str("tl::split: split_size must be non-negative, got ", split_size));
  if (split_size == 0 && n != 0)
    throw value_error(detail::cat_str("tl::split: split_size can only be 0 if dim ", d,
                                      " has extent 0, but it has extent ", n));
  std::vector<tensor<T, Ext::rank>> out;
  if (n == 0) {
    out.push_back(t.narrow(static_cast<index_t>(d), 0, 0));
    return out;
  }
  for (index_t off = 0; off < n; off += split_size)
    out.push_back(t.narrow(static_cast<index_t>(d), off, std::min(split_size, n - off)));
  return out;
}

/// @brief Splits `t` along `dim` into views with the given extents, which must sum to the extent
/// of `dim` (torch.split with a list, torch.split_with_sizes).
///
/// @code
/// auto parts = tl::split(t, std::vector<tl::index_t>{1, 4}, 1);  // t: [2, 5] -> [2, 1], [2, 4]
/// @endcode
template <class T, class Ext>
std::vector<tensor<T, Ext::rank>> split(const basic_tensor<T, Ext>& t, const std::vector<index_t>& sizes,
                                        index_t dim = 0) {
  static_assert(Ext::rank >= 1, "tl: split needs a tensor of rank >= 1");
  const std::size_t d = detail::wrap_dim("split", dim, Ext::rank);
  const index_t n = t.shape()[d];
  index_t sum = 0;
  for (index_t s : sizes) {
    if (s < 0)
      throw value_error(detail::cat_str("tl::split: split sizes ", detail::shape_str(sizes.data(), sizes.size()),
                                        " contain the negative size ", s));
    sum += s;
  }
  if (sum != n)
    throw shape_error(detail::cat_str("tl::split: split sizes ", detail::shape_str(sizes.data(), sizes.size()),
                                      " sum to ", sum, " but dim ", d, " has extent ", n, " (shape ",
                                      detail::shape_str(t.shape()), ")"));
  std::vector<tensor<T, Ext::rank>> out;
  out.reserve(sizes.size());
  index_t off = 0;
  for (index_t s : sizes) {
    out.push_back(t.narrow(static_cast<index_t>(d), off, s));
    off += s;
  }
  return out;
}

/// @brief Splits `t` into at most `chunks` views along `dim`, each of extent ceil(n / chunks)
/// except possibly the last (torch.chunk; fewer chunks may come back, e.g. 6 into 4 gives 3 of 2).
///
/// @code
/// auto parts = tl::chunk(t, 3, 0);  // t: [5]  ->  [2], [2], [1]
/// @endcode
template <class T, class Ext>
std::vector<tensor<T, Ext::rank>> chunk(const basic_tensor<T, Ext>& t, index_t chunks, index_t dim = 0) {
  static_assert(Ext::rank >= 1, "tl: chunk needs a tensor of rank >= 1");
  if (chunks <= 0) throw value_error(detail::cat_str("tl::chunk: chunks must be greater than 0, got ", chunks));
  const std::size_t d = detail::wrap_dim("chunk", dim, Ext::rank);
  const index_t n = t.shape()[d];
  if (n == 0) return split(t, std::vector<index_t>(static_cast<std::size_t>(chunks), 0), static_cast<index_t>(d));
  return split(t, (n + chunks - 1) / chunks, static_cast<index_t>(d));
}

}  // namespace tl
