#pragma once
/// @file index_ops.hpp
/// @brief Internal: gradients of the selecting ops gather, index_select, sort and topk (detail
/// header): the output gradient is added back at the selected positions (a scatter_add), whose
/// own gradient is a gather, so double backward works too.
#include <cstdint>
#include <tuple>

#include "tl/autograd/detail/function.hpp"
#include "tl/ops/gather.hpp"
#include "tl/ops/index_select.hpp"
#include "tl/ops/scatter.hpp"
#include "tl/ops/sort.hpp"
#include "tl/ops/topk.hpp"

namespace tl::detail {

/// zeros(shape) with g added at positions idx along dim d; recorded when g requires grad.
template <class T, std::size_t R>
tensor<T, R> scatter_add_recorded(const shape_t<R>& shape, tl::device dev, std::size_t d,
                                  const tensor<std::int64_t, R>& idx, const tensor<T, R>& g) {
  tensor<T, R> out = [&] {
    no_grad guard;
    return tensor<T, R>(tl::scatter_add(zeros<T>(shape, dev), static_cast<index_t>(d), idx, g));
  }();
  if (any_input_requires_grad(g)) {
    record_fn(
        "ScatterAddBackward", out,
        [idx, d](const tensor<T, R>& gg, const auto&, const auto&, const auto&) {
          return std::make_tuple(tensor<T, R>(tl::gather(gg, static_cast<index_t>(d), idx)));
        },
        std::array<bool, 1>{false}, false, g);
  }
  return out;
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
  record_fn(
      name, values,
      [idx, d, xs, dev](const tensor<V, R>& g, const auto&, const auto&, const auto&) {
        return std::make_tuple(scatter_add_recorded<V, R>(xs, dev, d, idx, g));
      },
      std::array<bool, 1>{false}, false, x);
  return r;
}

}  // namespace tl::detail
