#pragma once
/// @file igamma_kernel.hpp
/// @brief Internal: double-precision kernels of the regularized incomplete gamma functions
/// P(a, x), Q(a, x) and of the Hurwitz zeta function zeta(s, q) (detail header).
///
/// These iterate a data-dependent number of times. The entry points are scalar functions
/// (device-callable); the prefactor, the power series and the continued fraction are templates
/// over a scalar or a double packet (on a packet each loop runs until its slowest lane is done),
/// which incomplete_gamma.hpp's packet form uses for the lanes that take them.
///  - P, Q: for a >= 10 and |x / a - 1| <= 0.3, Temme's uniform asymptotic expansion (DiDonato and
///    Morris 1986; coefficients from tests/data/special/fit_igamma_coefficients.py), the smaller of
///    P and Q directly. Elsewhere the power series of P (x below max(a, 1)), Legendre's continued
///    fraction of Q (x above max(a, 1.1), and above 0.5 for small a; evaluated backwards, its
///    length found by the forward recurrences) and, for x <= 0.5, Q = -expm1(a log x - lgamma(1 + a)) -
///    x^a / Gamma(a) sum_n>=1 (-x)^n / (n! (a + n)), the region choice as in Cephes' igam/igamc
///    except for 0.5 < x <= 1.1 (igamc_method).
///    The prefactor x^a e^-x / Gamma(a) is sqrt(a / (2 pi)) exp(-E - S(a)) for a >= 1 (S the Stirling
///    correction, interpolated below 8; E = x - a - a log(x / a) in double-double for a / 4 <= x <= 4 a,
///    a (log1p(t) - t) with t = (x - a) / a or a log(x / a) + a - x outside), so no large logarithms
///    cancel; below 1, a exp(a log x - x - lgamma(1 + a)).
///  - zeta(s, q): Euler-Maclaurin: sum_k<N (q + k)^-s until q + N >= 9 and N >= 9, then
///    (q + N)^(1-s) / (s - 1) - (q + N)^-s / 2 + sum_j B_2j / (2j)! s (s + 1) ... (s + 2j - 2) (q + N)^(-s-2j+1)
///    (up to 12 terms, stopped when below 2^-53 of the sum). Packets sharing one integer order
///    run hurwitz_zeta (gamma_kernel.hpp) instead (zeta_fn::packet, incomplete_gamma.hpp).
#include <cmath>
#include <limits>

#include "tl/special/detail/erf_kernel.hpp"
#include "tl/special/detail/gamma_kernel.hpp"

