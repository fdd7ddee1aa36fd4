#pragma once
/// @file elementwise.hpp
/// @brief The public elementwise API: operators and functions that build lazy expressions.
///
/// @code
/// tl::tensor<float, 2> y = tl::sin(x) * w + 1.0f;   // one fused pass, w broadcast
/// auto m = tl::where(x > 0.0f, x, 0.1f * x);         // lazy; evaluated when assigned or reduced
/// @endcode
/// Operands are tensors, expressions or scalars (scalars are "weak" in type promotion, as in torch).
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "tl/expr/functors.hpp"
#include "tl/expr/node.hpp"

namespace tl {

namespace detail {
template <class A, class B>
concept binary_operands = operand<A> && operand<B> && (expression<A> || expression<B>);
}  // namespace detail

// ---- operators -----------------------------------------------------------------------------
#define TL_BINARY_OPERATOR(OP, FN)                                          \
  template <class A, class B>                                              \
    requires detail::binary_operands<A, B>                                 \
  auto operator OP(A&& a, B&& b) {                                         \
    return detail::make_binary<detail::FN>(std::forward<A>(a), std::forward<B>(b)); \
  }
TL_BINARY_OPERATOR(+, add_fn)
TL_BINARY_OPERATOR(-, sub_fn)
TL_BINARY_OPERATOR(*, mul_fn)
TL_BINARY_OPERATOR(/, div_fn)
TL_BINARY_OPERATOR(==, eq_fn)
TL_BINARY_OPERATOR(!=, ne_fn)
TL_BINARY_OPERATOR(<, lt_fn)
TL_BINARY_OPERATOR(<=, le_fn)
TL_BINARY_OPERATOR(>, gt_fn)
TL_BINARY_OPERATOR(>=, ge_fn)
TL_BINARY_OPERATOR(&&, logical_and_fn)
TL_BINARY_OPERATOR(||, logical_or_fn)
#undef TL_BINARY_OPERATOR

template <expression A>
auto operator-(A&& a) {
  return detail::make_unary(detail::neg_fn{}, std::forward<A>(a));
}
template <expression A>
auto operator!(A&& a) {
  return detail::make_unary(detail::logical_not_fn{}, std::forward<A>(a));
}

// ---- named binary functions ----------------------------------------------------------------
#define TL_BINARY_FUNCTION(NAME)                                                            \
  template <class A, class B>                                                               \
    requires detail::binary_operands<A, B>                                                  \
  auto NAME(A&& a, B&& b) {                                                                 \
    return detail::make_binary<detail::NAME##_fn>(std::forward<A>(a), std::forward<B>(b));  \
  }
TL_BINARY_FUNCTION(maximum)
TL_BINARY_FUNCTION(minimum)
TL_BINARY_FUNCTION(atan2)
TL_BINARY_FUNCTION(hypot)
TL_BINARY_FUNCTION(fmod)
TL_BINARY_FUNCTION(remainder)
TL_BINARY_FUNCTION(pow)
TL_BINARY_FUNCTION(polar)
TL_BINARY_FUNCTION(logical_and)
TL_BINARY_FUNCTION(logical_or)
TL_BINARY_FUNCTION(logical_xor)
TL_BINARY_FUNCTION(eq)
TL_BINARY_FUNCTION(ne)
TL_BINARY_FUNCTION(lt)
TL_BINARY_FUNCTION(le)
TL_BINARY_FUNCTION(gt)
TL_BINARY_FUNCTION(ge)
#undef TL_BINARY_FUNCTION
template <class A, class B>
  requires detail::binary_operands<A, B>
auto add(A&& a, B&& b) {
  return std::forward<A>(a) + std::forward<B>(b);
}
template <class A, class B>
  requires detail::binary_operands<A, B>
auto sub(A&& a, B&& b) {
  return std::forward<A>(a) - std::forward<B>(b);
}
template <class A, class B>
  requires detail::binary_operands<A, B>
auto mul(A&& a, B&& b) {
  return std::forward<A>(a) * std::forward<B>(b);
}
template <class A, class B>
  requires detail::binary_operands<A, B>
auto div(A&& a, B&& b) {
  return std::forward<A>(a) / std::forward<B>(b);
}

// ---- named unary functions -----------------------------------------------------------------
#define TL_UNARY_FUNCTION(NAME)                                        \
  template <expression A>                                              \
  auto NAME(A&& a) {                                                   \
    return detail::make_unary(detail::NAME##_fn{}, std::forward<A>(a)); \
  }
TL_UNARY_FUNCTION(abs)
TL_UNARY_FUNCTION(sign)
TL_UNARY_FUNCTION(sqrt)
TL_UNARY_FUNCTION(rsqrt)
TL_UNARY_FUNCTION(square)
TL_UNARY_FUNCTION(exp)
TL_UNARY_FUNCTION(exp2)
TL_UNARY_FUNCTION(expm1)
TL_UNARY_FUNCTION(log)
TL_UNARY_FUNCTION(log2)
TL_UNARY_FUNCTION(log10)
TL_UNARY_FUNCTION(log1p)
TL_UNARY_FUNCTION(sin)
TL_UNARY_FUNCTION(cos)
TL_UNARY_FUNCTION(tan)
TL_UNARY_FUNCTION(asin)
TL_UNARY_FUNCTION(acos)
TL_UNARY_FUNCTION(atan)
TL_UNARY_FUNCTION(sinh)
TL_UNARY_FUNCTION(cosh)
TL_UNARY_FUNCTION(tanh)
TL_UNARY_FUNCTION(asinh)
TL_UNARY_FUNCTION(acosh)
TL_UNARY_FUNCTION(atanh)
TL_UNARY_FUNCTION(sigmoid)
TL_UNARY_FUNCTION(relu)
TL_UNARY_FUNCTION(gelu)
TL_UNARY_FUNCTION(floor)
TL_UNARY_FUNCTION(ceil)
TL_UNARY_FUNCTION(round)
TL_UNARY_FUNCTION(trunc)
TL_UNARY_FUNCTION(frac)
TL_UNARY_FUNCTION(isnan)
TL_UNARY_FUNCTION(isinf)
TL_UNARY_FUNCTION(isfinite)
TL_UNARY_FUNCTION(logical_not)
TL_UNARY_FUNCTION(angle)
#undef TL_UNARY_FUNCTION
template <expression A>
auto neg(A&& a) {
  return -std::forward<A>(a);
}
/// @brief Elementwise real part (a lazy expression; for a real-part *view* use `t.real()`).
template <expression A>
auto real(A&& a) {
  return detail::make_unary(detail::real_fn{}, std::forward<A>(a));
}
/// @brief Elementwise imaginary part of a complex expression.
template <expression A>
auto imag(A&& a) {
  return detail::make_unary(detail::imag_fn{}, std::forward<A>(a));
}
/// @brief Complex conjugate. On a tensor this is the O(1) lazy conjugate view; on an expression, a fused node.
template <expression A>
auto conj(A&& a) {
  if constexpr (is_tensor_v<A>) return a.conj();
  else return detail::make_unary(detail::conj_fn{}, std::forward<A>(a));
}
/// @brief softplus(x) = log(1 + exp(beta x)) / beta; linear above `threshold` (torch.nn.functional.softplus).
template <expression A>
auto softplus(A&& a, double beta = 1.0, double threshold = 20.0) {
  detail::softplus_fn f;
  f.beta = beta;
  f.threshold = threshold;
  return detail::make_unary(f, std::forward<A>(a));
}
/// @brief Replaces NaN, +inf and -inf (defaults: 0 and the dtype's largest / lowest finite values).
template <expression A>
auto nan_to_num(A&& a, double nan = 0.0, std::optional<double> posinf = {}, std::optional<double> neginf = {}) {
  detail::nan_to_num_fn f;
  f.nan = nan;
  if (posinf) f.posinf = *posinf;
  if (neginf) f.neginf = *neginf;
  return detail::make_unary(f, std::forward<A>(a));
}
/// @brief Elementwise cast to dtype U (complex to real keeps the real part).
template <dtype U, expression A>
auto astype(A&& a) {
  return detail::make_unary(detail::cast_fn<U>{}, std::forward<A>(a));
}

// ---- ternary functions ---------------------------------------------------------------------
namespace detail {
template <class V, bool S>
struct pseudo_node {
  using value_type = V;
  static constexpr bool is_scalar = S;
};
template <class A, class B, class C>
using promote3_t = typename operand_promote<
    pseudo_node<typename operand_promote<A, B>::type, A::is_scalar && B::is_scalar>, C>::type;

template <class V>
constexpr V highest() {
  if constexpr (std::numeric_limits<V>::has_infinity) return std::numeric_limits<V>::infinity();
  else return std::numeric_limits<V>::max();
}
template <class V>
constexpr V lowest() {
  if constexpr (std::numeric_limits<V>::has_infinity) return -std::numeric_limits<V>::infinity();
  else return std::numeric_limits<V>::lowest();
}

template <class V>
struct where_t {
  static constexpr const char* name = "where";
  template <class C, class A, class B>
  using result = V;
  template <class C, class A, class B>
  static constexpr bool simd = false;
  template <class C, class A, class B>
  TL_HDI V operator()(C c, A a, B b) const {
    return c != C(0) ? static_cast<V>(a) : static_cast<V>(b);
  }
};

template <class V>
struct clamp_t {
  static constexpr const char* name = "clamp";
  template <class X, class L, class H>
  using result = V;
  template <class X, class L, class H>
  static constexpr bool simd = simd_arith_v<V> && std::is_same_v<typename X::value_type, V> &&
                               std::is_same_v<typename L::value_type, V> && std::is_same_v<typename H::value_type, V>;
  template <class X, class L, class H>
  TL_HDI V operator()(X x, L lo, H hi) const {
    static_assert(!is_complex_v<V>, "tl: clamp is not defined for complex tensors");
    const V v = static_cast<V>(x), l = static_cast<V>(lo), h = static_cast<V>(hi);
    if constexpr (std::is_floating_point_v<V>) {
      if (std::isnan(v)) return v;
    }
    const V m = v < l ? l : v;
    return m > h ? h : m;
  }
  template <class B>
  TL_INLINE B packet(const B& x, const B& lo, const B& hi) const {
    const B r = xsimd::min(xsimd::max(x, lo), hi);
    if constexpr (simd_float_v<typename B::value_type>) return xsimd::select(xsimd::isnan(x), x, r);
    else return r;
  }
};

template <class V>
struct lerp_t {
  static constexpr const char* name = "lerp";
  template <class A, class B, class W>
  using result = V;
  template <class A, class B, class W>
  static constexpr bool simd = simd_float_v<V> && std::is_same_v<typename A::value_type, V> &&
                               std::is_same_v<typename B::value_type, V> && std::is_same_v<typename W::value_type, V>;
  template <class A, class B, class W>
  TL_HDI V operator()(A a, B b, W w) const {
    const V s = static_cast<V>(a), e = static_cast<V>(b), t = static_cast<V>(w);
    // torch's two-sided form: exact at both ends.
    if constexpr (is_complex_v<V>) return s + t * (e - s);
    else return std::abs(t) < V(0.5) ? s + t * (e - s) : e - (e - s) * (V(1) - t);
  }
  template <class B>
  TL_INLINE B packet(const B& s, const B& e, const B& t) const {
    using T = typename B::value_type;
    return xsimd::select(xsimd::abs(t) < B(T(0.5)), s + t * (e - s), e - (e - s) * (B(T(1)) - t));
  }
};
}  // namespace detail

/// @brief where(cond, a, b): a where cond is true, else b (broadcast together; cond may be any dtype, nonzero = true).
template <operand C, operand A, operand B>
  requires(expression<C> || expression<A> || expression<B>)
auto where(C&& c, A&& a, B&& b) {
  using V = typename detail::operand_promote<detail::node_t<A>, detail::node_t<B>>::type;
  return detail::make_ternary(detail::where_t<V>{}, std::forward<C>(c), std::forward<A>(a), std::forward<B>(b));
}
/// @brief clamp(x, lo, hi): min(max(x, lo), hi); NaN in x propagates; lo > hi gives hi (torch.clamp).
template <operand X, operand L, operand H>
  requires(expression<X>)
auto clamp(X&& x, L&& lo, H&& hi) {
  using V = detail::promote3_t<detail::node_t<X>, detail::node_t<L>, detail::node_t<H>>;
  return detail::make_ternary(detail::clamp_t<V>{}, std::forward<X>(x), std::forward<L>(lo), std::forward<H>(hi));
}
/// @brief clamp_min(x, lo) = maximum(x, lo) with torch's clamp NaN rule.
template <expression X, operand L>
auto clamp_min(X&& x, L&& lo) {
  using V = typename detail::operand_promote<detail::node_t<X>, detail::node_t<L>>::type;
  return clamp(std::forward<X>(x), std::forward<L>(lo), detail::highest<real_t<V>>());
}
/// @brief clamp_max(x, hi).
template <expression X, operand H>
auto clamp_max(X&& x, H&& hi) {
  using V = typename detail::operand_promote<detail::node_t<X>, detail::node_t<H>>::type;
  return clamp(std::forward<X>(x), detail::lowest<real_t<V>>(), std::forward<H>(hi));
}
/// @brief lerp(start, end, weight) = start + weight (end - start), computed exactly at both ends.
template <operand A, operand B, operand W>
  requires(expression<A> || expression<B>)
auto lerp(A&& a, B&& b, W&& w) {
  using V = to_floating_t<detail::promote3_t<detail::node_t<A>, detail::node_t<B>, detail::node_t<W>>>;
  return detail::make_ternary(detail::lerp_t<V>{}, std::forward<A>(a), std::forward<B>(b), std::forward<W>(w));
}

}  // namespace tl
