#pragma once
/// @file igamma_kernel.hpp
/// @brief Internal: double-precision scalar kernels of the regularized incomplete gamma functions
/// P(a, x), Q(a, x) and of the Hurwitz zeta function zeta(s, q) (detail header).
///
/// These iterate a data-dependent number of times, so they are scalar functions (device-callable)
/// that the packet form runs lane by lane.
///  - P, Q: the power series of P (x below max(a, 1)), Legendre's continued fraction of Q (its
///    convergents by the three-term recurrences; x above max(a, 1.1)) and, for x <= 1.1, Q = -expm1(a log x - lgamma(1 + a)) -
///    x^a / Gamma(a) sum_n>=1 (-x)^n / (n! (a + n)), the region choice as in Cephes' igam/igamc.
///    The prefactor x^a e^-x / Gamma(a) is sqrt(a / (2 pi)) exp(a log1pmx((x - a) / a) - S(a)) for
///    a >= 8 (S the Stirling correction, log1pmx(u) = log(1 + u) - u by its series for |u| < 1/4),
///    (a log(x / a) + a - x for x < a / 2), so no large logarithms cancel; below 8,
///    exp(a log x - x - lgamma(a)).
///  - zeta(s, q): Euler-Maclaurin: sum_k<N (q + k)^-s until q + N >= 9 and N >= 9, then
///    (q + N)^(1-s) / (s - 1) - (q + N)^-s / 2 + sum_j B_2j / (2j)! s (s + 1) ... (s + 2j - 2) (q + N)^(-s-2j+1)
///    (up to 12 terms, stopped when below 2^-53 of the sum).
#include <cmath>
#include <limits>

#include "tl/special/detail/gamma_kernel.hpp"

namespace tl::special::detail {

inline constexpr double igamma_eps = 0x1p-53;
inline constexpr int igamma_max_iter = 1 << 22;

/// log(1 + u) - u.
TL_HDI double log1pmx(double u) {
  if (std::fabs(u) >= 0.25) return std::log1p(u) - u;
  double p = u, s = 0;
  for (int k = 2; k < 60; ++k) {  // -u^2/2 + u^3/3 - ...
    p *= -u;
    const double t = p / k;
    s += t;
    if (std::fabs(t) <= igamma_eps * 0.25 * std::fabs(s)) break;
  }
  return s;
}
/// x^a e^-x / Gamma(a), a > 0, x > 0.
TL_HDI double igamma_prefactor(double a, double x) {
  if (a >= 8) {
    const double t = (x - a) / a;
    const double e = (t >= -0.5 ? a * log1pmx(t) : a * std::log(x / a) + (a - x)) - stirling_correction(a);
    return std::sqrt(a * 0.15915494309189533577) * std::exp(e);
  }
  return std::exp(a * std::log(x) - x - lgamma_kernel(a));
}
/// P(a, x) by its power series.
TL_HDI double igam_series(double a, double x) {
  const double f = igamma_prefactor(a, x);
  if (f == 0) return 0;
  double term = 1, sum = 1;
  for (int n = 1; n < igamma_max_iter; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term <= igamma_eps * sum) break;
  }
  return f * sum / a;
}
/// Q(a, x) by Legendre's continued fraction (x > 1.1, x >= a), its convergents p_k / q_k from the
/// three-term recurrences (rescaled when they grow large).
TL_HDI double igamc_fraction(double a, double x) {
  const double f = igamma_prefactor(a, x);
  if (f == 0) return 0;
  double y = 1 - a, z = x + y + 1;
  double p0 = 1, q0 = x, p1 = x + 1, q1 = z * x, r = p1 / q1;
  for (int k = 1; k < igamma_max_iter; ++k) {
    y += 1;
    z += 2;
    const double yk = y * k;
    const double p2 = p1 * z - p0 * yk, q2 = q1 * z - q0 * yk;
    double change = 1;
    if (q2 != 0) {
      const double rn = p2 / q2;
      change = std::fabs((r - rn) / rn);
      r = rn;
    }
    p0 = p1;
    q0 = q1;
    p1 = p2;
    q1 = q2;
    if (std::fabs(p1) > 0x1p500) {
      p0 *= 0x1p-500;
      q0 *= 0x1p-500;
      p1 *= 0x1p-500;
      q1 *= 0x1p-500;
    }
    if (change <= igamma_eps) break;
  }
  return f * r;
}
/// lgamma(1 + a) for a > -1/4, accurate near a = 0.
TL_HDI double lgamma1p(double a) {
  return a < 0.75 ? a * (a - 1) * lgamma_k1(a) : lgamma_kernel(1 + a);
}
/// Q(a, x) for x <= 1.1 and small a.
TL_HDI double igamc_series(double a, double x) {
  double fac = 1, sum = 0;
  for (int n = 1; n < igamma_max_iter; ++n) {
    fac *= -x / n;
    const double term = fac / (a + n);
    sum += term;
    if (std::fabs(term) <= igamma_eps * std::fabs(sum)) break;
  }
  const double lx = std::log(x);
  return -std::expm1(a * lx - lgamma1p(a)) - std::exp(a * lx - lgamma_kernel(a)) * sum;
}
/// Which series or fraction Q takes (Cephes' choice): 0 = 1 - P by the series, 1 = the
/// fraction, 2 = igamc_series.
TL_HDI int igamc_method(double a, double x) {
  if (x > 1.1) return x < a ? 0 : 1;
  if (x <= 0.5) return -0.4 / std::log(x) < a ? 0 : 2;
  return x * 1.1 < a ? 0 : 2;
}
TL_HDI double igamc_finite(double a, double x) {
  switch (igamc_method(a, x)) {
    case 0: return 1 - igam_series(a, x);
    case 1: return igamc_fraction(a, x);
    default: return igamc_series(a, x);
  }
}
/// The edge values shared by P and Q (torch): NaN for a < 0, x < 0, a = x = 0, both infinite;
/// sets *done.
TL_HDI double igamma_edges(double a, double x, bool upper, bool& done) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  done = true;
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return nan;
  if (a == 0) return x > 0 ? (upper ? 0 : 1) : nan;
  if (x == 0) return upper ? 1 : 0;
  if (std::isinf(a)) return std::isinf(x) ? nan : (upper ? 1 : 0);
  if (std::isinf(x)) return upper ? 0 : 1;
  done = false;
  return 0;
}
/// P(a, x) = gamma(a, x) / Gamma(a) (torch.special.gammainc).
TL_HDI double gammainc_eval(double a, double x) {
  bool done = false;
  const double e = igamma_edges(a, x, false, done);
  if (done) return e;
  if (x > 1 && x > a) return 1 - igamc_finite(a, x);
  return igam_series(a, x);
}
/// Q(a, x) = Gamma(a, x) / Gamma(a) (torch.special.gammaincc).
TL_HDI double gammaincc_eval(double a, double x) {
  bool done = false;
  const double e = igamma_edges(a, x, true, done);
  if (done) return e;
  return igamc_finite(a, x);
}