namespace tl::special::detail {

inline constexpr double igamma_eps = 0x1p-53;
/// Where the float packets' series and fraction stop (their results then round the double value
/// once within 0.50 ULP; a cut at 2^-34 gives 0.5013).
inline constexpr double igamma_float_eps = 0x1p-38;
inline constexpr int igamma_max_iter = 1 << 22;

/// E = x - a - a log(x / a) >= 0 for a / 4 <= x <= 4 a as hi + lo (relative error about 2^-56): with
/// s = (x - a) / (x + a) (x - a exact; the quotient's remainder kept), log(x / a) = 2 atanh(s), so
/// E = (x - a) s - 2 a s^3 (1/3 + s^2/5 + ...), the first product exact and the series a small part.
/// On packets the series is as long as the packet's largest |s| needs.
template <class V>
TL_SPECIAL_KERNEL dd<V> igamma_exponent(const V& a, const V& x) {
  const dd<V> dm = two_sum(x, -a);  // x - a as an exact pair (lo = 0 for a / 2 <= x <= 2 a)
  const V d = dm.hi;
  const dd<V> w = two_sum(x, a);
  const V s = d / w.hi;
  const dd<V> sw = two_prod(s, w.hi);
  const V s_lo = ((((d - sw.hi) - sw.lo) + dm.lo) - s * w.lo) / w.hi;
  const V s2 = s * s;
  // (atanh(s) - s) / s^3 = 1/3 + s^2/5 + ..., as many terms as |s| needs (cut below 2^-56 of E), in
  // even and odd halves side by side
  const V s4 = s2 * s2;
  const double m = lane_max(s2);
  const V at = m <= 0.0036  ? horner<1.0 / 3, 1.0 / 7, 1.0 / 11, 1.0 / 15>(s4) + s2 * horner<1.0 / 5, 1.0 / 9, 1.0 / 13>(s4)
             : m <= 0.035   ? horner<1.0 / 3, 1.0 / 7, 1.0 / 11, 1.0 / 15, 1.0 / 19, 1.0 / 23>(s4) + s2 * horner<1.0 / 5, 1.0 / 9, 1.0 / 13, 1.0 / 17, 1.0 / 21>(s4)
             : m <= 1.0 / 9 ? horner<1.0 / 3, 1.0 / 7, 1.0 / 11, 1.0 / 15, 1.0 / 19, 1.0 / 23, 1.0 / 27, 1.0 / 31, 1.0 / 35>(s4) + s2 * horner<1.0 / 5, 1.0 / 9, 1.0 / 13, 1.0 / 17, 1.0 / 21, 1.0 / 25, 1.0 / 29, 1.0 / 33>(s4)
                            : horner<1.0 / 3, 1.0 / 7, 1.0 / 11, 1.0 / 15, 1.0 / 19, 1.0 / 23, 1.0 / 27, 1.0 / 31, 1.0 / 35, 1.0 / 39, 1.0 / 43, 1.0 / 47, 1.0 / 51, 1.0 / 55, 1.0 / 59, 1.0 / 63, 1.0 / 67, 1.0 / 71, 1.0 / 75, 1.0 / 79>(s4) + s2 * horner<1.0 / 5, 1.0 / 9, 1.0 / 13, 1.0 / 17, 1.0 / 21, 1.0 / 25, 1.0 / 29, 1.0 / 33, 1.0 / 37, 1.0 / 41, 1.0 / 45, 1.0 / 49, 1.0 / 53, 1.0 / 57, 1.0 / 61, 1.0 / 65, 1.0 / 69, 1.0 / 73, 1.0 / 77, 1.0 / 81>(s4);
  const V tail = V(2) * a * s * s2 * at;
  const dd<V> ds = two_prod(d, s);
  const dd<V> e = two_sum(ds.hi, -tail);
  const V lo = e.lo + ds.lo + (d * s_lo + dm.lo * s);
  const V hi = e.hi + lo;
  return {hi, (e.hi - hi) + lo};
}
/// Stirling's correction S(a) = lgamma(a) - (a - 1/2) log a + a - log(2 pi) / 2 for a >= 1: a S(a) is
/// interpolated in 1 / a below 8 (tests/data/special/fit_igamma_coefficients.py), the series above.
template <class V>
TL_SPECIAL_KERNEL V igamma_stirling(const V& a) {
  const auto big = a >= V(8);
  const V u = V(1) / a;  // shared by both forms
  const auto interp = [&] {
    const V t = vfma(u, V(16.0 / 7), V(-9.0 / 7)), t2 = t * t;  // even and odd parts side by side
    return u * (horner<0.08252025721565209, -0.0003426559574552708, -2.7541259598230554e-06, 9.606890399796871e-07, -2.774679096823383e-09, -1.0311044237630795e-08, -4.921868945294926e-10, 1.7065595344332545e-10, 3.180937239615323e-11, 1.974698134209737e-12, -2.2960779460298668e-12, 4.1317387911217206e-14>(t2) + t * horner<-0.0011782573874304734, 6.647787378172115e-05, -2.3814419528410405e-06, -1.9016448992597825e-07, 2.0536313735681596e-08, 3.1783801608033696e-09, -1.4994769401410434e-10, -8.749859849516607e-11, -1.036462188738451e-11, 2.480350777341693e-12, 5.034294723492403e-13>(t2));
  };
  if (all_of(big)) return stirling_correction_recip(u);
  if (!any_of(big)) return interp();
  return sel(big, stirling_correction_recip(u), interp());
}
/// E = x - a - a log(x / a) for float results (a / 4 <= x <= 4 a): the same series in plain double,
/// each length cut at 2^-38 of E instead of 2^-56 (E's roundings, about 2^-52 |E|, move
/// exp(-E) by far less than a float ULP).
template <class V>
TL_SPECIAL_KERNEL V igamma_exponent_float(const V& a, const V& x) {
  const V d = x - a, s = d / (x + a), s2 = s * s, s4 = s2 * s2;
  const double m = lane_max(s2);
  const V at = m <= 0.0036  ? horner<1.0 / 3, 1.0 / 7, 1.0 / 11>(s4) + s2 * horner<1.0 / 5, 1.0 / 9>(s4)
             : m <= 0.035   ? horner<1.0 / 3, 1.0 / 7, 1.0 / 11, 1.0 / 15>(s4) + s2 * horner<1.0 / 5, 1.0 / 9, 1.0 / 13, 1.0 / 17>(s4)
             : m <= 1.0 / 9 ? horner<1.0 / 3, 1.0 / 7, 1.0 / 11, 1.0 / 15, 1.0 / 19, 1.0 / 23>(s4) + s2 * horner<1.0 / 5, 1.0 / 9, 1.0 / 13, 1.0 / 17, 1.0 / 21, 1.0 / 25>(s4)
                            : horner<1.0 / 3, 1.0 / 7, 1.0 / 11, 1.0 / 15, 1.0 / 19, 1.0 / 23, 1.0 / 27, 1.0 / 31, 1.0 / 35, 1.0 / 39, 1.0 / 43, 1.0 / 47, 1.0 / 51>(s4) + s2 * horner<1.0 / 5, 1.0 / 9, 1.0 / 13, 1.0 / 17, 1.0 / 21, 1.0 / 25, 1.0 / 29, 1.0 / 33, 1.0 / 37, 1.0 / 41, 1.0 / 45, 1.0 / 49, 1.0 / 53>(s4);
  return vfma(d, s, -(V(2) * a * s * s2 * at));
}
/// lgamma(1 + a) for a > -1/4, accurate near a = 0.
template <class V>
TL_SPECIAL_KERNEL V lgamma1p(const V& a) {
  const auto lo = a < V(0.75);
  if (all_of(lo)) return a * (a - V(1)) * lgamma_k1(a);
  if (!any_of(lo)) return lgamma_kernel(V(1) + a);
  return sel(lo, a * (a - V(1)) * lgamma_k1(vmin(a, V(0.75))), lgamma_kernel(V(1) + a));
}
/// The prefactors of the fraction, f = x^a e^-x / Gamma(a), and of the series, g = f / a =
/// x^a e^-x / Gamma(a + 1).
template <class V>
struct igamma_factors {
  V f, g;
};
/// f and g for a > 0, x > 0. Below a = 1, g = exp(a log x - x - lgamma(1 + a)) (lgamma1p, accurate
/// near 0, where lgamma(a) = lgamma(1 + a) - log a is large and its exponential would lose |log a|
/// ULP: 100 at a = 1e-300) and f = a g; from 1, g = f / a. Float (float results): the exponent in
/// plain double (igamma_exponent_float), sqrt(a / (2 pi)) rounded once and the exponential from
/// a >= 1 by exp_for_float (3e-13 relative). Its clamp at e^-700 leaves the float results at 0:
/// the exponent is below -700 only with |x - a| > 0.3 a (outside Temme's region), where the sums
/// that multiply the prefactor stay below 4.4 (the series below 1 / (1 - x / a), the fraction
/// about x / (x - a)).
template <class V, bool Float = false>
TL_SPECIAL_KERNEL igamma_factors<V> igamma_prefactors(const V& a, const V& x) {
  const auto ge1 = a >= V(1);
  const auto near = ge1 && (x >= V(0.25) * a) && (x <= V(4) * a);
  V r(0);
  if constexpr (Float) {
    if (any_of(near)) {
      const V e = igamma_exponent_float(a, x) + igamma_stirling(a);
      r = vsqrt(a * V(0.15915494309189533577)) * exp_for_float(-e);
    }
  } else if (any_of(near)) {
    const dd<V> e = igamma_exponent(a, x);
    const dd<V> es = two_sum(e.hi, igamma_stirling(a));
    // sqrt(a / (2 pi)) = m (1 + r): its rounding joins the exponent's low part
    const dd<V> ac = two_prod(a, V(0.15915494309189535));
    const V acl = ac.lo + a * V(-9.839338337591243e-18);
    const V m = vsqrt(ac.hi);
    const dd<V> mm = two_prod(m, m);
    const V rr = (((ac.hi - mm.hi) - mm.lo) + acl) / (V(2) * ac.hi);
    r = times_exp(m, -es.hi, rr - (es.lo + e.lo));
  }
  const auto far = ge1 && !near;
  if (any_of(far)) {
    // |t| >= 3/4 here, where log1p(t) - t is accurate as it stands
    const V t = (x - a) / a;
    const V e = sel(t >= V(-0.5), a * (vlog1p(t) - t), a * vlog(x / a) + (a - x)) - igamma_stirling(a);
    const V m = vsqrt(a * V(0.15915494309189533577));
    r = sel(far, Float ? m * exp_for_float(e) : times_exp(m, e, V(0)), r);
  }
  const auto small = !ge1;
  if (!any_of(small)) return {r, r / a};
  const V as = vmin(a, V(1));
  const dd<V> e = two_sum(-x, as * log_sub(x) - lgamma1p(as));  // the exponent's rounding kept
  const V g = sel(small, times_exp(V(1), e.hi, e.lo), r / a);
  return {sel(small, a * g, r), g};
}
/// x^a e^-x / Gamma(a), a > 0, x > 0 (igamma_prefactors' f).
template <class V, bool Float = false>
TL_SPECIAL_KERNEL V igamma_prefactor(const V& a, const V& x) {
  return igamma_prefactors<V, Float>(a, x).f;
}
/// How often the loops below look for numerators and denominators to scale down by 2^-500: every
/// 4th step while no step can grow them by more than 2^100 (|a| and x below 2^80), else every step
/// (the test and the masked scaling sit on the loops' dependency chains).
template <class V>
TL_SPECIAL_KERNEL int igamma_rescale_period(const V& a, const V& x) {
  return lane_max(vmax(vabs(a), vabs(x))) < 0x1p80 ? 4 : 1;
}
/// num, den *= 2^-500 in the lanes where |den| > 2^500.
template <class V>
TL_SPECIAL_KERNEL void igamma_rescale(V& num, V& den) {
  const auto big = vabs(den) > V(0x1p500);
  num = sel(big, num * V(0x1p-500), num);
  den = sel(big, den * V(0x1p-500), den);
}
/// P(a, x) / g (igamma_prefactors) by the power series 1 + x / (a + 1) (1 + x / (a + 2) (1 + ...)): a
/// forward pass finds the number of terms n (the first term below 2^-53, a bound on 2^-53 of the
/// sum that needs no division: numerator and denominator of the term kept apart), the value is the
/// nested form evaluated from term 5n/4 + 4 inwards as a numerator and denominator (no division per
/// step), where each rounding is damped by the factors x / (a + k) < 1 that follow (the forward
/// terms carry up to n roundings each: 5 ULP near x = a = 10). On packets n is the largest over
/// the lanes.
template <class V>
TL_SPECIAL_KERNEL V igam_series_sum(const V& a, const V& x) {
  const int period = igamma_rescale_period(a, x);
  V tn(1), td(1);
  int n = 1;
  for (; n < igamma_max_iter; ++n) {
    tn = tn * x;
    td = td * (a + V(n));
    if (all_of(tn <= V(igamma_eps) * td)) break;
    if (n % period == 0) igamma_rescale(tn, td);
  }
  V num(1), den(1);
  for (int k = n + n / 4 + 4; k >= 1; --k) {  // beyond n: the terms shrink slowly near x = a
    const V ak = a + V(k);
    num = ak * den + x * num;
    den = den * ak;
    if (k % period == 0) igamma_rescale(num, den);
  }
  return num / den;
}
/// P(a, x) / g for float results: one forward pass with the sum kept as num / den
/// (den = (a + 1)...(a + k), num = sum of x^j (a + j + 1)...(a + k)), its roundings far below
/// float's, stopped where the rest, below t r / (1 - r) with t the last term and
/// r = x / (a + k + 1) < 1, is below 2^-38 (the sum is at least 1): t x < 2^-38 (a + k + 1 - x) den,
/// tested every second step as 2^38 x t <= (a + k + 1 - x) den (a + k + 1 - x > 0: the packet path
/// sums the series only where x <= max(a, 1.1)). Below 2^24 (a, x and a + k, k < 2^22) sixteen steps
/// grow den by at most 2^392 and num by that times k + 1, so the scaling is looked at every 16th.
template <class V>
TL_SPECIAL_KERNEL V igam_series_sum_float(const V& a, const V& x) {
  const int every = lane_max(vmax(vabs(a), x)) < 0x1p24 ? 16 : igamma_rescale_period(a, x);
  const V xe = x * V(1 / igamma_float_eps), xm1 = x - V(1);
  V ak = a, tn(1), num(1), den(1);
  for (int k = 1; k < igamma_max_iter; ++k) {
    ak = ak + V(1);
    tn = tn * x;
    num = vfma(num, ak, tn);
    den = den * ak;
    if (k % 2 == 0 && all_of(tn * xe <= (ak - xm1) * den)) break;
    if (k % every == 0) {
      const auto big = den > V(0x1p500);
      tn = sel(big, tn * V(0x1p-500), tn);
      num = sel(big, num * V(0x1p-500), num);
      den = sel(big, den * V(0x1p-500), den);
    }
  }
  return num / den;
}
/// P(a, x) by its power series x^a e^-x / Gamma(a + 1) (1 + x / (a + 1) (1 + ...)).
template <class V>
TL_SPECIAL_KERNEL V igam_series(const V& a, const V& x) {
  const V g = igamma_prefactors(a, x).g;
  if (all_of(g == V(0))) return V(0);
  return sel(g == V(0), V(0), g * igam_series_sum(a, x));
}
/// Q(a, x) / prefactor by Legendre's continued fraction (x > 1.1 and x >= a, or 0.5 < x <= 1.1 and a <= 1.1 x): 1 / (x + 1 - a - 1 (1 - a) /
/// (x + 3 - a - ...)). The forward three-term recurrences of the convergents only find the number
/// of terms n (the first convergent that changes by at most 2^-53, tested without a division; on
/// packets, the first where every lane has); the value is then evaluated backwards from term
/// 5n/4 + 4 (the changes shrink slowly at x = 1 - 2, so stopping at n leaves several ULP), as a
/// numerator and denominator (no division per step): the forward convergents accumulate up to 30
/// ULP at x = 1 - 2, the backward evaluation 1.5.
template <class V>
TL_SPECIAL_KERNEL V igamc_fraction_value(const V& a, const V& x) {
  const int period = igamma_rescale_period(a, x);
  V y = V(1) - a, z = x + y + V(1);
  V p0(1), q0 = x, p1 = x + V(1), q1 = z * x;
  auto done = V(0) != V(0);
  int n = 1;
  for (; n < igamma_max_iter; ++n) {
    y = y + V(1);
    z = z + V(2);
    const V yk = y * V(n);
    const V p2 = p1 * z - p0 * yk, q2 = q1 * z - q0 * yk;
    // the test's products with q scaled by 2^-600: |p| and |q| reach up to 2^800 between two
    // scalings (igamma_rescale_period), where the plain products would overflow and the test fail
    const V q1s = q1 * V(0x1p-600), q2s = q2 * V(0x1p-600);
    done = done || (vabs(p2 * q1s - p1 * q2s) <= V(igamma_eps) * vabs(p2 * q1s));
    p0 = p1;
    q0 = q1;
    p1 = p2;
    q1 = q2;
    if (all_of(done)) break;
    if (n % period == 0) {
      const auto big = vabs(p1) > V(0x1p500) || vabs(q1) > V(0x1p500);
      p0 = sel(big, p0 * V(0x1p-500), p0);
      q0 = sel(big, q0 * V(0x1p-500), q0);
      p1 = sel(big, p1 * V(0x1p-500), p1);
      q1 = sel(big, q1 * V(0x1p-500), q1);
    }
  }
  // the tail t = num / den = k (k - a) / (x + 2k + 1 - a - t') from k = n + 1 down to 1
  const V xa = x - a;  // exact near x = a, where x + 2k + 1 - a would round twice
  V num(0), den(1);
  for (int k = n + n / 4 + 4; k >= 1; --k) {  // beyond n: the changes shrink slowly near x = 1
    const V nk = V(k) * (V(k) - a) * den;
    den = (xa + V(2 * k + 1)) * den - num;
    num = nk;
    if (k % period == 0) igamma_rescale(num, den);
  }
  return den / ((xa + V(1)) * den - num);
}
/// Q(a, x) / prefactor for float results: the forward recurrences only, with z = x + 2n + 2 - a
/// and n (n + 1 - a) stepped by additions, stopped at the first even step where every lane's
/// convergent changes by at most 2^-38, and that convergent returned (its roundings, up to 30 ULP
/// of double at x = 1 - 2, are far below float's). The scaling keeps |p|, |q| below 2^256 at each
/// look, so the test's products stay finite until the next (one step grows them by at most about
/// x + 2n + |a|: below 2^60 four steps give at most 2^244 more).
template <class V>
TL_SPECIAL_KERNEL V igamc_fraction_float(const V& a, const V& x) {
  const int every = lane_max(vmax(vabs(a), x)) < 0x1p60 ? 4 : 1;
  V z = x + V(4) - a, yk = V(2) - a, dy = V(4) - a;
  V p0(1), q0 = x, p1 = x + V(1), q1 = (x + V(2) - a) * x;
  for (int n = 1; n < igamma_max_iter; ++n) {
    const V p2 = vfma(p1, z, -(p0 * yk)), q2 = vfma(q1, z, -(q0 * yk));
    z = z + V(2);
    yk = yk + dy;
    dy = dy + V(2);
    if (n % 2 == 0 && all_of(vabs(vfma(p2, q1, -(p1 * q2))) <= V(igamma_float_eps) * vabs(p2 * q1))) return p2 / q2;
    p0 = p1;
    q0 = q1;
    p1 = p2;
    q1 = q2;
    if (n % every == 0) {
      const auto big = vmax(vabs(p1), vabs(q1)) > V(0x1p256);
      p0 = sel(big, p0 * V(0x1p-256), p0);
      q0 = sel(big, q0 * V(0x1p-256), q0);
      p1 = sel(big, p1 * V(0x1p-256), p1);
      q1 = sel(big, q1 * V(0x1p-256), q1);
    }
  }
  return p1 / q1;
}
/// Q(a, x) by the continued fraction times the prefactor.
template <class V>
TL_SPECIAL_KERNEL V igamc_fraction(const V& a, const V& x) {
  const V f = igamma_prefactor(a, x);
  if (all_of(f == V(0))) return V(0);
  return sel(f == V(0), V(0), f * igamc_fraction_value(a, x));
}
/// Q(a, x) for 0 < x <= 0.5 and small a (on packets, the series as long as the slowest lane needs).
template <class V>
TL_SPECIAL_KERNEL V igamc_series(const V& a, const V& x) {
  V fac(1), sum(0);
  int n = 1;
  for (; n < igamma_max_iter; ++n) {
    fac = fac * (-x / V(n));
    const V term = fac / (a + V(n));
    sum = sum + term;
    if (all_of(vabs(term) <= V(igamma_eps) * vabs(sum))) break;
  }
  // the sum again, nested from term n inwards: -x (1/(a+1) - x/2 (1/(a+2) - x/3 (...)))
  V t(0);
  for (int k = n; k >= 1; --k) t = V(1) / (a + V(k)) - x * t / V(k + 1);
  sum = -x * t;
  const V u = a * log_sub(x) - lgamma1p(a);  // x^a / Gamma(a) = a e^u
  const V em = vexpm1(u);
  return -(em + a * sum * (V(1) + em));
}
/// Which series or fraction Q takes: 0 = 1 - P by the series, 1 = the fraction, 2 = igamc_series.
/// Cephes' choice, except that 0.5 < x <= 1.1 takes the fraction where Cephes takes igamc_series:
/// there -expm1(a log x - lgamma(1 + a)) and the series cancel (to a E1(x) for small a, as
/// -gamma - log x + Ein(x) = E1(x) with -gamma - log x < 0 above x = 0.56), which cost up to 18 ULP
/// at x near 1; the fraction stays within 3.5 ULP there, at 4 to 6 times the cost.
TL_HDI int igamc_method(double a, double x) {
  if (x > 1.1) return x < a ? 0 : 1;
  if (x <= 0.5) return -0.4 / std::log(x) < a ? 0 : 2;
  return x * 1.1 < a ? 0 : 1;
}
TL_HDI double igamc_finite(double a, double x) {
  switch (igamc_method(a, x)) {
    case 0: return 1 - igam_series(a, x);
    case 1: return igamc_fraction(a, x);
    default: return igamc_series(a, x);
  }
}
/// Row k of Temme's expansion, C_k(eta) = sum_n d_kn eta^n for |eta| <= 0.35 (coefficients from
/// tests/data/special/fit_igamma_coefficients.py, each row cut where its terms fall below 2^-66 of
/// the sum at a >= 10).
template <class V>
TL_SPECIAL_KERNEL V igamma_temme_row(int k, const V& eta) {
  switch (k) {
    case 0: return horner<-0.3333333333333333, 0.08333333333333333, -0.014814814814814815, 0.0011574074074074073, 0.0003527336860670194, -0.0001787551440329218, 3.919263178522438e-05, -2.185448510679992e-06, -1.85406221071516e-06, 8.296711340953087e-07, -1.7665952736826078e-07, 6.707853543401498e-09, 1.0261809784240309e-08, -4.382036018453353e-09, 9.14769958223679e-10, -2.5514193994946248e-11, -5.830772132550426e-11, 2.4361948020667415e-11, -5.0276692801141755e-12>(eta);
    case 1: return horner<-0.001851851851851852, -0.003472222222222222, 0.0026455026455026454, -0.0009902263374485596, 0.00020576131687242798, -4.018775720164609e-07, -1.8098550334489977e-05, 7.64916091608111e-06, -1.6120900894563446e-06, 4.647127802807434e-09, 1.378633446915721e-07, -5.752545603517705e-08, 1.1951628599778148e-08, -1.7543241719747647e-11, -1.0091543710600413e-09, 4.162792991842583e-10, -8.56390702649298e-11>(eta);
    case 2: return horner<0.004133597883597883, -0.0026813271604938273, 0.0007716049382716049, 2.0093878600823047e-06, -0.0001073665322636516, 5.2923448829120125e-05, -1.2760635188618728e-05, 3.423578734096138e-08, 1.3721957309062934e-06, -6.298992138380055e-07, 1.4280614206064242e-07, -2.0477098421990866e-10, -1.409252991086752e-08, 6.228974084922022e-09, -1.3670488396617114e-09, 9.428356159014678e-13, 1.2872252400089318e-10>(eta);
    case 3: return horner<0.0006494341563786008, 0.00022947209362139917, -0.0004691894943952557, 0.00026772063206283885, -7.561801671883977e-05, -2.396505113867297e-07, 1.1082654115347302e-05, -5.6749528269915965e-06, 1.4230900732435883e-06, -2.7861080291528143e-11, -1.6958404091930278e-07, 8.099464905388083e-08, -1.9111168485973655e-08, 2.3928620439808118e-12, 2.0620131815488797e-09, -9.460496661855133e-10>(eta);
    case 4: return horner<-0.0008618882909167117, 0.0007840392217200666, -0.0002990724803031902, -1.4638452578843418e-06, 6.641498215465122e-05, -3.968365047179435e-05, 1.1375726970678419e-05, 2.507497226237533e-10, -1.6954149536558305e-06, 8.907507532205309e-07, -2.292934834000805e-07, 2.956794137544049e-11, 2.8865829742708783e-08, -1.4189739437803219e-08, 3.4463580499464896e-09>(eta);
    case 5: return horner<-0.00033679855336635813, -6.972813758365857e-05, 0.0002772753244959392, -0.00019932570516188847, 6.797780477937208e-05, 1.419062920643967e-07, -1.3594048189768693e-05, 8.018470256334202e-06, -2.291481176508095e-06, -3.252473551298454e-10, 3.4652846491085265e-07, -1.8447187191171344e-07, 4.8240967037894184e-08, -1.7989466721743514e-14, -6.306194500013523e-09>(eta);
    case 6: return horner<0.0005313079364639922, -0.0005921664373536939, 0.0002708782096718045, 7.902353232660328e-07, -8.153969367561969e-05, 5.61168275310625e-05, -1.8329116582843375e-05, -3.0796134506033047e-09, 3.465155368803609e-06, -2.0291327396058603e-06, 5.788792863149004e-07, 2.338630673826657e-13, -8.828600746330484e-08, 4.7435958880408125e-08>(eta);
    case 7: return horner<0.00034436760689237765, 5.171790908260592e-05, -0.00033493161081142234, 0.0002812695154763237, -0.00010976582244684731, -1.2741009095484485e-07, 2.7744451511563645e-05, -1.8263488805711332e-05, 5.7876949497350525e-06, 4.93875893393627e-10, -1.0595367014026043e-06, 6.166714376110408e-07, -1.7562973359060463e-07>(eta);
    case 8: return horner<-0.0006526239185953094, 0.0008394987206720873, -0.000438297098541721, -6.969091458420552e-07, 0.00016644846642067547, -0.00012783517679769218, 4.629953263691304e-05, 4.557909867922708e-09, -1.0595271125805195e-05, 6.783342904865167e-06, -2.1075476666258803e-06>(eta);
    case 9: return horner<-0.0005967612901927463, -7.204895416020011e-05, 0.0006782308837667328, -0.0006401475260262758, 0.00027750107634328704, 1.819700838046515e-07, -8.479507117068503e-05, 6.105192082501531e-05, -2.1073920183404862e-05, -8.858589014125599e-10, 4.5284535953805374e-06, -2.8427815022504407e-06>(eta);
    case 10: return horner<0.0013324454494800656, -0.0019144384985654776, 0.0011089369134596636, 9.9324041226423e-07, -0.0005087450129309319, 0.00042735056665392886, -0.00016858853767910798, -8.1301893922785e-09, 4.5284402370562144e-05, -3.127053674781734e-05, 1.044986828530338e-05>(eta);
    case 11: return horner<0.001579727660730835, 0.00016251626278391583, -0.0020633421035543276, 0.00213896861856891, -0.0010108559391263003, -3.99127055299192e-07, 0.0003623502508476469, -0.00028143901463712157, 0.00010449513336495887>(eta);
    case 12: return horner<-0.004072512119514016, 0.00640336283380807, -0.004041016108167662, -2.1837328028662328e-06, 0.002174044180125464, -0.001970044051841889, 0.0008359546974796246, 1.9445447567109655e-08, -0.000257793871204217, 0.00019009987368139304>(eta);
    case 13: return horner<-0.0059475779383993, -0.0005401647678926045, 0.00879104135507679, -0.009857631558785612, 0.005013469503102154, 1.2807521786221875e-06, -0.0020626019342754685, 0.0017109128573523059, -0.000676953127141338>(eta);
    case 14: return horner<0.01740202778752271, -0.02952788094569912, 0.020045875571402798, 7.0289515966903405e-06, -0.012375421071343148, 0.011976293444235255, -0.0054156038466518525>(eta);
    case 15: return horner<0.03024912416090589, 0.0024817436002649977, -0.049939134373457025, 0.05991564300930787, -0.03248320760162339, -5.721296865210344e-06, 0.015085251778569354>(eta);
    case 16: return horner<-0.09905102088015905, 0.17954011706123485, -0.12989606383463778, -3.1478872752284355e-05, 0.09051063527684813, -0.0928288244111844>(eta);
    case 17: return horner<-0.19994542198219728, -0.015056113040026424, 0.3647023946934849, -0.4643519231173355, 0.26640934719197895>(eta);
    case 18: return horner<0.7243860850402943, -1.3918010932653375, 1.0654143352413967>(eta);
    case 19: return horner<1.6668949727276812, 0.1165462765994632, -3.3288393225018904, 4.469232548286404>(eta);
    case 20: return horner<-6.618829886137293, 13.397985455142589>(eta);
    case 21: return horner<-17.112706061976095>(eta);
    case 22: return horner<73.89033153567425>(eta);
    case 23: return horner<212.1683709838252>(eta);
    case 24: return horner<-989.5964309832236>(eta);
    default: return V(0);
  }
}
/// Temme's uniform asymptotic expansion (DiDonato and Morris 1986) for a >= 10, |x / a - 1| <= 0.3:
/// with E = a eta^2 / 2 = x - a - a log(x / a) and y = sqrt(E) (eta of the sign of x - a),
/// Q = erfc(y) / 2 + R for x >= a, P = erfc(-y) / 2 - R for x < a, R = e^-E / sqrt(2 pi a) sum_k C_k(eta) a^-k,
/// evaluated as v = e^-E (erfcx(|y|) / 2 +- sum / sqrt(2 pi a)): the smaller of P and Q, the other
/// is 1 - v. E is formed in double-double from s = (x - a) / (x + a), E = (x - a) s - 2 a s^3 (1/3 + s^2/5 + ...),
/// so that e^-E carries no cancelled logarithm.
template <class V, bool Float = false>
TL_SPECIAL_KERNEL V igamma_temme(const V& a, const V& x, bool upper) {
  const V d = x - a;
  const dd<V> ee = Float ? dd<V>{igamma_exponent_float(a, x), V(0)} : igamma_exponent(a, x);
  const V e_hi = ee.hi, e_lo = ee.lo;
  // y = sqrt(e_hi + e_lo) as hi + lo
  const V y = vsqrt(e_hi);
  const dd<V> yy = two_prod(y, y);
  const auto pos = y > V(0);
  const V y_lo = sel(pos, (((e_hi - yy.hi) - yy.lo) + e_lo) / (V(2) * sel(pos, y, V(1))), V(0));
  const V eta = vcopysign(y * vsqrt(V(2) / a), d);
  const V r = V(1) / a;
  V sum = igamma_temme_row(0, eta), rk(1);
  // each lane stops after two terms below 2^-60 of its sum (one row may vanish near its zero;
  // Float: for float results, 2^-42, with E summed in plain double, igamma_exponent_float)
  V small(0);
  for (int k = 1; k < 25; ++k) {
    const auto done = small >= V(2);
    if (all_of(done)) break;
    rk = rk * r;
    const V t = igamma_temme_row(k, eta) * rk;
    sum = sel(done, sum, sum + t);
    small = sel(done, small, sel(vabs(t) <= V(Float ? 0x1p-42 : 0x1p-60) * vabs(sum), small + V(1), V(0)));
  }
  const auto up = d >= V(0);
  const V rs = sel(up, sum, -sum) * (V(0.3989422804014326779) / vsqrt(a));
  const auto near = y < V(0.75);
  V v(0);
  if (any_of(near)) {
    // erfc(y) = 1 - erf(y) directly (erf_small's range): erfcx(y) e^-E is less accurate there
    const V ys = vmin(y, V(0.75));
    v = V(0.5) * ((V(1) - erf_small(ys)) - V(1.1283791670955125739) * y_lo) + times_exp(rs, -e_hi, -e_lo);
  }
  if (!all_of(near)) {
    // erfcx(y + y_lo) = erfcx(y) + y_lo (2 y erfcx(y) - 2 / sqrt(pi))
    const V yl = vmax(y, V(0.75));
    const V g = erfcx_kernel(yl);
    v = sel(near, v, times_exp(V(0.5) * (g + y_lo * (V(2) * yl * g - V(1.1283791670955125739))) + rs, -e_hi, -e_lo));
  }
  return upper ? sel(up, v, V(1) - v) : sel(up, V(1) - v, v);
}
/// Whether (a, x) is in the region of Temme's expansion.
TL_HDI bool igamma_use_temme(double a, double x) { return a >= 10 && std::fabs(x - a) <= 0.3 * a; }
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
/// P or Q within [0, 1] (a result of 1 - v or of a product may round one ULP beyond 1, and a
/// vanishing one to -0); NaN stays NaN.
template <class V>
TL_SPECIAL_KERNEL V igamma_clamp(const V& r) {
  return sel(r <= V(0), V(0), sel(r > V(1), V(1), r));
}
/// P(a, x) = gamma(a, x) / Gamma(a) (torch.special.gammainc).
TL_HDI double gammainc_eval(double a, double x) {
  bool done = false;
  const double e = igamma_edges(a, x, false, done);
  if (done) return e;
  if (igamma_use_temme(a, x)) return igamma_clamp(igamma_temme(a, x, false));
  if (x > 1 && x > a) return igamma_clamp(1 - igamc_finite(a, x));
  return igamma_clamp(igam_series(a, x));
}
/// Q(a, x) = Gamma(a, x) / Gamma(a) (torch.special.gammaincc).
TL_HDI double gammaincc_eval(double a, double x) {
  bool done = false;
  const double e = igamma_edges(a, x, true, done);
  if (done) return e;
  if (igamma_use_temme(a, x)) return igamma_clamp(igamma_temme(a, x, true));
  return igamma_clamp(igamc_finite(a, x));
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
  // (w^(1-s) by itself: w^-s underflows first for large w)
  sum += std::pow(w, 1 - s) / (s - 1) - 0.5 * b;
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
