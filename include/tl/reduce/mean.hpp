#pragma once
/// @file mean.hpp
/// @brief tl::mean: the arithmetic mean over all or some dims (torch.mean).
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl {

/// @brief Mean over every dim or the given dims (torch.mean); floating or complex input only.
///
/// The mean of zero elements is NaN; NaN propagates.
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
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      return detail::record_reduction<detail::red_kind::mean, detail::reduce_out_t<V, E, A...>>(
          [=](const auto& x) { return tl::mean(x, args...); }, e, {}, args...);
  auto node = detail::to_node(std::forward<E>(e));
  const auto plan = detail::make_plan<decltype(node)::rank>("mean", node.shape(), args...);
  return detail::reduce_into_tensor<V>(detail::sum_reducer<V>{}, node, plan,
                                       detail::fin_mean<V>{static_cast<Rt>(plan.n)});
}

}  // namespace tl
