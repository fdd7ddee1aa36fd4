#pragma once
/// @file unique.hpp
/// @brief tl::unique: the distinct elements of a flattened tensor, with inverse indices and counts.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/ops/detail/loops.hpp"
#include "tl/ops/detail/sort_keys.hpp"

namespace tl {

/// @brief What tl::unique returns. `inverse` (input's shape) and `counts` are filled only when
/// requested; otherwise they are empty (shape all zeros).
template <class T, std::size_t R>
struct unique_result {
  /// The distinct values, ascending, NaN last (each NaN is distinct, as NaN != NaN).
  tensor<T, 1> values;
  /// For each input element, the index of its value in `values` (the input's shape).
  tensor<std::int64_t, R> inverse;
  /// How often each value occurs.
  tensor<std::int64_t, 1> counts;
};

/// @brief The distinct elements of `t`, flattened (torch.unique without `dim`). The values are
/// always returned in ascending order (torch leaves the order unspecified for sorted = false).
///
/// @code
/// auto u = tl::unique(x, true, true, true);  // x = {2, 1, 2}: values {1, 2}, inverse {1, 0, 1}, counts {1, 2}
/// @endcode
template <expression E>
auto unique(E&& t, bool sorted = true, bool return_inverse = false, bool return_counts = false) {
  detail::require_host("unique", t);
  using D = std::remove_cvref_t<E>;
  using T = typename D::value_type;
  constexpr std::size_t R = D::rank;
  static_assert(!is_complex_v<T>, "tl: unique is not defined for complex tensors (torch raises the same)");
  (void)sorted;
  const auto src = detail::resolved_tensor(std::forward<E>(t));
  const index_t n = src.numel();
  std::vector<std::pair<T, std::int64_t>> buf(static_cast<std::size_t>(n));
  {
    std::array<index_t, R> ix{};
    for (index_t f = 0; f < n; ++f) {
      buf[static_cast<std::size_t>(f)] = {src.data()[detail::offset_of(ix, src.strides())], f};
      detail::next_index(src.shape(), ix);
    }
  }
  std::sort(buf.begin(), buf.end(), detail::ascending_key{});
  std::vector<T> vals;
  std::vector<std::int64_t> cnts;
  std::vector<std::int64_t> inv(return_inverse ? static_cast<std::size_t>(n) : 0);
  for (std::size_t j = 0; j < buf.size(); ++j) {
    // NaN != NaN: every NaN starts a new value, like torch.
    if (vals.empty() || !(buf[j].first == vals.back())) {
      vals.push_back(buf[j].first);
      cnts.push_back(0);
    }
    ++cnts.back();
    if (return_inverse) inv[static_cast<std::size_t>(buf[j].second)] = static_cast<std::int64_t>(vals.size()) - 1;
  }
  const index_t nu = static_cast<index_t>(vals.size());
  unique_result<T, R> r{tensor<T, 1>(shape_t<1>{nu}), tensor<std::int64_t, R>(return_inverse ? src.shape() : shape_t<R>{}),
                        tensor<std::int64_t, 1>(shape_t<1>{return_counts ? nu : 0})};
  if constexpr (R == 0) {
    if (!return_inverse) r.inverse.data()[0] = 0;
  }
  std::copy(vals.begin(), vals.end(), r.values.data());
  if (return_inverse) std::copy(inv.begin(), inv.end(), r.inverse.data());
  if (return_counts) std::copy(cnts.begin(), cnts.end(), r.counts.data());
  return r;
}

}  // namespace tl
