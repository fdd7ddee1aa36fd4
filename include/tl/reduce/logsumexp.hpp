#pragma once
/// @file logsumexp.hpp
/// @brief tl::logsumexp: log(sum(exp(x))) computed stably (max-shifted), as torch.logsumexp.
#include <cmath>
#include <limits>

#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl {

/// @brief log(sum(exp(x))) over every dim or the given dims, shifted by the maximum for stability.
///
/// Like torch: an infinite maximum is not subtracted, so all -inf gives -inf, a +inf gives +inf;
/// NaN propagates; zero elements give -inf. Real floating input.
/// @code
/// tl::tensor<float, 1> lse = tl::logsumexp(x, -1);
/// @endcode
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto logsumexp(E&& e, const A&... args) {
  using V = detail::value_of<E>;
  static_assert(detail::category<V>() == 2,
                "tl::logsumexp: the input must be real floating (float or double); cast integer input first, e.g. "
                "tl::logsumexp(tl::astype<float>(x), 0)");
  using namespace detail;
  auto node = to_node(std::forward<E>(e));
  using N = decltype(node);
  const auto plan = make_plan<N::rank>("logsumexp", node.shape(), args...);
  using tr = reduce_args<N::rank, std::remove_cvref_t<A>...>;
  tensor<V, tr::out_rank> out(plan.out_shape);
  V* od = out.data();
  if (plan.n == 0) {
    for (index_t o = 0; o < plan.out_numel; ++o) od[o] = -std::numeric_limits<V>::infinity();
    return out;
  }
  tensor<V, N::rank> m(keep_shape(node.shape(), plan.mask));
  V* md = m.data();
  reduce_kernel(extreme_reducer<V, true>{}, node, plan.mask,
                [&](index_t o, const V& a) { md[o] = std::isinf(a) ? V(0) : a; });
  auto shifted = make_unary(exp_fn{}, make_binary(sub_fn{}, node, m));
  reduce_kernel(sum_reducer<V>{}, shifted, plan.mask, [&](index_t o, const V& s) { od[o] = std::log(s) + md[o]; });
  return out;
}

}  // namespace tl
