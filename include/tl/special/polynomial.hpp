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

/// The Chebyshev polynomial of kind K and degree n >= 1 on a packet of doubles: the same formulas
/// and cases as poly_eval (exact values at |y| = 1, the trigonometric forms for |y| < 1 and large
/// n, the recurrence elsewhere): acos from libm per lane, cos and sin from xsimd.
template <poly_kind K, class D>
TL_INLINE D chebyshev_packet(const D& y, long long n) {
  const double n1 = static_cast<double>(n);
  const auto ay = xsimd::abs(y);
  const auto inside = ay < D(1);
  const bool trig = n > (K == poly_kind::t ? 6 : 8) && xsimd::any(inside);
  D res(0);
  if (!trig || !xsimd::all(inside)) res = poly_recurrence<K>(y, n);
  if (trig) {
    // acos from libm lane by lane: the trigonometric forms multiply its error by up to n + 1/2,
    // and libm's (0.5 ULP) is more accurate than xsimd's (1.2 ULP); the rest runs on packets.
    alignas(64) double buf[D::size];
    y.store_aligned(buf);
    for (std::size_t i = 0; i < D::size; ++i) buf[i] = std::acos(buf[i]);
    const D th = D::load_aligned(buf);
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
    alignas(64) T nb[B::size];
    n.store_aligned(nb);
    bool uniform = nb[0] >= 1 && nb[0] < T(0x1p62);  // also false for NaN
    for (std::size_t i = 1; i < B::size; ++i) uniform = uniform && nb[i] == nb[0];
    if (uniform) {
      const long long nn = static_cast<long long>(nb[0]);
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
