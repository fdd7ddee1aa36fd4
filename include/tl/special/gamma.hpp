#pragma once
/// @file gamma.hpp
/// @brief tl::special gamma family: tgamma, gammasgn, gammaln (lgamma), digamma (psi), polygamma, multigammaln.
///
/// Lazy elementwise expressions (they fuse with the ops around them), float or double (integer and
/// bool operands compute in float, as torch does), computed in double (see
/// tl/special/detail/gamma_kernel.hpp for the algorithms and docs/special.md for the accuracy).
/// @code
/// tl::tensor<double, 1> lb = ts::gammaln(a) + ts::gammaln(b) - ts::gammaln(a + b);  // log B(a, b), one pass
/// tl::tensor<double, 1> t = ts::polygamma(1, x);                                    // trigamma
/// @endcode
#include <numbers>
#include <string>
#include <utility>

#include "tl/core/error.hpp"
#include "tl/expr/node.hpp"
#include "tl/special/detail/gamma_kernel.hpp"
#include "tl/special/detail/tgamma_kernel.hpp"

namespace tl::special {
namespace detail {

/// Base of the functors whose kernel is a const member (it reads the functor's parameters):
/// float operands compute in double and round once, NaN in gives NaN out.
template <class Derived>
struct via_double_member : tl::detail::floating_unary {
  template <class T>
  TL_HDI T operator()(T x) const {
    static_assert(std::is_floating_point_v<T>, "tl::special: this function needs a real operand");
    const double d = static_cast<double>(x);
    return static_cast<T>(std::isnan(d) ? d : static_cast<const Derived&>(*this).kernel(d));
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    const Derived& self = static_cast<const Derived&>(*this);
    auto k = [&self](const auto& d) { return xsimd::select(xsimd::isnan(d), d, self.kernel(d)); };
    if constexpr (std::is_same_v<typename B::value_type, float>) return tl::detail::float_via_double(x, k);
    else return k(x);
  }
};

struct gammaln_fn : via_double_unary<gammaln_fn> {
  static constexpr const char* name = "gammaln";
  template <class V>
  static TL_SPECIAL_KERNEL V kernel(const V& x) {
    return lgamma_kernel(x);
  }
};
TL_SPECIAL_VIA_DOUBLE(tgamma)
TL_SPECIAL_FLOAT_PACKET(tgamma)
TL_SPECIAL_VIA_DOUBLE(gammasgn)
struct digamma_fn : via_double_unary<digamma_fn> {
  static constexpr const char* name = "digamma";
  template <class V>
  static TL_SPECIAL_KERNEL V kernel(const V& x) {
    return digamma_kernel(x);
  }
};
TL_SPECIAL_FLOAT_PACKET(gammaln)
TL_SPECIAL_FLOAT_PACKET(digamma)
/// psi^(n) (n >= 1; n = 0 is digamma_fn).
struct polygamma_fn : via_double_member<polygamma_fn> {
  static constexpr const char* name = "polygamma";
  int n = 1;
  template <class V>
  TL_SPECIAL_KERNEL V kernel(const V& x) const {
    return n == 0 ? digamma_kernel(x) : n == 1 ? trigamma_kernel(x) : polygamma_kernel(n, x);
  }
  /// Float packets of trigamma without a negative lane take the float kernel (one division and
  /// an 11-term polynomial in double); the others the double kernels.
  template <class B>
  TL_INLINE B packet(const B& x) const {
    if constexpr (std::is_same_v<typename B::value_type, float>) {
      if (n == 1 && !xsimd::any(x < B(0)))
        return float_via_double_twin(x, [](const auto& d) TL_INLINE_LAMBDA { return trigamma_float_kernel(d); });
    }
    return via_double_member<polygamma_fn>::packet(x);
  }
};
/// log of the multivariate gamma function of dimension p (order -1) and its derivatives:
/// sum_j<p psi^(order)(x - j / 2) (order >= 0); NaN where x <= (p - 1) / 2.
struct multigammaln_fn : via_double_member<multigammaln_fn> {
  static constexpr const char* name = "multigammaln";
  int p = 1;
  int order = -1;
  template <class V>
  TL_SPECIAL_KERNEL V kernel(const V& x) const {
    V s(order < 0 ? 0.25 * p * (p - 1) * 1.1447298858494001741 : 0.0);  // p (p - 1) / 4 log(pi)
    for (int j = 0; j < p; ++j) {
      const V y = x - V(0.5 * j);
      s = s + (order < 0 ? lgamma_kernel(y) : order == 0 ? digamma_kernel(y) : polygamma_kernel(order, y));
    }
    return sel(x > V(0.5 * (p - 1)), s, V(std::numeric_limits<double>::quiet_NaN()));
  }
};

}  // namespace detail

/// @brief log |Gamma(x)| (torch.special.gammaln); +inf at 0, the negative integers and +-inf.
TL_SPECIAL_UNARY_FACTORY(gammaln)
/// @brief log |Gamma(x)|, the same function as gammaln (torch.lgamma); pair it with gammasgn for
/// the sign.
template <expression A>
auto lgamma(A&& a) {
  return gammaln(std::forward<A>(a));
}
/// @brief Gamma(x) with the C semantics of std::tgamma: +-inf at +-0, NaN at the negative integers
/// and -inf, +inf above 171.62 (double), negative non-integers by reflection (results down to the
/// subnormal range).
TL_SPECIAL_UNARY_FACTORY(tgamma)
/// @brief The sign of Gamma(x) (scipy.special.gammasgn): 1 for x > 0, (-1)^ceil(-x) for negative
/// non-integers, 0 at +-0 and the negative integers; with lgamma, Gamma(x) = gammasgn(x) exp(lgamma(x)).
TL_SPECIAL_UNARY_FACTORY(gammasgn)
/// @brief The digamma function psi = Gamma' / Gamma (torch.special.digamma); -inf at +0, +inf at -0,
/// NaN at the negative integers.
TL_SPECIAL_UNARY_FACTORY(digamma)
/// @brief Alias of digamma (torch.special.psi).
template <expression A>
auto psi(A&& a) {
  return digamma(std::forward<A>(a));
}
/// @brief The n-th derivative of digamma (torch.special.polygamma); n = 0 is digamma. Throws
/// tl::value_error for n < 0.
template <expression A>
auto polygamma(int n, A&& a) {
  if (n < 0) throw tl::value_error("tl::special::polygamma: the order n must be >= 0, got " + std::to_string(n));
  detail::polygamma_fn f;
  f.n = n;
  return tl::detail::make_unary(f, std::forward<A>(a));
}
/// @brief log of the multivariate gamma function, sum_j<p lgamma(x - j/2) + p(p-1)/4 log(pi)
/// (torch.special.multigammaln). Throws tl::value_error for p < 1; NaN where x <= (p - 1) / 2
/// (torch raises there).
template <expression A>
auto multigammaln(A&& a, int p) {
  if (p < 1) throw tl::value_error("tl::special::multigammaln: p must be >= 1, got " + std::to_string(p));
  detail::multigammaln_fn f;
  f.p = p;
  return tl::detail::make_unary(f, std::forward<A>(a));
}

}  // namespace tl::special

