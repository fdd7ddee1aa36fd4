#pragma once
/// @file incomplete_gamma.hpp
/// @brief tl::special regularized incomplete gamma functions gammainc, gammaincc and the Hurwitz
/// zeta function zeta (torch.special).
///
/// Lazy binary expressions (operands broadcast; either may be a scalar), float or double (integer
/// operands compute in float), computed in double by scalar kernels with a data-dependent
/// iteration count (tl/special/detail/igamma_kernel.hpp). On packets, gammainc and gammaincc run
/// every method on double packets (the series, the fraction, Q's small-x series, Temme's expansion,
/// the edge values); zeta with
/// one integer order per packet runs on double packets (hurwitz_zeta, gamma_kernel.hpp), other
/// packets lane by lane.
/// @code
/// tl::tensor<double, 1> p = ts::gammainc(a, x);   // P(a, x)
/// tl::tensor<double, 1> z = ts::zeta(2.0, q);     // sum_k (q + k)^-2
/// @endcode
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "tl/core/error.hpp"
#include "tl/expr/node.hpp"
#include "tl/special/detail/igamma_kernel.hpp"

namespace tl::special {
namespace detail {
/// P (Upper = false) or Q (Upper = true) on a double packet, every method on packets: the power
/// series, the continued fraction, Q's small-x series and Temme's expansion each run for the lanes
/// that take it (as the scalar kernel chooses; each loop as long as its own slowest lane needs, the
/// other lanes fed a quickly converging stand-in), and the edge values are selected. Float: for
/// float results (the lanes of a float packet in double), the series, fraction and prefactor cut at
/// 2^-38 and Temme's rows at 2^-42 (igamma_kernel.hpp).
template <bool Upper, bool Float, class D>
TL_INLINE D igamma_packet(const D& a, const D& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const auto finite = (a > D(0)) && (x > D(0)) && (a < D(inf)) && (x < D(inf));  // false for NaN
  const auto temme = finite && (a >= D(10)) && (xsimd::abs(x - a) <= D(0.3) * a);
  const auto valid = finite && !temme;
  // the method of each other lane, as the scalar kernel chooses it
  const auto big_x = x > D(1.1);
  auto ms = valid, mf = valid && big_x && (Upper ? x >= a : x > a);  // x = a: Q's fraction, P's series
  if constexpr (Upper) {  // igamc_method: series (1 - P), fraction, or Q's small-x series
    const auto low = x <= D(0.5);
    const auto mid = !big_x && !low && (x * D(1.1) < a);
    auto series = (big_x && (x < a)) || mid;
    if (xsimd::any(low && valid)) series = series || (low && (D(-0.4) / xsimd::log(x) < a));
    ms = ms && series;
    mf = mf || (valid && !big_x && !low && !mid);  // the fraction in (0.5, 1.1] too
  } else {  // P: the fraction (1 - Q) above max(a, 1), the series below
    mf = valid && (x > D(1)) && (x > a);
    ms = ms && !mf;
  }
  const auto mq = valid && !(ms || mf);  // Q's small-x series (Q only, x <= 0.5)
  D r(0);
  // Far tails: where a or x exceeds 1e5 outside Temme's region, the prefactor x^a e^-x / Gamma(a)
  // is below e^-2900 (its exponent is at most -0.029 max(a, x) there: a (log t - t + 1) with
  // t = x / a beyond 1.3 or below 0.7, or about -x for a < 10), so the series gives P = 0 and
  // the fraction Q = 0, as in the scalar kernels. Those lanes take the stand-ins: the sums'
  // terms overflow at such a and x (inf / inf, then 0 times NaN). Decided from a and x alone, so
  // that the sums need not wait for the prefactor.
  const auto under = (ms || mf) && (xsimd::max(a, x) > D(1e5));
  if (xsimd::any(under)) {
    r = xsimd::select(under, xsimd::select(ms, D(Upper ? 1 : 0), D(Upper ? 0 : 1)), r);
    ms = ms && !under;
    mf = mf && !under;
  }
  if (xsimd::any(ms || mf)) {
    // one prefactor for both methods; the other lanes take the series' stand-in
    const auto mp = ms || mf;
    const auto fg = igamma_prefactors<D, Float>(xsimd::select(mp, a, D(1)), xsimd::select(mp, x, D(0.5)));
    if (xsimd::any(ms)) {
      const D as = xsimd::select(ms, a, D(1)), xs = xsimd::select(ms, x, D(0.5));
      const D p = fg.g * (Float ? igam_series_sum_float(as, xs) : igam_series_sum(as, xs));
      r = xsimd::select(ms, Upper ? D(1) - p : p, r);
    }
    if (xsimd::any(mf)) {
      const D af = xsimd::select(mf, a, D(4)), xf = xsimd::select(mf, x, D(16));
      const D q = fg.f * (Float ? igamc_fraction_float(af, xf) : igamc_fraction_value(af, xf));
      r = xsimd::select(mf, Upper ? q : D(1) - q, r);
    }
  }
  if (xsimd::any(mq)) {
    const D q = igamc_series(xsimd::select(mq, a, D(0.5)), xsimd::select(mq, x, D(0.5)));
    r = xsimd::select(mq, Upper ? q : D(1) - q, r);
  }
  if (xsimd::any(temme))
    r = xsimd::select(temme, igamma_temme<D, Float>(xsimd::select(temme, a, D(20)), xsimd::select(temme, x, D(20)), Upper), r);
  r = igamma_clamp(r);
  if (!xsimd::all(finite)) {  // igamma_edges
    const auto nan = xsimd::isnan(a) || xsimd::isnan(x) || (a < D(0)) || (x < D(0)) ||
                     ((a == D(0)) && (x == D(0))) || ((a == D(inf)) && (x == D(inf)));
    const auto p_one = ((a == D(0)) && (x > D(0))) || ((x == D(inf)) && (a < D(inf)));
    const auto p_zero = ((x == D(0)) && (a > D(0))) || ((a == D(inf)) && (x < D(inf)));
    r = xsimd::select(p_one, D(Upper ? 0 : 1), r);
    r = xsimd::select(p_zero, D(Upper ? 1 : 0), r);
    r = xsimd::select(nan, D(std::numeric_limits<double>::quiet_NaN()), r);
  }
  return r;
}
/// Scalars through the scalar kernels, packets through igamma_packet (float in double).
template <class Derived, bool Upper>
struct igamma_binary : lanewise_binary<Derived> {
  template <class B>
  TL_INLINE B packet(const B& a, const B& x) const {
    if constexpr (std::is_same_v<typename B::value_type, float>) {
      // the lanes below x = a (the power series) first: where few lanes take it, one double half does
      const auto run = [](const B& ag, const B& xg) TL_INLINE_LAMBDA {
        return tl::detail::float_via_double_n([](const auto& ad, const auto& xd) TL_INLINE_LAMBDA { return igamma_packet<Upper, true>(ad, xd); }, ag, xg);
      };
      return tl::detail::grouped_lanes(run, x < a, a, x);
    } else {
      return igamma_packet<Upper, false>(a, x);
    }
  }
};
struct gammainc_fn : igamma_binary<gammainc_fn, false> {
  static constexpr const char* name = "gammainc";
  static TL_HDI double eval(double a, double x) { return gammainc_eval(a, x); }
};
struct gammaincc_fn : igamma_binary<gammaincc_fn, true> {
  static constexpr const char* name = "gammaincc";
  static TL_HDI double eval(double a, double x) { return gammaincc_eval(a, x); }
};
/// Packets whose lanes share one integer order 2 <= s <= 64 (a scalar order, the common case) and
/// have no q below -64 run hurwitz_zeta on double packets (the exact q + k, double-double powers);
/// other packets run hurwitz_zeta_real (real orders, per lane) on their lanes with s > 1 and
/// q >= 2^-1000 (both finite), and the scalar kernel on the rest only (edge values, q <= 0).
struct zeta_fn : lanewise_binary<zeta_fn> {
  static constexpr const char* name = "zeta";
  static TL_HDI double eval(double s, double q) { return zeta_eval(s, q); }

