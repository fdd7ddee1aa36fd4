#pragma once
/// @file polynomial.hpp
/// @brief tl::special orthogonal polynomials (x, n): chebyshev_polynomial_t/u/v/w, their shifted
/// forms, hermite_polynomial_h/he, laguerre_polynomial_l, legendre_polynomial_p (torch.special).
///
/// Lazy binary expressions (x and n broadcast; either may be a scalar), float or double (integer
/// operands compute in float), evaluated in double per element (the degree, and with it the
/// recurrence length, varies per element, so these run the scalar functor on every element).
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
  double p = 1, q;
  switch (K) {
    case poly_kind::t: q = x; break;
    case poly_kind::u: q = x + x; break;
    case poly_kind::v: q = x + x - 1; break;
    case poly_kind::w: q = x + x + 1; break;
    case poly_kind::h: q = x + x; break;
    case poly_kind::he: q = x; break;
    case poly_kind::l: q = 1 - x; break;
    default: q = x; break;
  }
  if constexpr (K == poly_kind::l) {
    if (x == 0) return 1;
  }
  for (long long k = 1; k < n; ++k) {
    const double kd = static_cast<double>(k);
    double r;
    if constexpr (K == poly_kind::h) r = (x + x) * q - (kd + kd) * p;
    else if constexpr (K == poly_kind::he) r = x * q - kd * p;
    else if constexpr (K == poly_kind::l) r = ((kd + kd + 1 - x) * q - kd * p) / (kd + 1);
    else if constexpr (K == poly_kind::p) r = ((kd + kd + 1) * x * q - kd * p) / (kd + 1);
    else r = (x + x) * q - p;
    p = q;
    q = r;
  }
  return q;
}

/// Elementwise (x, n) functor; Shifted evaluates at 2x - 1 (computed in double per element).
template <poly_kind K, bool Shifted>
struct poly_fn : lanewise_binary<poly_fn<K, Shifted>> {
  static constexpr const char* name = "orthogonal_polynomial";
  static TL_HDI double eval(double x, double n) { return poly_eval<K>(Shifted ? x + x - 1 : x, n); }
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
