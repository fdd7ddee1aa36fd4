#pragma once
/// @file topk.hpp
/// @brief tl::topk: the k largest (or smallest) elements along a dim, with their indices.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/ops/detail/loops.hpp"
#include "tl/ops/detail/sort_keys.hpp"
#include "tl/ops/sort.hpp"

namespace tl {

/// @brief The `k` largest (`largest = true`) or smallest elements of `t` along `dim` and their
/// int64 indices (torch.topk). NaN counts as larger than every number. Results are always in
/// sorted order (best first), ties in index order; `sorted` is accepted for torch compatibility.
/// k must lie in [0, extent of dim].
///
/// @code
/// auto [v, i] = tl::topk(x, 2);  // x = {1, 5, 3}  ->  v = {5, 3}, i = {1, 2}
/// @endcode
template <expression E>
auto topk(E&& t, index_t k, index_t dim = -1, bool largest = true, bool sorted = true) {
  detail::require_host("topk", t);
  using D = std::remove_cvref_t<E>;
  using T = typename D::value_type;
  constexpr std::size_t R = D::rank;
  static_assert(!is_complex_v<T>, "tl: topk is not defined for complex tensors (torch raises the same)");
  (void)sorted;
  const std::size_t d = detail::wrap_dim("topk", dim, R);
  if constexpr (TL_AUTOGRAD && detail::category<T>() >= 2)
    if (detail::must_record(t))
      return detail::record_selected<sort_result<T, R>>(
          [=](const auto& x) { return tl::topk(x, k, dim, largest, sorted); }, t, d,
          [](const sort_result<T, R>& r) { return r.indices; }, "TopkBackward");
  const auto src = detail::resolved_tensor(std::forward<E>(t));
  const index_t n = R == 0 ? 1 : src.shape()[d];
  if (k < 0 || k > n)
    throw index_error(detail::cat_str("tl::topk: k = ", k, " is out of range for dim ", d, " of extent ", n,
                                      " (shape ", detail::shape_str(src.shape()), ")"));
  shape_t<R> os = src.shape();
  if constexpr (R > 0) os[d] = k;
  sort_result<T, R> r{tensor<T, R>(os), tensor<std::int64_t, R>(os)};
  T* vp = r.values.data();
  std::int64_t* ip = r.indices.data();
  detail::for_each_line(src, d, os, [&](auto& buf, index_t off, index_t ost) {
    const auto mid = buf.begin() + k;
    if (largest) std::partial_sort(buf.begin(), mid, buf.end(), detail::descending_key{});
    else std::partial_sort(buf.begin(), mid, buf.end(), detail::ascending_key{});
    for (index_t j = 0; j < k; ++j) {
      vp[off + j * ost] = buf[static_cast<std::size_t>(j)].first;
      ip[off + j * ost] = buf[static_cast<std::size_t>(j)].second;
    }
  });
  return r;
}

}  // namespace tl
