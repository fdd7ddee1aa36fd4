#pragma once
/// @file views.hpp
/// @brief Internal: gradients of views, and the broadcast reduction `sum_to` (detail header).
///
/// The gradient of an injective view (slice, select, transpose, diagonal, real/imag, ...) with
/// respect to its source is the output gradient written through the same view into zeros shaped
/// like the source. expand() sums over the broadcast dims; conj() conjugates; contiguous()/clone()
/// pass the gradient through. Each has a batched rule for the vectorized backward.
#include <array>
#include <tuple>

#include "tl/autograd/detail/function.hpp"
#include "tl/core/creation.hpp"
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl::detail {

/// sum_to on an evaluated tensor: one instantiation of the reduction kernels per dtype and rank,
/// shared by every adjoint expression (a named finalizer, not a lambda, keeps it that way).
template <class V, std::size_t R, std::size_t RT>
tensor<V, RT> sum_to_tensor(const tensor<V, R>& full, const shape_t<RT>& target) {
  auto node = to_node(full);
  const auto s = node.shape();
  reduce_plan<R, R> plan;
  bool any = false;
  for (std::size_t d = 0; d < R; ++d) {
    const bool lead = d < R - RT;
    const index_t t = lead ? 1 : target[d - (R - RT)];
    if (!lead && t != s[d] && t != 1)
      throw shape_error(cat_str("tl::autograd: cannot sum a gradient of shape ", shape_str(s), " to shape ",
                                shape_str(target)));
    plan.mask[d] = lead || (t == 1 && s[d] != 1);
    any = any || (plan.mask[d] && s[d] != 1);
  }
  if (!any) {
    if constexpr (R == RT) return full;
    else return tensor<V, RT>(full.storage_handle(), full.data(), target, contiguous_strides(target));
  }
  plan.n = 1;
  plan.out_numel = 1;
  for (std::size_t d = 0; d < R; ++d) {
    plan.out_shape[d] = plan.mask[d] ? 1 : s[d];
    if (plan.mask[d]) plan.n *= s[d];
    else plan.out_numel *= s[d];
  }
  tensor<V, R> kept = reduce_into_tensor<V>(sum_reducer<V>{}, node, plan, fin_acc<V>{});
  return tensor<V, RT>(kept.storage_handle(), kept.data(), target, contiguous_strides(target));
}

/// sum_to of a materialized tensor that requires grad: recorded, its gradient is an expand.
template <class V, std::size_t R, std::size_t RT>
tensor<V, RT> sum_to_recorded(const tensor<V, R>& x, const shape_t<RT>& target) {
  tensor<V, RT> y = [&] {
    no_grad guard;
    return sum_to_tensor<V, R, RT>(x, target);
  }();
  const auto xs = x.shape();
  record_fn(
      "SumToBackward", y,
      [xs](const tensor<V, RT>& g, const auto&, const auto&, const auto&) {
        return std::make_tuple(tensor<V, R>(g.expand(xs).contiguous()));
      },
      std::array<bool, 1>{false}, false, x);
  return y;
}

/// Sums expression e (rank R) over the dims that `target` (rank RT <= R, right-aligned) broadcasts,
/// giving a tensor of shape `target`. Recorded (its gradient is an expand) when e requires grad.
/// Only the evaluation of e depends on its type: the reduction and the recording are shared by
/// every adjoint expression of the same dtype and rank.
template <std::size_t RT, class E>
tensor<value_of<E>, RT> sum_to(const E& e, const shape_t<RT>& target) {
  using V = value_of<E>;
  constexpr std::size_t R = rank_of<E>;
  static_assert(RT <= R, "tl: sum_to cannot increase the rank");
  if (must_record(e)) return sum_to_recorded<V, R, RT>(materialize(e), target);
  return sum_to_tensor<V, R, RT>(eval_plain(e), target);
}

/// The gradient of a view with respect to its source: zeros shaped like the source with g written
/// through the view `refn`. Recorded (its gradient is the view of the incoming gradient).
template <class S, std::size_t RS, class G, class F>
tensor<S, RS> view_scatter(const G& g, const shape_t<RS>& shape, tl::device dev, const F& refn) {
  tensor<S, RS> gs = [&] {
    no_grad guard;
    tensor<S, RS> z = zeros<S>(shape, dev);
    refn(z) += g;
    return z;
  }();
  if (any_input_requires_grad(g)) {
    record_fn(
        "ViewScatterBackward", gs,
        [refn](const tensor<S, RS>& gg, const auto&, const auto&, const auto&) {
          return std::make_tuple(dyn_tensor_t<G>(refn(gg)));
        },
        std::array<bool, 1>{false}, false, g);
  }
  return gs;
}

/// The vectorized backward of an injective view: zeros [m, source shape] with cotangent b of the
/// [m, ...] batch gb added through the view of block b. Only rank-R kernels run (the strided add is
/// the plain rule's own, the zeros a flat fill): evaluators for rank R + 1 would be instantiated for
/// every view's rank and dtype (see graph.hpp).
template <class T, std::size_t RS, class Vt, std::size_t RO, class F>
tensor<T, RS + 1> view_scatter_batched(const tensor<Vt, RO + 1>& gb, const shape_t<RS>& shape, tl::device dev,
                                       const F& refn) {
  return blockwise_batched<T, RS, Vt, RO>(gb, shape, dev, true, [&](const tensor<T, RS>& block, const tensor<Vt, RO>& g) {
    refn(block) += g;
  });
}

template <view_kind Kind, class T, class Ext, class V, class F>
void record_view(const basic_tensor<T, Ext>& src, V& out, F&& refn, const char* name) {
  if (!src.requires_grad() || !is_grad_enabled()) return;
  constexpr std::size_t RS = Ext::rank;
  using S = tensor<T, RS>;
  using O = dyn_tensor_t<V>;
  const shape_t<RS> shape = src.shape();
  const tl::device dev = src.device();
  const std::decay_t<F> fn(std::forward<F>(refn));
  auto bw = [refn = fn, shape, dev](const O& g, const auto&, const auto&, const auto&) -> std::tuple<S> {
    if constexpr (Kind == view_kind::expand) {
      return {sum_to(g, shape)};
    } else if constexpr (Kind == view_kind::conj) {
      return {S(g.conj())};
    } else if constexpr (Kind == view_kind::identity) {
      return {S(g)};
    } else {
      return {view_scatter<T>(g, shape, dev, refn)};
    }
  };
  if constexpr (Kind == view_kind::expand) {
    // Vectorized backward: each cotangent summed over the expanded dims, all at once.
    constexpr std::size_t RO = V::rank;
    auto bbw = [shape](const tensor<T, RO + 1>& gb, const auto&, const auto&, const auto&) {
      const index_t batch = gb.shape()[0];
      shape_t<RO + 1> t{};
      t[0] = batch;
      for (std::size_t d = 1; d <= RO; ++d) t[d] = d + RS <= RO ? 1 : shape[d + RS - RO - 1];
      const tensor<T, RO + 1> c = sum_to_tensor<T, RO + 1, RO + 1>(gb, t);  // gb itself or a new tensor
      const auto bs = batched_shape(batch, shape);
      return std::make_tuple(tensor<T, RS + 1>(c.storage_handle(), c.data(), bs, contiguous_strides(bs)));
    };
    record_fn_batched(name, out, std::move(bw), std::move(bbw), std::array<bool, 1>{false}, false, src);
  } else if constexpr (Kind == view_kind::identity) {
    auto bbw = [](const tensor<T, V::rank + 1>& gb, const auto&, const auto&, const auto&) {
      return std::make_tuple(gb);
    };
    record_fn_batched(name, out, std::move(bw), std::move(bbw), std::array<bool, 1>{false}, false, src);
  } else if constexpr (Kind == view_kind::conj) {
    // Vectorized backward: every cotangent conjugated at once, as a view (the conj flag flipped).
    auto bbw = [](const tensor<T, V::rank + 1>& gb, const auto&, const auto&, const auto&) {
      return std::make_tuple(tensor<T, V::rank + 1>(gb.storage_handle(), const_cast<T*>(gb.data()), gb.shape(),
                                                    gb.strides(), !gb.is_conj()));
    };
    record_fn_batched(name, out, std::move(bw), std::move(bbw), std::array<bool, 1>{false}, false, src);
  } else {
    // Vectorized backward: the cotangents written through the view into a batch of zero blocks.
    constexpr std::size_t RO = V::rank;
    using Vt = typename V::value_type;
    auto bbw = [fn, shape, dev](const tensor<Vt, RO + 1>& gb, const auto&, const auto&, const auto&) {
      return std::make_tuple(view_scatter_batched<T, RS, Vt, RO>(gb, shape, dev, fn));
    };
    record_fn_batched(name, out, std::move(bw), std::move(bbw), std::array<bool, 1>{false}, false, src);
  }
  out.autograd_meta_handle()->is_view = Kind != view_kind::identity;
}

}  // namespace tl::detail
