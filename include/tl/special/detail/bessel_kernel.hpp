#pragma once
/// @file bessel_kernel.hpp
/// @brief Internal: double-precision kernels of the modified Bessel functions of the first kind
/// I0, I1 and their exponentially scaled forms (detail header).
///
/// Chebyshev interpolants computed at 50 digits by tests/data/special/fit_gamma_bessel_coefficients.py
/// (the expansions Cephes publishes, recomputed), in monomial form of u in [-1, 1]:
///  - e^-x I0(x) = A0(u), e^-x I1(x) = x A1(u), u = x / 4 - 1, 0 <= x <= 8 (30 terms each);
///  - sqrt(x) e^-x I0(x) = B0(u), sqrt(x) e^-x I1(x) = B1(u), u = 16 / x - 1, x > 8 (24 terms each).
/// I0 and I1 multiply by e^|x|, with the scaling by 2^64 above 700 so that results up to the
/// overflow threshold stay finite.
#include <limits>

#include "tl/special/detail/kernel.hpp"

namespace tl::special::detail {

template <class V>
TL_SPECIAL_KERNEL V i0e_small(const V& a) {
  return horner<0.2070019212239867, -0.11300432688620549, 0.09451562853995103, -0.08904344136075991, 0.08734341617552291, -0.08496338091615124, 0.07927522590716898, -0.06954119561742342, 0.056777032019843215, -0.04298594945226738, 0.03017791202356886, -0.019682654708082413, 0.011960077903963348, -0.006792399792271578, 0.0036171264596770616, -0.0018118870527295522, 0.0008563152483951447, -0.0003829015089457559, 0.0001624054672701359, -6.550956130635514e-05, 2.5202271984440893e-05, -9.25059710625537e-06, 3.2293850630678377e-06, -1.0891964284507317e-06, 3.675592893288293e-07, -1.1339523685907105e-07, 2.6273368345256394e-08, -7.860369707508212e-09, 4.469372581856615e-09, -1.1662904878442954e-09>(vfma(a, V(0.25), V(-1)));
}
template <class V>
TL_SPECIAL_KERNEL V i0e_large(const V& a) {
  return horner<0.4021765094450081, 0.0033605519836678913, 0.00013621607438951463, 1.114303378845176e-05, 1.4838476780922646e-06, 2.9735992084667734e-07, 8.872014585661555e-08, 3.932512321137824e-08, 2.156780676115673e-08, 7.559364098665437e-09, -6.856484545962442e-09, -1.3427511481900905e-08, -5.0175940345046716e-09, 7.600254486433509e-09, 6.522264862032271e-09, -3.5862834111582305e-09, -4.5305710768621196e-09, 1.6084886155781772e-09, 2.163681278413876e-09, -6.327909921997027e-10, -6.494591114401118e-10, 1.7698085539456536e-10, 9.114760157514253e-11, -2.4421972688131832e-11>(V(16) / a - V(1)) / vsqrt(a);
}
/// (below 2^-30, a/2 - a^2/2 directly: a P(u) would round a tiny subnormal result the wrong way)
template <class V>
TL_SPECIAL_KERNEL V i1e_small(const V& a) {
  const V h = a * V(0.5);
  return sel(a < V(0x1p-30), vfma(-a, h, h), a * horner<0.044687709875608835, -0.06112433802966629, 0.0680575999095116, -0.0684826062058255, 0.0637674037134072, -0.05528003922705058, 0.044674572621255064, -0.03367135551994034, 0.023686016957724227, -0.01557130925657511, 0.00958396215077406, -0.005534567760544582, 0.003005762419557192, -0.0015388749636515487, 0.000744512345281566, -0.0003411747437353928, 0.00014842124144631648, -6.142651349494123e-05, 2.4233756432468166e-05, -9.131846315273642e-06, 3.2938951625746042e-06, -1.1380759138279984e-06, 3.759400376008922e-07, -1.2000364861910367e-07, 3.8028049651067336e-08, -1.1191257727176943e-08, 2.6037822441041467e-09, -7.379291130374042e-10, 3.727630409237771e-10, -9.365751909742237e-11>(vfma(a, V(0.25), V(-1))));
}
template <class V>
TL_SPECIAL_KERNEL V i1e_large(const V& a) {
  return horner<0.38939845902587233, -0.009749577193235765, -0.00021923576383137776, -1.5038547198221758e-05, -1.8349102493990178e-06, -3.4838563464253135e-07, -1.0001075046243961e-07, -4.3128498031006734e-08, -2.3394122958362557e-08, -8.432168972932417e-09, 6.84757829926934e-09, 1.4051746928735543e-08, 5.5720183980930355e-09, -7.687251308765992e-09, -6.9444186339873875e-09, 3.501765193290176e-09, 4.763780078020254e-09, -1.5218214060680734e-09, -2.2624401109204446e-09, 5.870664618471487e-10, 6.7727478454462e-10, -1.6283264322621244e-10, -9.491890392992048e-11, 2.2421768596847442e-11>(V(16) / a - V(1)) / vsqrt(a);
}

/// e^-|x| I0(x) (even; 0 at +-inf).
template <class V>
TL_SPECIAL_KERNEL V i0e_kernel(const V& x) {
  const V a = vabs(x);
  const auto small = a <= V(8);
  if (all_of(small)) return i0e_small(a);
  if (!any_of(small)) return i0e_large(a);
  return sel(small, i0e_small(a), i0e_large(vmax(a, V(8))));
}
/// e^-|x| I1(x) (odd; +-0 at +-inf).
template <class V>
TL_SPECIAL_KERNEL V i1e_kernel(const V& x) {
  const V a = vabs(x);
  const auto small = a <= V(8);
  V r;
  if (all_of(small)) r = i1e_small(a);
  else if (!any_of(small)) r = i1e_large(a);
  else r = sel(small, i1e_small(a), i1e_large(vmax(a, V(8))));
  return vcopysign(r, x);
}
/// m e^a for a >= 0 up to the overflow of the product (e^(a - 64 ln 2) 2^64 above 700).
template <class V>
TL_SPECIAL_KERNEL V times_exp_big(const V& m, const V& a) {
  constexpr double ln2_hi = 0.693147180369123816490, ln2_lo = 1.90821492927058770002e-10;
  const auto big = a > V(700);
  const V r = times_exp(m, sel(big, a - V(64 * ln2_hi), a), sel(big, V(-64 * ln2_lo), V(0)));
  return sel(big, r * V(0x1p64), r);
}
template <class V>
TL_SPECIAL_KERNEL V i0_kernel(const V& x) {
  const V a = vabs(x);
  return sel(a == V(std::numeric_limits<double>::infinity()), a, times_exp_big(i0e_kernel(x), a));
}
template <class V>
TL_SPECIAL_KERNEL V i1_kernel(const V& x) {
  const V a = vabs(x);
  return sel(a == V(std::numeric_limits<double>::infinity()), x, times_exp_big(i1e_kernel(x), a));
}

}  // namespace tl::special::detail
