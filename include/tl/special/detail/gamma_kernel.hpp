#pragma once
/// @file gamma_kernel.hpp
/// @brief Internal: double-precision kernels of the gamma family: lgamma, digamma, polygamma
/// (detail header).
///
/// Polynomials are Chebyshev interpolants computed at 50 digits by
/// tests/data/special/fit_gamma_bessel_coefficients.py, in monomial form of u in [-1, 1]:
///  - lgamma(x) = t (t - 1) K1(t) (- log x for x < 0.75), t = x or x - 1, x in (0, 1.75) (22 terms);
///  - lgamma(x) = s (s + 1) K2(s), s = x - 2 in [-0.25, 1] (19 terms): the zeros at 1 and 2 are
///    factored out, so both keep relative accuracy there; [3, 8) is reduced to [2, 3) by
///    lgamma(x) = lgamma(x - k) + log((x - 1) ... (x - k)); Stirling's series from 8 on;
///  - digamma(x) = (t - t0) R(t), t = x - 1 in [0, 2] (30 terms), t0 + 1 the positive zero of psi,
///    held as hi + lo; (0, 1) by psi(x) = psi(x + 1) - 1/x (R evaluated at t = x exactly),
///    [3, 8) by the recurrence upwards (the reciprocals summed as one fraction), the asymptotic
///    series from 8 on;
///  - polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) with the Hurwitz zeta by Euler-Maclaurin
///    summation: the terms (q + k)^-(n+1) until q + k >= n + 9 (a count uniform over the packet),
///    each from an exact q + k (two-sum), one division and a double-double power, summed with
///    compensation, then the tail with 12 Bernoulli terms;
///  - x < 0 by reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x),
///    psi(x) = psi(1 - x) - pi cot(pi x), psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot pi x)
///    with P_0(c) = c, P_(k+1)(c) = -(1 + c^2) P_k'(c) below -64 (above, the
///    Hurwitz sum itself, with ceil(-x) more terms); sin and cos of pi r for the exactly reduced
///    r = x - round(x).
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include "tl/special/detail/kernel.hpp"

