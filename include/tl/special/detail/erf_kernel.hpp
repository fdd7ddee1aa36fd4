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
/// The inverse functions take w = -log(1 - y^2) to about an ULP and evaluate erfinv(y) / y as a
/// polynomial in w up to w = 6.25 (26 terms) and erfinv(y) as polynomials in sqrt(w) on [2.5, 4]
/// and [4, 6.5] (20 and 22 terms), the variables of M. Giles, "Approximating the erfinv function"
/// (GPU Computing Gems, 2011), with our own Chebyshev interpolants (same script). Beyond w = 42.25,
/// which only ndtri reaches (p below about 1e-19), an asymptotic inversion of erfc (1e-4) and two
/// Halley steps on erfcx.
#include <limits>
#include <numbers>
#include <type_traits>

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

/// erf(x) / x for |x| <= 0.75, float results (8 terms, 4e-13 relative)
template <class V>
TL_SPECIAL_KERNEL V erf_over_x_float(const V& u) {
  return horner<1.0309528156008718, -0.08960376710908896, 0.007314485247128079, -0.0004808724783814419, 2.5991582433857165e-05, -1.186566672265793e-06, 4.688594005752241e-08, -1.62459259128842e-09>(u);
}
/// x erfcx(x) for x >= 0.5 in u = 1 - 7 / (x + 3), float results (16 terms, 2e-12 relative; even and
/// odd terms in two chains, horner_split: this chain sets the speed of the float kernels of the erf
/// family, and Estrin's scheme, as short, takes more instructions)
template <class V>
TL_SPECIAL_KERNEL V x_erfcx_float(const V& u) {
  return horner_split<0.5479978305011677, 0.052258032715205495, -0.0713088500441681, 0.05918606111584565, -0.03591028555366654, 0.016148790647530484, -0.004959238524431105, 0.0006826056065578194, 0.00019482845685508474, -0.00011364206707608886, 4.781353523701065e-06, 1.1381498542141155e-05, -1.8892230293510596e-06, -1.1108323089448457e-06, 2.0085666524518969e-07, 8.704167233802456e-08>(u);
}
/// m e^(-s x^2); F: for float results, where x is a float's value and x^2 is exact in double
/// (exp_for_float), else with x^2 split exactly (times_exp_neg).
template <bool F, class V>
TL_SPECIAL_KERNEL V times_exp_neg_sq(const V& m, const V& x, double s) {
  if constexpr (F) return m * exp_for_float(V(-s) * (x * x));
  else return times_exp_neg(m, exact_square(x), s);
}

/// erfcx(a) for a >= 0.5 and erf(x) for |x| <= 0.75. F: for float results (computed in double to
/// about 1e-11 relative, the float result is the double one rounded once), the shorter fits above
/// and one division, 1 / (a (a + 3)) giving both 7 / (a + 3) and 1 / a (a = +inf clamped to 2^300).
template <bool F, class V>
TL_SPECIAL_KERNEL V erfcx_tail(const V& a) {
  if constexpr (F) {
    const V ac = vmin(a, V(0x1p300));
    const V ra = V(1) / (ac * (ac + V(3)));
    return x_erfcx_float(vfnma(V(7) * ac, ra, V(1))) * ((ac + V(3)) * ra);
  } else {
    return erfcx_large(a);
  }
}
template <bool F, class V>
TL_SPECIAL_KERNEL V erf_mid(const V& x) {
  if constexpr (F) return x * erf_over_x_float(vfma(x * x, V(32.0 / 9.0), V(-1)));
  else return erf_small(x);
}

/// erf, erfc, erfcx; F: float results (erfcx_tail).
template <class V, bool F = false>
TL_SPECIAL_KERNEL V erf_kernel(const V& x) {
  const V a = vabs(x);
  const V big = V(1) - times_exp_neg_sq<F>(erfcx_tail<F>(vmax(a, V(0.5))), a, 1.0);
  return sel(a < V(0.75), erf_mid<F>(x), vcopysign(big, x));
}

template <class V, bool F = false>
TL_SPECIAL_KERNEL V erfc_kernel(const V& x) {
  const V a = vabs(x);
  const V tail = times_exp_neg_sq<F>(erfcx_tail<F>(vmax(a, V(0.5))), a, 1.0);
  const V mid = V(1) - erf_mid<F>(x);
  return sel(x <= V(-0.5), V(2) - tail, sel(a < V(0.5), mid, tail));
}

