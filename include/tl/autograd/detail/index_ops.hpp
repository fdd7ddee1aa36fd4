#pragma once
/// @file index_ops.hpp
/// @brief Internal: gradients of the selecting ops gather, index_select, sort and topk (detail
/// header): the output gradient is added back at the selected positions (a scatter_add), whose
/// own gradient is a gather, so double backward works too; in a vectorized backward each
/// cotangent is added into its own block of the batched gradient.
#include <cstdint>
#include <tuple>

#include "tl/autograd/detail/function.hpp"
#include "tl/ops/gather.hpp"
#include "tl/ops/index_select.hpp"
#include "tl/ops/scatter.hpp"
#include "tl/ops/sort.hpp"
#include "tl/ops/topk.hpp"

namespace tl::detail {

/// g (of a shape no larger than `shape` in any dim) in the leading corner of zeros(shape), the rest
/// 0: a scatter along dim 0 whose index holds each position's own row, so that it is recorded (and
/// differentiable) like any scatter. g itself where the shapes agree.
template <class T, std::size_t R>
tensor<T, R> zero_padded(const tensor<T, R>& g, const shape_t<R>& shape, tl::device dev) {
  if (g.shape() == shape) return g;
  tensor<std::int64_t, R> rows(g.shape());
  const index_t n = rows.numel(), per_row = g.shape()[0] > 0 ? n / g.shape()[0] : 1;
  for (index_t f = 0; f < n; ++f) rows.data()[f] = f / per_row;
  return tensor<T, R>(tl::scatter(zeros<T>(shape, dev), 0, rows, g));
}

/// scatter (Add = false) or scatter_add of src into a copy of e, recorded. The gradient of e is g
/// with the written positions zeroed (scatter) or g itself (scatter_add); that of src is g
/// gathered at the positions (torch's rules: with repeated indices scatter's is well defined only
/// for the value that was kept, as in torch), in src's shape: where src is larger than index, the
/// elements the op did not read get 0. Both are recorded ops, so double backward works. In a
/// vectorized backward each cotangent's gradients are written into their blocks of the batch.
template <bool Add, class E, class I, class Src>
auto record_scatter(const E& e, index_t dim, const I& index, const Src& src) {
  using T = value_of<E>;
  constexpr std::size_t R = rank_of<E>;
  using D = tensor<T, R>;
  using DB = tensor<T, R + 1>;
  const char* op = Add ? "scatter_add" : "scatter";
  const std::size_t d = wrap_dim(op, dim, R);
  const D x = materialize_forward(e);
  const auto idx = index_as_int64(index);
  const auto grad_self = [idx, d](const D& g) -> D {
    if constexpr (Add)
      return g;
    else
      return D(tl::scatter(g, static_cast<index_t>(d), idx, T(0)));
  };
  // vectorized backward: each cotangent's gradient of self written into its block (g, then the
  // written positions zeroed for scatter)
  const auto batched_self = [idx, d, op](const DB& gb, const shape_t<R>& xs, tl::device dev) {
    return blockwise_batched<T, R, T, R>(gb, xs, dev, false, [&](const D& block, const D& g) {
      raw_write(block, g, false);
      if constexpr (!Add) scatter_tensor<false>(op, block, static_cast<index_t>(d), idx, T(0));
    });
  };
  const char* name = Add ? "ScatterAddBackward" : "ScatterBackward";
  const auto forward = [&](const auto& source) {
    no_grad guard;
    D r = x.clone();
    scatter_tensor<Add>(op, r, dim, idx, source);
    return r;
  };
  if constexpr (expression<Src>) {
    static_assert(std::is_same_v<value_of<Src>, T>,
                  "tl: scatter needs src of the same dtype as self (torch raises the same); cast with tl::astype");
    const D s = materialize_forward(src);
    D out = forward(s);
    const shape_t<R> xs = x.shape(), ss = s.shape();
    const tl::device dev = x.device();
    if (any_input_requires_grad(x, s))
      record_fn_batched(
          name, out,
          [idx, d, grad_self, ss, dev](const D& g, const auto&, const auto&, const auto& need) {
            D gx = need[0] ? grad_self(g) : undefined_tensor<T, R>();
            D gs = need[1] ? zero_padded(D(tl::gather(g, static_cast<index_t>(d), idx)), ss, dev) : undefined_tensor<T, R>();
            return std::make_tuple(std::move(gx), std::move(gs));
          },
          [idx, d, batched_self, xs, ss, dev](const DB& gb, const auto&, const auto&, const auto& need) {
            DB gx = need[0] ? batched_self(gb, xs, dev) : undefined_tensor<T, R + 1>();
            DB gs = undefined_tensor<T, R + 1>();
            if (need[1]) {
              // each cotangent gathered into the leading corner (index's shape) of its zero block
              gs = blockwise_batched<T, R, T, R>(gb, ss, dev, true, [&](const D& block, const D& g) {
                const D corner(block.storage_handle(), block.data(), idx.shape(), block.strides());
                eval_into<assign_op::set>(corner, D(tl::gather(g, static_cast<index_t>(d), idx)));
              });
            }
            return std::optional(std::make_tuple(std::move(gx), std::move(gs)));
          },
          std::array<bool, 2>{false, false}, false, x, s);
    return out;
  } else {
    D out = forward(src);
    const shape_t<R> xs = x.shape();
    const tl::device dev = x.device();
    if (any_input_requires_grad(x))
      record_fn_batched(
          name, out,
          [grad_self](const D& g, const auto&, const auto&, const auto&) { return std::make_tuple(grad_self(g)); },
          [batched_self, xs, dev](const DB& gb, const auto&, const auto&, const auto&) {
            return std::optional(std::make_tuple(batched_self(gb, xs, dev)));
          },
          std::array<bool, 1>{false}, false, x);
    return out;
  }
}

/// zeros(shape) with g added at positions idx along dim d; recorded when g requires grad.
template <class T, std::size_t R>
tensor<T, R> scatter_add_recorded(const shape_t<R>& shape, tl::device dev, std::size_t d,
                                  const tensor<std::int64_t, R>& idx, const tensor<T, R>& g) {
  return tensor<T, R>(tl::scatter_add(zeros<T>(shape, dev), static_cast<index_t>(d), idx, g));
}

template <class Res, class F, class E, class Idx>
Res record_selected(F fwd, const E& e, std::size_t d, Idx index_of, const char* name) {
  using V = value_of<E>;
  constexpr std::size_t R = rank_of<E>;
  const tensor<V, R> x = materialize_forward(e);
  Res r = [&]() -> Res {
    no_grad guard;
    return fwd(x);
  }();
  auto& values = [&]() -> tensor<V, R>& {
    if constexpr (is_tensor_v<Res>) return r;
    else return r.values;
  }();
  const tensor<std::int64_t, R> idx = index_of(r);
  const shape_t<R> xs = x.shape();
  const tl::device dev = x.device();
  // vectorized backward: each cotangent added at the positions into its zero block
  auto bbw = [idx, d, xs, dev](const tensor<V, R + 1>& gb, const auto&, const auto&, const auto&) {
    return std::make_tuple(blockwise_batched<V, R, V, R>(gb, xs, dev, true, [&](const tensor<V, R>& block, const tensor<V, R>& g) {
      scatter_tensor<true>("scatter_add", block, static_cast<index_t>(d), idx, g);
    }));
  };
  record_fn_batched(
      name, values,
      [idx, d, xs, dev](const tensor<V, R>& g, const auto&, const auto&, const auto&) {
        return std::make_tuple(scatter_add_recorded<V, R>(xs, dev, d, idx, g));
      },
      std::move(bbw), std::array<bool, 1>{false}, false, x);
  return r;
}

}  // namespace tl::detail