namespace tl::special::detail {

/// (a + b)^-m for m >= 1, |b| <= ulp(a) / 2: 1 / (a + b) as hi + lo (one division and an exact
/// product), then its m-th power in double-double (relative error about 2^-100 before rounding).
/// Where the power overflows (inf - inf in the low parts), inf.
template <class V>
TL_SPECIAL_KERNEL V recip_pow(const dd<V>& ab, int m) {
  const V inv = V(1) / ab.hi;
  const dd<V> ai = two_prod(ab.hi, inv);
  const V e = ((V(1) - ai.hi) - ai.lo) - ab.lo * inv;  // 1 - (a + b) inv, exact to first order
  const dd<V> x{inv, inv * e};
  dd<V> b{x}, r{x};
  bool first = true;
  while (m) {
    if (m & 1) {
      r = first ? b : mul_dd(r, b);
      first = false;
    }
    m >>= 1;
    if (m) b = mul_dd(b, b);
  }
  const V t = r.hi + r.lo;
  return sel(visnan(t), V(std::numeric_limits<double>::infinity()), t);
}

/// log(a + b) as hi + lo (relative error about 2^-60) for positive normal finite a, |b| <= ulp(a) / 2:
/// a = 2^k (1 + f) (split_log; f exact), log(1 + f) = 2 atanh(t) with t = f / (2 + f) and its
/// division's remainder kept, 2 atanh(t) = 2t + 2t^3 (1/3 + t^2/5 + ...) (|t| <= 0.172: 11 terms
/// reach 2^-60 of it), k log 2 in two parts (k ln2_hi exact), b / a for log(1 + b / a).
template <class V>
TL_SPECIAL_KERNEL dd<V> log_dd(const dd<V>& ab) {
  constexpr double ln2_hi = 0.693147180369123816490, ln2_lo = 1.90821492927058770002e-10;
  const split_t<V> sp = split_log(ab.hi);
  const V f = sp.f;
  const dd<V> den = two_sum(V(2), f);
  const V t = f / den.hi;
  const dd<V> tp = two_prod(t, den.hi);
  const V t_lo = (((f - tp.hi) - tp.lo) - t * den.lo) / den.hi;
  const V t2 = t * t;
  const V odd = V(2) * t * t2 *
                horner<1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23>(t2);
  const dd<V> head = two_sum(sp.k * V(ln2_hi), V(2) * t);
  const V lo = head.lo + (sp.k * V(ln2_lo) + ((V(2) * t_lo + odd) + ab.lo / ab.hi));
  const V hi = head.hi + lo;
  return {hi, (head.hi - hi) + lo};
}
/// (a + b)^-s for real s (a + b > 0 normal): exp(-s log(a + b)) with the logarithm and the product
/// in double-double (log_dd), so the error is that of the exponential (about 1 ULP), not s log(a + b)
/// ULP. 0 where it underflows, inf where it overflows.
template <class V>
TL_SPECIAL_KERNEL V pow_neg_dd(const dd<V>& ab, const V& s) {
  const dd<V> l = log_dd(ab);
  const dd<V> p = two_prod(s, l.hi);
  const V y = -p.hi, d = -(p.lo + s * l.lo);
  return sel(y > V(709.78), V(std::numeric_limits<double>::infinity()), times_exp(V(1), vmin(y, V(709.78)), d));
}
/// zeta(s, q) = sum_k (q + k)^-s for real s > 1 and q > 0 (both finite), the method of zeta_eval on
/// packets: the terms k = 0 .. K (K = 8, or more until q + K >= 9, for the packet's smallest q), summed
/// from the smallest, compensated, each by pow_neg_dd of the exact q + k; then the integral
/// w^(1-s) / (s - 1), half the last term and up to 12 Euler-Maclaurin terms from w = q + K, each
/// lane's s its own.
template <class V>
TL_SPECIAL_KERNEL V hurwitz_zeta_real(const V& s, const V& q) {
  // (2j)! / B_2j, j = 1 .. 12
  constexpr double fb[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1892437580.3183792, 74724249600.0,
                             -2950130727918.164, 116467828143500.67, -4597978722407473.0, 1.8152105401943546e+17,
                             -7.166165256175667e+18};
  const double qmin = lane_min(q);
  const int K = qmin >= 1 ? 8 : static_cast<int>(std::ceil(9 - qmin));
  const dd<V> w = two_sum(q, V(K));
  const V b = pow_neg_dd(w, s);
  V sum = b, comp(0);
  for (int k = K - 1; k >= 0; --k) {  // small terms first, compensated (Neumaier)
    const V t = pow_neg_dd(two_sum(q, V(k)), s);
    const V u = sum + t;
    comp = comp + finite_or_zero(sel(vabs(sum) >= t, (sum - u) + t, (t - u) + sum));
    sum = u;
  }
  // the tail from w on, with w's own term counted half (w^(1-s) by itself: w^-s may underflow first)
  V tail = pow_neg_dd(w, s - V(1)) / (s - V(1)) - V(0.5) * b;
  const V r = V(1) / w.hi;
  V rise(1), p = b;  // s (s + 1) ... (s + 2j - 2), w^(-s - 2j + 1)
  for (int j = 0; j < 12; ++j) {
    rise = rise * (s + V(2 * j));
    p = p * r;
    const V t = rise * p / V(fb[j]);
    tail = tail + t;
    if (all_of(vabs(t) <= V(0x1p-54) * vabs(sum))) break;
    rise = rise * (s + V(2 * j + 1));
    p = p * r;
  }
  return sum + (tail + comp);
}

/// sin(pi r) and cos(pi r) for the reduced argument r = x - round(x) (|r| <= 1/2; pi in two parts).
template <class V>
struct sincos_pi_t {
  V r, s, c;
};
template <class V>
TL_SPECIAL_KERNEL sincos_pi_t<V> sincos_pi(const V& x) {
  const V r = x - vnearbyint(x);
  const V a = vfma(r, V(std::numbers::pi), r * V(1.2246467991473532e-16));
  const V h = V(0.5) - vabs(r);  // cos(pi r) = sin(pi (1/2 - |r|)): exactly 0 at the half-integers
  return {r, vsin(a), vsin(vfma(h, V(std::numbers::pi), h * V(1.2246467991473532e-16)))};
}

// ---- lgamma -------------------------------------------------------------------------------------

/// lgamma(t + 1) / (t (t - 1)) on t in [-0.25, 0.75].
template <class V>
TL_SPECIAL_KERNEL V lgamma_k1(const V& t) {
  return horner<0.5241164609163369, -0.09227919221840808, 0.023641434508242656, -0.007034175909219366, 0.0022599248738644005, -0.0007596501577166024, 0.00026293247942697073, -9.287685778010665e-05, 3.3301289143091514e-05, -1.2078082684661154e-05, 4.420554621712631e-06, -1.6301254737735065e-06, 6.055758498253191e-07, -2.2591787483834413e-07, 8.339236811434343e-08, -3.136818626721858e-08, 1.3373542264361286e-08, -5.0740290700755864e-09, 7.886601727973373e-10, -2.96672207710576e-10, 5.926445837547658e-10, -2.273994576825369e-10>(vfma(t, V(2), V(-0.5)));
}
/// lgamma(s + 2) / (s (s + 1)) on s in [-0.25, 1].
template <class V>
TL_SPECIAL_KERNEL V lgamma_k2(const V& s) {
  return horner<0.38923337770173255, -0.04996129234397285, 0.008733857400935139, -0.00173484023200628, 0.0003693381831120539, -8.2080219497994e-05, 1.8774766084433625e-05, -4.383310884372287e-06, 1.0390023602304745e-06, -2.491600589971524e-07, 6.029967063353384e-08, -1.4699446365140903e-08, 3.6056696103590933e-09, -8.920133923456913e-10, 2.208944973235418e-10, -5.212222243584737e-11, 1.2990537101042745e-11, -4.639348533756121e-12, 1.164800120167107e-12>(vfma(s, V(1.6), V(-0.6)));
}
/// lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2) for x >= 8 (Stirling's series, 10 terms).
template <class V>
TL_SPECIAL_KERNEL V stirling_correction_recip(const V& r) {  // from r = 1 / x
  const V z = r * r;
  return r * horner<1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360, 1.0 / 156,
                    -3617.0 / 122400, 43867.0 / 244188, -174611.0 / 125400>(z);
}
template <class V>
TL_SPECIAL_KERNEL V stirling_correction(const V& x) {
  return stirling_correction_recip(V(1) / x);
}
/// lgamma(x) for x >= 8 (Stirling's series, 10 terms): (x - 1/2)(log x - 1) + (log(2 pi) - 1) / 2 + S(1/x).
template <class V>
TL_SPECIAL_KERNEL V lgamma_stirling(const V& x) {
  return vfma(x - V(0.5), vlog(x) - V(1), V(0.41893853320467274178) + stirling_correction(x));
}
/// lgamma(x) for x >= 0 (+0 gives inf, +inf gives inf).
template <class V>
TL_SPECIAL_KERNEL V lgamma_pos(const V& x) {
  const auto ra = x < V(1.75), rc = x >= V(8);
  V res(0);
  if (any_of(ra)) {
    const auto below = x < V(0.75);
    const V t = sel(below, x, x - V(1));
    const V a = t * (t - V(1)) * lgamma_k1(t);
    res = sel(below, a - log_sub(x), a + V(0));  // + 0: lgamma(1) = +0
  }
  if (!all_of(ra || rc)) {
    V y = sel(ra || rc, V(2.5), x), p(1);
    for (int j = 0; j < 5; ++j) {  // y in [3, 8) -> [2, 3), p = (x - 1) ... (y)
      const auto m = y >= V(3);
      y = sel(m, y - V(1), y);
      p = sel(m, p * y, p);
    }
    const V s = y - V(2);
    res = sel(ra || rc, res, s * (s + V(1)) * lgamma_k2(s) + vlog(p));
  }
  if (any_of(rc)) res = sel(rc, lgamma_stirling(vmax(x, V(8))), res);
  return res;
}
/// lgamma(x) = log |Gamma(x)|; +inf at 0, the negative integers and +-inf.
template <class V>
TL_SPECIAL_KERNEL V lgamma_kernel(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const auto neg = x < V(0);
  V res = lgamma_pos(sel(neg, V(1) - x, x));
  if (any_of(neg)) {
    const auto sc = sincos_pi(x);
    const V refl = V(1.1447298858494001741) - log_sub(vabs(sc.s)) - res;  // log(pi) - log|sin(pi x)| - lgamma(1 - x)
    res = sel(neg, sel(sc.r == V(0) || x == V(-inf), V(inf), refl), res);
  }
  return res;
}

// ---- digamma ------------------------------------------------------------------------------------

/// psi(1 + t) / (t - t0) on t in [0, 2].
template <class V>
TL_SPECIAL_KERNEL V digamma_r(const V& t) {
  return horner<0.7853075386041053, -0.2607389546830014, 0.10899991701762626, -0.04955103291767291, 0.023447309597724546, -0.011338432553333682, 0.005552254171350814, -0.0027395728831692795, 0.0013581421903714414, -0.000675313369799565, 0.00033643237613001386, -0.00016781518722379935, 8.377966540530644e-05, -4.184622931937881e-05, 2.0891708911121205e-05, -1.044106631983514e-05, 5.26871942897218e-06, -2.6338311326151924e-06, 1.2119815782595426e-06, -6.059322795045256e-07, 4.6173797029851077e-07, -2.3086248081342955e-07, -5.6422994902202784e-08, 2.821220170829738e-08, 1.1540536834062045e-07, -5.77025926771739e-08, -3.5705337308985145e-08, 1.7852672191376552e-08, 1.0201545142033868e-08, -5.100770214989469e-09>(t - V(1));
}
/// psi(x) for x >= 8 (asymptotic series, 10 terms).
template <class V>
TL_SPECIAL_KERNEL V digamma_asymptotic(const V& x) {
  const V r = V(1) / x, z = r * r;
  const V s = z * horner<1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12, -3617.0 / 8160,
                         43867.0 / 14364, -174611.0 / 6600>(z);
  return vlog(x) - vfma(r, V(0.5), s);
}
/// psi(x) for x >= 0 (+0 gives -inf).
template <class V>
TL_SPECIAL_KERNEL V digamma_pos(const V& x) {
  const auto big = x >= V(8);
  V res(0);
  if (!all_of(big)) {
    V y = sel(big, V(2.5), x), num(0), den(1);
    for (int j = 0; j < 5; ++j) {  // y in [3, 8) -> [2, 3), num / den = sum of 1 / (y - 1) over the steps
      const auto m = y >= V(3);
      y = sel(m, y - V(1), y);
      num = sel(m, vfma(num, y, den), num);
      den = sel(m, den * y, den);
    }
    const auto below = y < V(1);
    const V t = sel(below, y, y - V(1));
    const V p = ((t - V(0.46163214496836236)) - V(-1.5522348162858677e-17)) * digamma_r(t);
    res = p - sel(below, V(1) / y, V(0)) + num / den;
  }
  if (any_of(big)) res = sel(big, digamma_asymptotic(vmax(x, V(8))), res);
  return res;
}
/// psi(x): -inf at +0, +inf at -0, NaN at the negative integers and -inf (torch).
template <class V>
TL_SPECIAL_KERNEL V digamma_kernel(const V& x) {
  const auto neg = x < V(0);
  V res = digamma_pos(sel(neg, V(1) - x, x));
  if (any_of(neg)) {
    const auto sc = sincos_pi(x);
    const V refl = res - V(std::numbers::pi) * sc.c / sc.s;
    res = sel(neg, sel(sc.r == V(0), V(std::numeric_limits<double>::quiet_NaN()), refl), res);
  }
  return res;
}

// ---- polygamma ----------------------------------------------------------------------------------

/// Hurwitz zeta(s, q) = sum_k (q + k)^-s for integer s >= 2 and finite q > -2^31 not a pole
/// (Euler-Maclaurin: the terms up to q + N >= s + 8, N uniform over the packet; q = +inf gives NaN).
template <class V>
TL_SPECIAL_KERNEL V hurwitz_zeta(int s, const V& q) {
  const int n_terms = s + 8;
  const double qmin = lane_min(q);
  const int N = !(qmin < n_terms) ? 0 : static_cast<int>(n_terms - qmin) + 1;  // NaN / inf lanes: no terms
  V sum(0), comp(0);
  for (int k = N - 1; k >= 0; --k) {  // small terms first, compensated (Neumaier)
    const V t = recip_pow(two_sum(q, V(k)), s);
    const V u = sum + t;
    comp = comp + finite_or_zero(sel(vabs(sum) >= t, (sum - u) + t, (t - u) + sum));
    sum = u;
  }
  const dd<V> w = two_sum(q, V(N));
  const V r = V(1) / w.hi, z = r * r;
  // tail: w^(1-s) [1 / (s - 1) + r (1/2 + sum_j B_2j / (2j)! s (s + 1) ... (s + 2j - 2) r^(2j - 1))]
  constexpr double b2j[12] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510,
                              43867.0 / 798, -174611.0 / 330, 854513.0 / 138, -236364091.0 / 2730};
  double c[12] = {};
  double rise = s, fact = 2;  // s (s + 1) ... (s + 2j - 2), (2j)!
  for (int j = 0; j < 12; ++j) {
    c[j] = b2j[j] / fact * rise;
    rise *= double(s + 2 * j + 1) * double(s + 2 * j + 2);
    fact *= double(2 * j + 3) * double(2 * j + 4);
  }
  V e(c[11]);
  for (int j = 10; j >= 0; --j) e = vfma(e, z, V(c[j]));
  const V bracket = vfma(r, vfma(r, e, V(0.5)), V(1.0 / (s - 1)));
  const V tail = recip_pow(w, s - 1) * bracket;
  return sum + (tail + comp);
}

