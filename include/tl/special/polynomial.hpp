#pragma once
/// @file polynomial.hpp
/// @brief tl::special orthogonal polynomials (x, n): chebyshev_polynomial_t/u/v/w, their shifted
/// forms, hermite_polynomial_h/he, laguerre_polynomial_l, legendre_polynomial_p (torch.special).
///
/// Lazy binary expressions (x and n broadcast; either may be a scalar), float or double (integer
/// operands compute in float), evaluated in double: packets with one degree (a scalar n) run on
/// double packets, other packets the scalar functor lane by lane.
/// torch's conventions: n is truncated to an integer, n < 0 gives 0; the Chebyshev polynomials
/// take the closed trigonometric forms for |x| < 1 and large n (T: n > 6; U, V, W: n > 8) and exact
/// values at |x| = 1; the shifted forms are the plain ones at 2x - 1. A NaN or infinite n gives
/// NaN (torch converts it to an integer).
/// @code
/// tl::tensor<double, 1> t5 = ts::chebyshev_polynomial_t(x, 5);
/// @endcode
#include <cmath>
#include <limits>
#include <utility>

#include "tl/expr/node.hpp"
#include "tl/special/detail/kernel.hpp"

namespace tl::special {
namespace detail {

enum class poly_kind { t, u, v, w, h, he, l, p };

/// The three-term recurrence of kind K to degree n >= 1, on a double or a packet of doubles.
template <poly_kind K, class V>
TL_HDI V poly_recurrence(const V& x, long long n) {
  V p(1), q;
  if constexpr (K == poly_kind::t || K == poly_kind::he || K == poly_kind::p) q = x;
  else if constexpr (K == poly_kind::u || K == poly_kind::h) q = x + x;
  else if constexpr (K == poly_kind::v) q = x + x - V(1);
  else if constexpr (K == poly_kind::w) q = x + x + V(1);
  else q = V(1) - x;
  for (long long k = 1; k < n; ++k) {
    const V kd(static_cast<double>(k));
    V r;
    if constexpr (K == poly_kind::h) r = (x + x) * q - (kd + kd) * p;
    else if constexpr (K == poly_kind::he) r = x * q - kd * p;
    else if constexpr (K == poly_kind::l) r = ((kd + kd + V(1) - x) * q - kd * p) / (kd + V(1));
    else if constexpr (K == poly_kind::p) r = ((kd + kd + V(1)) * x * q - kd * p) / (kd + V(1));
    else r = (x + x) * q - p;
    p = q;
    q = r;
  }
  return q;
}

/// The polynomial of kind K and degree n at x, in double (torch's formulas and special cases).
template <poly_kind K>
TL_HDI double poly_eval(double x, double nd) {
  if (std::isnan(x) || !std::isfinite(nd)) return std::numeric_limits<double>::quiet_NaN();
  const long long n = static_cast<long long>(nd < 0x1p62 ? nd : 0x1p62);  // truncated, as torch
  if (n < 0) return 0;
  const bool even = n % 2 == 0;
  const double ax = std::fabs(x);
  if constexpr (K == poly_kind::t || K == poly_kind::u || K == poly_kind::v || K == poly_kind::w) {
    const double n1 = static_cast<double>(n);
    if (ax == 1) {
      if constexpr (K == poly_kind::t) return (x > 0 || even) ? 1 : -1;
      if constexpr (K == poly_kind::u) return (x > 0 || even) ? n1 + 1 : -(n1 + 1);
      if constexpr (K == poly_kind::v) return x > 0 ? 1 : (even ? n1 + n1 + 1 : -(n1 + n1 + 1));
      if constexpr (K == poly_kind::w) return x > 0 ? n1 + n1 + 1 : (even ? 1 : -1);
    }
    if (ax < 1 && n > (K == poly_kind::t ? 6 : 8)) {
      const double th = std::acos(x);
      if constexpr (K == poly_kind::t) return std::cos(n1 * th);
      if constexpr (K == poly_kind::u) {
        const double s = std::sin(th);
        return s != 0 ? std::sin((n1 + 1) * th) / s : (n1 + 1) * std::cos((n1 + 1) * th) * x;
      }
      if constexpr (K == poly_kind::v) return std::cos((n1 + 0.5) * th) / std::cos(th / 2);
      if constexpr (K == poly_kind::w) return std::sin((n1 + 0.5) * th) / std::sin(th / 2);
    }
  }
  if (n == 0) return 1;
  if constexpr (K == poly_kind::l) {
    if (x == 0) return 1;
  }
  return poly_recurrence<K>(x, n);
}

/// acos(y) on a packet of doubles, |y| <= 1, to about half an ULP (xsimd's acos is 1.2 ULP, and
/// the trigonometric forms multiply the error of acos by up to n + 1/2): asin(r) = r + r z A(z),
/// z = r^2 <= 1/4 (A: our Chebyshev fit, fit_special_coefficients.py); pi/2 - y formed exactly
/// below |y| = 1/2; above, 2 asin(s) or pi - 2 asin(s) with s = sqrt((1 -+ y) / 2) and the
/// square root's rounding error carried.
template <class D>
TL_INLINE D acos_packet(const D& y) {
  const auto A = [](const D& z) {
    return horner<0.17680460199399817, 0.010972967607792887, 0.0009145648551062361, 8.778021135212931e-05, 9.151973254686311e-06, 1.0074723775341686e-06, 1.1524657200383183e-07, 1.3565257670245776e-08, 1.6323759553538724e-09, 1.9991028034402914e-10, 2.4801535695167338e-11, 3.117793757139341e-12, 4.202279751015744e-13, 5.38639347086339e-14>(vfma(z, D(8), D(-1)));
  };
  const D ay = xsimd::abs(y);
  // |y| <= 1/2: (pi/2 - y) exactly as hi + lo, then the small rest
  const D z0 = y * y;
  const dd<D> t0 = two_sum(D(1.5707963267948966), -y);
  const D near = t0.hi + (t0.lo + (D(6.123233995736766e-17) - y * z0 * A(z0)));
  // |y| > 1/2: z = (1 - |y|) / 2 exactly, s + c = sqrt(z) to twice the precision
  const D z = (D(1) - ay) * D(0.5);
  const D s = xsimd::sqrt(z);
  const D c = xsimd::select(s > D(0), vfma(-s, s, z) / (s + s), D(0));
  const D lo = c + s * z * A(z);  // asin(s + c) - s
  const dd<D> t1 = two_sum(D(3.141592653589793), D(-2) * s);
  const D far = xsimd::select(y > D(0), D(2) * (s + lo), t1.hi + (t1.lo + (D(1.2246467991473532e-16) - D(2) * lo)));
  return xsimd::select(ay <= D(0.5), near, far);
}

/// The Chebyshev polynomial of kind K and degree n >= 1 on a packet of doubles: the same formulas
/// and cases as poly_eval (exact values at |y| = 1, the trigonometric forms for |y| < 1 and large
/// n, the recurrence elsewhere): acos_packet, cos and sin from xsimd.
template <poly_kind K, class D>
TL_INLINE D chebyshev_packet(const D& y, long long n) {
  const double n1 = static_cast<double>(n);
  const auto ay = xsimd::abs(y);
  const auto inside = ay < D(1);
  const bool trig = n > (K == poly_kind::t ? 6 : 8) && xsimd::any(inside);
  D res(0);
  if (!trig || !xsimd::all(inside)) res = poly_recurrence<K>(y, n);
  if (trig) {
    const D th = acos_packet(y);
    D f;
    if constexpr (K == poly_kind::t) {
      f = xsimd::cos(D(n1) * th);
    } else if constexpr (K == poly_kind::u) {
      const D sn = xsimd::sin(th);
      f = xsimd::select(sn != D(0), xsimd::sin(D(n1 + 1) * th) / sn, D(n1 + 1) * xsimd::cos(D(n1 + 1) * th) * y);
    } else if constexpr (K == poly_kind::v) {
      f = xsimd::cos(D(n1 + 0.5) * th) / xsimd::cos(th / D(2));
    } else {
      f = xsimd::sin(D(n1 + 0.5) * th) / xsimd::sin(th / D(2));
    }
    res = xsimd::select(inside, f, res);
  }
  const auto edge = ay == D(1);
  if (xsimd::any(edge)) {
    const bool even = n % 2 == 0;
    const auto pos = y > D(0);
    const D odd2(n1 + n1 + 1);
    D e;
    if constexpr (K == poly_kind::t) e = xsimd::select(pos, D(1), D(even ? 1.0 : -1.0));
    else if constexpr (K == poly_kind::u) e = xsimd::select(pos, D(n1 + 1), D(even ? n1 + 1 : -(n1 + 1)));
    else if constexpr (K == poly_kind::v) e = xsimd::select(pos, D(1), even ? odd2 : D(-(n1 + n1 + 1)));
    else e = xsimd::select(pos, odd2, D(even ? 1.0 : -1.0));
    res = xsimd::select(edge, e, res);
  }
  return xsimd::select(xsimd::isnan(y), y, res);
}

/// Elementwise (x, n) functor; Shifted evaluates at 2x - 1 (computed in double per element).
/// Packets whose lanes share one degree n >= 1 (a scalar n, the common case) run on double
/// packets (the recurrence; for the Chebyshev kinds also the trigonometric forms and the exact
/// values at |x| = 1); packets with mixed degrees run the scalar kernel lane by lane.
template <poly_kind K, bool Shifted>
struct poly_fn : lanewise_binary<poly_fn<K, Shifted>> {
  static constexpr const char* name = "orthogonal_polynomial";
  static TL_HDI double eval(double x, double n) { return poly_eval<K>(Shifted ? x + x - 1 : x, n); }

