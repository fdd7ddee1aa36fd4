#pragma once
/// @file erf_kernel.hpp
/// @brief Internal: double-precision kernels of the error-function family (detail header).
///
/// Two approximations carry the whole family; their coefficients are Chebyshev interpolants
/// derived at 60 digits by tests/data/special/fit_special_coefficients.py:
///  - erf(x) = x P(u),             u = x^2 (32/9) - 1,   |x| <= 0.75 (14 terms);
///  - x erfcx(x) = H(u),           u = 1 - 7 / (x + 3),  0.5 <= x <= inf (26 terms).
/// erfc(x) = exp(-x^2) H / x with x^2 carried as hi + lo, so the tail keeps full relative
/// accuracy down to the subnormal range; erf = 1 - erfc above 0.75; negative arguments by symmetry.
/// The inverse functions refine a first guess (Giles' single-precision erfinv polynomials, M. Giles,
/// "Approximating the erfinv function", GPU Computing Gems, 2011, relative error below 4e-7; or an
/// asymptotic inversion of erfc in the far tail, 1e-4) with one Halley step on erf or erfcx (two
/// in the far tail).
#include <limits>
#include <numbers>

#include "tl/special/detail/kernel.hpp"

namespace tl::special::detail {

/// erf(x) for |x| <= 0.75.
template <class V>
TL_SPECIAL_KERNEL V erf_small(const V& x) {
  return x * horner<1.0309528156012642, -0.0896037671090999, 0.007314485234578211, -0.0004808724780316298, 2.5991645175708047e-05, -1.186568421151538e-06, 4.6785583280197317e-08, -1.6217950772511538e-09, 5.012957466302167e-11, -1.3976198263039807e-12, 3.548003379953805e-14, -8.266278403301407e-16, 1.7817262369307465e-17, -3.563376490527416e-19>(vfma(x * x, V(32.0 / 9.0), V(-1)));
}
/// erfcx(x) for x >= 0.5 (x = +inf gives 0).
template <class V>
TL_SPECIAL_KERNEL V erfcx_large(const V& x) {
  const V u = V(1) - V(7) / (x + V(3));
  return horner<0.5479978305002455, 0.052258032714829, -0.0713088499260104, 0.05918606116410186, -0.035910288048931746, 0.016148789627227177, -0.004959218343574175, 0.0006826138779296264, 0.0001947477128841567, -0.00011367529569807803, 4.95890198996207e-06, 1.145507886347327e-05, -2.1105356403935244e-06, -1.2037507752912602e-06, 3.5259458040071556e-07, 1.5255941434922473e-07, -5.112327924693182e-08, -2.385524901789007e-08, 6.797125132692028e-09, 4.265538160838111e-09, -7.643259396873842e-10, -7.642269678839514e-10, 5.876320538954958e-11, 1.1336820970545483e-10, -1.7168963285214728e-12, -9.675825013836243e-12>(u) / x;
}

template <class V>
TL_SPECIAL_KERNEL V erf_kernel(const V& x) {
  const V a = vabs(x);
  const V big = V(1) - times_exp_neg(erfcx_large(vmax(a, V(0.5))), exact_square(a), 1.0);
  return sel(a < V(0.75), erf_small(x), vcopysign(big, x));
}

template <class V>
TL_SPECIAL_KERNEL V erfc_kernel(const V& x) {
  const V a = vabs(x);
  const V tail = times_exp_neg(erfcx_large(vmax(a, V(0.5))), exact_square(a), 1.0);
  const V mid = V(1) - erf_small(x);
  return sel(x <= V(-0.5), V(2) - tail, sel(a < V(0.5), mid, tail));
}

template <class V>
TL_SPECIAL_KERNEL V erfcx_kernel(const V& x) {
  const V a = vabs(x);
  const V ea = exp_pos(exact_square(x));
  const V r = sel(a < V(0.5), ea * (V(1) - erf_small(a)), erfcx_large(vmax(a, V(0.5))));
  return sel(x < V(0), V(2) * ea - r, r);
}

/// The pieces shared by ndtr and log_ndtr: z = -x / sqrt 2, 0.5 erfcx(|z|) (for |z| >= 0.75, where
/// the tail form takes over), and 0.5 erfc(|z|) = 0.5 erfcx(|z|) exp(-x^2 / 2) with x^2 kept exact.
template <class V>
struct ndtr_parts {
  V z, half_cx, tail, mid;
  square2<V> q;
};
template <class V>
TL_SPECIAL_KERNEL ndtr_parts<V> ndtr_split(const V& x) {
  ndtr_parts<V> p;
  p.z = x * V(-std::numbers::sqrt2 / 2);
  p.half_cx = V(0.5) * erfcx_large(vmax(vabs(p.z), V(0.5)));
  p.q = exact_square(x);
  p.tail = times_exp_neg(p.half_cx, p.q, 0.5);
  p.mid = V(0.5) - V(0.5) * erf_small(p.z);
  return p;
}
template <class V>
TL_SPECIAL_KERNEL V ndtr_kernel(const V& x) {
  const auto p = ndtr_split(x);
  return sel(p.z >= V(0.75), p.tail, sel(p.z <= V(-0.75), V(1) - p.tail, p.mid));
}
template <class V>
TL_SPECIAL_KERNEL V log_ndtr_kernel(const V& x) {
  // ndtr < 1/2: log of ndtr (the tail through log erfcx - x^2 / 2); ndtr > 1/2: log1p(-(1 - ndtr)).
  const auto p = ndtr_split(x);
  const auto low = p.z >= V(0.75);
  const V lg = vlog(sel(low, p.half_cx, p.mid)) - sel(low, V(0.5) * p.q.hi + V(0.5) * p.q.lo, V(0));
  // 1 - ndtr = 0.5 + 0.5 erf(z) for z < 0 (rounded once; 1 - mid would add mid's rounding error).
  const V q = sel(p.z <= V(-0.75), p.tail, V(0.5) + V(0.5) * erf_small(p.z));
  return sel(p.z < V(0), vlog1p(-q), lg);
}

/// |erfinv| from a = |y| (used where a < 0.5) and c = 1 - a (exact where a >= 0.5; c may be far
/// below the spacing of doubles near 1, as ndtri needs). c == 0 gives inf; c outside [0, 2], NaN.
template <class V>
TL_SPECIAL_KERNEL V erfinv_core(const V& a, const V& c) {
  const V lc = log_sub(c);
  const V w = -(lc + vlog1p(V(1) - c));
  const V g1 = horner<1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087, -4.39150654e-06,
                      -3.5233877e-06, 3.43273939e-07, 2.81022636e-08>(w - V(2.5));
  const V g2 = horner<2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773, -0.00367342844,
                      0.00134934322, 0.000100950558, -0.000200214257>(vsqrt(w) - V(3));
  V x = sel(w < V(5), g1 * a, g2 * a);  // relative error below 4e-7 for w < 16.5
  const auto tail = w >= V(16.5);
  if (any_of(tail)) {
    // Far tail: x^2 = L - log(x sqrt(pi)) + log(1 - 1 / (2 x^2)), L = -log c, by fixed point (1e-4).
    const V L = -lc;
    V xt = vsqrt(vmax(L, V(1)));
    for (int i = 0; i < 2; ++i)
      xt = vsqrt(vmax(L - vlog(xt * V(1.7724538509055160)) + vlog1p(V(-0.5) / (xt * xt)), V(1)));
    x = sel(tail, xt, x);
  }
  const auto small = a < V(0.5);
  auto halley = [&](const V& x0) {
    // r = f / f' for f = erf(x) - a (small) or erfc(x) - c written through erfcx (large).
    V r;
    if (all_of(small)) r = (erf_small(x0) - a) * vexp(x0 * x0);
    else if (!any_of(small)) r = vexp(x0 * x0 + lc) - erfcx_kernel(x0);
    else r = sel(small, (erf_small(x0) - a) * vexp(x0 * x0), vexp(x0 * x0 + lc) - erfcx_kernel(x0));
    r = r * V(0.88622692545275801);  // sqrt(pi) / 2
    return x0 - r / (V(1) + x0 * r);
  };
  x = halley(x);  // cubic convergence: 4e-7 -> 1e-19
  if (any_of(tail)) x = halley(x);
  x = sel(c == V(0), V(std::numeric_limits<double>::infinity()), x);
  return sel((c < V(0)) || (c > V(2)), V(std::numeric_limits<double>::quiet_NaN()), x);
}

template <class V>
TL_SPECIAL_KERNEL V erfinv_kernel(const V& y) {
  const V a = vabs(y);
  const V r = erfinv_core(a, V(1) - a);
  return sel(visnan(y), y, vcopysign(r, y));
}

template <class V>
TL_SPECIAL_KERNEL V ndtri_kernel(const V& p) {
  const auto lower = p <= V(0.5);
  const V c = sel(lower, V(2) * p, V(2) - V(2) * p);
  const V a = sel(lower, V(1) - V(2) * p, V(2) * p - V(1));
  const V e = erfinv_core(a, c);
  const V r = sel(e < V(1e300), vfma(e, V(std::numbers::sqrt2), e * V(-9.667293313452913e-17)), e);  // sqrt 2 = hi + lo
  return sel(visnan(p), p, sel(p < V(0.5), -r, r));
}

}  // namespace tl::special::detail