/// psi^(n)(x) for n >= 1: +-inf at the poles (x = 0, -1, ...; + for odd n), +-0 at +inf, NaN at -inf.
/// Negative x: the same sum for x >= -64 (each term (x + k)^-(n+1) accurate, the nearest pole's
/// included); below, reflection, for n <= 60 (NaN beyond).
template <class V>
TL_SPECIAL_KERNEL V polygamma_kernel(int n, const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const int s = n + 1;
  double nfact = 1;
  for (int i = 2; i <= n; ++i) nfact *= i;
  const auto far = x < V(-64);
  // Lanes in [-64, 0) sum directly (the sum runs ceil(-min x) more terms); lanes below -64 reflect;
  // infinite lanes (set at the end) take 1 here.
  const V q = sel(far, V(1) - x, sel(x == V(0), V(0x1p-1070), x));
  const V z = hurwitz_zeta(s, sel(vabs(q) < V(inf), q, V(1)));
  const bool odd = n % 2 == 1;
  V res = V(odd ? nfact : -nfact) * z;
  if (any_of(far)) {
    constexpr int max_n = 60;
    V refl(std::numeric_limits<double>::quiet_NaN());
    if (n <= max_n) {
      double p[max_n + 2] = {}, q[max_n + 2] = {};
      p[1] = 1;  // P_0(c) = c
      for (int k = 0; k < n; ++k) {  // P_(k+1) = -(1 + c^2) P_k'
        for (int i = 0; i <= k + 2; ++i) q[i] = 0;
        for (int i = 1; i <= k + 1; ++i) {
          q[i - 1] -= i * p[i];
          q[i + 1] -= i * p[i];
        }
        for (int i = 0; i <= k + 2; ++i) p[i] = q[i];
      }
      const auto sc = sincos_pi(x);
      const V ct = sc.c / sc.s;
      V pv(p[n + 1]);
      for (int i = n; i >= 0; --i) pv = vfma(pv, ct, V(p[i]));
      double pin = std::numbers::pi;
      for (int i = 0; i < n; ++i) pin *= std::numbers::pi;
      refl = V(-nfact) * z - V(pin) * pv;
    }
    res = sel(far, refl, res);
  }
  const V pole(odd ? inf : -inf);
  res = sel(x == V(inf), V(odd ? 0.0 : -0.0), res);
  res = sel(x <= V(0) && x == vnearbyint(x), pole, res);
  return sel(x == V(-inf), V(std::numeric_limits<double>::quiet_NaN()), res);
}

