#pragma once
/// @file run.hpp
/// @brief Internal: glue from a public reduction to the kernel (detail header).
#include <type_traits>
#include <functional>
#include <utility>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/expr/node.hpp"
#include "tl/reduce/detail/kernel.hpp"
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/dims.hpp"

namespace tl::detail {

/// Rank of an expression type after removing cv-ref.
template <class E>
inline constexpr std::size_t rank_of = std::remove_cvref_t<E>::rank;
template <class E>
using value_of = typename std::remove_cvref_t<E>::value_type;

/// Reduces `node` with `red` over the dims in `mask` into the contiguous tensor `out` (outputs in
/// row-major order of the kept dims): out[o] = fin.finish(acc_o, o), with a finalizer from
/// reducers.hpp. `out` lives on the node's device; on a CUDA device the whole reduction, finalizer
/// included, runs there.
template <class Red, class N, class Out, class Ext, class Fin>
void reduce_into(const basic_tensor<Out, Ext>& out, const Red& red, const N& node,
                 const std::array<bool, N::rank>& mask, const Fin& fin) {
  static_assert(is_finalizer_v<Fin>, "tl: internal: reduce_into takes a finalizer (see reducers.hpp)");
  const tl::device dev = expression_device(node, out.device());
  check_same_device("reduce", out.device(), dev);
  if (dev.is_cuda()) {
    run_reduce_on_device(red, node, mask, out.data(), fin, dev);
    return;
  }
  Out* d = out.data();
  reduce_kernel(red, node, mask, [&](index_t o, const typename Red::acc_type& a) { d[o] = fin.finish(a, o); });
}

// ---- autograd hooks (defined in tl/autograd/detail/reductions.hpp) ---------------------------

/// Whether an expression's dtype can carry gradients (floating or complex).
template <class E>
inline constexpr bool grad_capable_v = category<value_of<E>>() >= 2;

enum class red_kind { sum, mean, prod, extreme, var, std_, norm, logsumexp };
enum class dim_kind { softmax, log_softmax, cumsum, cumprod };
/// Parameters of a reduction that its gradient needs.
struct grad_info {
  double p = 2;     // norm order
  double corr = 1;  // var/std correction
};
/// The result type of a reduction of E over dims A... with dtype S.
template <class S, class E, class... A>
using reduce_out_t = tensor<S, reduce_args<rank_of<E>, std::remove_cvref_t<A>...>::out_rank>;

/// Records reduction `fwd` (a function of a materialized tensor) of e over dims `args`.
template <red_kind K, class Out, class F, class E, class... A>
Out record_reduction(F fwd, const E& e, grad_info info, const A&... args);
/// Records max/min over a dim with indices (the gradient goes to the selected positions).
template <class VI, class F, class E, class D, class... K>
VI record_values_indices(F fwd, const E& e, D dim, const K&... keep);
/// Records a same-shape op along a dim (softmax, log_softmax, cumsum, cumprod).
template <dim_kind K, class F, class E>
tensor<value_of<E>, rank_of<E>> record_dim_op(F fwd, const E& e, index_t dim);

/// Reduces `node` with `red` into a new contiguous tensor<Out, RO> on the node's device; `fin` is a
/// finalizer (reducers.hpp) or a host function `fin(acc, n)` giving an output value. A host function
/// cannot run in a CUDA kernel: for a CUDA node the accumulators are copied to the host, finalized
/// there and the result copied back (a synchronizing round trip of the outputs); a finalizer avoids it.
template <class Out, class Red, class N, std::size_t RO, class Fin>
tensor<Out, RO> reduce_into_tensor(const Red& red, const N& node, const reduce_plan<N::rank, RO>& plan, Fin fin) {
  const tl::device dev = expression_device(node);
  if constexpr (is_finalizer_v<Fin>) {
    tensor<Out, RO> out(plan.out_shape, dev);
    reduce_into(out, red, node, plan.mask, fin);
    return out;
  } else {
    tensor<Out, RO> out(plan.out_shape);
    Out* d = out.data();
    const index_t n = plan.n;
    reduce_kernel(red, node, plan.mask, [&](index_t o, const typename Red::acc_type& a) { d[o] = fin(a, n); });
    return out.to(dev);
  }
}

/// The input shape with reduced dims set to 1 (the keepdim shape).
template <std::size_t R>
shape_t<R> keep_shape(const shape_t<R>& s, const std::array<bool, R>& mask) {
  shape_t<R> k = s;
  for (std::size_t d = 0; d < R; ++d)
    if (mask[d]) k[d] = 1;
  return k;
}

/// Ops without an identity (max, argmax, ...) reject reductions over zero elements.
template <std::size_t R, std::size_t RO>
void check_nonempty(const char* op, const reduce_plan<R, RO>& plan, const shape_t<R>& s) {
  if (plan.n != 0) return;
  throw value_error(cat_str("tl::", op, ": cannot reduce over zero elements (input shape ", shape_str(s),
                            "): the operation has no identity; reduce over a non-empty dim"));
}

}  // namespace tl::detail
