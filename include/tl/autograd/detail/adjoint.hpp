#pragma once
/// @file adjoint.hpp
/// @brief Internal: derivative rules of the elementwise functors, and the compile-time derivation
/// of an expression's adjoints (detail header).
///
/// For an expression tree and a leaf position k, `adjoint<k>(expr, g)` is the lazy expression for
/// the gradient reaching that leaf when the expression's output gradient is g: each node on the
/// path from the root to the leaf multiplies in its local derivative (PyTorch's complex
/// convention: g * conj(f'(z)) for holomorphic f). The whole adjoint is one expression, evaluated
/// in one fused pass. Operations without a gradient (comparisons, rounding, casts to integers)
/// give `no_adjoint`.
#include <complex>
#include <numbers>
#include <type_traits>

#include "tl/autograd/detail/graph.hpp"
#include "tl/expr/elementwise.hpp"
#include "tl/expr/functors.hpp"
#include "tl/expr/node.hpp"

namespace tl::detail {

/// The adjoint of a leaf that no gradient reaches.
struct no_adjoint {};
template <class X>
inline constexpr bool is_no_adjoint_v = std::is_same_v<std::remove_cvref_t<X>, no_adjoint>;

template <class X>
using vt = typename std::remove_cvref_t<X>::value_type;

/// conj(x) for complex expressions, x itself for real ones.
template <class X>
auto cj(const X& x) {
  if constexpr (is_complex_v<vt<X>>) return detail::make_unary(conj_fn{}, x);
  else return x;
}

/// The imaginary unit in the precision of X.
template <class X>
auto imag_unit() {
  using R = real_t<vt<X>>;
  return complex<R>(R(0), R(1));
}

/// Derivative functor of gelu (exact erf form): Phi(x) + x phi(x).
struct gelu_grad_fn : floating_unary {
  static constexpr const char* name = "gelu_grad";
  template <class T>
  static constexpr bool simd = false;
  template <class T>
  TL_HDI T operator()(T x) const {
    const T cdf = T(0.5) * (T(1) + std::erf(x * T(std::numbers::sqrt2 / 2)));
    const T pdf = std::exp(T(-0.5) * x * x) * T(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
    return cdf + x * pdf;
  }
};

/// Rules: `unary_rule<Op>::d(op, c, g)` is the adjoint of child c; binary rules give `dl` and `dr`,
/// ternary rules `da`, `db`, `dc`. Unlisted ops have no gradient.
template <class Op>
struct unary_rule {
  template <class C, class G>
  static no_adjoint d(const Op&, const C&, const G&) {
    return {};
  }
};

#define TL_UNARY_RULE(FN, EXPR)                        \
  template <>                                          \
  struct unary_rule<FN> {                              \
    template <class C, class G>                        \
    static auto d(const FN& op, [[maybe_unused]] const C& c, const G& g) { \
      (void)op;                                        \
      return EXPR;                                     \
    }                                                  \
  };
TL_UNARY_RULE(neg_fn, -g)
TL_UNARY_RULE(sqrt_fn, g / cj(tl::sqrt(c) * 2))
TL_UNARY_RULE(rsqrt_fn, g * cj(tl::rsqrt(c) / c * (-0.5)))
TL_UNARY_RULE(exp_fn, g* cj(tl::exp(c)))
TL_UNARY_RULE(exp2_fn, g* cj(tl::exp2(c) * std::numbers::ln2))
TL_UNARY_RULE(expm1_fn, g* cj(tl::exp(c)))
TL_UNARY_RULE(log_fn, g / cj(c))
TL_UNARY_RULE(log2_fn, g / cj(c * std::numbers::ln2))
TL_UNARY_RULE(log10_fn, g / cj(c * std::numbers::ln10))
TL_UNARY_RULE(log1p_fn, g / cj(c + 1))
TL_UNARY_RULE(sin_fn, g* cj(tl::cos(c)))
TL_UNARY_RULE(cos_fn, -(g * cj(tl::sin(c))))
TL_UNARY_RULE(tan_fn, g* cj(tl::square(tl::tan(c)) + 1))
TL_UNARY_RULE(asin_fn, g / cj(tl::sqrt(1 - c * c)))
TL_UNARY_RULE(acos_fn, -(g / cj(tl::sqrt(1 - c * c))))
TL_UNARY_RULE(atan_fn, g / cj(c * c + 1))
TL_UNARY_RULE(sinh_fn, g* cj(tl::cosh(c)))
TL_UNARY_RULE(cosh_fn, g* cj(tl::sinh(c)))
TL_UNARY_RULE(tanh_fn, g* cj(1 - tl::square(tl::tanh(c))))
TL_UNARY_RULE(asinh_fn, g / cj(tl::sqrt(c * c + 1)))
TL_UNARY_RULE(acosh_fn, g / cj(tl::sqrt(c - 1) * tl::sqrt(c + 1)))
TL_UNARY_RULE(atanh_fn, g / cj(1 - c * c))
TL_UNARY_RULE(sigmoid_fn, g* cj(tl::sigmoid(c) * (1 - tl::sigmoid(c))))
TL_UNARY_RULE(relu_fn, tl::where(c > 0, g, 0))
TL_UNARY_RULE(gelu_fn, g* detail::make_unary(gelu_grad_fn{}, c))
TL_UNARY_RULE(softplus_fn, tl::where(c * op.beta > op.threshold, g, g * tl::sigmoid(c * op.beta)))
TL_UNARY_RULE(square_fn, g* cj(c * 2))
TL_UNARY_RULE(frac_fn, g)
TL_UNARY_RULE(nan_to_num_fn, tl::where(tl::isfinite(c), g, 0))
TL_UNARY_RULE(conj_fn, cj(g))
#undef TL_UNARY_RULE

template <>
struct unary_rule<abs_fn> {
  template <class C, class G>
  static auto d(const abs_fn&, const C& c, const G& g) {
    // torch: grad * sgn(x), sgn(z) = z / |z| (0 at 0) for complex z.
    if constexpr (is_complex_v<vt<C>>) return g * tl::where(c == 0, 0, c / tl::abs(c));
    else return g * tl::sign(c);
  }
};
template <>
struct unary_rule<real_fn> {
  template <class C, class G>
  static auto d(const real_fn&, const C&, const G& g) {
    if constexpr (is_complex_v<vt<C>>) return tl::astype<vt<C>>(g);  // (g, 0)
    else return g;
  }
};
template <>
struct unary_rule<imag_fn> {
  template <class C, class G>
  static auto d(const imag_fn&, const C&, const G& g) {
    return g * imag_unit<C>();  // (0, g)
  }
};
template <>
struct unary_rule<angle_fn> {
  template <class C, class G>
  static auto d(const angle_fn&, const C& c, const G& g) {
    if constexpr (is_complex_v<vt<C>>) return tl::where(c == 0, 0, g * c / tl::square(tl::abs(c)) * imag_unit<C>());
    else return no_adjoint{};
  }
};
template <class U>
struct unary_rule<cast_fn<U>> {
  template <class C, class G>
  static auto d(const cast_fn<U>&, const C&, const G& g) {
    if constexpr (!differentiable_v<U> || !differentiable_v<vt<C>>) return no_adjoint{};
    else if constexpr (is_complex_v<U> && !is_complex_v<vt<C>>) return tl::real(g);
    else return tl::astype<std::conditional_t<is_complex_v<vt<G>>, vt<C>, real_t<vt<C>>>>(g);
  }
};

template <class Op>
struct binary_rule {
  template <class L, class R, class G>
  static no_adjoint dl(const Op&, const L&, const R&, const G&) {
    return {};
  }
  template <class L, class R, class G>
  static no_adjoint dr(const Op&, const L&, const R&, const G&) {
    return {};
  }
};
#define TL_BINARY_RULE(FN, DL, DR)                                   \
  template <>                                                        \
  struct binary_rule<FN> {                                           \
    template <class L, class R, class G>                             \
    static auto dl(const FN&, const L& l, const R& r, const G& g) {  \
      (void)l;                                                       \
      (void)r;                                                       \
      return DL;                                                     \
    }                                                                \
    template <class L, class R, class G>                             \
    static auto dr(const FN&, const L& l, const R& r, const G& g) {  \
      (void)l;                                                       \
      (void)r;                                                       \
      return DR;                                                     \
    }                                                                \
  };
TL_BINARY_RULE(add_fn, g, g)
TL_BINARY_RULE(sub_fn, g, -g)
TL_BINARY_RULE(mul_fn, g* cj(r), g* cj(l))
TL_BINARY_RULE(div_fn, g / cj(r), -(g * cj(l / (r * r))))
TL_BINARY_RULE(maximum_fn, tl::where(l == r, g * 0.5, tl::where(l > r, g, 0)),
               tl::where(l == r, g * 0.5, tl::where(r > l, g, 0)))
TL_BINARY_RULE(minimum_fn, tl::where(l == r, g * 0.5, tl::where(l < r, g, 0)),
               tl::where(l == r, g * 0.5, tl::where(r < l, g, 0)))
TL_BINARY_RULE(atan2_fn, g* r / (l * l + r * r), -(g * l) / (l * l + r * r))
TL_BINARY_RULE(hypot_fn, g* l / tl::hypot(l, r), g* r / tl::hypot(l, r))
TL_BINARY_RULE(fmod_fn, g, -(g * tl::trunc(l / r)))
TL_BINARY_RULE(remainder_fn, g, -(g * tl::floor(l / r)))
#undef TL_BINARY_RULE

template <>
struct binary_rule<pow_fn> {
  // torch: d/dx = r x^(r-1) (0 where r == 0); d/dr = x^r log x (0 where x == 0 and r >= 0).
  template <class L, class R, class G>
  static auto dl(const pow_fn&, const L& l, const R& r, const G& g) {
    return tl::where(r == 0, 0, g * cj(r * tl::pow(l, r - 1)));
  }
  template <class L, class R, class G>
  static auto dr(const pow_fn&, const L& l, const R& r, const G& g) {
    if constexpr (is_complex_v<vt<L>> || is_complex_v<vt<R>>)
      return tl::where(l == 0, 0, g * cj(tl::pow(l, r) * tl::log(l)));
    else return tl::where((l == 0) && (r >= 0), 0, g * tl::pow(l, r) * tl::log(l));
  }
};
template <>
struct binary_rule<polar_fn> {
  // z = abs e^(i angle): grad_abs = Re(g conj(e^(i angle))), grad_angle = Re(g conj(i z)).
  template <class L, class R, class G>
  static auto dl(const polar_fn&, const L&, const R& r, const G& g) {
    return tl::real(g * tl::conj(tl::polar(1, r)));
  }
  template <class L, class R, class G>
  static auto dr(const polar_fn&, const L& l, const R& r, const G& g) {
    using Rt = real_t<vt<G>>;
    return tl::real(g * tl::conj(tl::polar(l, r)) * complex<Rt>(Rt(0), Rt(-1)));
  }
};

template <class Op>
struct ternary_rule {
  template <class A, class B, class C, class G>
  static no_adjoint da(const Op&, const A&, const B&, const C&, const G&) {
    return {};
  }
  template <class A, class B, class C, class G>
  static no_adjoint db(const Op&, const A&, const B&, const C&, const G&) {
    return {};
  }
  template <class A, class B, class C, class G>
  static no_adjoint dc(const Op&, const A&, const B&, const C&, const G&) {
    return {};
  }
};
template <class V>
struct ternary_rule<where_t<V>> {
  template <class A, class B, class C, class G>
  static no_adjoint da(const where_t<V>&, const A&, const B&, const C&, const G&) {
    return {};
  }
  template <class A, class B, class C, class G>
  static auto db(const where_t<V>&, const A& c, const B&, const C&, const G& g) {
    return tl::where(c, g, 0);
  }
  template <class A, class B, class C, class G>
  static auto dc(const where_t<V>&, const A& c, const B&, const C&, const G& g) {
    return tl::where(c, 0, g);
  }
};
template <class V>
struct ternary_rule<clamp_t<V>> {
  template <class A, class B, class C, class G>
  static auto da(const clamp_t<V>&, const A& x, const B& lo, const C& hi, const G& g) {
    return tl::where((x >= lo) && (x <= hi), g, 0);
  }
  template <class A, class B, class C, class G>
  static auto db(const clamp_t<V>&, const A& x, const B& lo, const C&, const G& g) {
    return tl::where(x < lo, g, 0);
  }
  template <class A, class B, class C, class G>
  static auto dc(const clamp_t<V>&, const A& x, const B&, const C& hi, const G& g) {
    return tl::where(x > hi, g, 0);
  }
};
template <class V>
struct ternary_rule<lerp_t<V>> {
  template <class A, class B, class C, class G>
  static auto da(const lerp_t<V>&, const A&, const B&, const C& w, const G& g) {
    return g * cj(1 - w);
  }
  template <class A, class B, class C, class G>
  static auto db(const lerp_t<V>&, const A&, const B&, const C& w, const G& g) {
    return g * cj(w);
  }
  template <class A, class B, class C, class G>
  static auto dc(const lerp_t<V>&, const A& a, const B& b, const C&, const G& g) {
    return g * cj(b - a);
  }
};

// ---- leaf bookkeeping --------------------------------------------------------------------------

/// Number of tensor leaves of a node type.
template <class N>
struct leaf_count;
template <class T, class E>
struct leaf_count<tensor_leaf<T, E>> : std::integral_constant<std::size_t, 1> {};
template <class T, class E>
struct leaf_count<owning_leaf<T, E>> : std::integral_constant<std::size_t, 1> {};
template <class T, std::size_t R>
struct leaf_count<scalar_leaf<T, R>> : std::integral_constant<std::size_t, 0> {};
template <class O, class C>
struct leaf_count<unary_node<O, C>> : leaf_count<C> {};
template <class O, class L, class R>
struct leaf_count<binary_node<O, L, R>>
    : std::integral_constant<std::size_t, leaf_count<L>::value + leaf_count<R>::value> {};
template <class O, class A, class B, class C>
struct leaf_count<ternary_node<O, A, B, C>>
    : std::integral_constant<std::size_t, leaf_count<A>::value + leaf_count<B>::value + leaf_count<C>::value> {};

/// The tensor a leaf reads (sharing its storage and autograd metadata).
template <class T, class E>
basic_tensor<T, E> leaf_tensor(const tensor_leaf<T, E>& l) {
  if (!l.src) throw error("tl::autograd: internal error: an expression leaf without its source tensor");
  return *static_cast<const basic_tensor<T, E>*>(l.src);
}
template <class T, class E>
basic_tensor<T, E> leaf_tensor(const owning_leaf<T, E>& l) {
  if (l.src) return *static_cast<const basic_tensor<T, E>*>(l.src);
  return basic_tensor<T, E>(l.keep, const_cast<T*>(l.p), l.m_shape, l.m_stride, l.conj);
}

/// A tuple of the tensors at an expression's leaves, in leaf order.
template <class T, class E>
auto leaf_tensors(const tensor_leaf<T, E>& l) {
  return std::make_tuple(leaf_tensor(l));
}
template <class T, class E>
auto leaf_tensors(const owning_leaf<T, E>& l) {
  return std::make_tuple(leaf_tensor(l));
}
template <class T, std::size_t R>
auto leaf_tensors(const scalar_leaf<T, R>&) {
  return std::tuple<>{};
}
template <class O, class C>
auto leaf_tensors(const unary_node<O, C>& n) {
  return leaf_tensors(n.c);
}
template <class O, class L, class R>
auto leaf_tensors(const binary_node<O, L, R>& n) {
  return std::tuple_cat(leaf_tensors(n.l), leaf_tensors(n.r));
}
template <class O, class A, class B, class C>
auto leaf_tensors(const ternary_node<O, A, B, C>& n) {
  return std::tuple_cat(leaf_tensors(n.a), leaf_tensors(n.b), leaf_tensors(n.c));
}

/// The same expression with leaf k reading `get(k)` (a tensor lvalue that outlives the result).
template <std::size_t Off, class T, class E, class Get>
auto relink(const tensor_leaf<T, E>&, const Get& get) {
  return to_node(get(std::integral_constant<std::size_t, Off>{}));
}
template <std::size_t Off, class T, class E, class Get>
auto relink(const owning_leaf<T, E>&, const Get& get) {
  return to_node(get(std::integral_constant<std::size_t, Off>{}));
}
template <std::size_t Off, class T, std::size_t R, class Get>
auto relink(const scalar_leaf<T, R>& s, const Get&) {
  return s;
}
template <std::size_t Off, class O, class C, class Get>
auto relink(const unary_node<O, C>& n, const Get& get) {
  auto c = relink<Off>(n.c, get);
  return unary_node<O, decltype(c)>{{}, n.op, std::move(c)};
}
template <std::size_t Off, class O, class L, class R, class Get>
auto relink(const binary_node<O, L, R>& n, const Get& get) {
  auto l = relink<Off>(n.l, get);
  auto r = relink<Off + leaf_count<L>::value>(n.r, get);
  return binary_node<O, decltype(l), decltype(r)>(n.op, std::move(l), std::move(r));
}
template <std::size_t Off, class O, class A, class B, class C, class Get>
auto relink(const ternary_node<O, A, B, C>& n, const Get& get) {
  auto a = relink<Off>(n.a, get);
  auto b = relink<Off + leaf_count<A>::value>(n.b, get);
  auto c = relink<Off + leaf_count<A>::value + leaf_count<B>::value>(n.c, get);
  return ternary_node<O, decltype(a), decltype(b), decltype(c)>(n.op, std::move(a), std::move(b), std::move(c));
}

/// An adjoint passed down to child C: the real part when C is real and the adjoint complex.
template <class C, class G>
auto to_child(const G& g) {
  if constexpr (is_no_adjoint_v<G>) return g;
  else if constexpr (!is_complex_v<vt<C>> && is_complex_v<vt<G>>) return tl::real(g);
  else return g;
}

/// The adjoint of leaf K of node n given the adjoint g of n's output.
template <std::size_t K, class T, class E, class G>
auto adjoint(const tensor_leaf<T, E>&, const G& g) {
  static_assert(K == 0);
  return g;
}
template <std::size_t K, class O, class C, class G>
auto adjoint(const unary_node<O, C>& n, const G& g) {
  if constexpr (is_no_adjoint_v<G>) return g;
  else return adjoint<K>(n.c, to_child<C>(unary_rule<O>::d(n.op, n.c, g)));
}
template <std::size_t K, class O, class L, class R, class G>
auto adjoint(const binary_node<O, L, R>& n, const G& g) {
  if constexpr (is_no_adjoint_v<G>) return g;
  else if constexpr (K < leaf_count<L>::value) return adjoint<K>(n.l, to_child<L>(binary_rule<O>::dl(n.op, n.l, n.r, g)));
  else return adjoint<K - leaf_count<L>::value>(n.r, to_child<R>(binary_rule<O>::dr(n.op, n.l, n.r, g)));
}
template <std::size_t K, class O, class A, class B, class C, class G>
auto adjoint(const ternary_node<O, A, B, C>& n, const G& g) {
  constexpr std::size_t na = leaf_count<A>::value, nb = leaf_count<B>::value;
  if constexpr (is_no_adjoint_v<G>) return g;
  else if constexpr (K < na) return adjoint<K>(n.a, to_child<A>(ternary_rule<O>::da(n.op, n.a, n.b, n.c, g)));
  else if constexpr (K < na + nb)
    return adjoint<K - na>(n.b, to_child<B>(ternary_rule<O>::db(n.op, n.a, n.b, n.c, g)));
  else return adjoint<K - na - nb>(n.c, to_child<C>(ternary_rule<O>::dc(n.op, n.a, n.b, n.c, g)));
}

/// Whether an expression's adjoints read its leaves' values (false for sums, differences, negation,
/// conjugation, casts, and products with scalars): decides which saved tensors are version-checked.
template <class N>
struct reads_values : std::true_type {};
template <class T, class E>
struct reads_values<tensor_leaf<T, E>> : std::false_type {};
template <class T, class E>
struct reads_values<owning_leaf<T, E>> : std::false_type {};
template <class T, std::size_t R>
struct reads_values<scalar_leaf<T, R>> : std::false_type {};
template <class Op>
inline constexpr bool linear_unary_v = std::is_same_v<Op, neg_fn> || std::is_same_v<Op, conj_fn> ||
                                       std::is_same_v<Op, real_fn> || std::is_same_v<Op, imag_fn> ||
                                       std::is_same_v<Op, frac_fn>;
template <class U>
inline constexpr bool linear_unary_v<cast_fn<U>> = true;
template <class O, class C>
struct reads_values<unary_node<O, C>> : std::bool_constant<!linear_unary_v<O> || reads_values<C>::value> {};
template <class O, class L, class R>
struct reads_values<binary_node<O, L, R>>
    : std::bool_constant<!((std::is_same_v<O, add_fn> || std::is_same_v<O, sub_fn> ||
                            ((std::is_same_v<O, mul_fn> || std::is_same_v<O, div_fn>) && R::is_scalar) ||
                            (std::is_same_v<O, mul_fn> && L::is_scalar)) &&
                           !reads_values<L>::value && !reads_values<R>::value)> {};

}  // namespace tl::detail