// ---- trigamma -----------------------------------------------------------------------------------

/// psi'(y) for y >= 9: y^-1 (1 + y^-1 (1/2 + y^-1 sum_k B_2k y^-2(k-1))), k = 1 .. 12 (the 13th
/// term is below 2^-62 relative there).
template <class V>
TL_SPECIAL_KERNEL V trigamma_asymptotic(const V& y) {
  const V r = V(1) / y, z = r * r;
  const V p = horner<1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510,
                     43867.0 / 798, -174611.0 / 330, 854513.0 / 138, -236364091.0 / 2730>(z);
  return r * vfma(r, vfma(r, p, V(0.5)), V(1));
}
/// psi'(x) = polygamma(1, x). x >= 0 (and NaN): the recurrence psi'(x) = sum_(j<k) (x + j)^-2 +
/// psi'(x + k) up to x + k >= 9 (k uniform over the packet); the terms j >= 1, all positive, are
/// summed smallest first, up to four per division (as one fraction), 1 / x^2 last from the exact
/// square of x; then the asymptotic series. Packets with a negative lane take the general
/// polygamma kernel.
template <class V>
TL_SPECIAL_KERNEL V trigamma_kernel(const V& x) {
  if (any_of(x < V(0))) return polygamma_kernel(1, x);
  constexpr double big = 9;
  const auto small = x < V(big);
  if (!any_of(small)) return trigamma_asymptotic(x);  // also +inf (0) and NaN lanes
  const V xs = sel(small, x, V(big));
  const int k = static_cast<int>(big - lane_min(xs)) + 1;  // lanes >= big take no terms below
  V s(0);
  for (int j = k - 1; j >= 1; j -= 4) {  // terms j, j - 1, ... (down to 1) as num / den
    V a = xs + V(j);
    V den = a * a, num(1);
    for (int i = 1; i < 4 && j - i >= 1; ++i) {
      a = xs + V(j - i);
      const V a2 = a * a;
      num = vfma(num, a2, den);
      den = den * a2;
    }
    s = s + num / den;
  }
  // 1 / x^2 from the exact square hi + lo (two_prod): q (1 - lo q), q = 1 / hi; below 2^-500,
  // where the square underflows, (1 / x)^2.
  const dd<V> sq = two_prod(xs, xs);
  const V q = V(1) / sq.hi;
  V t0 = vfma(-(q * sq.lo), q, q);
  if (const auto tiny = xs < V(0x1p-500); any_of(tiny)) {
    const V r0 = V(1) / xs;
    t0 = sel(tiny, r0 * r0, t0);
  }
  return sel(small, s + t0, V(0)) + trigamma_asymptotic(sel(small, xs + V(k), x));
}