#if TL_AUTOGRAD
#include "tl/autograd/detail/adjoint.hpp"

namespace tl::detail {
template <>
struct unary_rule<tl::special::detail::gammaln_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::gammaln_fn&, const C& c, const G& g) {
    return g * tl::special::digamma(c);
  }
};
// Gamma' = Gamma psi; gammasgn has no rule (piecewise constant: no gradient, as round).
template <>
struct unary_rule<tl::special::detail::tgamma_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::tgamma_fn&, const C& c, const G& g) {
    return g * tl::special::tgamma(c) * tl::special::digamma(c);
  }
};
template <>
struct unary_rule<tl::special::detail::digamma_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::digamma_fn&, const C& c, const G& g) {
    return g * tl::special::polygamma(1, c);
  }
};
template <>
struct unary_rule<tl::special::detail::polygamma_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::polygamma_fn& op, const C& c, const G& g) {
    return g * tl::special::polygamma(op.n + 1, c);
  }
};
template <>
struct unary_rule<tl::special::detail::multigammaln_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::multigammaln_fn& op, const C& c, const G& g) {
    auto next = op;  // d/dx sum_j psi^(k)(x - j/2) = sum_j psi^(k+1)(x - j/2)
    ++next.order;
    return g * tl::detail::make_unary(next, c);
  }
};
}  // namespace tl::detail
#endif
