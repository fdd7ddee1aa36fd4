#pragma once
/// @file bessel_jy_kernel.hpp
/// @brief Internal: double-precision kernels of the Bessel functions of the first and second kind
/// of orders 0 and 1, J0, J1, Y0, Y1 (detail header).
///
/// Chebyshev interpolants computed at 40+ digits by
/// tests/data/special/fit_bessel_jy_coefficients.py, in monomial form of u in [-1, 1]:
///  - x < 2 (u = x^2 / 2 - 1): J0 = P0(u), J1 = x P1(u) (11 terms each),
///    Y0 = 2/pi log(x / z0) J0(x) + (x - z0)(x + z0) D(u) with z0 = 0.8936 the first zero of Y0
///    (held as hi + lo; the remainder is entire in x^2 and vanishes at z0, so both terms carry the
///    factor x - z0 and Y0 keeps relative accuracy at its zero), Y1 = -2/(pi x) + 2/pi log(x) J1(x)
///    + x E(u);
///  - x >= 2, modulus and phase: J_n = M_n cos(theta_n), Y_n = M_n sin(theta_n),
///    theta_n = x - (2n + 1) pi / 4 + alpha_n(x), where M_n = sqrt(J_n^2 + Y_n^2) and alpha_n are
///    smooth and monotone (no zeros to resolve): sqrt(x) M_n and alpha_n as functions of
///    u = 16 / (3x) - 5/3 on [2, 8] (21 terms), sqrt(x) M_n and x alpha_n as functions of
///    u = 128 / x^2 - 1 on [8, inf) (15 terms).
///  - theta_n is reduced to t + k pi/2, |t| <= pi/4, by a three-part Cody-Waite subtraction of
///    m pi/4 (m = 2k + 2n + 1 < 2^20, each m P_i exact) before alpha_n is added, so cos and sin of
///    the phase keep relative accuracy next to the zeros of J_n and Y_n up to x = 2^19 (cos t and
///    sin t by their Taylor series: t needs no second reduction); above, the
///    phase is cos(x + beta) = cos x cos beta - sin x sin beta with xsimd's / the C library's
///    exact reduction of x (absolute error of an ulp of the modulus near the zeros).
///  - float results (computed in double, about 2e-11 relative): below 8 the zeros there factored
///    out, J0 = (x^2 - j01^2)(x^2 - j02^2) P(u), J1 = x (x^2 - j11^2)(x^2 - j12^2) Q(u) with
///    u = x^2 / 32 - 1 (12 and 11 terms), Y0 = (x - y02)(x - y03) R(u), Y1 = (x - y11)(x - y12) S(u)
///    on [2, 8] with u = (x - 5) / 3 (21 and 23 terms; Y below 2 as in double, 8-term fits, tl's
///    logarithm); above 8 the modulus and phase with 7-term moduli, the phase reduced modulo pi
///    and one sine series: cos theta = sin(theta + pi/2).
#include <limits>
#include <numbers>

#include "tl/special/detail/bessel_kernel.hpp"

