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
/// K0, K1 (x > 0): for x <= 1, K0(x) = -log(x/2) I0(x) + A(x^2) and K1(x) = log(x/2) I1(x) + B(x^2) / x
/// with A, B interpolants in x^2 (12 terms each) and I0, I1 by their Taylor series in x^2 (13 terms);
/// for x > 1, sqrt(x) e^x K0,1(x) = C0,1(u), u = 2 / x - 1 (34 terms each).
/// spherical_bessel_j0(x) = sin(x) / x, by its Taylor series in x^2 below |x| = 1/2 (9 terms).
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
/// m e^a for a >= 0 up to the overflow of the product (e^(a - 64 ln 2) 2^64 above 700; +-inf
/// above 750, where e^(a - 64 ln 2) itself overflows and its correction would make inf - inf).
template <class V>
TL_SPECIAL_KERNEL V times_exp_big(const V& m, const V& a) {
  constexpr double ln2_hi = 0.693147180369123816490, ln2_lo = 1.90821492927058770002e-10;
  const auto big = a > V(700);
  const V r = times_exp(m, sel(big, a - V(64 * ln2_hi), a), sel(big, V(-64 * ln2_lo), V(0)));
  return sel(a > V(750), m * V(std::numeric_limits<double>::infinity()), sel(big, r * V(0x1p64), r));
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

template <class V>
TL_SPECIAL_KERNEL V i0_series(const V& y) {  // I0(x), y = x^2 <= 1
  return horner<1.0, 0.25, 0.015625, 0.00043402777777777775, 6.781684027777777e-06, 6.781684027777778e-08, 4.709502797067901e-10, 2.4028075495244395e-12, 9.385966990329842e-15, 2.896903392077112e-17, 7.242258480192779e-20, 1.4963343967340453e-22, 2.5978027721077174e-25>(y);
}
template <class V>
TL_SPECIAL_KERNEL V i1_series(const V& y) {  // 2 I1(x) / x, y = x^2 <= 1
  return horner<1.0, 0.125, 0.005208333333333333, 0.00010850694444444444, 1.3563368055555556e-06, 1.1302806712962962e-08, 6.72786113866843e-11, 3.0035094369055494e-13, 1.0428852211477602e-15, 2.8969033920771115e-18, 6.583871345629799e-21, 1.2469453306117043e-23, 1.9983098246982443e-26>(y);
}
template <class V>
TL_SPECIAL_KERNEL V k0_small_a(const V& y) {  // K0(x) + log(x/2) I0(x), y = x^2 in [0, 1]
  return horner<-0.5206942059547768, 0.06026431240552072, 0.003812939164235184, 7.073868286285263e-05, 6.566626026749012e-07, 3.6992200714338085e-09, 1.4048138007897003e-11, 3.84699700280956e-14, 7.963849158616599e-17, 1.2907761896250619e-19, 1.6830237582998563e-22, 1.804010808210854e-25>(vfma(y, V(2), V(-1)));
}
template <class V>
TL_SPECIAL_KERNEL V k1_small_b(const V& y) {  // x K1(x) - x log(x/2) I1(x), y = x^2 in [0, 1]
  return horner<1.008432304643086, -0.0028034149896439845, -0.01160461390240397, -0.0003737151641757235, -4.855730350520919e-06, -3.4996954252088954e-08, -1.6162520265911638e-10, -5.20786505413238e-13, -1.2393629129404561e-15, -2.2694717504864703e-18, -3.298485016298808e-21, -3.898880388840703e-24>(vfma(y, V(2), V(-1)));
}
template <class V>
TL_SPECIAL_KERNEL V k0_large_c(const V& x) {  // sqrt(x) e^x K0(x), x >= 1
  return horner<1.1901571834152027, -0.052279011491757815, 0.008067386548372376, -0.0019084014862519156, 0.0005692398884245168, -0.00019727982177172396, 7.608265669739746e-05, -3.181477640388025e-05, 1.4181654926653823e-05, -6.65941514439602e-06, 3.2653225165077974e-06, -1.6615286815657573e-06, 8.781011048144482e-07, -4.7539783310034647e-07, 2.3465741646024595e-07, -1.2807246209648636e-07, 1.8776072607017588e-07, -1.264507658687544e-07, -2.576755436931344e-07, 1.960302441856835e-07, 6.05736956452456e-07, -4.4955271044773196e-07, -8.998355980749002e-07, 6.700092001010645e-07, 1.0026922889884679e-06, -7.454873256468375e-07, -7.851158599331347e-07, 5.835073970406199e-07, 4.1642991002354944e-07, -3.0915571460288466e-07, -1.3379608799543136e-07, 9.922134451714081e-08, 2.0119744400854503e-08, -1.4885665397630287e-08>(V(2) / x - V(1));
}
template <class V>
TL_SPECIAL_KERNEL V k1_large_c(const V& x) {  // sqrt(x) e^x K1(x), x >= 1
  return horner<1.4615569735231244, 0.1879789065457187, -0.015852854565983624, 0.0031120066455998193, -0.0008443927414597762, 0.00027603884122591075, -0.0001022719507757187, 4.152312756644928e-05, -1.80928474747788e-05, 8.34300826435834e-06, -4.030383932233686e-06, 2.0253655947036227e-06, -1.0584022436907957e-06, 5.676655961534647e-07, -2.8085994660836284e-07, 1.5260715076055626e-07, -2.107785483225695e-07, 1.4089864217005793e-07, 2.7702146280199423e-07, -2.109297045218783e-07, -6.571489736453065e-07, 4.870631193461777e-07, 9.750624454017285e-07, -7.252488545926331e-07, -1.0870459396358283e-06, 8.072903177001374e-07, 8.512487359731833e-07, -6.319496897461728e-07, -4.516585117499089e-07, 3.3492715585507494e-07, 1.4516185113995271e-07, -1.0752628503031906e-07, -2.1844450698643993e-08, 1.6142460962619273e-08>(V(2) / x - V(1));
}

/// K0 (Scaled: e^x K0): inf at 0, NaN for x < 0, 0 at +inf.
template <bool Scaled, class V>
TL_SPECIAL_KERNEL V k0_any(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const auto small = x <= V(1);
  V r(0);
  if (any_of(small)) {
    const V xs = vmin(x, V(1)), y = xs * xs;
    const V k = k0_small_a(y) - (log_sub(xs) - V(0.69314718055994530942)) * i0_series(y);
    r = Scaled ? k * vexp(xs) : k;
  }
  if (!all_of(small)) {
    const V xl = vmax(x, V(1));
    const V c = k0_large_c(xl) / vsqrt(xl);
    r = sel(small, r, Scaled ? c : times_exp(c, -xl, V(0)));
  }
  r = sel(x == V(0), V(inf), sel(x == V(inf), V(0), r));
  return sel(x < V(0), V(std::numeric_limits<double>::quiet_NaN()), r);
}
/// K1 (Scaled: e^x K1): inf at 0, NaN for x < 0, 0 at +inf.
template <bool Scaled, class V>
TL_SPECIAL_KERNEL V k1_any(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const auto small = x <= V(1);
  V r(0);
  if (any_of(small)) {
    const V xs = vmin(x, V(1)), y = xs * xs;
    const V k = k1_small_b(y) / xs + (log_sub(xs) - V(0.69314718055994530942)) * (V(0.5) * xs) * i1_series(y);
    r = Scaled ? k * vexp(xs) : k;
  }
  if (!all_of(small)) {
    const V xl = vmax(x, V(1));
    const V c = k1_large_c(xl) / vsqrt(xl);
    r = sel(small, r, Scaled ? c : times_exp(c, -xl, V(0)));
  }
  r = sel(x == V(0), V(inf), sel(x == V(inf), V(0), r));
  return sel(x < V(0), V(std::numeric_limits<double>::quiet_NaN()), r);
}
template <class V>
TL_SPECIAL_KERNEL V k0_kernel(const V& x) {
  return k0_any<false>(x);
}
template <class V>
TL_SPECIAL_KERNEL V k0e_kernel(const V& x) {
  return k0_any<true>(x);
}
template <class V>
TL_SPECIAL_KERNEL V k1_kernel(const V& x) {
  return k1_any<false>(x);
}
template <class V>
TL_SPECIAL_KERNEL V k1e_kernel(const V& x) {
  return k1_any<true>(x);
}

/// sin(x) / x: 1 at 0, 0 at +-inf.
template <class V>
TL_SPECIAL_KERNEL V spherical_j0_kernel(const V& x) {
  const V a = vabs(x);
  const V series = horner<1.0, -0.16666666666666666, 0.008333333333333333, -0.0001984126984126984, 2.7557319223985893e-06, -2.505210838544172e-08, 1.6059043836821613e-10, -7.647163731819816e-13, 2.8114572543455206e-15>(x * x);
  const V big = vsin(x) / x;
  return sel(a < V(0.5), series, sel(a == V(std::numeric_limits<double>::infinity()), V(0), big));
}

// ---- float packets: shorter fits in double ----------------------------------------------------
// Float results need about 2e-11 relative (the double value then rounds once, within 1/2 ULP plus
// about 1e-3), so the fits are shorter than the double ones (fit_gamma_bessel_coefficients.py):
// I0(x) and 2 I1(x) / x in x^2 on [0, 64] (13 and 12 terms), sqrt(x) e^-x I0,1(x) in 1/x on
// (0, 1/8] (11 terms each), sqrt(x) e^x K0,1(x) in 1/x on (0, 1] (17 terms each, two Horner chains).

template <class V>
TL_SPECIAL_KERNEL V i0_y_float(const V& y) {  // I0(x), y = x^2 in [0, 64]
  return horner<49.2085542230755, 126.19349348316648, 133.73747015067605, 79.09967787942578, 29.83355502596723, 7.773027112440098, 1.4780920643877031, 0.2136406012433912, 0.024220538806719455, 0.002208370822479592, 0.00016530767446537833, 1.0413798056590645e-05, 5.503144716717513e-07>(vfma(y, V(1.0 / 32), V(-1)));
}
template <class V>
TL_SPECIAL_KERNEL V i1_y_float(const V& y) {  // 2 I1(x) / x, y = x^2 in [0, 64]
  return horner<15.774186685385903, 33.434367537668955, 29.662379205379132, 14.916777513000397, 4.858141939726228, 1.1085690481095167, 0.18693554384546937, 0.024220539420528434, 0.0024843943429775552, 0.0002066337797623772, 1.4329120462199888e-05, 8.258400121370549e-07>(vfma(y, V(1.0 / 32), V(-1)));
}
template <class V>
TL_SPECIAL_KERNEL V i0_large_float(const V& t) {  // sqrt(x) e^-x I0(x), t = 1 / x in (0, 1/8]
  return horner<0.4021765094450081, 0.003360551954450404, 0.00013621608777889167, 1.1143644193695862e-05, 1.48358859061691e-06, 2.935535026978734e-07, 9.003416835624285e-08, 4.9987950872027415e-08, 1.93551345971183e-08, -8.162417434276367e-09, -7.134118032538922e-09>(vfma(t, V(16), V(-1)));
}
template <class V>
TL_SPECIAL_KERNEL V i1_large_float(const V& t) {  // sqrt(x) e^-x I1(x), t = 1 / x in (0, 1/8]
  return horner<0.38939845902587233, -0.009749577160828079, -0.00021923577677583148, -1.5039222626597893e-05, -1.8346611124062903e-06, -3.441973856934691e-07, -1.0125315435757985e-07, -5.474730168891007e-08, -2.1428552803957853e-08, 8.43120407703339e-09, 7.600979256637228e-09>(vfma(t, V(16), V(-1)));
}
template <class V>
TL_SPECIAL_KERNEL V k0_large_float(const V& t) {  // sqrt(x) e^x K0(x), t = 1 / x in (0, 1]
  return horner_split<1.1901571834152027, -0.05227901139832275, 0.00806738648897953, -0.0019084059329173646, 0.0005692427143755203, -0.00019721885147638295, 7.604392979686555e-05, -3.218454315210725e-05, 1.4416284045807314e-05, -5.494600221658029e-06, 2.527679667085805e-06, -3.6758477697342645e-06, 2.1469717562826337e-06, 1.3914199967648843e-06, -9.13176015755326e-07, -9.289909228246822e-07, 5.742472396626528e-07>(vfma(t, V(2), V(-1)));
}
template <class V>
TL_SPECIAL_KERNEL V k1_large_float(const V& t) {  // sqrt(x) e^x K1(x), t = 1 / x in (0, 1]
  return horner_split<1.4615569735231244, 0.187978906439273, -0.0158528544985976, 0.0031120117117936657, -0.0008443959479348761, 0.00027596936489145016, -0.00010222800232673756, 4.194459939815558e-05, -1.8359183646792633e-05, 7.014732008314376e-06, -3.192688973661995e-06, 4.323917002152397e-06, -2.500509506652076e-06, -1.564829080922815e-06, 1.0262856318522675e-06, 1.0685278091791002e-06, -6.571814483853172e-07>(vfma(t, V(2), V(-1)));
}

/// I_Order(x) (Scaled: e^-|x| I_Order(x)) for the arguments of float packets, in double: |x| <= 8
/// from the fit in x^2 (2 I1 / x times x / 2 for order 1), above from the fit in 1/x times
/// sqrt(1/x); one exponential (e^|x| unscaled, e^-|x| scaled) serves the lanes of the region that
/// needs it. I0 even, I1 odd; +inf at +-inf (scaled: 0), NaN for NaN. Not for double arguments.
template <int Order, bool Scaled, class V>
TL_SPECIAL_KERNEL V i_float_kernel(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const V a = vabs(x);
  const auto small = a <= V(8);
  const V y = vmin(a, V(8)) * vmin(a, V(8));
  const V t = V(1) / vmax(a, V(8));
  // I(a), a <= 8; I1 below 2^-20 as a / 2 exactly (the fit's value at 0 is 1 only to 1e-13, which
  // would round a subnormal a / 2 that is a tie the wrong way)
  const V s = Order == 0 ? i0_y_float(y) : sel(a < V(0x1p-20), V(0.5) * a, (V(0.5) * a) * i1_y_float(y));
  const V l = (Order == 0 ? i0_large_float(t) : i1_large_float(t)) * vsqrt(t);  // e^-a I(a), a > 8
  const V e = exp_for_float(Scaled ? -a : a);
  V r = Scaled ? sel(small, s * e, l) : sel(small, s, sel(a == V(inf), a, l * e));
  if constexpr (Order == 1) r = vcopysign(r, x);
  return sel(visnan(x), x, r);
}

/// K_Order(x) (Scaled: e^x K_Order(x)) for the arguments of float packets, in double: x > 1 from the
/// fit in 1/x times sqrt(1/x) (times e^-x unscaled); packets with a lane x <= 1 also evaluate the
/// double kernel's small-x form there (log(x/2) times the I series). +inf at +-0, NaN for x < 0,
/// 0 at +inf. Not for double arguments.
template <int Order, bool Scaled, class V>
TL_SPECIAL_KERNEL V k_float_kernel(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const V t = V(1) / x;
  const V c = (Order == 0 ? k0_large_float(vmin(t, V(1))) : k1_large_float(vmin(t, V(1)))) * vsqrt(t);
  V r = Scaled ? c : c * exp_for_float(-x);
  if (const auto small = x <= V(1); any_of(small)) {
    const V xs = vmin(vmax(x, V(0x1p-1000)), V(1)), y = xs * xs;
    const V lg = log_sub(xs) - V(0.69314718055994530942);  // log(x / 2)
    V k = Order == 0 ? k0_small_a(y) - lg * i0_series(y) : k1_small_b(y) / xs + lg * (V(0.5) * xs) * i1_series(y);
    if constexpr (Scaled) k = k * exp_for_float(xs);
    r = sel(small, k, r);
  }
  r = sel(x == V(0), V(inf), r);
  return sel(x < V(0), V(std::numeric_limits<double>::quiet_NaN()), r);
}

/// spherical_bessel_j0 on a float packet computed in float (8 lanes per AVX2 instruction), for
/// packets whose lanes all have |x| <= 1e5 on targets with a fused multiply-add; other packets
/// (huge, infinite or NaN lanes) and targets take the double kernel. sin(|x|) / |x| with every
/// rounding but the last carried:
///  - j = round(|x| 2/pi) and r = |x| - j pi/2 = r_hi + r_lo, pi/2 in three floats: |x| - j p1 is
///    exact, j p2 is split by an FMA and subtracted by TwoSum, j p3 goes to r_lo;
///  - sin r or cos r by the quadrant (the polynomials of simd_math.hpp), as hi + lo with the r_lo
///    terms to first order (r_lo cos r_hi, -r_lo sin r_hi) and the leading sum split exactly;
///  - (hi + lo) / |x| = q + (fma(-q, |x|, hi) + lo) / |x|, q = hi / |x| (the remainder is exact).
/// Within 1 ULP of the exact value (tests/special/bessel_test.cpp sweeps it against the double kernel).
template <class B>
TL_INLINE B spherical_j0_float_packet(const B& x) {
  using tl::detail::fmath::horner;
  const B ax = xsimd::abs(x);
#ifdef __FMA__
  if (xsimd::all(ax <= B(1e5f))) {
    const B j = xsimd::nearbyint(ax * B(6.3661975e-01f));
    const B r1 = vfnma(j, B(0x1.921fb6p+0f), ax);  // exact
    const B p_hi = j * B(-0x1.777a5cp-25f), p_lo = vfms(j, B(-0x1.777a5cp-25f), p_hi);
    const dd<B> r = two_sum(r1, -p_hi);
    const B r_hi = r.hi, r_lo = vfnma(j, B(-0x1.ee59dap-50f), r.lo - p_lo);
    const B t = r_hi * r_hi;
    // sin r = r_hi + (r_hi t S(t) + r_lo (1 - t/2))
    const B s_tail = vfma(r_hi * t, horner(t, -1.6666667e-01f, 8.333332e-03f, -1.9840087e-04f, 2.7249926e-06f),
                          r_lo * vfnma(t, B(0.5f), B(1.0f)));
    const dd<B> s = two_sum(r_hi, s_tail);
    // cos r = (1 - h) + (-t_lo / 2 + t^2 C(t) - r_lo r_hi), h = t / 2, t + t_lo = r_hi^2 exactly
    const B t_lo = vfms(r_hi, r_hi, t), h = t * B(0.5f);
    const B c_hi = B(1.0f) - h;  // exact error below: |h| <= 1/2
    const B c_lo = ((B(1.0f) - c_hi) - h) +
                   vfma(t * t, horner(t, 4.1666668e-02f, -1.3888888e-03f, 2.48006e-05f, -2.730096e-07f), vfnma(r_lo, r_hi, t_lo * B(-0.5f)));
    const B jh = j * B(0.5f), jq = j * B(0.25f);
    const auto odd = jh != xsimd::floor(jh);                  // cos r
    const auto neg = jq - xsimd::floor(jq) >= B(0.5f);        // j mod 4 in {2, 3}
    const B hi = xsimd::select(odd, c_hi, s.hi), lo = xsimd::select(odd, c_lo, s.lo);
    const B q = hi / ax;
    const B v = q + (vfnma(q, ax, hi) + lo) / ax;
    return xsimd::select(ax == B(0.0f), B(1.0f), xsimd::select(neg, -v, v));
  }
#endif
  return tl::detail::float_via_double(x, [](const auto& d) TL_INLINE_LAMBDA { return sel(visnan(d), d, spherical_j0_kernel(d)); });
}

/// The float packets of the I and K functors.
#define TL_SPECIAL_BESSEL_FLOAT_PACKET(NAME, KERNEL)                                                          \
  template <class B>                                                                                          \
  TL_INLINE B NAME##_float_packet(const B& x) {                                                               \
    return tl::detail::float_via_double(x, [](const auto& d) TL_INLINE_LAMBDA { return KERNEL; });            \
  }
TL_SPECIAL_BESSEL_FLOAT_PACKET(i0, (i_float_kernel<0, false>(d)))
TL_SPECIAL_BESSEL_FLOAT_PACKET(i0e, (i_float_kernel<0, true>(d)))
TL_SPECIAL_BESSEL_FLOAT_PACKET(i1, (i_float_kernel<1, false>(d)))
TL_SPECIAL_BESSEL_FLOAT_PACKET(i1e, (i_float_kernel<1, true>(d)))
TL_SPECIAL_BESSEL_FLOAT_PACKET(k0, (k_float_kernel<0, false>(d)))
TL_SPECIAL_BESSEL_FLOAT_PACKET(k0e, (k_float_kernel<0, true>(d)))
TL_SPECIAL_BESSEL_FLOAT_PACKET(k1, (k_float_kernel<1, false>(d)))
TL_SPECIAL_BESSEL_FLOAT_PACKET(k1e, (k_float_kernel<1, true>(d)))
#undef TL_SPECIAL_BESSEL_FLOAT_PACKET

}  // namespace tl::special::detail
