#pragma once
/// @file airy_kernel.hpp
/// @brief Internal: double-precision kernel of the Airy function Ai (detail header).
///
/// Chebyshev interpolants at 40 digits (tests/data/special/fit_bessel_jy_coefficients.py), with
/// zeta = 2/3 |x|^(3/2) carried as hi + lo (sqrt corrected by its exact residual, exact products):
///  - x in [-2, 1]: Ai itself (23 terms in u = x + 1 on [-2, 0], 16 terms in u = 2x - 1 on [0, 1]);
///  - x > 1: Ai = f(x) e^-zeta / (2 sqrt(pi) x^(1/4)), f interpolated in 1/zeta on [1, 8] (36 terms)
///    and in zeta8 / zeta above 8 (16 terms); e^-(hi + lo) with subnormal results kept, 0 beyond;
///  - x < -2: Ai(x) = M cos(zeta - pi/4 + alpha) with the modulus M = sqrt(Ai^2 + Bi^2) and the
///    phase correction alpha smooth (|x|^(1/4) M and alpha on [2, 8] in 1/|x|, 30 terms; above, in
///    zeta8 / zeta, 16 terms, alpha zeta), the phase reduced as for J0 (phase_cos_sin): relative
///    accuracy next to the zeros as long as zeta's low part and alpha resolve them; above
///    |x| = 5600 (zeta > 2^19) absolute error of an ulp of the modulus.
#include <limits>
#include <numbers>

#include "tl/special/detail/bessel_jy_kernel.hpp"
#include "tl/special/detail/gamma_kernel.hpp"