  template <class B>
  TL_INLINE B packet(const B& x, const B& n) const {
    using T = typename B::value_type;
    const double n0 = common_lane(n);
    if (n0 >= 1 && n0 < 0x1p62) {  // also false for NaN
      const long long nn = static_cast<long long>(n0);
      const auto run = [nn](const auto& xd) {
        using D = std::remove_cvref_t<decltype(xd)>;
        const D y = Shifted ? xd + xd - D(1) : xd;  // rounded as eval rounds it (exact for a float x)
        if constexpr (K == poly_kind::t || K == poly_kind::u || K == poly_kind::v || K == poly_kind::w)
          return chebyshev_packet<K>(y, nn);
        else
          return xsimd::select(xsimd::isnan(y), y, poly_recurrence<K>(y, nn));
      };
      if constexpr (std::is_same_v<T, float>) return tl::detail::float_via_double(x, run);
      else return run(x);
    }
    return lanewise_binary<poly_fn>::packet(x, n);
  }
};

}  // namespace detail

#define TL_SPECIAL_POLY(NAME, KIND, SHIFTED, DOC)                                                           \
  /** @brief DOC (torch.special.NAME); n < 0 gives 0. */                                                     \
  template <class X, class N>                                                                                \
    requires tl::detail::binary_operands<X, N>                                                               \
  auto NAME(X&& x, N&& n) {                                                                                  \
    return tl::detail::make_binary<detail::poly_fn<detail::poly_kind::KIND, SHIFTED>>(std::forward<X>(x),    \
                                                                                      std::forward<N>(n));  \
  }
TL_SPECIAL_POLY(chebyshev_polynomial_t, t, false, Chebyshev polynomial of the first kind T_n(x))
TL_SPECIAL_POLY(chebyshev_polynomial_u, u, false, Chebyshev polynomial of the second kind U_n(x))
TL_SPECIAL_POLY(chebyshev_polynomial_v, v, false, Chebyshev polynomial of the third kind V_n(x))
TL_SPECIAL_POLY(chebyshev_polynomial_w, w, false, Chebyshev polynomial of the fourth kind W_n(x))
TL_SPECIAL_POLY(shifted_chebyshev_polynomial_t, t, true, Shifted Chebyshev polynomial T_n(2x - 1))
TL_SPECIAL_POLY(shifted_chebyshev_polynomial_u, u, true, Shifted Chebyshev polynomial U_n(2x - 1))
TL_SPECIAL_POLY(shifted_chebyshev_polynomial_v, v, true, Shifted Chebyshev polynomial V_n(2x - 1))
TL_SPECIAL_POLY(shifted_chebyshev_polynomial_w, w, true, Shifted Chebyshev polynomial W_n(2x - 1))
TL_SPECIAL_POLY(hermite_polynomial_h, h, false, Hermite polynomial (physicists) H_n(x))
TL_SPECIAL_POLY(hermite_polynomial_he, he, false, Hermite polynomial (probabilists) He_n(x))
TL_SPECIAL_POLY(laguerre_polynomial_l, l, false, Laguerre polynomial L_n(x))
TL_SPECIAL_POLY(legendre_polynomial_p, p, false, Legendre polynomial P_n(x))
#undef TL_SPECIAL_POLY

}  // namespace tl::special
