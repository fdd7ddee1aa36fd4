#pragma once
/// @file tgamma_kernel.hpp
/// @brief Internal: double-precision kernels of Gamma itself and of the sign of Gamma (detail header).
///
/// Gamma(z) for z > 0 is Gamma(1 + f) (z - 1)(z - 2) ... (z - n) with f = z - floor(z), n = floor(z) - 1
/// (Gamma(1 + z) / z below 1): every factor z - j is exact and the product is carried as a
/// double-double (two_prod), so the only roundings are those of 1 / R(f) and the final sum.
/// R(f) = 1 / Gamma(1 + f) is an entire function: a Chebyshev interpolant in u = 2f - 1
/// (18 terms, tests/data/special/fit_bessel_jy_coefficients.py). The loop runs to the largest
/// n of the packet (at most 171). Negative x by reflection with z = -x exact:
/// Gamma(x) = pi / (sin(pi x) z Gamma(z)), the product scaled by 2^-100 so that results down to
/// the subnormal range (x > -184) are formed without overflow, sin(pi x) from the exactly reduced
/// argument.
#include <limits>
#include <numbers>

#include "tl/special/detail/gamma_kernel.hpp"

namespace tl::special::detail {

/// 1 / Gamma(1 + f), f in [0, 1].
template <class V>
TL_SPECIAL_KERNEL V rgamma1(const V& f) {
  return horner<1.1283791670955126, -0.02058726322264155, -0.13166360888138612, 0.02188775325549182, 0.003185428765481639, -0.001317349042766738, 0.00010332652854403086, 1.656821439510613e-05, -4.338790056516859e-06, 2.9757347803549153e-07, 2.4760940879967047e-08, -6.785549591814963e-09, 5.264192432213888e-10, 7.0729485664472615e-12, -5.442797829361199e-12, 5.220830229260097e-13, -1.2932248720013111e-14, -2.1128541746182403e-15>(vfma(f, V(2), V(-1)));
}
/// Gamma(x): +-inf at +-0, NaN at the negative integers and -inf, +inf above 171.62, +-0 below
/// the underflow.
template <class V>
TL_SPECIAL_KERNEL V tgamma_kernel(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto neg = x < V(0);
  const V z = vmin(vabs(x), V(200));  // lanes beyond over- or underflow whatever the product gives
  const V fl = vfloor(z);
  const V f = z - fl;
  const V n = fl - V(1);  // factors z - 1, ..., z - n
  const double nmax = lane_max(sel(visnan(n), V(0), n));
  V hi = sel(neg, V(0x1p-100), V(1)) / rgamma1(f), lo(0);
  for (int j = 1; j <= static_cast<int>(nmax); ++j) {
    const V fac = sel(V(j) <= n, z - V(j), V(1));
    const dd<V> p = two_prod(hi, fac);
    lo = vfma(lo, fac, p.lo);
    hi = p.hi;
  }
  const V prod = hi + lo;  // Gamma(z) (times 2^-100 on negative lanes), or z Gamma(z) below 1
  const V pos = sel(z < V(1), prod / z, prod);
  V res = sel(x > V(171.62437695630272), V(inf), pos);
  if (any_of(neg)) {
    const auto sc = sincos_pi(x);
    const V k = vnearbyint(x);
    const V s = sel(k - V(2) * vfloor(k * V(0.5)) == V(0), sc.s, -sc.s);  // sin(pi x)
    const V num = V(std::numbers::pi * 0x1p-100) / sel(z < V(1), s, s * z);
    V r = num / prod;
    r = sel(sc.r == V(0), V(nan), sel(x < V(-190), vcopysign(V(0), r), r));
    res = sel(neg, r, res);
  }
  res = sel(x == V(0), vcopysign(V(inf), x), res);
  return sel(x == V(-inf), V(nan), res);
}
/// Gamma(x) for the arguments of float packets, x >= 0 (-0 included) or NaN: exp(lgamma(x)) in
/// double, lgamma from the float kernel (3e-11 relative, so below 3e-9 relative in Gamma up to
/// float's overflow at 35.04, where lgamma is 88.7: the float result is the double one rounded
/// once). +-inf at +-0, +inf from x = 35.04 on and at +inf. Not for double arguments.
template <class V>
TL_SPECIAL_KERNEL V tgamma_float_kernel(const V& x) {
  const V g = exp_for_float(lgamma_float_kernel(x));
  return sel(x == V(0), vcopysign(V(std::numeric_limits<double>::infinity()), x), g);
}
/// Float packets of tgamma: the kernel above where no lane is negative, else the double kernel.
template <class B>
TL_INLINE B tgamma_float_packet(const B& x) {
  return nonnegative_float_packet<true>(
      x, [](const auto& d) { return tgamma_float_kernel(d); }, [](const auto& d) { return tgamma_kernel(d); });
}

/// Sign of Gamma(x) (scipy.special.gammasgn): 1 for x > 0 and +inf, (-1)^ceil(-x) for negative
/// non-integers, 0 at +-0 and the negative integers, 1 at -inf, NaN for NaN.
template <class V>
TL_SPECIAL_KERNEL V gammasgn_kernel(const V& x) {
  const V c = vfloor(x);
  const V odd = c - V(2) * vfloor(c * V(0.5));  // 1 where floor(x) is odd
  V r = sel(x > V(0), V(1), sel(odd == V(0), V(1), V(-1)));
  r = sel(x <= V(0) && c == x, V(0), r);
  return sel(x == V(-std::numeric_limits<double>::infinity()), V(1), r);
}

}  // namespace tl::special::detail
