#pragma once
/// @file run.hpp
/// @brief Internal: glue from a public reduction to the kernel (detail header).
#include <type_traits>
#include <utility>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/expr/node.hpp"
#include "tl/reduce/detail/kernel.hpp"
#include "tl/reduce/dims.hpp"

namespace tl::detail {

/// Rank of an expression type after removing cv-ref.
template <class E>
inline constexpr std::size_t rank_of = std::remove_cvref_t<E>::rank;
template <class E>
using value_of = typename std::remove_cvref_t<E>::value_type;

/// Reduces `node` with `red` into a new contiguous tensor<Out, RO>; `fin(acc, n)` gives an output value.
template <class Out, class Red, class N, std::size_t RO, class Fin>
tensor<Out, RO> reduce_into_tensor(const Red& red, const N& node, const reduce_plan<N::rank, RO>& plan, Fin fin) {
  tensor<Out, RO> out(plan.out_shape);
  Out* d = out.data();
  const index_t n = plan.n;
  reduce_kernel(red, node, plan.mask, [&](index_t o, const typename Red::acc_type& a) { d[o] = fin(a, n); });
  return out;
}

/// Parses dim arguments, then reduces an expression (see reduce_into_tensor).
template <class Out, class Red, class E, class Fin, class... A>
auto reduce_with(const char* op, const Red& red, E&& e, Fin fin, const A&... args) {
  auto node = to_node(std::forward<E>(e));
  const auto plan = make_plan<decltype(node)::rank>(op, node.shape(), args...);
  return reduce_into_tensor<Out>(red, node, plan, fin);
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