namespace tl::special::detail {

/// Ai(x), u = x + 1, x in [-2, 0] (23 terms)
template <class V>
TL_SPECIAL_KERNEL V airy_mid_neg(const V& u) {
  return horner_split<0.5355608832923521, -0.01016056711664521, -0.26778044164617604, 0.09095357506816622, 0.021468322877460904, -0.017936700835717117, 0.00231617507302351, 0.0009382148503138042, -0.0003616584983703636, 1.9138336426244585e-05, 1.4443037207570028e-05, -3.461789406102427e-06, 3.5570448756027923e-08, 1.1477452658447707e-07, -1.9216263278091428e-08, -3.771571233938571e-10, 5.582955395243791e-10, -6.926722220445412e-11, -3.057685124059664e-12, 1.839103836910391e-12, -1.737792527716529e-13, -1.3352036024803345e-14, 4.1743310190311675e-15>(u);
}

/// Ai(x), u = 2x - 1, x in [0, 1] (16 terms)
template <class V>
TL_SPECIAL_KERNEL V airy_mid_pos(const V& u) {
  return horner_split<0.23169360648083348, -0.11245526633234194, 0.014480850405052089, 0.0024841320864269073, -0.001020566832575837, 0.00010603114057173629, 6.098188556919629e-06, -2.7218324166194506e-06, 2.5028868420677296e-07, 5.8617291768712595e-09, -3.4327062759490552e-09, 2.910805129926015e-10, 2.3080675386111355e-12, -2.517916572052695e-12, 1.966681173665619e-13, 2.37060952767597e-16>(u);
}

/// 2 sqrt(pi) x^(1/4) e^zeta Ai(x), u linear in 1/zeta, x in [1, 8] (36 terms)
template <class V>
TL_SPECIAL_KERNEL V airy_pos_mid(const V& u) {
  return horner_split<0.959305485792593, -0.029190233650419815, 0.00501973465417513, -0.0013191719170685431, 0.0004305726322822837, -0.00016105250515567403, 6.626702380444787e-05, -2.928155507775668e-05, 1.368124281306205e-05, -6.687489111389639e-06, 3.3937866664767603e-06, -1.7777172372998932e-06, 9.557182118716178e-07, -5.266223858646275e-07, 3.040129585201274e-07, -1.7540994890187908e-07, 6.766026629897841e-08, -3.5912320900051175e-08, 1.3887590908698006e-07, -9.6330086304416e-08, -2.3992958587080115e-07, 1.747385144190268e-07, 4.6873162192620887e-07, -3.3821252624186837e-07, -6.322007817401545e-07, 4.5679433955150497e-07, 6.404528048035178e-07, -4.6234356742326916e-07, -4.619536230484328e-07, 3.3337916115287665e-07, 2.2757281652853246e-07, -1.6410378145069215e-07, -6.848498291279151e-08, 4.934494059153181e-08, 9.715471377702195e-09, -6.9881665330811195e-09>(u);
}

/// 2 sqrt(pi) x^(1/4) e^zeta Ai(x), u = 2 zeta8 / zeta - 1, x >= 8 (16 terms)
template <class V>
TL_SPECIAL_KERNEL V airy_pos_far(const V& u) {
  return horner_split<0.9977376979582832, -0.0022240811019366754, 3.702167371106788e-05, -1.145037926381962e-06, 5.106219931753861e-08, -2.9414717679710703e-09, 2.0588023378404476e-10, -1.6840295583330824e-11, 1.5671891449174903e-12, -1.6271957282574467e-13, 1.857312324941447e-14, -2.3033878049050394e-15, 3.0618207319477346e-16, -4.361984152622499e-17, 7.409198800667019e-18, -1.1974889430547996e-18>(u);
}

/// x^(1/4) M(x), u = 16 / (3x) - 5/3, x in [2, 8] (30 terms; Ai(-x) = M cos(zeta - pi/4 + alpha))
template <class V>
TL_SPECIAL_KERNEL V airy_neg_m_mid(const V& u) {
  return horner_split<0.5629583467043986, -0.002050990529587961, -0.0009842061761536126, -1.8660367050827352e-05, 5.367909043930388e-05, -9.506317818012698e-06, -1.5627217724583891e-06, 1.2155588590092689e-06, -2.277367536301057e-07, -5.2200723802014694e-08, 4.8153952265503483e-08, -1.4211240038464948e-08, 1.0381577290642066e-10, 1.9432869983177513e-09, -1.00686904151287e-09, 2.408904494874244e-10, 2.488755288054997e-11, -5.320030060982775e-11, 2.7287442517662678e-11, -7.442491183806257e-12, -2.421281024522523e-13, 1.43082650005926e-12, -7.581255903955139e-13, 2.8647606055778493e-13, -1.4443250914767624e-13, 4.9036744673265625e-15, 7.11634333808284e-14, -3.045423900303109e-14, -6.2365887130281e-15, 4.264976539112371e-15>(u);
}

/// alpha(x), same u
template <class V>
TL_SPECIAL_KERNEL V airy_neg_a_mid(const V& u) {
  return horner_split<-0.017654264211043807, -0.015039943797990672, -0.0012878986272081392, 0.0006054842700163235, -8.300246434989408e-05, -1.5199447846822229e-06, 4.271423301245053e-07, 2.111940746935147e-06, -1.5137044864676793e-06, 6.319885540246116e-07, -2.031876269052835e-07, 6.420322110520753e-08, -2.7756661585377064e-08, 1.6173640088361065e-08, -9.641021888964268e-09, 5.292494284233257e-09, -2.7764432978930703e-09, 1.3497802661986307e-09, -4.426192499602971e-10, 2.1102832044591852e-10, -4.320269280464965e-10, 2.383188479968131e-10, 2.1993646346334649e-10, -1.2360964118005948e-10, -1.9566075609922122e-10, 1.0901364434204025e-10, 7.143441948626609e-11, -3.996509704476928e-11, -1.680154947425719e-11, 9.36013115255907e-12>(u);
}

/// x^(1/4) M(x), u = 2 zeta8 / zeta - 1, x >= 8 (16 terms)
template <class V>
TL_SPECIAL_KERNEL V airy_neg_m_far(const V& u) {
  return horner_split<0.5641680987336987, -4.28954208686327e-05, -2.1300114329517343e-05, 1.4597768339014195e-07, 3.450742086197844e-08, -1.1430935496481032e-09, -1.515174877163569e-10, 1.4898262752025528e-11, 8.418014830454028e-13, -2.607942153314284e-13, 6.1702565055888595e-15, 4.906534330980352e-15, -6.915642828832362e-16, -5.630445572268055e-17, 2.785783158372367e-17, -1.8760338932474656e-18>(u);
}

/// zeta alpha(x), same u
template <class V>
TL_SPECIAL_KERNEL V airy_neg_a_far(const V& u) {
  return horner_split<-0.06940554724560132, 7.753097787557753e-05, 3.8242966536079366e-05, -5.140159268544693e-07, -1.1812091124955793e-07, 5.891234996500874e-09, 7.160978295062103e-10, -9.860389940222197e-11, -3.902723781758201e-12, 2.0285942414955945e-12, -1.0250919738538031e-13, -4.0480711753462135e-14, 7.994856573969467e-15, 2.6693869038340493e-16, -3.16562711990854e-16, 3.536248072764908e-17>(u);
}

/// zeta = 2/3 a^(3/2) as hi + lo, and a^(1/4), for a >= 0.
template <class V>
struct airy_zeta_t {
  V hi, lo, q;
};
template <class V>
TL_SPECIAL_KERNEL airy_zeta_t<V> airy_zeta(const V& a) {
  const V s = vsqrt(a);
  const V s_lo = vfma(-s, s, a) / (V(2) * s);  // sqrt(a) = s + s_lo to about 2^-104
  const dd<V> p = two_prod(a, s);
  const V p_lo = vfma(a, s_lo, p.lo);
  const dd<V> z = two_prod(p.hi, V(0.6666666666666666));
  const V z_lo = vfma(p.hi, V(3.700743415417188e-17), vfma(p_lo, V(0.6666666666666666), z.lo));
  const dd<V> r = two_sum(z.hi, z_lo);
  return {r.hi, sel(a > V(0), r.lo, V(0)), vsqrt(s)};
}

/// Ai(x): 0 at +inf (and past the underflow near x = 104.8), 0 at -inf (torch: NaN there).
template <class V>
TL_SPECIAL_KERNEL V airy_ai_kernel(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity(), zeta8 = 15.084944665313014;
  const V a = vabs(x);
  const auto zt = airy_zeta(sel(a < V(inf), a, V(1)));
  const auto mid = x >= V(-2) && x <= V(1), pos = x > V(1), neg = x < V(-2);
  V r(0);
  if (any_of(mid)) {
    const V xm = vmax(vmin(x, V(1)), V(-2));
    r = sel(xm < V(0), airy_mid_neg(xm + V(1)), airy_mid_pos(vfma(xm, V(2), V(-1))));
  }
  if (any_of(pos)) {
    const auto near = x <= V(8);
    V f(0);
    if (any_of(pos && near)) f = airy_pos_mid((V(2) / zt.hi - V(1.566291260736239)) / V(1.433708739263761));
    if (any_of(pos && !near)) f = sel(near, f, airy_pos_far(V(2 * zeta8) / vmax(zt.hi, V(zeta8)) - V(1)));
    const V m = f / (V(2 * 1.7724538509055160273) * zt.q);
    r = sel(pos, times_exp(m, -zt.hi, -zt.lo), r);
  }
  if (any_of(neg)) {
    const auto near = x >= V(-8);
    V m(0), al(0);
    if (any_of(neg && near)) {
      const V u = V(16.0 / 3) / vmax(vmin(a, V(8)), V(2)) - V(5.0 / 3);
      m = airy_neg_m_mid(u);
      al = airy_neg_a_mid(u);
    }
    if (any_of(neg && !near)) {
      const V z = vmax(zt.hi, V(zeta8));
      const V u = V(2 * zeta8) / z - V(1);
      m = sel(near, m, airy_neg_m_far(u));
      al = sel(near, al, airy_neg_a_far(u) / z);
    }
    const auto cs = phase_cos_sin<1>(zt.hi, zt.lo + al);
    r = sel(neg, m / zt.q * cs.j, r);
  }
  return sel(a == V(inf), V(0), r);
}

}  // namespace tl::special::detail
