#pragma once
/// @file elementary.hpp
/// @brief tl::special elementary functions: logit, sinc, entr, xlogy, xlog1py, round(x, decimals),
/// expit, exp2, and the torch.special names of existing tl functions (expm1, log1p, logsumexp,
/// softmax, log_softmax).
///
/// @code
/// tl::tensor<float, 1> h = tl::sum(tl::special::entr(p));           // fused entropy
/// tl::tensor<double, 2> l = tl::special::xlogy(x, y);               // broadcasts, xlogy(0, y) = 0
/// @endcode
#include <limits>
#include <numbers>
#include <optional>
#include <utility>

#include "tl/expr/elementwise.hpp"
#include "tl/expr/node.hpp"
#include "tl/reduce/logsumexp.hpp"
#include "tl/reduce/softmax.hpp"
#include "tl/special/detail/kernel.hpp"

namespace tl::special {
namespace detail {

/// logit(x) = log(x / (1 - x)); x is first clamped to [eps, 1 - eps] when eps >= 0 (torch's eps=None
/// is eps < 0). One log1p of an argument that is exact where it matters:
/// logit = log1p((2x - 1) / (1 - x)) for x >= 1/2 and -log1p((1 - 2x) / x) below (2x - 1 and 1 - x
/// are exact near 1/2); x below the smallest normal number (where 1/x overflows), zero and
/// negative x take log(x) (log1p(-x) is then 0 to working precision).
struct logit_fn : native_unary<logit_fn> {
  static constexpr const char* name = "logit";
  double eps = -1;
  template <class V>
  TL_SPECIAL_KERNEL V kernel(V x) const {
    using S = scalar_t<V>;
    if (eps >= 0) {
      const V lo(static_cast<S>(eps)), hi(static_cast<S>(1 - eps));
      x = sel(x < lo, lo, sel(x > hi, hi, x));  // NaN stays NaN
    }
    const V one(1);
    const auto low = x < V(0.5);
    const V t = sel(low, one - (x + x), (x + x) - one) / sel(low, x, one - x);
    const V l = vlog1p(t);
    V r = sel(low, -l, l);
    const auto tiny = x < V(std::numeric_limits<S>::min());
    if (any_of(tiny)) r = sel(tiny, vlog(x), r);
    return r;
  }
};

/// sinc(x) = sin(pi x) / (pi x), 1 at 0: sin(pi r) of the exact reduced argument r = x - n,
/// |r| <= 1/2, with pi r formed from a two-part pi (in double; float rounds the double result).
struct sinc_fn : via_double_unary<sinc_fn> {
  static constexpr const char* name = "sinc";
  template <class V>
  static TL_SPECIAL_KERNEL V kernel(const V& x) {
    using S = scalar_t<V>;
    constexpr S pi_hi = static_cast<S>(std::numbers::pi);
    constexpr S pi_lo =
        std::is_same_v<S, double> ? S(1.2246467991473532e-16) : static_cast<S>(std::numbers::pi - static_cast<double>(pi_hi));
    const V n = vnearbyint(x);
    const V r = x - n;
    const V half = n * V(0.5);
    const auto odd = half != vnearbyint(half);  // (-1)^n
    const V s = vsin(vfma(r, V(pi_hi), r * V(pi_lo)));
    const V px = vfma(x, V(pi_hi), x * V(pi_lo));
    const V v = sel(odd, -s, s) / px;
    return sel(x == V(0), V(1), v);
  }
};

/// expit(x) = 1 / (1 + exp(-x)); for x < 0, e / (1 + e) with e = exp(x) kept down to the
/// subnormal range (in double; float rounds the double result).
struct expit_fn : via_double_unary<expit_fn> {
  static constexpr const char* name = "expit";
  template <class V>
  static TL_SPECIAL_KERNEL V kernel(const V& x) {
    const V e = times_exp(V(1), -vabs(x), V(0));
    return sel(x < V(0), e / (V(1) + e), V(1) / (V(1) + e));
  }
};

/// exp2(x) = 2^x with subnormal results (2^(x + 64) 2^-64 below the normal range; exact shift).
struct exp2_fn : native_unary<exp2_fn> {
  static constexpr const char* name = "exp2";
  template <class V>
  static TL_SPECIAL_KERNEL V kernel(const V& x) {
    using S = scalar_t<V>;
    const auto sub = x < V(std::numeric_limits<S>::min_exponent - 1);
    const V r = [](const V& v) {
      if constexpr (is_scalar_v<V>) return std::exp2(v);
      else return xsimd::exp2(v);
    }(sel(sub, x + V(64), x));
    return sel(sub, r * V(S(0x1p-64)), r);
  }
};

/// entr(x) = -x log x for x > 0, 0 at 0, -inf for x < 0 (torch.special.entr).
struct entr_fn : native_unary<entr_fn> {
  static constexpr const char* name = "entr";
  template <class V>
  static TL_SPECIAL_KERNEL V kernel(const V& x) {
    const V v = -x * vlog(x);
    return sel(x > V(0), v, sel(x == V(0), V(0), sel(x < V(0), V(-std::numeric_limits<scalar_t<V>>::infinity()), x)));
  }
};

/// x log y (Plus1: x log1p y), 0 where x == 0 unless y is NaN (torch.special.xlogy / xlog1py).
template <bool Plus1>
struct xlog_base : native_binary<xlog_base<Plus1>> {
  template <class V>
  static TL_SPECIAL_KERNEL V kernel(const V& x, const V& y) {
    const V l = Plus1 ? vlog1p(y) : vlog(y);
    return sel(visnan(y), y, sel(x == V(0), V(0), x * l));
  }
};
struct xlogy_fn : xlog_base<false> {
  static constexpr const char* name = "xlogy";
};
struct xlog1py_fn : xlog_base<true> {
  static constexpr const char* name = "xlog1py";
};

/// round(x, decimals) as torch: nearbyint(x * 10^d) / 10^d for d > 0, nearbyint(x / 10^-d) * 10^-d
/// otherwise (half to even).
struct round_fn : native_unary<round_fn> {
  static constexpr const char* name = "round";
  int decimals = 0;
  template <class V>
  TL_SPECIAL_KERNEL V kernel(const V& x) const {
    using S = scalar_t<V>;
    double p = 1;
    for (int i = 0; i < (decimals < 0 ? -decimals : decimals); ++i) p *= 10;
    const V tp(static_cast<S>(p));
    return decimals > 0 ? vnearbyint(x * tp) / tp : vnearbyint(x / tp) * tp;
  }
};

}  // namespace detail

/// @brief logit(x) = log(x / (1 - x)); with eps, x is clamped to [eps, 1 - eps] first (torch.special.logit).
template <expression A>
auto logit(A&& a, std::optional<double> eps = {}) {
  detail::logit_fn f;
  if (eps) f.eps = *eps;
  return tl::detail::make_unary(f, std::forward<A>(a));
}
/// @brief Normalized sinc sin(pi x) / (pi x), 1 at 0 (torch.special.sinc).
TL_SPECIAL_UNARY_FACTORY(sinc)
/// @brief Elementwise entropy -x log x (torch.special.entr).
TL_SPECIAL_UNARY_FACTORY(entr)
/// @brief x log y with xlogy(0, y) = 0 for y not NaN; broadcasts, accepts a scalar on either side (torch.special.xlogy).
TL_SPECIAL_BINARY_FACTORY(xlogy)
/// @brief x log(1 + y) with xlog1py(0, y) = 0 for y not NaN (torch.special.xlog1py).
TL_SPECIAL_BINARY_FACTORY(xlog1py)
/// @brief Rounds half to even at `decimals` decimal digits (negative: to tens, hundreds, ...) (torch.special.round).
template <expression A>
auto round(A&& a, int decimals = 0) {
  detail::round_fn f;
  f.decimals = decimals;
  return tl::detail::make_unary(f, std::forward<A>(a));
}
/// @brief The logistic sigmoid 1 / (1 + exp(-x)) (torch.special.expit), subnormal results included.
TL_SPECIAL_UNARY_FACTORY(expit)
/// @brief 2^x (torch.special.exp2), subnormal results included.
TL_SPECIAL_UNARY_FACTORY(exp2)
using tl::expm1;
using tl::log1p;
using tl::logsumexp;
using tl::softmax;
using tl::log_softmax;

}  // namespace tl::special

