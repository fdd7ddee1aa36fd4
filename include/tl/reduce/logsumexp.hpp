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
  if constexpr (TL_AUTOGRAD)
    if (must_record(e))
      return record_reduction<red_kind::logsumexp, reduce_out_t<V, E, A...>>(
        [=](const auto& x) { return tl::logsumexp(x, args...); }, e, {}, args...);
  auto node = to_node(std::forward<E>(e));
  using N = decltype(node);
  const auto plan = make_plan<N::rank>("logsumexp", node.shape(), args...);
  using tr = reduce_args<N::rank, std::remove_cvref_t<A>...>;
  const tl::device dev = expression_device(node);
  tensor<V, tr::out_rank> out(plan.out_shape, dev);
  if (plan.n == 0) {
    out.fill_(-std::numeric_limits<V>::infinity());
    return out;
  }
  tensor<V, N::rank> m(keep_shape(node.shape(), plan.mask), dev);
  reduce_into(m, extreme_reducer<V, true>{}, node, plan.mask, fin_lse_shift<V>{});
  auto shifted = make_unary(exp_fn{}, make_binary(sub_fn{}, node, m));
  reduce_into(out, sum_reducer<V>{}, shifted, plan.mask, fin_lse<V>{m.data()});
  return out;
}

}  // namespace tl
