#pragma once
/// @file sort_keys.hpp
/// @brief Internal header: NaN-aware orderings used by sort, topk and unique, and a per-line driver.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "tl/core/tensor.hpp"
#include "tl/ops/detail/loops.hpp"

namespace tl::detail {

template <class T>
TL_INLINE bool is_nan_key(const T& v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return (void)v, false;
}

/// Ascending order with NaN after everything (torch's sort); ties broken by the original index,
/// which makes every sort stable.
struct ascending_key {
  template <class T>
  TL_INLINE bool operator()(const std::pair<T, std::int64_t>& a, const std::pair<T, std::int64_t>& b) const {
    const bool na = is_nan_key(a.first), nb = is_nan_key(b.first);
    if (na || nb) return (na == nb) ? a.second < b.second : nb;
    if (a.first < b.first) return true;
    if (b.first < a.first) return false;
    return a.second < b.second;
  }
};
/// Descending order with NaN before everything; ties broken by the original index.
struct descending_key {
  template <class T>
  TL_INLINE bool operator()(const std::pair<T, std::int64_t>& a, const std::pair<T, std::int64_t>& b) const {
    const bool na = is_nan_key(a.first), nb = is_nan_key(b.first);
    if (na || nb) return (na == nb) ? a.second < b.second : na;
    if (b.first < a.first) return true;
    if (a.first < b.first) return false;
    return a.second < b.second;
  }
};

/// Calls body(buf, src_line, src_stride, out_line_index) for every line of `src` along dim `d`,
/// lines spread over the thread pool; `buf` is a per-task scratch vector of (value, index) pairs
/// already filled with the line's elements. `oshape` is the output shape (same as src's except
/// along d), outputs are contiguous: the body gets the output offset of the line's first element
/// and the output stride along d.
template <class T, class Ext, class Body>
void for_each_line(const basic_tensor<T, Ext>& src, std::size_t d, const shape_t<Ext::rank>& oshape, Body&& body) {
  constexpr std::size_t R = Ext::rank;
  const auto& sh = src.shape();
  if (detail::numel(sh) == 0 || detail::numel(oshape) == 0) return;
  const index_t n = R == 0 ? 1 : sh[d];
  shape_t<R> lshape = sh;
  if constexpr (R > 0) lshape[d] = 1;
  const index_t lines = detail::numel(lshape);
  const shape_t<R> ost = contiguous_strides(oshape);
  const index_t sstride = R == 0 ? 0 : src.strides()[d];
  const index_t ostride = R == 0 ? 0 : ost[d];
  const T* sp = src.data();
  const index_t grain = std::max<index_t>(1, (parallel_chunk / 4) / std::max<index_t>(n, 1));
  parallel_ranges(lines, grain, [&](index_t lo, index_t hi) {
    std::vector<std::pair<T, std::int64_t>> buf(static_cast<std::size_t>(n));
    std::array<index_t, R> ix{};
    unravel(lshape, lo, ix);
    for (index_t l = lo; l < hi; ++l) {
      const T* s = sp + offset_of(ix, src.strides());
      for (index_t j = 0; j < n; ++j) buf[static_cast<std::size_t>(j)] = {s[j * sstride], j};
      body(buf, offset_of(ix, ost), ostride);
      next_index(lshape, ix);
    }
  });
}

}  // namespace tl::detail