template <class V, bool F = false>
TL_SPECIAL_KERNEL V erfcx_kernel(const V& x) {
  const V a = vabs(x);
  V ea;
  if constexpr (F) ea = exp_for_float(x * x);
  else ea = exp_pos(exact_square(x));
  const V r = sel(a < V(0.5), ea * (V(1) - erf_mid<F>(a)), erfcx_tail<F>(vmax(a, V(0.5))));
  return sel(x < V(0), V(2) * ea - r, r);
}

/// The pieces shared by ndtr and log_ndtr: z = -x / sqrt 2, 0.5 erfcx(|z|) (for |z| >= 0.75, where
/// the tail form takes over), and 0.5 erfc(|z|) = 0.5 erfcx(|z|) exp(-x^2 / 2) with x^2 kept exact.
template <class V>
struct ndtr_parts {
  V z, half_cx, tail, mid;
  square2<V> q;
};
template <bool F = false, class V>
TL_SPECIAL_KERNEL ndtr_parts<V> ndtr_split(const V& x) {
  ndtr_parts<V> p;
  p.z = x * V(-std::numbers::sqrt2 / 2);
  p.half_cx = V(0.5) * erfcx_tail<F>(vmax(vabs(p.z), V(0.5)));
  if constexpr (F) {
    p.q = {x * x, V(0)};  // exact for a float's value
    p.tail = times_exp_neg_sq<true>(p.half_cx, x, 0.5);
  } else {
    p.q = exact_square(x);
    p.tail = times_exp_neg(p.half_cx, p.q, 0.5);
  }
  p.mid = V(0.5) - V(0.5) * erf_mid<F>(p.z);
  return p;
}
template <class V, bool F = false>
TL_SPECIAL_KERNEL V ndtr_kernel(const V& x) {
  const auto p = ndtr_split<F>(x);
  return sel(p.z >= V(0.75), p.tail, sel(p.z <= V(-0.75), V(1) - p.tail, p.mid));
}
template <class V>
TL_SPECIAL_KERNEL V log_ndtr_kernel(const V& x) {
  // ndtr < 1/2: log of ndtr (the tail through log erfcx - x^2 / 2); ndtr > 1/2: log1p(-(1 - ndtr)),
  // as log(u) + ((1 - u) - q) / u with u = 1 - q rounded (the correction restores what the rounding
  // of u lost), so that every lane takes one logarithm.
  const auto p = ndtr_split(x);
  const auto low = p.z >= V(0.75), upper = p.z < V(0);
  // 1 - ndtr = 0.5 + 0.5 erf(z) for z < 0 (rounded once; 1 - mid would add mid's rounding error).
  const V q = sel(p.z <= V(-0.75), p.tail, V(0.5) + V(0.5) * erf_small(p.z));
  const V u = V(1) - q;
  const V l = vlog(sel(upper, u, sel(low, p.half_cx, p.mid)));
  return sel(upper, l + ((V(1) - u) - q) / u, l - sel(low, V(0.5) * p.q.hi + V(0.5) * p.q.lo, V(0)));
}

// ---- float packets of log_ndtr: shorter fits, tl's logarithm, two divisions --------------------

