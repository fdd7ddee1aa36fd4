#pragma once
/// @file sort.hpp
/// @brief tl::sort and tl::argsort along a dim (NaN last in ascending order, first in descending).
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/eval/device_ops.hpp"
#include "tl/ops/detail/loops.hpp"
#include "tl/ops/detail/sort_keys.hpp"

#if defined(__CUDACC__)
#include "tl/eval/cuda/sort.cuh"
#endif

namespace tl {
namespace detail {
/// Sorts `src` (on a CUDA device) along dim d into the contiguous values and indices of `r`, with
/// CUB's radix sort (tl/eval/cuda/sort.cuh).
template <class T, class Ext, class Res>
void run_sort_on_device(const basic_tensor<T, Ext>& src, std::size_t d, bool descending, Res& r) {
  constexpr std::size_t R = Ext::rank;
#if defined(__CUDACC__)
  register_cuda_sort<T, R>();
#endif
  require_device_slot<cuda_sort_key<T, R>, cuda_sort_fn<T, R>>("sort")(src.data(), src.shape(), src.strides(), d,
                                                                      descending, r.values.data(),
                                                                      r.indices.data(), src.device().index());
}
}  // namespace detail

/// @brief What tl::sort and tl::topk return (torch.return_types.sort / topk): the values and their
/// int64 indices along the dim.
template <class T, std::size_t R>
struct sort_result {
  tensor<T, R> values;
  tensor<std::int64_t, R> indices;
};

/// @brief Sorts `t` along `dim` (torch.sort): returns {values, indices}. NaN sorts after every
/// number in ascending order and before every number in descending order. Equal elements keep
/// their order, so the result is always stable (`stable` is accepted for torch compatibility).
/// Lines along `dim` are sorted in parallel; on a CUDA device with CUB's (segmented) radix sort.
///
/// @code
/// auto [v, i] = tl::sort(x, -1, /*descending=*/true);
/// @endcode
template <expression E>
auto sort(E&& t, index_t dim = -1, bool descending = false, bool stable = false) {
  using D = std::remove_cvref_t<E>;
  using T = typename D::value_type;
  constexpr std::size_t R = D::rank;
  static_assert(!is_complex_v<T>, "tl: sort is not defined for complex tensors (torch raises the same)");
  (void)stable;
  const std::size_t d = detail::wrap_dim("sort", dim, R);
  if constexpr (TL_AUTOGRAD && detail::category<T>() >= 2)
    if (detail::must_record(t))
      return detail::record_selected<sort_result<T, R>>(
          [=](const auto& x) { return tl::sort(x, dim, descending, stable); }, t, d,
          [](const sort_result<T, R>& r) { return r.indices; }, "SortBackward");
  const auto src = detail::resolved_tensor(std::forward<E>(t));
  sort_result<T, R> r{tensor<T, R>(src.shape(), src.device()), tensor<std::int64_t, R>(src.shape(), src.device())};
  if (src.is_cuda()) {
    if (src.numel() > 0) detail::run_sort_on_device(src, d, descending, r);
    return r;
  }
  T* vp = r.values.data();
  std::int64_t* ip = r.indices.data();
  detail::for_each_line(src, d, src.shape(), [&](auto& buf, index_t off, index_t os) {
    if (descending) std::sort(buf.begin(), buf.end(), detail::descending_key{});
    else std::sort(buf.begin(), buf.end(), detail::ascending_key{});
    for (std::size_t j = 0; j < buf.size(); ++j) {
      vp[off + static_cast<index_t>(j) * os] = buf[j].first;
      ip[off + static_cast<index_t>(j) * os] = buf[j].second;
    }
  });
  return r;
}

/// @brief The int64 indices that sort `t` along `dim` (torch.argsort); same order as tl::sort.
///
/// @code
/// auto order = tl::argsort(x);  // x = {3, 1, 2}  ->  {1, 2, 0}
/// @endcode
template <expression E>
tensor<std::int64_t, std::remove_cvref_t<E>::rank> argsort(E&& t, index_t dim = -1, bool descending = false,
                                                           bool stable = false) {
  return sort(std::forward<E>(t), dim, descending, stable).indices;
}

}  // namespace tl
