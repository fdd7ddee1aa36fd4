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

/// scatter (Add = false) or scatter_add of src into a copy of e, recorded. The gradient of e is g
/// with the written positions zeroed (scatter) or g itself (scatter_add); that of src is g
/// gathered at the positions (torch's rules: with repeated indices scatter's is well defined only
/// for the value that was kept, as in torch). Both are recorded ops, so double backward works.
template <bool Add, class E, class I, class Src>
auto record_scatter(const E& e, index_t dim, const I& index, const Src& src) {
  using T = value_of<E>;
  constexpr std::size_t R = rank_of<E>;
  using D = tensor<T, R>;
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
    if (any_input_requires_grad(x, s))
      record_fn(
          name, out,
          [idx, d, grad_self](const D& g, const auto&, const auto&, const auto& need) {
            D gx = need[0] ? grad_self(g) : undefined_tensor<T, R>();
            D gs = need[1] ? D(tl::gather(g, static_cast<index_t>(d), idx)) : undefined_tensor<T, R>();
            return std::make_tuple(std::move(gx), std::move(gs));
          },
          std::array<bool, 2>{false, false}, false, x, s);
    return out;
  } else {
    D out = forward(src);
    if (any_input_requires_grad(x))
      record_fn(
          name, out,
          [grad_self](const D& g, const auto&, const auto&, const auto&) { return std::make_tuple(grad_self(g)); },
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
