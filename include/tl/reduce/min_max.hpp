#pragma once
/// @file min_max.hpp
/// @brief amax, amin, max, min, argmax, argmin (torch semantics: NaN propagates / counts as the
/// extreme, ties resolve to the first occurrence, no identity for empty reductions).
#include <cstdint>
#include <optional>

#include "tl/reduce/detail/lazy_reduction.hpp"
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl {

/// @brief Result of max/min over a dim: the extreme values and their int64 positions along the dim.
template <class V, std::size_t R>
struct values_indices {
  tensor<V, R> values;
  tensor<std::int64_t, R> indices;
};

namespace detail {
template <bool IsMax, class E, class... A>
auto extreme_impl(const char* op, E&& e, const reduce_out_t<value_of<E>, E, A...>* recorded, const A&... args) {
  using V = value_of<E>;
  auto node = to_node(std::forward<E>(e));
  const auto plan = make_plan<decltype(node)::rank>(op, node.shape(), args...);
  check_nonempty(op, plan, node.shape());
  return reduction_result<V, keeps_dims_v<rank_of<E>, A...>>(extreme_reducer<V, IsMax>{}, std::move(node), plan,
                                                              fin_acc<V>{}, recorded);
}

template <bool IsMax, class E, class... A>
auto arg_impl(const char* op, E&& e, const A&... args) {
  using V = value_of<E>;
  using tr = reduce_args<rank_of<E>, std::remove_cvref_t<A>...>;
  static_assert(tr::all || tr::count == 1, "tl: argmax/argmin reduce over one dim or over every dim (flattened)");
  auto node = to_node(std::forward<E>(e));
  const auto plan = make_plan<decltype(node)::rank>(op, node.shape(), args...);
  check_nonempty(op, plan, node.shape());
  return reduction_result<std::int64_t, keeps_dims_v<rank_of<E>, A...>>(arg_reducer<V, IsMax>{}, std::move(node),
                                                                         plan, fin_arg_index{});
}

template <bool IsMax, class E, class... A>
auto values_indices_impl(const char* op, E&& e, const A&... args) {
  using V = value_of<E>;
  using tr = reduce_args<rank_of<E>, std::remove_cvref_t<A>...>;
  static_assert(!tr::all && tr::count == 1,
                "tl: max/min with values and indices reduce over exactly one dim: max(x, dim) or max(x, dim, "
                "tl::keepdim); max(x) gives the overall maximum");
  auto node = to_node(std::forward<E>(e));
  const auto plan = make_plan<decltype(node)::rank>(op, node.shape(), args...);
  check_nonempty(op, plan, node.shape());
  const tl::device dev = expression_device(node);
  tl::values_indices<V, tr::out_rank> r{tensor<V, tr::out_rank>(plan.out_shape, dev),
                                    tensor<std::int64_t, tr::out_rank>(plan.out_shape, dev)};
  reduce_into(r.indices, arg_reducer<V, IsMax>{}, node, plan.mask, fin_arg_split<V>{r.values.data()});
  return r;
}
}  // namespace detail

/// @brief Maximum over every dim or the given dims (torch.amax); NaN propagates; empty reductions throw.
/// @code
/// tl::tensor<float, 1> m = tl::amax(x, tl::dims{0, 2});
/// @endcode
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto amax(E&& e, const A&... args) {
  using Out = detail::reduce_out_t<detail::value_of<E>, E, A...>;
  std::optional<Out> y;
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      y = detail::record_reduction<detail::red_kind::extreme, Out>(
          [=](const auto& x) { return tl::amax(x, args...); }, e, {}, args...);
  return detail::extreme_impl<true>("amax", std::forward<E>(e), y ? &*y : nullptr, args...);
}
/// @brief Minimum over every dim or the given dims (torch.amin); NaN propagates; empty reductions throw.
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto amin(E&& e, const A&... args) {
  using Out = detail::reduce_out_t<detail::value_of<E>, E, A...>;
  std::optional<Out> y;
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      y = detail::record_reduction<detail::red_kind::extreme, Out>(
          [=](const auto& x) { return tl::amin(x, args...); }, e, {}, args...);
  return detail::extreme_impl<false>("amin", std::forward<E>(e), y ? &*y : nullptr, args...);
}

/// @brief The largest element (rank-0, torch.max(x)); NaN propagates; an empty input throws.
template <expression E>
auto max(E&& e) {
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      return detail::record_reduction<detail::red_kind::extreme, tensor<detail::value_of<E>, 0>>(
          [](const auto& x) { return tl::max(x); }, e, {});
  return detail::extreme_impl<true>("max", std::forward<E>(e), nullptr);
}
/// @brief Largest values along `dim` and their first positions (torch.max(x, dim, keepdim)).
/// @code
/// auto [v, i] = tl::max(x, 1);  // v: values, i: int64 indices
/// @endcode
template <expression E, class D, class... K>
  requires std::is_integral_v<D> && detail::reduce_dim_args<detail::rank_of<E>, D, K...>
auto max(E&& e, D dim, const K&... keep) {
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      return detail::record_values_indices<
          values_indices<detail::value_of<E>, detail::reduce_args<detail::rank_of<E>, D, K...>::out_rank>>(
          [=](const auto& x) { return tl::max(x, dim, keep...); }, e, dim, keep...);
  return detail::values_indices_impl<true>("max", std::forward<E>(e), dim, keep...);
}
/// @brief The smallest element (rank-0, torch.min(x)); NaN propagates; an empty input throws.
template <expression E>
auto min(E&& e) {
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      return detail::record_reduction<detail::red_kind::extreme, tensor<detail::value_of<E>, 0>>(
          [](const auto& x) { return tl::min(x); }, e, {});
  return detail::extreme_impl<false>("min", std::forward<E>(e), nullptr);
}
/// @brief Smallest values along `dim` and their first positions (torch.min(x, dim, keepdim)).
template <expression E, class D, class... K>
  requires std::is_integral_v<D> && detail::reduce_dim_args<detail::rank_of<E>, D, K...>
auto min(E&& e, D dim, const K&... keep) {
  if constexpr (TL_AUTOGRAD && detail::grad_capable_v<E>)
    if (detail::must_record(e))
      return detail::record_values_indices<
          values_indices<detail::value_of<E>, detail::reduce_args<detail::rank_of<E>, D, K...>::out_rank>>(
          [=](const auto& x) { return tl::min(x, dim, keep...); }, e, dim, keep...);
  return detail::values_indices_impl<false>("min", std::forward<E>(e), dim, keep...);
}

/// @brief Position of the first maximum: int64, flattened when no dim is given (torch.argmax).
/// A NaN counts as the maximum. Empty reductions throw.
/// @code
/// auto i = tl::argmax(x).item();          // flat index
/// tl::tensor<std::int64_t, 1> j = tl::argmax(x, 1);
/// @endcode
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto argmax(E&& e, const A&... args) {
  return detail::arg_impl<true>("argmax", std::forward<E>(e), args...);
}
/// @brief Position of the first minimum: int64, flattened when no dim is given (torch.argmin).
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto argmin(E&& e, const A&... args) {
  return detail::arg_impl<false>("argmin", std::forward<E>(e), args...);
}

}  // namespace tl