/// psi'(x) for the arguments of float packets, x >= 0 or NaN, in double to 4e-11 relative (the
/// float result is the double one rounded once): psi'(x) = 1 / x^2 + psi'(x + 1), and for y >= 1,
/// (y + 3/8) psi'(y) = T(t) with t = 1 / (y + 3/8) (T: an 11-term Chebyshev fit in t on (0, 8/11],
/// fit_gamma_bessel_coefficients.py), so psi'(x) = 1 / x^2 + t T(t), t = 1 / (x + 11/8). One
/// division gives both reciprocals: r = 1 / (x^2 (x + 11/8)), 1 / x^2 = r (x + 11/8), t = r x^2.
/// Not for double arguments: x^2 (x + 11/8) stays finite and normal in double only for x in
/// float's range.
template <class V>
TL_SPECIAL_KERNEL V trigamma_float_kernel(const V& x) {
  const V d = x + V(1.375), x2 = x * x;
  const V r = V(1) / (x2 * d);
  const V g = horner<1.4347874799931366, 0.5832370213018684, 0.18670292591980506, 0.04583845062730612,
                     0.009027804927555352, 0.0017554173773274985, 0.0003633805410644572, 5.837909772916894e-05,
                     1.036730812171476e-05, 2.9025256711353235e-06, 2.1221713562033592e-07>(vfma(r * x2, V(2.75), V(-1)));
  const V res = r * vfma(x2, g, d);  // (d + x^2 T) / (x^2 d)
  constexpr double inf = std::numeric_limits<double>::infinity();
  return sel(x == V(0), V(inf), sel(x == V(inf), V(0), res));
}