/// log_ndtr for the arguments of float packets, in double to about 1e-11 relative (the float
/// result is the double one rounded once): log_ndtr_kernel's formulas with the float fits, tl's
/// logarithm (split_log, log_from_split) and two divisions: 1 / (a (a + 3)) gives both 7 / (a + 3)
/// and 1 / a of erfcx's variable and quotient, 1 / ((2 + f) b) both the logarithm's s = f / (2 + f)
/// and the 1 / u of the upper branch's correction. -inf at -inf, 0 at +inf, NaN for NaN. Not for
/// double arguments.
template <class V>
TL_SPECIAL_KERNEL V log_ndtr_float_kernel(const V& x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const V z = x * V(-std::numbers::sqrt2 / 2);
  const V half_cx = V(0.5) * erfcx_tail<true>(vmax(vabs(z), V(0.5)));  // erfcx(|z|) / 2
  const V x2 = x * x;  // exact for a float's value
  const V e = erf_mid<true>(z);  // erf(z), |z| <= 0.75
  const auto low = z >= V(0.75), upper = z < V(0);
  // 1 - ndtr: erfc(|z|) / 2 in the tail, 0.5 + erf(z) / 2 (rounded once) above z = -0.75
  const V q = sel(z <= V(-0.75), half_cx * exp_for_float(V(-0.5) * x2), V(0.5) + V(0.5) * e);
  const V u = V(1) - q;
  const V b = sel(upper, u, sel(low, half_cx, V(0.5) - V(0.5) * e));
  const split_t<V> sp = split_log(b);
  const V r = V(1) / ((V(2) + sp.f) * b);
  const V l = log_from_split<true>(sp.k, sp.f * b * r);
  const V res = sel(upper, vfma((V(1) - u) - q, (V(2) + sp.f) * r, l), l - sel(low, V(0.5) * x2, V(0)));
  return sel(visnan(x), x, sel(x == V(-inf), V(-inf), sel(x == V(inf), V(0), res)));
}
/// The float packets of erf, erfc, erfcx and ndtr: the kernels with F = true, in double.
#define TL_SPECIAL_ERF_FLOAT_PACKET(NAME)                                                                  \
  template <class B>                                                                                       \
  TL_INLINE B NAME##_float_packet(const B& x) {                                                            \
    return tl::detail::float_via_double(x, [](const auto& d) TL_INLINE_LAMBDA {                           \
      return sel(visnan(d), d, NAME##_kernel<std::remove_cvref_t<decltype(d)>, true>(d));                 \
    });                                                                                                    \
  }
TL_SPECIAL_ERF_FLOAT_PACKET(erf)
TL_SPECIAL_ERF_FLOAT_PACKET(erfc)
TL_SPECIAL_ERF_FLOAT_PACKET(erfcx)
TL_SPECIAL_ERF_FLOAT_PACKET(ndtr)
#undef TL_SPECIAL_ERF_FLOAT_PACKET

/// The float packet of log_ndtr (float_via_double).
template <class B>
TL_INLINE B log_ndtr_float_packet(const B& x) {
  return tl::detail::float_via_double(x, [](const auto& d) TL_INLINE_LAMBDA { return log_ndtr_float_kernel(d); });
}

/// erfinv(y) / y for w = -log(1 - y^2) in [0, 6.25].
template <class V>
TL_SPECIAL_KERNEL V erfinv_e1(const V& w) {
  return horner<1.6536545626831027, 0.7504943200799635, -0.058922567103778405, -0.0226044474534433, 0.017808361818322422, -0.004137314377617044, -0.0012716922689355017, 0.0012324855716044916, -0.0002643936636442128, -0.00011688886351420544, 9.336736457299484e-05, -1.5027592941187096e-05, -1.1257221266265393e-05, 7.129675308276721e-06, -6.839507434925104e-07, -1.0584873929327183e-06, 5.397988707429613e-07, -1.1417686165065391e-08, -9.906018905151915e-08, 4.037097726031442e-08, 5.046078828470801e-09, -9.330305979594036e-09, 1.4436335506736331e-09, 1.0490240155188407e-09, -2.542493585197834e-10, -4.495978611747325e-11>(vfma(w, V(0.32), V(-1)));
}
/// erfinv(y) for s = sqrt(w) in [2.5, 4].
template <class V>
TL_SPECIAL_KERNEL V erfinv_e2(const V& s) {
  return horner<3.0838457231032423, 0.7541289264339747, 0.0026170930345610966, -0.0010318612832529491, 0.00027085199889419285, -5.2685617107798647e-05, 4.297314052269046e-06, 2.2792051862200737e-06, -1.3823381054721532e-06, 3.816085605710465e-07, -2.6170607708296266e-08, -2.6174340589692945e-08, 1.259191661107506e-08, -2.2697690049205693e-09, -3.2200053986399874e-10, 3.214211562758877e-10, -8.761419512331192e-11, 1.821435849875197e-12, 7.321783004966451e-12, -1.9770298575019704e-12>((s - V(3.25)) * V(4.0 / 3.0));
}
/// erfinv(y) for s = sqrt(w) in [4, 6.5].
template <class V>
TL_SPECIAL_KERNEL V erfinv_e3(const V& s) {
  return horner<5.102469766502689, 1.262743971634538, -0.0004286294215626358, -0.00029305768128342583, 0.00013463767251285937, -4.278864748067029e-05, 1.1884677106239408e-05, -3.0666164908942685e-06, 7.528718129803375e-07, -1.7762737235243805e-07, 4.025256794341282e-08, -8.563182154358366e-09, 1.5365428263714481e-09, -9.462098824513578e-11, -1.2917885778317876e-10, 1.0684296172813766e-10, -5.577956561618373e-11, 2.567995089156343e-11, -1.2143663561862005e-11, 3.1547806239216796e-12, 8.574716493527949e-13, -5.382347341051173e-13>((s - V(5.25)) * V(0.8));
}

