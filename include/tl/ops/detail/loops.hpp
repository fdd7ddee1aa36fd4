#pragma once
/// @file loops.hpp
/// @brief Internal header: multi-index helpers and parallel ranges shared by the materializing ops.
#include <algorithm>
#include <array>
#include <type_traits>
#include <utility>

#include "tl/core/tensor.hpp"
#include "tl/eval/cpu/assign.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/expr/elementwise.hpp"

namespace tl::detail {

/// Row-major unravel of `flat` over `shape` into `idx`.
template <std::size_t R>
inline void unravel(const shape_t<R>& shape, index_t flat, std::array<index_t, R>& idx) {
  for (std::size_t k = R; k-- > 0;) {
    const index_t e = shape[k] > 0 ? shape[k] : 1;
    idx[k] = flat % e;
    flat /= e;
  }
}

/// Advances `idx` to the next row-major index over `shape` (an odometer).
template <std::size_t R>
inline void next_index(const shape_t<R>& shape, std::array<index_t, R>& idx) {
  for (std::size_t k = R; k-- > 0;) {
    if (++idx[k] < shape[k]) return;
    idx[k] = 0;
  }
}

/// Dot product of an index with strides: the element offset.
template <std::size_t R>
inline index_t offset_of(const std::array<index_t, R>& idx, const shape_t<R>& strides) {
  index_t off = 0;
  for (std::size_t k = 0; k < R; ++k) off += idx[k] * strides[k];
  return off;
}

/// Runs f(lo, hi) over [0, n) in pieces of `grain` items on the thread pool.
template <class F>
void parallel_ranges(index_t n, index_t grain, F&& f) {
  if (n <= 0) return;
  grain = std::max<index_t>(1, grain);
  const index_t ntask = (n + grain - 1) / grain;
  thread_pool::instance().parallel_for(ntask, [&](index_t t) {
    const index_t lo = t * grain;
    f(lo, std::min(n, lo + grain));
  });
}

/// The expression `e` as a tensor whose elements can be read through its strides (no lazy
/// conjugate): tensors are returned as they are (a view), expressions are evaluated once. For the
/// ops that read elements; autograd code evaluates with detail::materialize, which keeps a lazy
/// conjugate view and its gradient link.
template <expression E>
auto resolved_tensor(E&& e) {
  using D = std::remove_cvref_t<E>;
  using T = typename D::value_type;
  if constexpr (is_tensor_v<D>) {
    tensor<T, D::rank> t(e);
    if (t.is_conj()) return t.resolve_conj();
    return t;
  } else {
    return tensor<T, D::rank>(e);
  }
}

// Autograd hooks for the selecting ops (defined in tl/autograd/detail/index_ops.hpp): the result
// `fwd(x)` (values at positions of x) and the int64 positions along dim d, as a tensor shaped
// like the values, made by `index_of(result)`.
template <class Res, class F, class E, class Idx>
Res record_selected(F fwd, const E& e, std::size_t d, Idx index_of, const char* name);
// scatter / scatter_add (Add) of src (a tensor expression or a scalar) into a copy of e, recorded
// (defined in tl/autograd/detail/index_ops.hpp).
template <bool Add, class E, class I, class Src>
auto record_scatter(const E& e, index_t dim, const I& index, const Src& src);

/// Reads an integer index tensor (int32 or int64, any layout) into a contiguous int64 tensor.
template <expression E>
auto index_as_int64(E&& e) {
  using D = std::remove_cvref_t<E>;
  using I = typename D::value_type;
  static_assert(std::is_same_v<I, std::int64_t> || std::is_same_v<I, std::int32_t>,
                "tl: an index tensor must have dtype int64 or int32");
  if constexpr (std::is_same_v<I, std::int64_t> && is_tensor_v<D>) {
    return tensor<std::int64_t, D::rank>(e).contiguous();
  } else {
    return tensor<std::int64_t, D::rank>(astype<std::int64_t>(std::forward<E>(e)));
  }
}

}  // namespace tl::detail