// ---- float packets: lgamma and digamma with one logarithm and one division ---------------------

/// lgamma(x) for the arguments of float packets, x >= 0 (-0 included) or NaN, in double to about
/// 3e-11 relative (the float result is the double one rounded once). On y in [1, 2.5],
/// lgamma(y) = (y - 1)(y - 2) K(y) (K: a 15-term fit, relative error 3e-11; the zeros at 1 and 2
/// factored out, so the result keeps its relative accuracy there), and x < 1 takes
/// lgamma(x + 1) - log x. From 2.5 on, Stirling's form (x - 1/2)(log x - 1) + (log(2 pi) - 1) / 2 +
/// S(1 / x^2) / x with S a 6-term fit in 1 / x^2 on (0, 0.16]. The logarithm of x is the only one,
/// and one division gives both its s = f / (2 + f) and 1 / x: r = 1 / (x (2 + f)). The chain from x
/// to log x runs beside the fit's (a blended argument, log of 1 / Gamma, made one chain behind the
/// other and took 1.5x the time). Not for double arguments: the accuracy is a float one.
template <class V>
TL_SPECIAL_KERNEL V lgamma_float_kernel(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const auto below = x < V(1), small = x < V(2.5);
  const V y = sel(below, x + V(1), x);
  const V k = (y - V(1)) * (y - V(2)) *
              horner<0.4501393121092563, -0.0896111901218871, 0.025042751611397074, -0.008038382774703656, 0.0027768961417926822,
                     -0.0010029564042164129, 0.0003729847169004835, -0.00014128488713146308, 5.443585448675733e-05,
                     -2.1934088626925426e-05, 8.636359269099466e-06, -2.485367291815261e-06, 9.841556017328195e-07,
                     -1.018479398593818e-06, 4.1181236028233505e-07>(
                  vfma(y, V(4.0 / 3), V(-7.0 / 3)));  // lgamma(y), y in [1, 2.5]
  const auto sp = split_log(x);
  const V f2 = sp.f + V(2);
  const V r = V(1) / (x * f2);
  const V l = log_from_split(sp.k, sp.f * (r * x));  // log x
  const V inv = r * f2;                              // 1 / x
  const V s = inv * horner<0.08311591517142533, -0.00021286407040990406, 4.325999675014592e-06, -2.0865042338612445e-07,
                           1.7385283944245447e-08, -2.0439749782144882e-09>(vfma(inv * inv, V(12.5), V(-1)));
  // the added +0 turns k = (1 - 1)(1 - 2) K = -0 at x = 1 into lgamma(1) = +0
  const V res = sel(small, k + sel(below, -l, V(0)), vfma(x - V(0.5), l - V(1), V(0.41893853320467274178) + s));
  return sel(x == V(0) || x == V(inf), V(inf), res);  // NaN lanes: r is NaN
}

/// psi(x) for the arguments of float packets, x >= 0 (-0 included) or NaN, in double: psi(x) =
/// psi(x + 1) - 1 / x and, for y >= 1, psi(y) = log(y + 3/8) + t U(t), t = 1 / (y + 3/8) (U: an
/// 11-term fit on (0, 8/11], absolute error 2e-11). One division gives the three reciprocals:
/// with d = x + 11/8 = 2^k (1 + f), r = 1 / (x d (2 + f)), 1 / x = r d (2 + f), t = r x (2 + f) and
/// the logarithm's s = f / (2 + f) = r x d f. Within 1/32 of the positive zero x0 the terms
/// cancel, so there psi(x) = h Z(h), h = x - x0 (x0 as hi + lo, Z a 6-term fit); elsewhere
/// |psi| >= 0.03 and the float result is the double one rounded once. Not for double arguments.
template <class V>
TL_SPECIAL_KERNEL V digamma_float_kernel(const V& x) {
  constexpr double x0_hi = 1.4616321449683622, x0_lo = 9.549995429965697e-17;
  constexpr double inf = std::numeric_limits<double>::infinity();
  const V d = x + V(1.375);
  const auto sp = split_log(d);
  const V f2 = sp.f + V(2), xd = x * d;
  const V r = V(1) / (xd * f2);
  const V inv = r * (d * f2), t = r * (x * f2);
  const V u = horner_split<-1.0220665589316202, -0.17359901125125804, -0.030519107566301253, -0.004546490858965163,
                     -0.0006682453601708164, -0.00012528503289713246, -1.8018136859873985e-05, -1.8433431132972827e-06,
                     -8.026782138490762e-07, -7.926047086051371e-08, 2.290732753422851e-08>(vfma(t, V(2.75), V(-1)));
  V res = vfma(t, u, log_from_split(sp.k, (r * xd) * sp.f)) - inv;
  if (const auto near = vabs(x - V(x0_hi)) < V(0.03125); any_of(near)) {
    const V h = (x - V(x0_hi)) - V(x0_lo);
    const V z = horner<0.9676722454490425, -0.013836349030767433, 0.00025244114722449454, -5.0031337781284855e-06,
                       1.0289724133644043e-07, -2.1531630146598686e-09>(h * V(32));
    res = sel(near, h * z, res);
  }
  // -+inf at +-0 (1 / x is +-inf there), +inf at +inf; NaN lanes: r is NaN
  return sel(x == V(0), -inv, sel(x == V(inf), V(inf), res));
}