/// Hurwitz zeta(s, q) (torch.special.zeta): inf at s = 1 and at q = 0, -1, -2, ...; NaN for s < 1
/// and for q < 0 with s not an integer; 0 at q = +inf; at s = +inf: 0 for q > 1, 1 at q = 1, inf
/// for q in (0, 1).
TL_HDI double zeta_eval(double s, double q) {
  constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(s) || std::isnan(q)) return nan;
  if (s == 1) return inf;
  if (s < 1) return nan;
  if (q <= 0) {
    if (q == std::floor(q)) return inf;
    if (s != std::floor(s)) return nan;
  }
  if (q == inf) return 0;
  if (s == inf) return q > 1 ? 0 : q == 1 ? 1 : q > 0 ? inf : nan;
  // (2j)! / B_2j, j = 1 .. 12
  constexpr double fb[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1892437580.3183792, 74724249600.0,
                             -2950130727918.164, 116467828143500.67, -4597978722407473.0, 1.8152105401943546e+17,
                             -7.166165256175667e+18};
  double sum = std::pow(q, -s), w = q, b = 0;
  for (int k = 1; k < 9 || w < 9; ++k) {
    w = q + k;
    b = std::pow(w, -s);
    sum += b;
  }
  // the tail from w on, with w's own term counted half: sum_{k>=0} f(w + k) - f(w) / 2 ...
  sum += b * w / (s - 1) - 0.5 * b;
  double rise = 1, p = b;  // s (s + 1) ... (s + 2j - 2), w^(-s - 2j + 1)
  for (int j = 0; j < 12; ++j) {
    rise *= s + 2 * j;
    p /= w;
    const double t = rise * p / fb[j];
    sum += t;
    if (std::fabs(t) <= igamma_eps * 0.5 * std::fabs(sum)) break;
    rise *= s + 2 * j + 1;
    p /= w;
  }
  return sum;
}

}  // namespace tl::special::detail
