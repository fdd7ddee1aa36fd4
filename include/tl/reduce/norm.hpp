#pragma once
/// @file norm.hpp
/// @brief tl::norm: vector norms over all or some dims (torch.linalg.vector_norm semantics).
#include <cmath>
#include <limits>

#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl {

/// @brief Vector p-norm over every dim or the given dims (torch.linalg.vector_norm(x, ord=p, dim, keepdim)).
///
/// p = 2 (default), 1, inf (max |x|), -inf (min |x|), 0 (number of nonzeros) or any other real p
/// ((sum |x|^p)^(1/p)). Floating or complex input; the result is real. inf/-inf over zero
/// elements throw (no identity); the other norms of nothing are 0.
/// @code
/// auto n2 = tl::norm(x).item();
/// tl::tensor<float, 1> n1 = tl::norm(x, 1, -1);
/// auto ninf = tl::norm(x, std::numeric_limits<double>::infinity());
/// @endcode
template <expression E, class... A>
  requires detail::reduce_dim_args<detail::rank_of<E>, A...>
auto norm(E&& e, double p = 2, const A&... args) {
  using V = detail::value_of<E>;
  static_assert(detail::category<V>() >= 2,
                "tl::norm: the input must be floating or complex (as in torch.linalg.vector_norm); cast it first, "
                "e.g. tl::norm(tl::astype<float>(x))");
  using Rt = real_t<V>;
  using namespace detail;
  if constexpr (TL_AUTOGRAD && grad_capable_v<E>)
    if (must_record(e))
      return record_reduction<red_kind::norm, reduce_out_t<Rt, E, A...>>(
          [=](const auto& x) { return tl::norm(x, p, args...); }, e, grad_info{p, 1}, args...);
  auto node = to_node(std::forward<E>(e));
  const auto plan = make_plan<decltype(node)::rank>("norm", node.shape(), args...);
  const fin_acc<Rt> ident{};
  if (p == 2)
    return reduce_into_tensor<Rt>(sumsq_reducer<Rt>{}, node, plan, fin_sqrt<Rt>{});
  if (p == 1) return reduce_into_tensor<Rt>(abs_sum_reducer<Rt>{}, node, plan, ident);
  if (p == 0) return reduce_into_tensor<Rt>(count_reducer<Rt>{}, node, plan, ident);
  if (std::isinf(p)) {
    check_nonempty("norm", plan, node.shape());
    auto a = make_unary(abs_fn{}, node);
    if (p > 0) return reduce_into_tensor<Rt>(extreme_reducer<Rt, true>{}, a, plan, ident);
    return reduce_into_tensor<Rt>(extreme_reducer<Rt, false>{}, a, plan, ident);
  }
  if (std::isnan(p)) throw value_error(cat_str("tl::norm: the order p must not be NaN"));
  const Rt inv = static_cast<Rt>(1.0 / p);
  return reduce_into_tensor<Rt>(abs_pow_reducer<Rt>{static_cast<Rt>(p)}, node, plan, fin_pow<Rt>{inv});
}

}  // namespace tl
