#pragma once
/// @file cumulative.hpp
/// @brief tl::cumsum and tl::cumprod along a dim (same shape as the input; torch semantics).
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tl/eval/cpu/assign.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/eval/device_ops.hpp"
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

#if defined(__CUDACC__)
#include "tl/eval/cuda/scan.cuh"
#endif

namespace tl {
namespace detail {

/// Running accumulator of a scan: float accumulates in double (as torch's CPU kernels do).
template <class S>
using scan_acc_t = std::conditional_t<std::is_same_v<S, float>, double,
                                      std::conditional_t<std::is_same_v<S, complex<float>>, complex<double>, S>>;

/// The scan of a node on CUDA device `dev` into the contiguous `out` (tl/eval/cuda/scan.cuh).
template <bool IsProd, class N, class S>
void run_scan_on_device(const N& node, std::size_t d, S* out, tl::device dev) {
#if defined(__CUDACC__)
  register_cuda_scan<IsProd, N, S, scan_acc_t<S>>();
#endif
  require_device_slot<cuda_scan_key<IsProd, N, S>, cuda_scan_fn<N, S>>(IsProd ? "cumprod" : "cumsum")(node, d, out,
                                                                                                     dev.index());
}

template <bool IsProd, class E>
auto scan_impl(const char* op, E&& e, index_t dim) {
  using V = value_of<E>;
  using S = sum_type_t<V>;
  using Acc = scan_acc_t<S>;
  constexpr std::size_t R = rank_of<E>;
  static_assert(R >= 1, "tl: cumsum/cumprod need an expression of rank >= 1");
  auto node = to_node(std::forward<E>(e));
  const std::size_t d = wrap_dim(op, dim, R);
  const auto s = node.shape();
  const tl::device dev = expression_device(node);
  tensor<S, R> out(s, dev);
  if (out.numel() == 0) return out;
  if (dev.is_cuda()) {
    run_scan_on_device<IsProd>(node, d, out.data(), dev);
    return out;
  }
  auto bn = node.bcast(s);
  const auto st = out.strides();
  S* od = out.data();
  const index_t inner = s[R - 1];
  auto step = [](const Acc& a, const Acc& x) {
    if constexpr (IsProd) return a * x;
    else return a + x;
  };
  const Acc init = IsProd ? Acc(1) : Acc(0);
  // Lines: every index of the dims other than d and the last dim.
  index_t nlines = 1;
  for (std::size_t k = 0; k + 1 < R; ++k)
    if (k != d) nlines *= s[k];
  // `R == 1 ||`: the scanned dim is the last one; says so at compile time (no -Warray-bounds on s[d]).
  const bool along_last = R == 1 || d == R - 1;
  const index_t per_line = along_last ? inner : s[d] * inner;
  const index_t per_task = std::max<index_t>(1, parallel_chunk / std::max<index_t>(1, per_line));
  thread_pool::instance().parallel_for((nlines + per_task - 1) / per_task, [&](index_t t) {
    std::array<index_t, R> idx{};
    std::vector<Acc> acc(along_last ? 0 : static_cast<std::size_t>(inner));
    const index_t l1 = std::min(nlines, (t + 1) * per_task);
    for (index_t l = t * per_task; l < l1; ++l) {
      index_t rem = l;
      for (std::size_t k = R - 1; k-- > 0;) {
        if (k == d) continue;
        idx[k] = rem % s[k];
        rem /= s[k];
      }
      if (along_last) {
        const auto row = bn.row(idx.data());
        index_t off = 0;
        for (std::size_t k = 0; k + 1 < R; ++k) off += idx[k] * st[k];
        Acc a = init;
        for (index_t j = 0; j < inner; ++j) {
          a = step(a, cast_fn<Acc>{}(row.get(j)));
          od[off + j] = cast_fn<S>{}(a);
        }
      } else {
        std::fill(acc.begin(), acc.end(), init);
        for (index_t i = 0; i < s[d]; ++i) {
          idx[d] = i;
          const auto row = bn.row(idx.data());
          index_t off = 0;
          for (std::size_t k = 0; k + 1 < R; ++k) off += idx[k] * st[k];
          for (index_t j = 0; j < inner; ++j) {
            acc[j] = step(acc[j], cast_fn<Acc>{}(row.get(j)));
            od[off + j] = cast_fn<S>{}(acc[j]);
          }
        }
      }
    }
  });
  return out;
}
}  // namespace detail

/// @brief Cumulative sum along `dim` (torch.cumsum); bool and integers give int64, float accumulates in double.
/// @code
/// tl::tensor<float, 2> c = tl::cumsum(x, -1);
/// @endcode
template <expression E>
auto cumsum(E&& e, index_t dim) {
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      return detail::record_dim_op<detail::dim_kind::cumsum>([=](const auto& x) { return tl::cumsum(x, dim); }, e, dim);
  return detail::scan_impl<false>("cumsum", std::forward<E>(e), dim);
}
/// @brief Cumulative product along `dim` (torch.cumprod); bool and integers give int64.
template <expression E>
auto cumprod(E&& e, index_t dim) {
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      return detail::record_dim_op<detail::dim_kind::cumprod>([=](const auto& x) { return tl::cumprod(x, dim); }, e, dim);
  return detail::scan_impl<true>("cumprod", std::forward<E>(e), dim);
}

}  // namespace tl
