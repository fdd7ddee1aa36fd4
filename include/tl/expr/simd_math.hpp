#pragma once
/// @file simd_math.hpp
/// @brief tl's own float packet kernels for exp, sin, cos, tanh and sigmoid (detail header).
///
/// The elementwise functors (functors.hpp), softmax and the autograd rules evaluate these five
/// functions on float packets. They are written for throughput on packets of any xsimd
/// architecture: one uniform branch per packet picks a fast path that covers the common range,
/// and rare inputs (huge arguments of sin/cos, results of exp near overflow or in the subnormal
/// range, NaN and infinities) take a slower exact path for that packet only.
///
/// Accuracy, measured against double-precision libm over every float in the stated ranges (the
/// exhaustive check is `tests/data/expr/exhaustive_float_math.cpp`; tests/expr/float_math_test.cpp
/// samples the same ranges against long double and asserts the bounds):
///   - exp:     <= 1 ULP over all floats (0.988 measured; subnormal results included, exact 0 and
///              inf beyond the range);
///   - sin/cos: <= 1.5 ULP for |x| <= 1e5 (1.486 and 1.489 measured; three-part Cody-Waite
///              reduction with FMA), glibc's sinf/cosf lane by lane beyond (for a packet with any
///              such lane);
///   - tanh:    <= 1 ULP (0.997 measured; odd polynomial below 0.9, 1 - 2/(e^2|x| + 1) above);
///   - sigmoid: <= 1 ULP (0.973 measured; compensated e/(1 + e) or 1/(1 + e), e = e^-|x|).
/// NaN gives NaN, +-inf give the limits, signed zeros are kept by sin and tanh.
///
/// The polynomial coefficients come from tests/data/expr/fit_float_math.py (Chebyshev
/// interpolants at 50 digits, rounded to float).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tl/core/simd.hpp"

#include "tl/core/config.hpp"