/// 1 - a^2 as an exact hi + lo (a <= 1/2 here; exact up to the square's low part).
template <class V>
TL_SPECIAL_KERNEL dd<V> one_minus_square(const V& a) {
  const square2<V> sq = exact_square(a);
  const dd<V> t = two_sum(V(1), -sq.hi);
  const V lo = t.lo - sq.lo, hi = t.hi + lo;
  return {hi, lo - (hi - t.hi)};
}
/// 1 - a^2 = c + c a for c = 1 - a exact, as hi + lo.
template <class V>
TL_SPECIAL_KERNEL dd<V> one_minus_square_from(const V& a, const V& c) {
  const dd<V> ca = two_prod(c, a);
  const dd<V> t = two_sum(c, ca.hi);
  const V lo = t.lo + ca.lo, hi = t.hi + lo;
  return {hi, lo - (hi - t.hi)};
}

/// |erfinv| from a = |y| and c = 1 - a (exact where a >= 0.5; c may be far below the spacing of
/// doubles near 1, as ndtri needs). c == 0 gives inf; c outside [0, 2], NaN.
template <class V>
TL_SPECIAL_KERNEL V erfinv_core(const V& a, const V& c) {
  // w = -log(1 - y^2) to about an ULP, from 1 - y^2 as an exact hi + lo: below a = 1/2 from the
  // exact square a^2, above from c + c a with the product exact (c is exact there; no digits cancel,
  // and 1 - y^2 may be subnormal for ndtri). One logarithm, of hi: where hi rounds to 1 (tiny a),
  // lo carries all of w.
  const auto small = a < V(0.5);
  const dd<V> ms = one_minus_square(a), ml = one_minus_square_from(a, c);
  const dd<V> m{sel(small, ms.hi, ml.hi), sel(small, ms.lo, ml.lo)};
  const V w = -(log_sub(m.hi) + sel(m.hi > V(0), m.lo / m.hi, V(0)));
  // erfinv = a E1(w) up to w = 6.25, E2(sqrt w) and E3(sqrt w) up to w = 42.25 (1 - |y| ~ 2e-19)
  V x = a * erfinv_e1(w);
  const auto mid = w > V(6.25);
  if (any_of(mid)) {
    const V s = vsqrt(w);
    x = sel(mid, sel(s <= V(4), erfinv_e2(s), erfinv_e3(s)), x);
  }
  const auto tail = w > V(42.25);
  if (any_of(tail)) {
    // Far tail (ndtri only): x^2 = L - log(x sqrt(pi)) + log(1 - 1 / (2 x^2)), L = -log c, by fixed
    // point (1e-4), then two Halley steps on erfc(x) - c written through erfcx.
    const V lc = log_sub(c), L = -lc;
    V xt = vsqrt(vmax(L, V(1)));
    for (int i = 0; i < 2; ++i)
      xt = vsqrt(vmax(L - vlog(xt * V(1.7724538509055160)) + vlog1p(V(-0.5) / (xt * xt)), V(1)));
    for (int i = 0; i < 2; ++i) {
      const V r = (vexp(xt * xt + lc) - erfcx_kernel(xt)) * V(0.88622692545275801);  // f / f', sqrt(pi) / 2
      xt = xt - r / (V(1) + xt * r);
    }
    x = sel(tail, xt, x);
  }
  x = sel(c == V(0), V(std::numeric_limits<double>::infinity()), x);
  return sel((c < V(0)) || (c > V(2)), V(std::numeric_limits<double>::quiet_NaN()), x);
}

