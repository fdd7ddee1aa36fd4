#pragma once
/// @file sum.hpp
/// @brief tl::sum: the sum of an expression's elements over all or some dims (torch.sum).
#include <optional>

#include "tl/reduce/detail/lazy_reduction.hpp"
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl {

/// @brief Sum over every dim (rank-0 result) or over the given dims (torch.sum).
///
/// Consumes expressions directly (`tl::sum(a * b)` never materializes `a * b`). bool and integer
/// inputs give int64; floating sums are pairwise with a fixed blocking (bit-identical for any
/// thread count). An empty reduction gives 0. With tl::keepdim the result is an expression of x's
/// rank (docs/reductions.md): `x - tl::sum(x, -1, tl::keepdim)` reads x once.
/// @code
/// auto total = tl::sum(a * b).item();
/// tl::tensor<float, 1> rows = tl::sum(x, 1);
/// tl::tensor<float, 2> cols = tl::sum(x, 0, tl::keepdim);  // shape [1, n]
/// @endcode
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto sum(E&& e, const A&... args) {
  using S = detail::sum_type_t<detail::value_of<E>>;
  using Out = detail::reduce_out_t<S, E, A...>;
  std::optional<Out> y;
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      y = detail::record_reduction<detail::red_kind::sum, Out>([=](const auto& x) { return tl::sum(x, args...); }, e,
                                                                 {}, args...);
  return detail::reduce_with<S>("sum", detail::sum_reducer<S>{}, std::forward<E>(e), detail::fin_acc<S>{},
                                y ? &*y : nullptr, args...);
}

}  // namespace tl