/// Float packets of the gamma functions: `fast` (a float kernel in double, for x >= 0 and NaN) where
/// no lane is negative, else `full` (the double kernel, with the reflection; NaN passed through).
/// Twin: both through float_via_double_twin (see via_double_unary).
template <bool Twin, class B, class Fast, class Full>
TL_INLINE B nonnegative_float_packet(const B& x, Fast fast, Full full) {
  const auto run = [](const B& v, auto&& f) TL_INLINE_LAMBDA {
    if constexpr (Twin) return float_via_double_twin(v, f);
    else return tl::detail::float_via_double(v, f);
  };
  if (any_of(x < B(0))) return run(x, [&](const auto& d) { return sel(visnan(d), d, full(d)); });
  return run(x, fast);
}
/// lgamma on a float packet computed in float (8 lanes per AVX2 instruction), every lane in
/// [0, 1e30]; the fits are Chebyshev interpolants with float coefficients, the constant terms also
/// as hi + lo (fit_gamma_bessel_coefficients.py, "float kernel"):
///  - 0.5 <= x < 3: (x - 1)(x - 2) K(x) (K: 14 terms on [0.5, 1.5] and on [1.5, 3], one Horner
///    chain with the coefficients picked per lane), the product (x - 1)(x - 2) carried exactly as
///    hi + lo, so the zeros at 1 and 2 keep relative accuracy;
///  - x < 0.5: lgamma(1 + x) - log x, lgamma(1 + x) = x (x - 1) K(1 + x) by the same fit (its
///    variable 2x is exact where 1 + x would round);
///  - x >= 3: (x - 1/2)(log x - 1) + (log(2 pi) - 1) / 2 + S(1 / x^2) / x (S: 4 terms).
/// log x = k ln 2 + log1p(f), f = m - 1 exact for m in [0.75, 1.5), log1p(f) = f + f^2 (f Q(f) - 1/2)
/// (Q: 11 terms), with k ln 2 - 1 (or k ln 2) + f summed exactly (TwoSum): log x - 1 then keeps a
/// few bits beyond float, which the factor x - 1/2 would otherwise multiply; the last sum of each
/// region is rounded once. Within 1.5 ULP (tests/special/gamma_test.cpp, against the double kernel).
template <class B>
TL_INLINE B lgamma_float_native(const B& x) {
  using tl::detail::fmath::horner;
  using I = xsimd::batch<std::int32_t, typename B::arch_type>;
  const auto ra = x < B(0.5f), rc = x >= B(3.0f);
  B res(0.0f);
  B lh(0.0f), ll(0.0f);  // log x (region A) or log x - 1 (region C) as lh + ll
  if (xsimd::any(ra || rc)) {
    const auto sub = x < B(0x1p-126f);
    const I bits = xsimd::bitwise_cast<I>(xsimd::select(sub, x * B(0x1p30f), x));
    const B m0 = xsimd::bitwise_cast<B>((bits & I(0x7fffff)) | I(0x3f800000));  // [1, 2)
    const auto big = m0 >= B(1.5f);
    const B k = xsimd::to_float((bits >> 23) - I(127)) - xsimd::select(sub, B(30.0f), B(0.0f)) + xsimd::select(big, B(1.0f), B(0.0f));
    const B f = xsimd::select(big, m0 * B(0.5f), m0) - B(1.0f);  // exact, [-0.25, 0.5)
    B qc[] = {B(0.304914265871048f), B(-0.0775616466999054f), B(0.020925385877490044f), B(-0.00586137268692255f),
              B(0.0016852858243510127f), B(-0.0004945991677232087f), B(0.00014713923155795783f), B(-4.2857569496845827e-05f),
              B(1.3011123883188702e-05f), B(-5.4122924666444305e-06f), B(1.6734843484300654e-06f)};
    const B q = estrin_in_place(vfma(f, B(8.0f / 3.0f), B(-1.0f / 3.0f)), qc);
    const B tail = (f * f) * vfma(f, q - B(9.802719524998338e-09f), B(-0.5f));  // log1p(f) - f
    const B a0 = vfma(k, B(0x1.62e4p-1f), xsimd::select(rc, B(-1.0f), B(0.0f)));  // exact
    const dd<B> s = two_sum(a0, f);
    lh = s.hi;
    ll = s.lo + vfma(k, B(1.4286068e-06f), tail);
  }
  if (xsimd::any(!rc)) {
    // lgamma(1 + a) = a (a - 1) K(1 + a), a = x (x < 0.5) or x - 1 (exact); the product a (a - 1)
    // as p.hi + p_lo exactly; K from the fit of its half with the other half's coefficients
    // selected per lane (one chain for both), K = c0 + kt
    const auto lo = x < B(1.5f);
    const B a = x - xsimd::select(ra, B(0.0f), B(1.0f));
    const B b_hi = a - B(1.0f), b_lo = a - (b_hi + B(1.0f));
    const dd<B> p = two_prod(a, b_hi);
    const B p_lo = vfma(a, b_lo, p.lo);
    const B u = xsimd::select(lo, a + a, vfma(x, B(4.0f / 3.0f), B(-3.0f)));
    static constexpr float k_lo[13] = {-0.1226256862282753f, 0.03885851055383682f, -0.014393291436135769f, 0.005765811074525118f,
                                       -0.0024166053626686335f, 0.0010375652927905321f, -0.0004567848227452487f, 0.0002193337568314746f,
                                       -9.9486846011132e-05f, 2.3268194127012976e-05f, -1.0474291229911614e-05f, 2.094794763252139e-05f,
                                       -9.825437700783368e-06f};
    static constexpr float k_hi[13] = {-0.06441063433885574f, 0.014213449321687222f, -0.003570760600268841f, 0.0009622306097298861f,
                                       -0.0002707619860302657f, 7.841756450943649e-05f, -2.3184282326838e-05f, 6.987810593273025e-06f,
                                       -2.122310434060637e-06f, 6.08436039328808e-07f, -1.875789479299783e-07f, 8.876963875081856e-08f,
                                       -2.7792747658850203e-08f};
    B t = xsimd::select(lo, B(k_lo[12]), B(k_hi[12]));
    for (int i = 11; i >= 0; --i) t = vfma(t, u, xsimd::select(lo, B(k_lo[i]), B(k_hi[i])));
    const B kt = vfma(u, t, xsimd::select(lo, B(-6.072988778527133e-09f), B(8.687161212606043e-09f)));
    const B c0 = xsimd::select(lo, B(0.5772156715393066f), B(0.399589478969574f));
    B r = vfma(p.hi, c0, vfma(p.hi, kt, p_lo * (c0 + kt)));
    r = xsimd::select(p.hi == B(0.0f), B(0.0f), r);  // lgamma(1) = lgamma(2) = +0
    res = xsimd::select(ra, (r - ll) - lh, r);          // x < 0.5: lgamma(1 + x) - log x
  }
  if (xsimd::any(rc)) {
    const B h = x - B(0.5f), h_lo = (x - h) - B(0.5f);  // h + h_lo = x - 1/2 (h rounds from 2^23 on)
    const B inv = B(1.0f) / x;
    const B st = inv * horner(vfma(inv * inv, B(18.0f), B(-1.0f)), 0.08318136632442474f, -0.0001497001649113372f,
                              2.1882110559090506e-06f, -7.79198074951637e-08f);
    const dd<B> p = two_prod(h, lh);
    const dd<B> s = two_sum(p.hi, B(0.418938547372818f));  // (log(2 pi) - 1) / 2 as hi + lo
    res = xsimd::select(rc, s.hi + (s.lo + p.lo + vfma(h, ll, vfma(h_lo, lh, B(-1.4168145251383733e-08f) + st))), res);
  }
  return xsimd::select(x == B(0.0f), B(std::numeric_limits<float>::infinity()), res);
}

template <class B>
TL_INLINE B gammaln_float_packet(const B& x) {
#ifdef __FMA__
  if (xsimd::all(x >= B(0.0f) && x <= B(1e30f))) return lgamma_float_native(x);
#endif
  return nonnegative_float_packet<false>(
      x, [](const auto& d) { return lgamma_float_kernel(d); }, [](const auto& d) { return lgamma_kernel(d); });
}
template <class B>
TL_INLINE B digamma_float_packet(const B& x) {
  return nonnegative_float_packet<true>(
      x, [](const auto& d) { return digamma_float_kernel(d); }, [](const auto& d) { return digamma_kernel(d); });
}

}  // namespace tl::special::detail