/// Float results: erfinv(y) / y for w in [0, 6.25] (14 terms) and erfinv(y) for s = sqrt(w) in
/// [2.5, 4.125] (10 terms), relative errors 2e-10 and 4e-11 in double (same script). The first is
/// split for float packets: its terms from u^3 on (erfinv_f1_rest, at most 0.07 on [-1, 1], weighed
/// by |u|^3 <= 1) run in float, 8 lanes per instruction on AVX2, and erfinv_f1_head adds the first
/// three in double, where the float rest's rounding (a few 1e-9 absolute, against E1 >= 1.58) is
/// below a hundredth of a float ULP.
template <class V>
TL_SPECIAL_KERNEL V erfinv_f1_rest(const V& u) {
  return estrin<-0.022604436719341068, 0.017808464469679635, -0.004137486849628147, -0.0012722781579863494,
                0.0012335289378636236, -0.00026287817712604937, -0.00011991125182039808, 9.159976657560389e-05,
                -1.0492615883653295e-05, -1.075243625074875e-05, 3.6978066671489695e-06>(u);
}
template <class V>
TL_SPECIAL_KERNEL V erfinv_f1_head(const V& u, const V& rest) {
  return vfma(u, vfma(u, vfma(u, rest, V(-0.058922573672697674)), V(0.7504943199705225)), V(1.6536545627504364));
}
template <class V>
TL_SPECIAL_KERNEL V erfinv_f1_variable(const V& w) {
  return vfma(w, V(0.32), V(-1));
}
template <class V>
TL_SPECIAL_KERNEL V erfinv_f2(const V& s) {
  return horner<3.1467073902033666, 0.8174229112648778, 0.002781592849122196, -0.0012017118071119314,
                0.00034346885741917487, -7.501450904602083e-05, 8.788440972540999e-06, 2.646335463833056e-06,
                -2.243841045783513e-06, 6.084026413719234e-07>((s - V(3.3125)) * V(1 / 0.8125));
}

/// scale |erfinv| on float packets, from a = |y| and c = 1 - a as erfinv_core takes them; with
/// AFromC, a may be inexact and is formed again as 1 - c in double (exact while c > 2^-29).
/// w = -log(1 - y^2) is formed in float, 16 lanes at a time (1 - y^2 with one rounding, xsimd's
/// logarithm within 0.75 ULP), and so is the tail of erfinv_f1 (erfinv_f1_rest); its head, the
/// rare longer polynomial erfinv_f2 and the product run in double and the result is rounded once.
/// w's float error moves the result by at most about half an ULP (x grows like sqrt(w)), so the
/// result stays within 1 ULP. Lanes beyond w = 17 (1 - y^2 below about 4e-8: only ndtri reaches
/// them with a float operand, besides the ends c = 0 and NaN) take erfinv_core, out of line.
template <bool AFromC, class B>
TL_INLINE B erfinv_float(const B& a, const B& c, double scale) {
  const B m = sel(a < B(0.5f), vfma(-a, a, B(1)), vfma(c, a, c));
  const B w = -vlog(vmax(m, B(1e-30f)));
  const B rest = erfinv_f1_rest(erfinv_f1_variable(w));
  return tl::detail::float_via_double_n(
      [scale](const auto& af, const auto& cd, const auto& wd, const auto& rd) TL_INLINE_LAMBDA {
        using D = std::decay_t<decltype(af)>;
        const D ad = AFromC ? D(1) - cd : af;
        D x = ad * erfinv_f1_head(erfinv_f1_variable(wd), rd);
        const auto mid = wd > D(6.25);
        if (any_of(mid)) x = sel(mid, erfinv_f2(vsqrt(wd)), x);
        const auto tail = !(wd <= D(17));
        if (any_of(tail)) [[unlikely]]
          x = sel(tail, out_of_line([](const D& a2, const D& c2) TL_INLINE_LAMBDA { return erfinv_core(a2, c2); }, ad, cd), x);
        return x * D(scale);
      },
      a, c, w, rest);
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

/// erfinv on float packets (see erfinv_float).
template <class B>
TL_INLINE B erfinv_float_packet(const B& y) {
  const B a = vabs(y);
  return sel(visnan(y), y, vcopysign(erfinv_float<false>(a, B(1) - a, 1.0), y));
}
/// ndtri on float packets: c = 2p or 2 - 2p is exact; a = |1 - 2p| is not below p = 1/4, where
/// only 1 - y^2 = c + c a reads it in float (its rounding is damped there).
template <class B>
TL_INLINE B ndtri_float_packet(const B& p) {
  const auto lower = p <= B(0.5f);
  const B c = sel(lower, B(2) * p, B(2) - B(2) * p);
  const B a = sel(lower, B(1) - B(2) * p, B(2) * p - B(1));
  const B r = erfinv_float<true>(a, c, std::numbers::sqrt2);
  return sel(visnan(p), p, sel(p < B(0.5f), -r, r));
}

}  // namespace tl::special::detail
