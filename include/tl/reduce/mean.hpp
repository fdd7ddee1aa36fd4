#pragma once
/// @file mean.hpp
/// @brief tl::mean: the arithmetic mean over all or some dims (torch.mean).
#include <optional>

#include "tl/reduce/detail/lazy_reduction.hpp"
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl {

/// @brief Mean over every dim or the given dims (torch.mean); floating or complex input only.
///
/// The mean of zero elements is NaN; NaN propagates. With tl::keepdim the result is an expression
/// of x's rank, fused into the rows of an assignment that consumes it (docs/reductions.md).
/// @code
/// tl::tensor<double, 1> m = tl::mean(x, -1);
/// @endcode
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto mean(E&& e, const A&... args) {
  using V = detail::value_of<E>;
  static_assert(detail::category<V>() >= 2,
                "tl::mean: the input must be floating or complex (torch.mean rejects integer and bool tensors); "
                "cast it first, e.g. tl::mean(tl::astype<float>(x))");
  using Rt = real_t<V>;
  using Out = detail::reduce_out_t<V, E, A...>;
  std::optional<Out> y;
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      y = detail::record_reduction<detail::red_kind::mean, Out>([=](const auto& x) { return tl::mean(x, args...); },
                                                                  e, {}, args...);
  auto node = detail::to_node(std::forward<E>(e));
  const auto plan = detail::make_plan<decltype(node)::rank>("mean", node.shape(), args...);
  return detail::reduction_result<V, detail::keeps_dims_v<detail::rank_of<E>, A...>>(
      detail::sum_reducer<V>{}, std::move(node), plan, detail::fin_mean<V>{static_cast<Rt>(plan.n)}, y ? &*y : nullptr);
}

}  // namespace tl