namespace tl::detail::fmath {

template <class A>
using vfloat = xsimd::batch<float, A>;
template <class A>
using vint = xsimd::batch<std::int32_t, A>;

/// c0 + c1 x + c2 x^2 + ... by Horner's rule with FMAs.
template <class B, class... C>
TL_INLINE B horner(const B& x, float c0, C... cs) {
  if constexpr (sizeof...(cs) == 0) return B(c0);
  else return tl::detail::simd_fma(horner(x, cs...), x, B(c0));
}

/// f applied lane by lane through <cmath> (the rare-input path).
template <class B, class F>
TL_INLINE B per_lane(const B& x, F&& f) {
  alignas(64) float v[B::size];
  x.store_aligned(v);
  for (std::size_t i = 0; i < B::size; ++i) v[i] = f(v[i]);
  return B::load_aligned(v);
}

/// 2^n for integral-valued n in [-126, 127].
template <class A>
TL_INLINE vfloat<A> pow2i(const vfloat<A>& n) {
  return xsimd::bitwise_cast<vfloat<A>>((xsimd::to_int(n) + vint<A>(127)) << 23);
}

/// e^x = 2^n (1 + lo): n = round(x / ln 2) and r = x - n ln 2 in two FMA steps (n ln2_hi is
/// exact: ln2_hi has 15 significant bits and |n| <= 150), so |r| <= ln 2 / 2, and
/// lo = r + r^2 E(r) = e^r - 1 before the final rounding of 1 + lo.
template <class A>
TL_INLINE vfloat<A> exp_parts(const vfloat<A>& x, vfloat<A>& n) {
  using B = vfloat<A>;
  n = xsimd::nearbyint(x * B(1.442695e+00f));
  B r = tl::detail::simd_fnma(n, B(0x1.62e4p-1f), x);
  r = tl::detail::simd_fnma(n, B(1.4286068e-06f), r);
  const B e = horner(r, 5.e-01f, 1.6666667e-01f, 4.1666467e-02f, 8.3333105e-03f, 1.3933642e-03f, 1.9890981e-04f);
  return tl::detail::simd_fma(r * r, e, r);
}

/// e^x: 2^n (1 + lo) rounded once in the common range |x| <= 87, where 2^n is one normal scale.
template <class A>
TL_INLINE vfloat<A> exp(const vfloat<A>& x) {
  using B = vfloat<A>;
  B n;
  if (xsimd::all(xsimd::abs(x) <= B(87.0f))) {
    const B p = exp_parts<A>(x, n) + B(1.0f);  // sets n: sequenced before the scale below
    return p * pow2i<A>(n);
  }
  // Near overflow, subnormal results, +-inf and NaN: clamp (e^89 overflows, e^-104 rounds to 0)
  // and scale in two normal factors, so that a subnormal result is rounded once.
  const B xc = xsimd::min(xsimd::max(x, B(-104.0f)), B(89.0f));
  const B p = exp_parts<A>(xc, n) + B(1.0f);
  const B h = xsimd::floor(n * B(0.5f));
  const B y = (p * pow2i<A>(h)) * pow2i<A>(n - h);
  return xsimd::select(xsimd::isnan(x), x, y);
}

/// sin (Cos = false) or cos (Cos = true). j = round(|x| 2/pi); r = |x| - j pi/2 with pi/2 split
/// into three floats (FMA: each product exact, one rounding per step); the quadrant picks
/// +-sin r or +-cos r, each a polynomial on |r| <= pi/4.
template <bool Cos, class A>
TL_INLINE vfloat<A> sincos(const vfloat<A>& x) {
  using B = vfloat<A>;
  using I = vint<A>;
  const B ax = xsimd::abs(x);
  if (!xsimd::all(ax <= B(1e5f)))  // huge, infinite or NaN lanes: libm for the whole packet
    return per_lane(x, [](float v) { return Cos ? std::cos(v) : std::sin(v); });
  const B j = xsimd::nearbyint(ax * B(6.3661975e-01f));
  B r = tl::detail::simd_fnma(j, B(0x1.921fb6p+0f), ax);
  r = tl::detail::simd_fnma(j, B(-0x1.777a5cp-25f), r);
  r = tl::detail::simd_fnma(j, B(-0x1.ee59dap-50f), r);
  const B t = r * r;
  const B s = tl::detail::simd_fma(r, t * horner(t, -1.6666667e-01f, 8.333332e-03f, -1.9840087e-04f, 2.7249926e-06f), r);
  const B c = tl::detail::simd_fma(
      t, tl::detail::simd_fma(t, horner(t, 4.1666668e-02f, -1.3888888e-03f, 2.48006e-05f, -2.730096e-07f), B(-0.5f)),
      B(1.0f));
  // Quadrant q = j (sin) or j + 1 (cos): odd q takes the cosine polynomial, q & 2 flips the sign.
  const I q = xsimd::to_int(j) + I(Cos ? 1 : 0);
  const B odd = xsimd::bitwise_cast<B>(I(0) - (q & I(1)));  // all ones where q is odd
  const B v = s ^ ((s ^ c) & odd);
  B flip = xsimd::bitwise_cast<B>((q & I(2)) << 30);  // the sign bit where q & 2
  if constexpr (!Cos) flip = flip ^ (x & B(-0.0f));    // sin is odd: the sign of x
  return v ^ flip;
}

/// tanh: x + x^3 T(x^2) for |x| < 0.9; 1 - 2/(e^{2|x|} + 1) above; the sign of x is put back on
/// both (so tanh(-0) = -0). |x| is capped at 9.5, where tanh rounds to 1 already, so the
/// exponential stays in range.
template <class A>
TL_INLINE vfloat<A> tanh(const vfloat<A>& x) {
  using B = vfloat<A>;
  const B ax = xsimd::abs(x), sign = x & B(-0.0f);
  const auto small = ax < B(0.9f);
  auto poly = [&] {
    const B t = ax * ax;
    return tl::detail::simd_fma(ax, t * horner(t, -3.3333334e-01f, 1.3333327e-01f, -5.396652e-02f, 2.1851901e-02f,
                                      -8.774217e-03f, 3.3403726e-03f, -1.0391204e-03f, 1.820654e-04f),
                      ax);
  };
  if (xsimd::all(small)) return poly() | sign;
  const B e = exp<A>(B(2.0f) * xsimd::min(ax, B(9.5f)));
  B y = B(1.0f) - B(2.0f) / (e + B(1.0f));
  if (xsimd::any(small)) y = xsimd::select(small, poly(), y);
  return xsimd::select(xsimd::isnan(x), x, y | sign);  // min() dropped a NaN
}

/// sigmoid: e/(1 + e) for x < 0 and 1/(1 + e) for x >= 0, e = e^-|x| (no overflow). With
/// e = 2^n (1 + lo) from exp_parts, e and 1 + e are kept as exact float pairs (Fast2Sum) and the
/// quotient gets one correction step. Lanes with |x| > 87, where 1 + e rounds to 1, take e itself
/// (x < 0) or 1.
template <class A>
TL_INLINE vfloat<A> sigmoid(const vfloat<A>& x) {
  using B = vfloat<A>;
  const B z = -xsimd::abs(x);
  const auto neg = x < B(0.0f);
  const bool rare = !xsimd::all(z >= B(-87.0f));  // also NaN
  B n;
  const B lo = exp_parts<A>(rare ? xsimd::max(z, B(-87.0f)) : z, n), m = pow2i<A>(n);
  const B p = B(1.0f) + lo;
  const B e_hi = p * m, e_lo = (lo - (p - B(1.0f))) * m;  // e = e_hi + e_lo
  const B d_hi = B(1.0f) + e_hi;
  const B d_lo = (e_hi - (d_hi - B(1.0f))) + e_lo;         // 1 + e = d_hi + d_lo
  const B n_hi = xsimd::select(neg, e_hi, B(1.0f)), n_lo = xsimd::select(neg, e_lo, B(0.0f));
  const B rd = B(1.0f) / d_hi;
  const B q = n_hi * rd;
  const B rem = tl::detail::simd_fnma(q, d_hi, n_hi);                 // exact
  const B s = tl::detail::simd_fma(tl::detail::simd_fnma(q, d_lo, rem + n_lo), rd, q);
  if (!rare) return s;
  const B tiny = xsimd::select(neg, exp<A>(z), B(1.0f));
  return xsimd::select(xsimd::isnan(x), x, xsimd::select(z < B(-87.0f), tiny, s));
}

/// Dispatchers for functors written over any packet type: tl's kernels for float packets,
/// xsimd's for double.
#define TL_FMATH_DISPATCH(NAME, EXPR)                                                     \
  template <class B>                                                                      \
  TL_INLINE B v##NAME(const B& x) {                                                       \
    if constexpr (std::is_same_v<typename B::value_type, float>) return EXPR;             \
    else return xsimd::NAME(x);                                                           \
  }
TL_FMATH_DISPATCH(exp, (exp<typename B::arch_type>(x)))
TL_FMATH_DISPATCH(sin, (sincos<false, typename B::arch_type>(x)))
TL_FMATH_DISPATCH(cos, (sincos<true, typename B::arch_type>(x)))
TL_FMATH_DISPATCH(tanh, (tanh<typename B::arch_type>(x)))
#undef TL_FMATH_DISPATCH

}  // namespace tl::detail::fmath