  template <class B>
  TL_INLINE B packet(const B& s, const B& q) const {
    using T = typename B::value_type;
    constexpr T inf = std::numeric_limits<T>::infinity();
    const double s0 = common_lane(s);
    const bool uniform = s0 >= 2 && s0 <= 64 && s0 == std::floor(s0);  // false for NaN
    if (!uniform || xsimd::any(q < B(-64))) {
      // false for NaN; 2^-1000 is 0 in float, where every q > 0 is normal in double
      constexpr T q_min = std::is_same_v<T, float> ? T(0) : T(0x1p-1000);
      const auto ok = (s > B(1)) && (s < B(inf)) && (q > B(0)) && (q >= B(q_min)) && (q < B(inf));
      if (!xsimd::any(ok)) return lanewise_binary<zeta_fn>::packet(s, q);
      const auto run = [](const auto& sd, const auto& qd) TL_INLINE_LAMBDA {
        using D = std::remove_cvref_t<decltype(sd)>;
        const auto okd = (sd > D(1)) && (sd < D(std::numeric_limits<double>::infinity())) && (qd >= D(0x1p-1000));
        return hurwitz_zeta_real(xsimd::select(okd, sd, D(2)), xsimd::select(okd, qd, D(1)));
      };
      B r;
      if constexpr (std::is_same_v<T, float>) r = tl::detail::float_via_double_n(run, s, q);
      else r = run(s, q);
      return packet_rest(ok, r, s, q);
    }
    const int order = static_cast<int>(s0);
    const auto run = [order](const auto& qd) {
      using D = std::remove_cvref_t<decltype(qd)>;
      const auto pole = (qd <= D(0)) & (qd == xsimd::floor(qd));
      const auto finite = xsimd::abs(qd) < D(std::numeric_limits<double>::infinity());  // false for NaN
      D r = hurwitz_zeta(order, xsimd::select(finite & !pole, qd, D(1)));
      r = xsimd::select(pole, D(std::numeric_limits<double>::infinity()), r);
      r = xsimd::select(qd == D(std::numeric_limits<double>::infinity()), D(0), r);
      return xsimd::select(xsimd::isnan(qd), qd, r);
    };
    if constexpr (std::is_same_v<T, float>) return tl::detail::float_via_double(q, run);
    else return run(q);
  }
};
}  // namespace detail

namespace detail {
/// torch 1.13 has no derivative of gammainc and gammaincc in a nor of zeta in x: with autograd,
/// building the expression with that operand requiring grad throws tl::autograd_error.
template <class Op, class A, class B>
auto make_binary_grad_right_only(A&& a, B&& b) {
  auto e = tl::detail::make_binary<Op>(std::forward<A>(a), std::forward<B>(b));
#if TL_AUTOGRAD
  if (tl::detail::any_requires_grad(e.l))
    throw tl::autograd_error(std::string("tl::special::") + Op::name + ": the derivative with respect to its first argument (" +
                             (std::string(Op::name) == "zeta" ? "x" : "a") + ") has no formula in torch 1.13 and none in tl, so this operand may not require grad");
#endif
  return e;
}
}  // namespace detail

/// @brief Regularized lower incomplete gamma function P(a, x) = gamma(a, x) / Gamma(a)
/// (torch.special.gammainc). NaN for a < 0, x < 0 and at a = x = 0; 1 for a = 0 < x and x = inf;
/// 0 at x = 0 and a = inf. Differentiable in x only.
template <class A, class X>
  requires tl::detail::binary_operands<A, X>
auto gammainc(A&& a, X&& x) {
  return detail::make_binary_grad_right_only<detail::gammainc_fn>(std::forward<A>(a), std::forward<X>(x));
}
/// @brief Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (torch.special.gammaincc),
/// accurate where it is small. Differentiable in x only.
template <class A, class X>
  requires tl::detail::binary_operands<A, X>
auto gammaincc(A&& a, X&& x) {
  return detail::make_binary_grad_right_only<detail::gammaincc_fn>(std::forward<A>(a), std::forward<X>(x));
}
/// @brief Hurwitz zeta function sum_k>=0 (q + k)^-x (torch.special.zeta): inf at x = 1 and at
/// q = 0, -1, -2, ...; NaN for x < 1 and for negative q with non-integer x. Differentiable in q only.
template <class X, class Q>
  requires tl::detail::binary_operands<X, Q>
auto zeta(X&& x, Q&& q) {
  return detail::make_binary_grad_right_only<detail::zeta_fn>(std::forward<X>(x), std::forward<Q>(q));
}

}  // namespace tl::special