#if TL_AUTOGRAD
#include "tl/autograd/detail/adjoint.hpp"

namespace tl::detail {
template <>
struct unary_rule<tl::special::detail::logit_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::logit_fn& op, const C& c, const G& g) {
    // torch: grad / (x (1 - x)), 0 outside [eps, 1 - eps] when eps is given.
    const double inf = std::numeric_limits<double>::infinity();
    const double lo = op.eps < 0 ? -inf : op.eps, hi = op.eps < 0 ? inf : 1 - op.eps;
    return tl::where((c < lo) || (c > hi), 0, g / (c * (1 - c)));
  }
};
template <>
struct unary_rule<tl::special::detail::expit_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::expit_fn&, const C& c, const G& g) {
    return g * tl::special::expit(c) * tl::special::expit(-c);
  }
};
template <>
struct unary_rule<tl::special::detail::exp2_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::exp2_fn&, const C& c, const G& g) {
    return g * tl::special::exp2(c) * std::numbers::ln2;
  }
};
template <>
struct unary_rule<tl::special::detail::sinc_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::sinc_fn&, const C& c, const G& g) {
    return tl::where(c == 0, 0, g * (tl::cos(c * std::numbers::pi) - tl::special::sinc(c)) / c);
  }
};
template <>
struct unary_rule<tl::special::detail::entr_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::entr_fn&, const C& c, const G& g) {
    return -(g * (tl::log(c) + 1));
  }
};
template <>
struct binary_rule<tl::special::detail::xlogy_fn> {
  template <class L, class R, class G>
  static auto dl(const tl::special::detail::xlogy_fn&, const L& l, const R& r, const G& g) {
    return g * tl::special::xlogy(tl::astype<vt<G>>(l != 0), r);
  }
  template <class L, class R, class G>
  static auto dr(const tl::special::detail::xlogy_fn&, const L& l, const R& r, const G& g) {
    return g * l / r;
  }
};
template <>
struct binary_rule<tl::special::detail::xlog1py_fn> {
  template <class L, class R, class G>
  static auto dl(const tl::special::detail::xlog1py_fn&, const L& l, const R& r, const G& g) {
    return g * tl::special::xlog1py(tl::astype<vt<G>>(l != 0), r);
  }
  template <class L, class R, class G>
  static auto dr(const tl::special::detail::xlog1py_fn&, const L& l, const R& r, const G& g) {
    return g * l / (r + 1);
  }
};
}  // namespace tl::detail
#endif
