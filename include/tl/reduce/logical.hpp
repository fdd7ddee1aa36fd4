#pragma once
/// @file logical.hpp
/// @brief tl::all_of, tl::any_of (torch.all / torch.any, bool results) and tl::count_nonzero (int64), over all or some dims.
///
/// torch's names `all` and `any` are spelled `all_of` and `any_of` because `tl::all` is the
/// whole-dim slice used in indexing (`t(tl::all, 0)`).
#include <cstdint>

#include "tl/reduce/detail/lazy_reduction.hpp"
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl {

/// @brief True where every element is nonzero (torch.all); true for zero elements.
/// @code
/// bool ok = tl::all_of(x > 0.0f).item();
/// @endcode
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto all_of(E&& e, const A&... args) {
  return detail::reduce_with<bool>("all", detail::logical_reducer<true>{}, std::forward<E>(e),
                                   detail::fin_acc<bool>{}, nullptr, args...);
}
/// @brief True where any element is nonzero (torch.any); false for zero elements.
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto any_of(E&& e, const A&... args) {
  return detail::reduce_with<bool>("any", detail::logical_reducer<false>{}, std::forward<E>(e),
                                   detail::fin_acc<bool>{}, nullptr, args...);
}
/// @brief Number of nonzero elements as int64 (torch.count_nonzero).
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto count_nonzero(E&& e, const A&... args) {
  return detail::reduce_with<std::int64_t>("count_nonzero", detail::count_reducer<std::int64_t>{},
                                           std::forward<E>(e), detail::fin_acc<std::int64_t>{}, nullptr, args...);
}

}  // namespace tl
