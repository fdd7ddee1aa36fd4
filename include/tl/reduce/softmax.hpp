#pragma once
/// @file softmax.hpp
/// @brief tl::softmax and tl::log_softmax along a dim (numerically stable, torch semantics).
///
/// Along the last dim each row is processed in place in the output: a max pass, an exp(x - max)
/// pass that also sums (xsimd packets), and a scaling pass. Along other dims the same steps run as
/// fused reductions and one fused assignment. On a CUDA device one fused kernel does all three
/// steps (tl/eval/cuda/softmax.cuh). A row of all -inf gives NaN (as torch), NaN propagates.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "tl/eval/cpu/assign.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/eval/device_ops.hpp"
#include "tl/expr/elementwise.hpp"
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

#if defined(__CUDACC__)
#include "tl/eval/cuda/softmax.cuh"
#endif

namespace tl {
namespace detail {

/// softmax / log_softmax of a node on CUDA device `dev` into the contiguous `out`: one fused kernel
/// (tl/eval/cuda/softmax.cuh).
template <bool Log, class N, class V>
void run_softmax_on_device(const N& node, std::size_t d, V* out, tl::device dev) {
#if defined(__CUDACC__)
  register_cuda_softmax<Log, N, V>();
#endif
  require_device_slot<cuda_softmax_key<Log, N, V>, cuda_softmax_fn<N, V>>(Log ? "log_softmax" : "softmax")(
      node, d, out, dev.index());
}

/// One row of length n: reads the row accessor, writes softmax (or log_softmax) to out[0, n).
template <bool Log, bool Simd, class Row, class T>
void softmax_row(const Row& row, index_t n, T* out) {
  extreme_reducer<T, true> mx;
  T m = mx.init();
  index_t j = 0;
  if constexpr (Simd) {
    using B = batch_t<T>;
    constexpr index_t W = static_cast<index_t>(B::size);
    B pm = B(m);
    for (; j + W <= n; j += W) pm = mx.pcombine(pm, row.template packet<B>(j));
    m = mx.hreduce(pm);
  }
  for (; j < n; ++j) m = mx.combine(m, static_cast<T>(row.get(j)));
  T sum = 0;
  j = 0;
  if constexpr (Simd) {
    using B = batch_t<T>;
    constexpr index_t W = static_cast<index_t>(B::size);
    const B bm(m);
    B acc(T(0));
    for (; j + W <= n; j += W) {
      const B x = row.template packet<B>(j) - bm;
      const B ex = fmath::vexp(x);
      acc += ex;
      (Log ? x : ex).store_unaligned(out + j);
    }
    sum = xsimd::hadd(acc);
  }
  for (; j < n; ++j) {
    const T x = static_cast<T>(row.get(j)) - m;
    const T ex = std::exp(x);
    sum += ex;
    out[j] = Log ? x : ex;
  }
  if constexpr (Log) {
    const T ls = std::log(sum);
    j = 0;
    if constexpr (Simd) {
      using B = batch_t<T>;
      constexpr index_t W = static_cast<index_t>(B::size);
      for (; j + W <= n; j += W) (B::load_unaligned(out + j) - B(ls)).store_unaligned(out + j);
    }
    for (; j < n; ++j) out[j] -= ls;
  } else {
    const T inv = T(1) / sum;
    j = 0;
    if constexpr (Simd) {
      using B = batch_t<T>;
      constexpr index_t W = static_cast<index_t>(B::size);
      for (; j + W <= n; j += W) (B::load_unaligned(out + j) * B(inv)).store_unaligned(out + j);
    }
    for (; j < n; ++j) out[j] *= inv;
  }
}

template <bool Log, class E>
auto softmax_impl(const char* op, E&& e, index_t dim) {
  using V = value_of<E>;
  static_assert(category<V>() == 2,
                "tl::softmax/log_softmax: the input must be real floating (float or double); cast integer input "
                "first, e.g. tl::softmax(tl::astype<float>(x), -1)");
  constexpr std::size_t R = rank_of<E>;
  static_assert(R >= 1, "tl::softmax/log_softmax need an expression of rank >= 1");
  auto node = to_node(std::forward<E>(e));
  const std::size_t d = wrap_dim(op, dim, R);
  const auto s = node.shape();
  const tl::device dev = expression_device(node);
  tensor<V, R> out(s, dev);
  if (out.numel() == 0) return out;
  if (dev.is_cuda()) {
    run_softmax_on_device<Log>(node, d, out.data(), dev);
    return out;
  }
  if (d == R - 1) {
    auto bn = node.bcast(s);
    using BN = decltype(bn);
    const index_t n = s[R - 1], rows = out.numel() / n;
    const index_t per_task = std::max<index_t>(1, parallel_chunk / n);
    V* od = out.data();
    thread_pool::instance().parallel_for((rows + per_task - 1) / per_task, [&](index_t t) {
      std::array<index_t, R> idx{};
      const index_t r1 = std::min(rows, (t + 1) * per_task);
      for (index_t r = t * per_task; r < r1; ++r) {
        unravel<R>(r, s, 0, R - 1, idx);
        softmax_row<Log, BN::simd_ok && std::is_same_v<typename BN::value_type, V>>(bn.row(idx.data()), n,
                                                                                      od + r * n);
      }
    });
    return out;
  }
  // Other dims: fused reductions with the dim kept, then one fused assignment.
  std::array<bool, R> mask{};
  mask[R == 1 ? 0 : d] = true;  // rank 1 always takes the path above; says so to GCC's -Warray-bounds
  const shape_t<R> ks = keep_shape(s, mask);
  tensor<V, R> m(ks), lse(ks);
  V* md = m.data();
  reduce_kernel(extreme_reducer<V, true>{}, node, mask, [&](index_t o, const V& a) { md[o] = a; });
  auto shifted = make_binary(sub_fn{}, node, m);
  V* ld = lse.data();
  reduce_kernel(sum_reducer<V>{}, make_unary(exp_fn{}, shifted), mask, [&](index_t o, const V& a) {
    ld[o] = Log ? std::log(a) : V(1) / a;
  });
  if constexpr (Log) eval_into<assign_op::set>(out, make_binary(sub_fn{}, shifted, lse));
  else eval_into<assign_op::set>(out, make_binary(mul_fn{}, make_unary(exp_fn{}, shifted), lse));
  return out;
}
}  // namespace detail

/// @brief Softmax along `dim` (torch.softmax): exp(x - max) / sum(exp(x - max)); same shape as the input.
/// @code
/// tl::tensor<float, 2> p = tl::softmax(logits, -1);
/// @endcode
template <expression E>
auto softmax(E&& e, index_t dim) {
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      return detail::record_dim_op<detail::dim_kind::softmax>([=](const auto& x) { return tl::softmax(x, dim); }, e, dim);
  return detail::softmax_impl<false>("softmax", std::forward<E>(e), dim);
}
/// @brief Log-softmax along `dim` (torch.log_softmax): (x - max) - log(sum(exp(x - max))).
template <expression E>
auto log_softmax(E&& e, index_t dim) {
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      return detail::record_dim_op<detail::dim_kind::log_softmax>([=](const auto& x) { return tl::log_softmax(x, dim); }, e, dim);
  return detail::softmax_impl<true>("log_softmax", std::forward<E>(e), dim);
}

}  // namespace tl