#if TL_AUTOGRAD
#include "tl/autograd/detail/adjoint.hpp"
#include "tl/special/gamma.hpp"

namespace tl::detail {
// d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) = -d/dx Q(a, x); torch 1.13 defines no d/da.
template <>
struct binary_rule<tl::special::detail::gammainc_fn> {
  template <class L, class R, class G>
  static no_adjoint dl(const tl::special::detail::gammainc_fn&, const L&, const R&, const G&) {
    return {};  // no derivative in torch 1.13: the factory refuses an operand that requires grad
  }
  template <class L, class R, class G>
  static auto dr(const tl::special::detail::gammainc_fn&, const L& l, const R& r, const G& g) {
    return g * tl::exp((l - 1) * tl::log(r) - r - tl::special::gammaln(l));
  }
};
template <>
struct binary_rule<tl::special::detail::gammaincc_fn> {
  template <class L, class R, class G>
  static no_adjoint dl(const tl::special::detail::gammaincc_fn&, const L&, const R&, const G&) {
    return {};  // no derivative in torch 1.13: the factory refuses an operand that requires grad
  }
  template <class L, class R, class G>
  static auto dr(const tl::special::detail::gammaincc_fn&, const L& l, const R& r, const G& g) {
    return -(g * tl::exp((l - 1) * tl::log(r) - r - tl::special::gammaln(l)));
  }
};
// d/dq zeta(x, q) = -x zeta(x + 1, q); torch 1.13 defines no d/dx.
template <>
struct binary_rule<tl::special::detail::zeta_fn> {
  template <class L, class R, class G>
  static no_adjoint dl(const tl::special::detail::zeta_fn&, const L&, const R&, const G&) {
    return {};  // no derivative in torch 1.13: the factory refuses an operand that requires grad
  }
  template <class L, class R, class G>
  static auto dr(const tl::special::detail::zeta_fn&, const L& l, const R& r, const G& g) {
    return -(g * l * tl::special::zeta(l + 1, r));
  }
};
}  // namespace tl::detail
#endif
