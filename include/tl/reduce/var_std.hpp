#pragma once
/// @file var_std.hpp
/// @brief tl::var and tl::std with torch's `correction` (Bessel's correction by default).
///
/// Two passes over the expression: the mean, then the sum of squared moduli of the deviations
/// (both pairwise), divided by max(0, n - correction) like torch: a single element with
/// correction 1 gives 0/0 = NaN, and a nonzero spread over a nonpositive divisor gives inf.
/// Complex inputs give a real result.
#include <algorithm>
#include <cmath>

#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl {

/// @brief Bessel-style correction for var/std (torch's `correction=`): `tl::var(x, 0, tl::correction{0})`.
struct correction {
  double value = 1;
};

namespace detail {
template <bool Sqrt, class E, class... A>
auto var_impl(const char* op, E&& e, double corr, const A&... args) {
  using V = value_of<E>;
  static_assert(category<V>() >= 2,
                "tl::var/std: the input must be floating or complex (as in torch); cast it first, e.g. "
                "tl::var(tl::astype<double>(x))");
  using Rt = real_t<V>;
  if constexpr (TL_AUTOGRAD)
    if (must_record(e))
      return record_reduction<Sqrt ? red_kind::std_ : red_kind::var, reduce_out_t<Rt, E, A...>>(
        [=](const auto& x) { return var_impl<Sqrt>(op, x, corr, args...); }, e, grad_info{2, corr}, args...);
  auto node = to_node(std::forward<E>(e));
  using N = decltype(node);
  const auto plan = make_plan<N::rank>(op, node.shape(), args...);
  // Pass 1: the mean, laid out with the reduced dims kept so it broadcasts against the input.
  tensor<V, N::rank> m(keep_shape(node.shape(), plan.mask), expression_device(node));
  reduce_into(m, sum_reducer<V>{}, node, plan.mask, fin_mean<V>{static_cast<Rt>(plan.n)});
  // Pass 2: squared deviations, consumed as an expression.
  auto dev = make_binary(sub_fn{}, node, m);
  const Rt div = static_cast<Rt>(std::max(0.0, static_cast<double>(plan.n) - corr));
  return reduce_into_tensor<Rt>(sumsq_reducer<Rt>{}, dev, plan, fin_var<Rt, Sqrt>{div});
}
}  // namespace detail

/// @brief Variance over every dim or the given dims, correction 1 (torch.var).
/// @code
/// tl::tensor<float, 1> v = tl::var(x, 1);
/// tl::tensor<float, 1> pv = tl::var(x, 1, tl::correction{0});  // population variance
/// @endcode
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto var(E&& e, const A&... args) {
  return detail::var_impl<false>("var", std::forward<E>(e), 1.0, args...);
}
/// @brief Variance over every dim with the given correction.
template <expression E>
auto var(E&& e, correction c) {
  return detail::var_impl<false>("var", std::forward<E>(e), c.value);
}
/// @brief Variance over the given dims (or every dim with tl::keepdim) with the given correction.
template <expression E, class D>
  requires detail::reduce_dim_args<detail::rank_of<E>, D>
auto var(E&& e, const D& d, correction c) {
  return detail::var_impl<false>("var", std::forward<E>(e), c.value, d);
}
/// @brief Variance over the given dims, kept with extent 1, with the given correction.
template <expression E, class D>
  requires detail::reduce_dim_args<detail::rank_of<E>, D, keepdim_t>
auto var(E&& e, const D& d, keepdim_t k, correction c) {
  return detail::var_impl<false>("var", std::forward<E>(e), c.value, d, k);
}

/// @brief Standard deviation over every dim or the given dims, correction 1 (torch.std).
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto std(E&& e, const A&... args) {
  return detail::var_impl<true>("std", std::forward<E>(e), 1.0, args...);
}
/// @brief Standard deviation over every dim with the given correction.
template <expression E>
auto std(E&& e, correction c) {
  return detail::var_impl<true>("std", std::forward<E>(e), c.value);
}
/// @brief Standard deviation over the given dims (or every dim with tl::keepdim) with the given correction.
template <expression E, class D>
  requires detail::reduce_dim_args<detail::rank_of<E>, D>
auto std(E&& e, const D& d, correction c) {
  return detail::var_impl<true>("std", std::forward<E>(e), c.value, d);
}
/// @brief Standard deviation over the given dims, kept with extent 1, with the given correction.
template <expression E, class D>
  requires detail::reduce_dim_args<detail::rank_of<E>, D, keepdim_t>
auto std(E&& e, const D& d, keepdim_t k, correction c) {
  return detail::var_impl<true>("std", std::forward<E>(e), c.value, d, k);
}

}  // namespace tl
