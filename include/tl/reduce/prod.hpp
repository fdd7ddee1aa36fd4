#pragma once
/// @file prod.hpp
/// @brief tl::prod: the product of elements over all or some dims (torch.prod).
#include <optional>

#include "tl/reduce/detail/lazy_reduction.hpp"
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl {

/// @brief Product over every dim or the given dims (torch.prod); bool and integers give int64, empty gives 1.
/// @code
/// auto p = tl::prod(x, 0).item();
/// @endcode
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto prod(E&& e, const A&... args) {
  using S = detail::sum_type_t<detail::value_of<E>>;
  using Out = detail::reduce_out_t<S, E, A...>;
  std::optional<Out> y;
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      y = detail::record_reduction<detail::red_kind::prod, Out>([=](const auto& x) { return tl::prod(x, args...); },
                                                                  e, {}, args...);
  return detail::reduce_with<S>("prod", detail::prod_reducer<S>{}, std::forward<E>(e), detail::fin_acc<S>{},
                                y ? &*y : nullptr, args...);
}

}  // namespace tl