namespace tl::special::detail {

/// J0(x), u = x^2 / 2 - 1, x in [0, 2]
template <class V>
TL_SPECIAL_KERNEL V j0_small(const V& u) {
  return horner<0.5591341444189799, -0.3849933108722518, 0.05271311933138091, -0.003059303648232959, 9.809776403384795e-05, -1.9956200212547376e-06, 2.8053950481188603e-08, -2.8886206337153477e-10, 2.272605429659704e-12, -1.4107969254878234e-14, 7.086193594154272e-17>(u);
}

/// J1(x) / x, same u
template <class V>
TL_SPECIAL_KERNEL V j1x_small(const V& u) {
  return horner<0.3849933108722518, -0.10542623866276182, 0.009177910944698877, -0.0003923910561353918, 9.978100106271918e-06, -1.68323702887139e-07, 2.0220344492589484e-09, -1.8180843426014906e-11, 1.2696444845411257e-13, -7.086249907805597e-16, 3.2332639858823413e-18>(u);
}

/// (Y0(x) - 2/pi log(x / z0) J0(x)) / (x^2 - z0^2), same u
template <class V>
TL_SPECIAL_KERNEL V y0_small_d(const V& u) {
  return horner<0.15082466450050294, -0.029225700006808873, 0.0020197967035108745, -7.250878345980085e-05, 1.6009831768470045e-06, -2.3982063517400536e-08, 2.5996999805436137e-10, -2.1350987835030958e-12, 1.3749434808656168e-14, -7.1308206498265e-17, 3.042451755838261e-19>(u);
}

/// (Y1(x) - 2/pi (log(x) J1(x) - 1/x)) / x, same u
template <class V>
TL_SPECIAL_KERNEL V y1_small_e(const V& u) {
  return horner<-0.09862339471544956, 0.08671223464017823, -0.01019428886847291, 0.0005123974401334689, -1.4506735330834197e-05, 2.6483034037414153e-07, -3.3840999559877536e-09, 3.199914186853986e-11, -2.331106543840006e-13, 1.3491087375147653e-15, -6.353565001649602e-18>(u);
}

/// sqrt(x) M0(x), u = 16 / (3x) - 5/3, x in [2, 8]
template <class V>
TL_SPECIAL_KERNEL V m0_mid(const V& u) {
  return horner<0.7935785529465889, -0.004654833093224691, -0.0009114697301950192, 0.0001823689945695822, -1.8684133766923197e-05, -1.3050704664111638e-06, 1.3651794632040884e-06, -4.6176567747778924e-07, 1.0672942882772758e-07, -1.4196070144322919e-08, -2.1041825199606466e-09, 2.4667788645132425e-09, -1.1687073203651316e-09, 4.1701422125816867e-10, -1.1821417333188223e-10, 2.200644215178638e-11, -4.0228297524116645e-13, -1.0475440548792356e-12, 1.599453894944929e-12, -1.6311174344898628e-12, 5.184991780345086e-13>(u);
}

/// alpha0(x), same u
template <class V>
TL_SPECIAL_KERNEL V a0_mid(const V& u) {
  return horner<-0.03746963461658947, -0.02089261394395086, 0.0011510228336868195, 3.3368184647565876e-05, -3.420661745814313e-05, 8.769033017020536e-06, -1.3800108991377114e-06, 1.9343856911139645e-08, 8.872277012401679e-08, -4.375617377584204e-08, 1.4436957734473528e-08, -3.577311239921159e-09, 5.359560486092911e-10, 7.731785368063681e-11, -1.0725113538106667e-10, 5.327978804338381e-11, -2.15725832495152e-11, 1.0670553624109253e-11, -3.5197785651400472e-12, -5.736266639341745e-13, 5.23766204312287e-13>(u);
}

/// sqrt(x) M0(x), u = 128 / x^2 - 1, x >= 8
template <class V>
TL_SPECIAL_KERNEL V m0_far(const V& u) {
  return horner<0.797499818629752, -0.0003800698974490952, 4.506774607911408e-06, -1.546341485829153e-07, 9.787887228566456e-09, -9.346432027486695e-10, 1.201753787532408e-10, -1.936135144782391e-11, 3.723520346520193e-12, -8.314105770661673e-13, 2.082120082360452e-13, -5.032727502642675e-14, 1.4423111976152247e-14, -9.256082693756254e-15, 3.3701156112470645e-15>(u);
}

/// x alpha0(x), same u
template <class V>
TL_SPECIAL_KERNEL V a0_far(const V& u) {
  return horner_split<-0.12450345867138757, 0.00048509785023362307, -1.0858254767984053e-05, 5.35952588358459e-07, -4.339695820257787e-08, 4.968355984405665e-09, -7.355315621417391e-10, 1.3275961835786327e-10, -2.8056214890940825e-11, 6.8059955224161015e-12, -1.8285675813378594e-12, 4.525813202465317e-13, -1.3558244653662581e-13, 1.0006353470357069e-13, -3.809277249872934e-14>(u);
}

/// sqrt(x) M1(x), x in [2, 8]
template <class V>
TL_SPECIAL_KERNEL V m1_mid(const V& u) {
  return horner<0.8113735319953594, 0.015112647682653309, 0.0034690291822379463, -0.0004432909277573641, 2.3093469635513208e-05, 6.113509097018828e-06, -2.752779593783637e-06, 7.061775216203059e-07, -1.2726751993671976e-07, 8.21016804085918e-09, 6.190131891261844e-09, -3.984243535621489e-09, 1.6030787067748965e-09, -5.12351734158357e-10, 1.2911383756251179e-10, -1.8515146200080954e-11, -2.838108023282781e-12, 2.771405565862328e-12, -2.3785638241638817e-12, 1.8790861166604313e-12, -5.54843913399256e-13>(u);
}

/// alpha1(x)
template <class V>
TL_SPECIAL_KERNEL V a1_mid(const V& u) {
  return horner<0.11293188111082218, 0.06330880047826776, -0.0034025402204343183, -0.00022697085270655524, 9.974268320598335e-05, -1.6894020155017003e-05, 1.3654422582961662e-06, 2.9506401306118706e-07, -1.9735892538249364e-07, 6.927495973912194e-08, -1.8600705470746826e-08, 3.6824132168970617e-09, -2.4873677833292975e-10, -2.415089972820329e-10, 1.7140636976078399e-10, -7.262120604457865e-11, 2.656036332252327e-11, -1.247187182411069e-11, 3.788185213852193e-12, 1.0327312272431622e-12, -7.28127350718902e-13>(u);
}

/// sqrt(x) M1(x), x >= 8
template <class V>
TL_SPECIAL_KERNEL V m1_far(const V& u) {
  return horner<0.7990442065634052, 0.0011507830214433769, -8.611413589940795e-06, 2.3653601094479008e-07, -1.3406877584354431e-08, 1.2043848173698842e-09, -1.4909972857402768e-10, 2.341187459407091e-11, -4.419499171981121e-12, 9.726476288625267e-13, -2.408547986013424e-13, 5.7922995388761e-14, -1.648915890361002e-14, 1.0411280412584445e-14, -3.770574059454493e-15>(u);
}

/// x alpha1(x)
template <class V>
TL_SPECIAL_KERNEL V a1_far(const V& u) {
  return horner_split<0.37373986827925865, -0.0012394706674388042, 1.979074382811709e-05, -8.039686306472023e-07, 5.886119439614259e-08, -6.366035042379798e-09, 9.093148803808907e-10, -1.6015590284290683e-10, 3.324678082452645e-11, -7.952211987606503e-12, 2.113244560035037e-12, -5.211321315646556e-13, 1.55135488284074e-13, -1.1247578450209442e-13, 4.2596167477398405e-14>(u);
}

// ---- float results -----------------------------------------------------------------------------
// Float results need about 2e-11 relative (the double value then rounds once). Below 8 they take
// polynomials with the zeros there factored out (each zero held as hi + lo, so x - z and x^2 - z^2
// keep relative accuracy next to it): no modulus, phase, square root or division; Y below 2 the
// double forms in 8 terms each and tl's logarithm. Above 8 the moduli take 7 terms (about 1e-12)
// and the phase one sine series (phase_sin_float); the phases alpha_n keep the double fits: near a
// zero the result's relative error is the phase's absolute error over the distance to the zero.

/// J0(x), float results, u = x^2 / 2 - 1, x in [0, 2] (Y0 below 2)
template <class V>
TL_SPECIAL_KERNEL V j0_small_float(const V& u) {
  return horner_split<0.5591341444189621, -0.3849933108722517, 0.052713119331949096, -0.003059303648236486, 9.809776119293172e-05, -1.9956200036197713e-06, 2.8058495886918228e-08, -2.888902793100445e-10>(u);
}
/// J1(x) / x, float results, same u (Y1 below 2)
template <class V>
TL_SPECIAL_KERNEL V j1x_small_float(const V& u) {
  return horner_split<0.3849933108722508, -0.10542623866276182, 0.00917791094473062, -0.0003923910561355689, 9.978099947559084e-06, -1.6832370200135758e-07, 2.0222883870473318e-09, -1.8182260675996464e-11>(u);
}
/// y0_small_d, float results
template <class V>
TL_SPECIAL_KERNEL V y0_small_d_float(const V& u) {
  return horner_split<0.15082466450050283, -0.029225700006808873, 0.002019796703514312, -7.250878345981867e-05, 1.6009831596595265e-06, -2.398206342826526e-08, 2.599974977606529e-10, -2.135241399916092e-12>(u);
}
/// y1_small_e, float results
template <class V>
TL_SPECIAL_KERNEL V y1_small_e_float(const V& u) {
  return horner_split<-0.09862339471544775, 0.08671223464017823, -0.01019428886853119, 0.0005123974401338062, -1.4506735039431583e-05, 2.648303386877552e-07, -3.384566194768824e-09, 3.200184008601488e-11>(u);
}
/// J0(x) / ((x^2 - j01^2)(x^2 - j02^2)), float results, u = x^2 / 32 - 1, x in [0, 8]
template <class V>
TL_SPECIAL_KERNEL V j0_near_float(const V& u) {
  return horner_split<0.0011434937743760884, -0.002119794289479686, 0.0015636431646051344, -0.0006415390646410513, 0.00016977200700036096, -3.1573425397115175e-05, 4.3669329202376915e-06, -4.677128239756662e-07, 3.998724518761013e-08, -2.7948208376416358e-09, 1.637848477645029e-10, -8.060921503061489e-12>(u);
}
/// J1(x) / (x (x^2 - j11^2)(x^2 - j12^2)), same u
template <class V>
TL_SPECIAL_KERNEL V j1_near_float(const V& u) {
  return horner_split<0.00019498936985895625, -0.00026975227467473733, 0.00015860016799382093, -5.408003232884924e-05, 1.2242173650571758e-05, -1.9890938630863538e-06, 2.442522397589437e-07, -2.352112928800388e-08, 1.826823500823704e-09, -1.1776197809770069e-10, 6.315984265499528e-12>(u);
}
/// Y0(x) / ((x - y02)(x - y03)), float results, u = (x - 5) / 3, x in [2, 8]
template <class V>
TL_SPECIAL_KERNEL V y0_near_float(const V& u) {
  return horner_split<0.1418904988820572, -0.0003203090521066256, -0.11193702372713282, 0.00603659347183708, 0.03018109223456793, -0.0013864040646930872, -0.0045937611517258186, 0.0002823516233418843, 0.00037954814143226, -7.033444854479015e-07, -3.640094748919e-05, 7.772591498407714e-06, -2.5545135463100603e-06, 2.373504321838726e-07, -1.8431358660038473e-07, 2.4668278219575253e-06, -1.421151193782836e-06, -1.0806167368812162e-06, 6.271132734520001e-07, 4.81173865430361e-07, -2.781964998494783e-07>(u);
}
/// Y1(x) / ((x - y11)(x - y12)), same u
template <class V>
TL_SPECIAL_KERNEL V y1_near_float(const V& u) {
  return horner_split<-0.12277573505630479, 0.11638360569411066, 0.04824474408622292, -0.05398208069283007, -0.01001043325137207, 0.012297465090605985, 0.00039367338501173754, -0.0011032261046324356, -0.00020821538401134067, 0.00020520698981078955, -5.9114351250526e-05, 2.7127729938741805e-05, -1.989768434544037e-05, 2.2278774003736787e-05, -1.3276026713474661e-05, -9.221027237853832e-06, 5.5241830322860064e-06, 1.591470478293201e-05, -9.559059902899355e-06, -7.751677180839067e-06, 4.654616320254887e-06, 2.6023230045162772e-06, -1.5629565717121665e-06>(u);
}
/// (x - z)(x - w) (or with x^2, z^2, w^2) for zeros z = zh + zl, w = wh + wl: x - zh is exact
/// next to the zero, so the product keeps relative accuracy there.
template <class V>
TL_SPECIAL_KERNEL V zero_factors(const V& x, double zh, double zl, double wh, double wl) {
  return ((x - V(zh)) - V(zl)) * ((x - V(wh)) - V(wl));
}
/// sqrt(x) M0(x), float results, x >= 8
template <class V>
TL_SPECIAL_KERNEL V m0_far_float(const V& u) {
  return horner<0.797499818629752, -0.00038006989974035733, 4.5067750593622955e-06, -1.5461592126807395e-07, 9.78430196139798e-09, -9.704884101580636e-10, 1.2719009453433972e-10>(u);
}
/// sqrt(x) M1(x), float results, x >= 8
template <class V>
TL_SPECIAL_KERNEL V m1_far_float(const V& u) {
  return horner<0.7990442065634052, 0.00115078302420682, -8.611414124362108e-06, 2.3651402336010362e-07, -1.3402632615316976e-08, 1.2476485479945602e-09, -1.5740978128208766e-10>(u);
}

template <class V>
struct jy_pair {
  V j, y;
};
/// cos t and sin t for |t| <= pi/4 (a little beyond too): their Taylor series in t^2 (11 and 10
/// terms: the first omitted term is below 2^-60 relative there), without a second argument
/// reduction. Returned as {cos, sin}.
template <class V>
TL_SPECIAL_KERNEL jy_pair<V> cos_sin_reduced(const V& t) {
  const V z = t * t;
  return {horner<1.0, -0.5, 0.041666666666666664, -0.001388888888888889, 2.48015873015873e-05, -2.755731922398589e-07,
                 2.08767569878681e-09, -1.1470745597729725e-11, 4.779477332387385e-14, -1.5619206968586225e-16,
                 4.110317623312165e-19>(z),
          t * horner<1.0, -0.16666666666666666, 0.008333333333333333, -0.0001984126984126984, 2.7557319223985893e-06,
                     -2.505210838544172e-08, 1.6059043836821613e-10, -7.647163731819816e-13, 2.8114572543455206e-15,
                     -8.22063524662433e-18>(z)};
}
/// x - m pi/4 by a three-part Cody-Waite subtraction (pi/4 = P1 + P2 + P3, P1 and P2 of 33 bits):
/// each m P_i is exact for integers |m| < 2^20.
template <class V>
TL_SPECIAL_KERNEL V minus_quarter_pis(const V& x, const V& m) {
  return ((x - m * V(0.7853981633670628)) - m * V(3.038550253151983e-11)) - m * V(1.0111331243979753e-21);
}
/// cos and sin of theta = x + e - C pi/4 (x >= 0, |e| small): theta = t + k pi/2 with |t| <= pi/4
/// by subtracting m pi/4 (m = 2k + C < 2^20), e added after; above x = 2^19,
/// cos x cos b - sin x sin b with b = e - C pi/4 (exact reduction of x by xsimd or the C library).
/// Returned as {cos, sin}.
template <int C, class V>
TL_SPECIAL_KERNEL jy_pair<V> phase_cos_sin(const V& x, const V& e) {
  const auto huge = x > V(0x1p19);
  const V xr = sel(huge, V(0), x);
  const V k = vnearbyint(vfma(xr + e, V(2 / std::numbers::pi), V(-C / 2.0)));
  const V t = minus_quarter_pis(xr, vfma(k, V(2), V(C))) + e;
  const auto cst = cos_sin_reduced(t);
  const V ct = cst.j, st = cst.y;
  const V q = k - V(4) * vfloor(k * V(0.25));
  const auto swap = q == V(1) || q == V(3);
  const V cs = sel(swap, st, ct), sn = sel(swap, ct, st);
  V cth = sel(q == V(1) || q == V(2), -cs, cs), sth = sel(q == V(2) || q == V(3), -sn, sn);
  if (any_of(huge)) {
    const V b = e - V(C * std::numbers::pi / 4);
    const V cx = vcos(x), sx = vsin(x), cb = vcos(b), sb = vsin(b);
    cth = sel(huge, cx * cb - sx * sb, cth);
    sth = sel(huge, sx * cb + cx * sb, sth);
  }
  return {cth, sth};
}
/// sin(x + e - C pi/4) for float results (x >= 0, |e| small): theta = t + k pi with |t| <= pi/2 by
/// subtracting m pi/4 (m = 4k + C), then (-1)^k sin t, sin t by its Taylor series (8 terms: below
/// 1e-11 relative at |t| = pi/2; one series and a sign instead of cos, sin and the quadrant's
/// swaps); relative next to the zeros of the sine. Above x = 2^19, sin x cos b + cos x sin b,
/// b = e - C pi/4.
template <int C, class V>
TL_SPECIAL_KERNEL V phase_sin_float(const V& x, const V& e) {
  const auto huge = x > V(0x1p19);
  const V xr = sel(huge, V(0), x);
  const V k = vnearbyint(vfma(xr + e, V(1 / std::numbers::pi), V(-C / 4.0)));
  const V t = minus_quarter_pis(xr, vfma(k, V(4), V(C))) + e;
  const V st = t * horner_split<1.0, -0.16666666666666666, 0.008333333333333333, -0.0001984126984126984, 2.7557319223985893e-06, -2.505210838544172e-08, 1.6059043836821613e-10, -7.647163731819816e-13>(t * t);
  const V h = k * V(0.5);
  V s = sel(vfloor(h) == h, st, -st);
  if (any_of(huge)) {
    const V b = e - V(C * std::numbers::pi / 4);
    s = sel(huge, vsin(x) * vcos(b) + vcos(x) * vsin(b), s);
  }
  return s;
}
/// J_N(x) and Y_N(x) for x >= 2 (x = +inf gives 0, 0), N = 0 or 1.
template <int N, class V>
TL_SPECIAL_KERNEL jy_pair<V> jy_modulus_phase(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const V r = V(1) / x;  // the one division: both fits' variables and 1 / sqrt(x) = sqrt(r)
  const auto mid = x < V(8);
  V ms(0), al(0);
  if (any_of(mid)) {
    const V u = vfma(vmax(r, V(0.125)), V(16.0 / 3), V(-5.0 / 3));
    ms = N == 0 ? m0_mid(u) : m1_mid(u);
    al = N == 0 ? a0_mid(u) : a1_mid(u);
  }
  if (!all_of(mid)) {
    const V rf = vmin(r, V(0.125));
    const V u = V(128) * rf * rf - V(1);
    ms = sel(mid, ms, N == 0 ? m0_far(u) : m1_far(u));
    al = sel(mid, al, (N == 0 ? a0_far(u) : a1_far(u)) * rf);
  }
  const V m = ms * vsqrt(r);
  const auto cs = phase_cos_sin<2 * N + 1>(x, al);
  const V cth = cs.j, sth = cs.y;
  const auto at_inf = x == V(inf);
  return {sel(at_inf, V(0), m * cth), sel(at_inf, V(0), m * sth)};
}
/// Float results of J_N (Y = false) or Y_N (Y = true) for x >= 8 (x = +inf gives 0): the 7-term
/// moduli, the double phases and phase_sin_float (cos theta = sin(theta + pi/2)).
template <int N, bool Y, class V>
TL_SPECIAL_KERNEL V jy_far_float(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const V r = V(1) / x;
  const V rf = vmin(r, V(0.125));
  const V u = V(128) * rf * rf - V(1);
  const V m = (N == 0 ? m0_far_float(u) : m1_far_float(u)) * vsqrt(r);
  const V al = (N == 0 ? a0_far(u) : a1_far(u)) * rf;
  const V s = phase_sin_float<2 * N + 1 - (Y ? 0 : 2)>(x, al);
  return sel(x == V(inf), V(0), m * s);
}

// Zeros of J0, J1 (squared) and of Y0, Y1 below 8, as hi + lo (fit_bessel_jy_coefficients.py).
inline constexpr double j01sq_hi = 5.783185962946784, j01sq_lo = 4.123247343506204e-16;
inline constexpr double j02sq_hi = 30.471262343662087, j02sq_lo = -2.366534485750659e-16;
inline constexpr double j11sq_hi = 14.681970642123893, j11sq_lo = -9.858177825793294e-17;
inline constexpr double j12sq_hi = 49.2184563216946, j12sq_lo = 5.086354069436341e-16;
inline constexpr double y02_hi = 3.957678419314858, y02_lo = -1.0764340697562706e-16;
inline constexpr double y03_hi = 7.086051060301773, y03_lo = -8.835285723085408e-17;
inline constexpr double y11_hi = 2.197141326031017, y11_lo = -4.8259835876454966e-17;
inline constexpr double y12_hi = 5.429681040794135, y12_lo = 4.162514026670377e-16;

/// J0 or J1 (N) of a = |x|, F: float results (below 8 the zero-factored polynomial in x^2).
template <int N, bool F, class V>
TL_SPECIAL_KERNEL V bessel_j_abs(const V& a) {
  constexpr double edge = F ? 8 : 2;
  const auto small = a < V(edge);
  V r(0);
  if (any_of(small)) {
    const V as = vmin(a, V(edge));
    const V t = as * as;  // exact for float x
    if constexpr (F) {
      const V u = vfma(t, V(1.0 / 32), V(-1));
      if constexpr (N == 0) r = zero_factors(t, j01sq_hi, j01sq_lo, j02sq_hi, j02sq_lo) * j0_near_float(u);
      else r = as * zero_factors(t, j11sq_hi, j11sq_lo, j12sq_hi, j12sq_lo) * j1_near_float(u);
    } else {
      const V u = vfma(t, V(0.5), V(-1));
      if constexpr (N == 0) r = j0_small(u);
      else r = as * j1x_small(u);
    }
  }
  if (!all_of(small)) {
    const V al = vmax(a, V(edge));
    if constexpr (F) r = sel(small, r, jy_far_float<N, false>(al));
    else r = sel(small, r, jy_modulus_phase<N>(al).j);
  }
  return r;
}

/// Y0 or Y1 (N) for x >= 2; F: float results (below 8 the zero-factored polynomial in x).
template <int N, bool F, class V>
TL_SPECIAL_KERNEL V bessel_y_large(const V& x) {
  if constexpr (F) {
    const auto near = x < V(8);
    V r(0);
    if (any_of(near)) {
      const V xs = vmin(x, V(8));
      const V u = (xs - V(5)) * V(1.0 / 3);
      if constexpr (N == 0) r = zero_factors(xs, y02_hi, y02_lo, y03_hi, y03_lo) * y0_near_float(u);
      else r = zero_factors(xs, y11_hi, y11_lo, y12_hi, y12_lo) * y1_near_float(u);
    }
    if (!all_of(near)) r = sel(near, r, jy_far_float<N, true>(vmax(x, V(8))));
    return r;
  } else {
    return jy_modulus_phase<N>(x).y;
  }
}

/// J0: even, 1 at 0, 0 at +-inf. F: float results.
template <class V, bool F = false>
TL_SPECIAL_KERNEL V bessel_j0_kernel(const V& x) {
  return bessel_j_abs<0, F>(vabs(x));
}
/// J1: odd (J1(-0) = -0), +-0 at +-inf.
template <class V, bool F = false>
TL_SPECIAL_KERNEL V bessel_j1_kernel(const V& x) {
  return vcopysign(V(1), x) * bessel_j_abs<1, F>(vabs(x));
}
/// Y0: -inf at +-0, NaN for x < 0, 0 at +inf.
template <class V, bool F = false>
TL_SPECIAL_KERNEL V bessel_y0_kernel(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity(), z0_hi = 0.8935769662791675, z0_lo = 2.6596231539720385e-17;
  const auto small = x < V(2);
  V r(0);
  if (any_of(small)) {
    const V xs = vmin(x, V(2));
    const V u = vfma(xs * xs, V(0.5), V(-1));
    const V d = (xs - V(z0_hi)) - V(z0_lo);  // x - z0, exact to the last bits
    V l;  // log(x / z0), relative to x - z0 next to z0
    if constexpr (F) {
      // 2 atanh(s) (log_from_split) with s = (x - z0) / (x + z0) next to z0 (|s| <= 0.163), else
      // log x - log z0 with x = 2^k (1 + f), s = f / (2 + f): one division either way
      const auto sp = split_log(xs);
      const auto nz = vabs(d) < V(0.25);
      l = log_from_split(sel(nz, V(0), sp.k), sel(nz, d, sp.f) / sel(nz, xs + V(z0_hi), V(2) + sp.f)) -
          sel(nz, V(0), V(-0.11252280788079412));
    } else {
      // log1p next to z0 (only packets with a lane there take it)
      l = log_sub(xs) - V(-0.11252280788079412);
      if (const auto near = vabs(d) < V(0.4); any_of(near)) l = sel(near, vlog1p(d / V(z0_hi)), l);
    }
    const V j0 = F ? j0_small_float(u) : j0_small(u), dd = F ? y0_small_d_float(u) : y0_small_d(u);
    r = vfma(V(2 / std::numbers::pi) * l, j0, d * (xs + V(z0_hi)) * dd);
  }
  if (!all_of(small)) r = sel(small, r, bessel_y_large<0, F>(vmax(x, V(2))));
  r = sel(x == V(0), V(-inf), r);
  return sel(x < V(0), V(std::numeric_limits<double>::quiet_NaN()), r);
}
/// Y1: -inf at +-0 (and where -2/(pi x) overflows), NaN for x < 0, 0 at +inf.
template <class V, bool F = false>
TL_SPECIAL_KERNEL V bessel_y1_kernel(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const auto small = x < V(2);
  V r(0);
  if (any_of(small)) {
    const V xs = vmin(x, V(2));
    const V u = vfma(xs * xs, V(0.5), V(-1));
    V l;  // log x
    if constexpr (F) {
      const auto sp = split_log(xs);
      l = log_from_split(sp.k, sp.f / (V(2) + sp.f));
    } else {
      l = log_sub(xs);
    }
    const V j1x = F ? j1x_small_float(u) : j1x_small(u), e = F ? y1_small_e_float(u) : y1_small_e(u);
    const V rest = vfma(V(2 / std::numbers::pi) * l, xs * j1x, xs * e);
    r = V(-2 / std::numbers::pi) / xs + rest;
  }
  if (!all_of(small)) r = sel(small, r, bessel_y_large<1, F>(vmax(x, V(2))));
  r = sel(x == V(0), V(-inf), r);
  return sel(x < V(0), V(std::numeric_limits<double>::quiet_NaN()), r);
}

/// The float packets of J0, J1, Y0, Y1: the kernels with F = true, in double (float_via_double).
#define TL_SPECIAL_JY_FLOAT_PACKET(NAME)                                                           \
  template <class B>                                                                                \
  TL_INLINE B NAME##_float_packet(const B& x) {                                                     \
    return float_via_double_twin(x, [](const auto& d) TL_INLINE_LAMBDA {                            \
      return sel(visnan(d), d, NAME##_kernel<std::remove_cvref_t<decltype(d)>, true>(d));         \
    });                                                                                             \
  }
TL_SPECIAL_JY_FLOAT_PACKET(bessel_j0)
TL_SPECIAL_JY_FLOAT_PACKET(bessel_j1)
TL_SPECIAL_JY_FLOAT_PACKET(bessel_y0)
TL_SPECIAL_JY_FLOAT_PACKET(bessel_y1)
#undef TL_SPECIAL_JY_FLOAT_PACKET

}  // namespace tl::special::detail
