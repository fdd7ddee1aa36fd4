#pragma once
/// @file kernel.hpp
/// @brief Internal: the building blocks of tl::special's kernels, written once for a scalar and
/// for an xsimd batch (detail header).
///
/// A kernel is a function template over V, either a floating scalar (the device-callable scalar
/// path: only <cmath> functions CUDA also provides) or an xsimd batch (the packet path). Regions
/// are blended branch-free with `sel`, so one source gives both forms and they agree.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <type_traits>

#include "tl/core/simd.hpp"

#include "tl/core/config.hpp"
#include "tl/expr/elementwise.hpp"
#include "tl/expr/functors.hpp"
#include "tl/expr/node.hpp"

/// Kernels and their helpers are constexpr templates rather than __host__ __device__ ones: under
/// nvcc with --expt-relaxed-constexpr (which the tl target sets) the scalar instantiations called
/// from a functor's device-callable operator() are compiled for the device, while the xsimd batch
/// instantiations stay host code (a __host__ __device__ template instantiated with a batch would
/// put a host vector type into device code).
#define TL_SPECIAL_KERNEL TL_INLINE constexpr

namespace tl::special::detail {

template <class V>
inline constexpr bool is_scalar_v = std::is_floating_point_v<V>;

/// Two packets taken as one value: every operation applies to both halves. A float packet whose
/// lanes fill two double packets goes through a kernel as one twin (float_via_double_twin), so
/// that each step issues two independent instructions instead of one: kernels made of long
/// dependent chains (Horner's rule, a division, a square root) keep twice the work in flight,
/// and a region's uniform branch is taken once for both halves.
template <class D>
struct twin {
  D a, b;
  twin() = default;
  TL_INLINE constexpr twin(const D& x, const D& y) : a(x), b(y) {}
  TL_INLINE constexpr twin(double c) : a(c), b(c) {}  // NOLINT: broadcast, as a packet's V(c)
};
template <class M>
struct twin_mask {
  M a, b;
};
template <class V>
inline constexpr bool is_twin_v = false;
template <class D>
inline constexpr bool is_twin_v<twin<D>> = true;
template <class M>
inline constexpr bool is_twin_mask_v = false;
template <class M>
inline constexpr bool is_twin_mask_v<twin_mask<M>> = true;

#define TL_SPECIAL_TWIN_ARITH(OP)                                                  \
  template <class D>                                                               \
  TL_INLINE twin<D> operator OP(const twin<D>& x, const twin<D>& y) {              \
    return {x.a OP y.a, x.b OP y.b};                                               \
  }
TL_SPECIAL_TWIN_ARITH(+)
TL_SPECIAL_TWIN_ARITH(-)
TL_SPECIAL_TWIN_ARITH(*)
TL_SPECIAL_TWIN_ARITH(/)
#undef TL_SPECIAL_TWIN_ARITH
#define TL_SPECIAL_TWIN_COMPARE(OP)                                                \
  template <class D>                                                               \
  TL_INLINE auto operator OP(const twin<D>& x, const twin<D>& y) {                 \
    return twin_mask<decltype(x.a OP y.a)>{x.a OP y.a, x.b OP y.b};                \
  }
TL_SPECIAL_TWIN_COMPARE(<)
TL_SPECIAL_TWIN_COMPARE(<=)
TL_SPECIAL_TWIN_COMPARE(>)
TL_SPECIAL_TWIN_COMPARE(>=)
TL_SPECIAL_TWIN_COMPARE(==)
TL_SPECIAL_TWIN_COMPARE(!=)
#undef TL_SPECIAL_TWIN_COMPARE
template <class D>
TL_INLINE twin<D> operator-(const twin<D>& x) {
  return {-x.a, -x.b};
}
template <class D>
TL_INLINE twin<D>& operator+=(twin<D>& x, const twin<D>& y) {
  return x = x + y;
}
template <class D>
TL_INLINE twin<D>& operator-=(twin<D>& x, const twin<D>& y) {
  return x = x - y;
}
template <class D>
TL_INLINE twin<D>& operator*=(twin<D>& x, const twin<D>& y) {
  return x = x * y;
}
template <class M>
TL_INLINE twin_mask<M> operator||(const twin_mask<M>& x, const twin_mask<M>& y) {
  return {x.a || y.a, x.b || y.b};
}
template <class M>
TL_INLINE twin_mask<M> operator&&(const twin_mask<M>& x, const twin_mask<M>& y) {
  return {x.a && y.a, x.b && y.b};
}
template <class M>
TL_INLINE twin_mask<M> operator!(const twin_mask<M>& x) {
  return {!x.a, !x.b};
}

template <class V>
struct scalar_of {
  using type = V;
};
template <class T, class A>
struct scalar_of<xsimd::batch<T, A>> {
  using type = T;
};
template <class D>
struct scalar_of<twin<D>> {
  using type = typename scalar_of<D>::type;
};
template <class V>
using scalar_t = typename scalar_of<V>::type;

/// a where m, else b (m: bool for scalars, a batch_bool for batches).
template <class M, class V>
TL_SPECIAL_KERNEL V sel(const M& m, const V& a, const V& b) {
  if constexpr (std::is_same_v<M, bool>) return m ? a : b;
  else if constexpr (is_twin_mask_v<M>) return V{sel(m.a, a.a, b.a), sel(m.b, a.b, b.b)};
  else return xsimd::select(m, a, b);
}

/// Whether any / every lane of a mask is set: lets a kernel skip a region no lane of the packet
/// is in (a uniform branch per packet, not a per-lane loop).
template <class M>
TL_SPECIAL_KERNEL bool any_of(const M& m) {
  if constexpr (std::is_same_v<M, bool>) return m;
  else if constexpr (is_twin_mask_v<M>) return xsimd::any(m.a || m.b);
  else return xsimd::any(m);
}
template <class M>
TL_SPECIAL_KERNEL bool all_of(const M& m) {
  if constexpr (std::is_same_v<M, bool>) return m;
  else if constexpr (is_twin_mask_v<M>) return xsimd::all(m.a && m.b);
  else return xsimd::all(m);
}

#define TL_SPECIAL_VMATH1(NAME)                      \
  template <class V>                                 \
  TL_SPECIAL_KERNEL V v##NAME(const V& x) {                     \
    if constexpr (is_scalar_v<V>) return std::NAME(x); \
    else if constexpr (is_twin_v<V>) return V{v##NAME(x.a), v##NAME(x.b)}; \
    else return xsimd::NAME(x);                      \
  }
TL_SPECIAL_VMATH1(exp)
TL_SPECIAL_VMATH1(log)
TL_SPECIAL_VMATH1(log1p)
TL_SPECIAL_VMATH1(expm1)
TL_SPECIAL_VMATH1(sqrt)
TL_SPECIAL_VMATH1(sin)
TL_SPECIAL_VMATH1(cos)
TL_SPECIAL_VMATH1(nearbyint)
TL_SPECIAL_VMATH1(floor)
#undef TL_SPECIAL_VMATH1

template <class V>
TL_SPECIAL_KERNEL V vabs(const V& x) {
  if constexpr (is_scalar_v<V>) return std::fabs(x);
  else if constexpr (is_twin_v<V>) return V{vabs(x.a), vabs(x.b)};
  else return xsimd::abs(x);
}
template <class V>
TL_SPECIAL_KERNEL V vmax(const V& a, const V& b) {
  if constexpr (is_scalar_v<V>) return std::fmax(a, b);
  else if constexpr (is_twin_v<V>) return V{vmax(a.a, b.a), vmax(a.b, b.b)};
  else return xsimd::max(a, b);
}
template <class V>
TL_SPECIAL_KERNEL V vmin(const V& a, const V& b) {
  if constexpr (is_scalar_v<V>) return std::fmin(a, b);
  else if constexpr (is_twin_v<V>) return V{vmin(a.a, b.a), vmin(a.b, b.b)};
  else return xsimd::min(a, b);
}
template <class V>
TL_SPECIAL_KERNEL V vcopysign(const V& mag, const V& sgn) {
  if constexpr (is_scalar_v<V>) return std::copysign(mag, sgn);
  else if constexpr (is_twin_v<V>) return V{vcopysign(mag.a, sgn.a), vcopysign(mag.b, sgn.b)};
  else return xsimd::copysign(mag, sgn);
}
template <class V>
TL_SPECIAL_KERNEL V vfma(const V& a, const V& b, const V& c) {
  if constexpr (is_scalar_v<V>) return std::fma(a, b, c);
  else if constexpr (is_twin_v<V>) return V{vfma(a.a, b.a, c.a), vfma(a.b, b.b, c.b)};
  else return tl::detail::simd_fma(a, b, c);
}
/// a b - c and c - a b, each with one rounding.
template <class V>
TL_SPECIAL_KERNEL V vfms(const V& a, const V& b, const V& c) {
  if constexpr (is_scalar_v<V>) return std::fma(a, b, -c);
  else if constexpr (is_twin_v<V>) return V{vfms(a.a, b.a, c.a), vfms(a.b, b.b, c.b)};
  else return tl::detail::simd_fms(a, b, c);
}
template <class V>
TL_SPECIAL_KERNEL V vfnma(const V& a, const V& b, const V& c) {
  if constexpr (is_scalar_v<V>) return std::fma(-a, b, c);
  else if constexpr (is_twin_v<V>) return V{vfnma(a.a, b.a, c.a), vfnma(a.b, b.b, c.b)};
  else return tl::detail::simd_fnma(a, b, c);
}
template <class V>
TL_SPECIAL_KERNEL auto visnan(const V& x) {
  if constexpr (is_scalar_v<V>) return std::isnan(x);
  else if constexpr (is_twin_v<V>) return twin_mask<decltype(visnan(x.a))>{visnan(x.a), visnan(x.b)};
  else return xsimd::isnan(x);
}

/// C0 + C1 u + C2 u^2 + ... (Horner; the coefficients are template arguments so that device code
/// needs no coefficient table in memory).
template <double C0, double... Cs, class V>
TL_SPECIAL_KERNEL V horner(const V& u) {
  if constexpr (sizeof...(Cs) == 0) return V(C0);
  else return vfma(horner<Cs...>(u), u, V(C0));
}

/// The same polynomial as horner<C0, Cs...> evaluated as E(u^2) + u O(u^2), its even and odd
/// coefficients in two independent Horner chains of half the depth (for kernels whose speed is
/// bound by the latency of one long chain).
template <double... Cs, class V>
TL_SPECIAL_KERNEL V horner_split(const V& u) {
  constexpr double c[] = {Cs...};
  constexpr int n = sizeof...(Cs), ne = (n + 1) / 2, no = n / 2;
  static_assert(n >= 2, "horner_split: at least two coefficients");
  const V u2 = u * u;
  V e(c[2 * (ne - 1)]), o(c[2 * (no - 1) + 1]);
  for (int k = ne - 2; k >= 0; --k) e = vfma(e, u2, V(c[2 * k]));
  for (int k = no - 2; k >= 0; --k) o = vfma(o, u2, V(c[2 * k + 1]));
  return vfma(o, u, e);
}

/// f(a...) out of line (TL_COLD), for a rarely taken branch of heavy packet code: the branch
/// `if (any_of(m)) r = sel(m, out_of_line(f, a...), r)` then costs the common path only its test.
/// Host packet code (the scalar and device kernels take no such branches).
template <class F, class... A>
TL_COLD auto out_of_line(F f, const A&... a) {
  return f(a...);
}

/// c[0] + c[1] u + ... + c[N - 1] u^(N - 1) by Estrin's scheme, overwriting c: neighbours joined by
/// u, then by u^2, u^4, ...: a chain of about log2(N) multiply-adds instead of N - 1, for kernels
/// whose Horner chains would leave the multiply-add units waiting.
template <class V, std::size_t N>
TL_SPECIAL_KERNEL V estrin_in_place(const V& u, V (&c)[N]) {
  V p = u;
  for (std::size_t n = N; n > 1; n = (n + 1) / 2) {
    for (std::size_t i = 0; i < n / 2; ++i) c[i] = vfma(c[2 * i + 1], p, c[2 * i]);
    if (n % 2) c[n / 2] = c[n - 1];
    if (n > 2) p = p * p;
  }
  return c[0];
}
/// The polynomial of horner<Cs...> by Estrin's scheme (estrin_in_place).
template <double... Cs, class V>
TL_SPECIAL_KERNEL V estrin(const V& u) {
  V c[] = {V(Cs)...};
  return estrin_in_place(u, c);
}
/// The polynomial of horner<Cs...>; where Short, its even and odd terms in two chains (horner_split:
/// half the latency for two more operations, where Estrin's scheme adds about one per two terms).
template <bool Short, double... Cs, class V>
TL_SPECIAL_KERNEL V polynomial(const V& u) {
  if constexpr (Short) return horner_split<Cs...>(u);
  else return horner<Cs...>(u);
}

/// x*x as an unevaluated sum hi + lo, exact (Dekker's product with Veltkamp's split, so it does
/// not depend on a fused multiply-add: SSE2/AVX builds get the same results as FMA ones).
template <class V>
struct square2 {
  V hi, lo;
};
template <class V>
TL_SPECIAL_KERNEL square2<V> exact_square(const V& x) {
  const V hi = x * x;
  const V c = x * V(134217729.0);  // 2^27 + 1
  const V xh = c - (c - x), xl = x - xh;
  const V lo = ((xh * xh - hi) + V(2) * xh * xl) + xl * xl;
  return {hi, sel(hi < V(1e300), lo, V(0))};  // no inf - inf at the top of the range
}
/// hi + lo, an unevaluated sum, and error-free transformations on it (Dekker, Knuth; no fma
/// needed). Low parts that are not finite (an overflowed split) are dropped.
template <class V>
struct dd {
  V hi, lo;
};
template <class V>
TL_SPECIAL_KERNEL V finite_or_zero(const V& v) {
  return sel(vabs(v) < V(std::numeric_limits<double>::infinity()), v, V(0));
}
template <class V>
TL_SPECIAL_KERNEL dd<V> two_sum(const V& a, const V& b) {
  const V s = a + b;
  const V bb = s - a;
  return {s, finite_or_zero((a - (s - bb)) + (b - bb))};
}
template <class V>
TL_SPECIAL_KERNEL dd<V> two_prod(const V& a, const V& b) {
  const V p = a * b;
#ifdef __FMA__
  // With a hardware fused multiply-add the low part is one instruction; both forms are exact, so
  // the results are the same with and without FMA.
  if (!std::is_constant_evaluated()) return {p, finite_or_zero(vfma(a, b, -p))};
#endif
  const V ca = a * V(134217729.0), cb = b * V(134217729.0);  // 2^27 + 1
  const V ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh;
  return {p, finite_or_zero(((ah * bh - p) + ah * bl + al * bh) + al * bl)};
}
template <class V>
TL_SPECIAL_KERNEL dd<V> mul_dd(const dd<V>& x, const dd<V>& y) {
  const dd<V> p = two_prod(x.hi, y.hi);
  const V l = p.lo + (x.hi * y.lo + x.lo * y.hi);
  const V s = p.hi + l;
  return {s, l - (s - p.hi)};
}
/// m exp(y + d) for a small correction d, with a subnormal result rounded once: below exp(-700)
/// the exponential is taken of y + 64 ln2 (exact with ln2's Cody-Waite high part) and the product
/// scaled by 2^-64 at the end (xsimd's exp flushes subnormal results to 0). A d above 1 in
/// magnitude (the low part of a y beyond 2^52, where exp(y) is 0 or inf) counts as 0, so that
/// 0 or inf times exp(d)'s polynomial gives no NaN. Double precision.
template <class V>
TL_SPECIAL_KERNEL V times_exp(const V& m, const V& y, const V& d) {
  constexpr double ln2_hi = 0.693147180369123816490, ln2_lo = 1.90821492927058770002e-10;
  const auto tiny = y < V(-700);
  const V dd = sel(tiny, V(64 * ln2_lo), V(0)) + sel(vabs(d) > V(1), V(0), d);
  const V em = vexp(sel(tiny, y + V(64 * ln2_hi), y)) * m;
  const V r = vfma(vfma(dd, V(0.5), V(1)) * dd, em, em);  // exp(d) ~ 1 + d + d^2 / 2
  return sel(tiny, r * V(0x1p-64), r);
}
/// m exp(-s (hi + lo)) for s > 0, keeping the low part of the square.
template <class V>
TL_SPECIAL_KERNEL V times_exp_neg(const V& m, const square2<V>& q, double s) {
  return times_exp(m, -V(s) * q.hi, -V(s) * q.lo);
}
/// e^y for the float kernels computed in double (their results need about 1e-11 relative; this is
/// within 3e-13): y clamped to [-700, 700] (beyond, the float results are 0 or inf either way),
/// n = round(y / ln 2), r = y - n ln 2 with ln 2 in two parts (n ln2_hi exact), e^r by its Taylor
/// polynomial to r^10 / 10! (|r| <= ln 2 / 2; horner_split), times 2^n set in the exponent bits: no
/// division, which xsimd's exp has, and no double-to-int64 conversion, which AVX2 does lane by lane.
/// Packets of doubles (and twins of them); NaN gives NaN.
template <class D>
TL_SPECIAL_KERNEL D exp_for_float(const D& y) {
  if constexpr (is_scalar_v<D>) {
    return std::exp(y);
  } else if constexpr (is_twin_v<D>) {
    return D{exp_for_float(y.a), exp_for_float(y.b)};
  } else {
    using I = xsimd::batch<std::int64_t, typename D::arch_type>;
    const D yc = xsimd::min(xsimd::max(y, D(-700.0)), D(700.0));
    // n = yc / log 2 rounded to an integer by adding 1.5 * 2^52, which leaves n in the low bits of
    // t: 2^n is then built with integer adds and shifts (AVX2 has no double-to-int64 conversion).
    const D t = vfma(yc, D(1.4426950408889634), D(0x1.8p52));
    const D n = t - D(0x1.8p52);
    const D r = vfnma(n, D(1.90821492927058770002e-10), vfnma(n, D(6.93147180369123816490e-01), yc));
    const D p = horner_split<1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320, 1.0 / 362880,
                       1.0 / 3628800>(r);
    return xsimd::select(xsimd::isnan(y), y, p * xsimd::bitwise_cast<D>((xsimd::bitwise_cast<I>(t) + I(1023)) << 52));
  }
}
/// log(x) for x >= 0 including subnormal x (xsimd's log does not take subnormals).
template <class V>
TL_SPECIAL_KERNEL V log_sub(const V& x) {
  const auto sub = x < V(0x1p-1000);
  return vlog(sel(sub, x * V(0x1p100), x)) - sel(sub, V(100 * 0.693147180559945309417), V(0));
}
/// b = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)), for positive normal finite b (k held as a
/// double). The caller forms s = f / (2 + f) (sharing its own division) for log_from_split.
template <class V>
struct split_t {
  V k, f;
};
template <class V>
TL_SPECIAL_KERNEL split_t<V> split_log(const V& b) {
  if constexpr (is_twin_v<V>) {
    const auto a = split_log(b.a), c = split_log(b.b);
    return {V{a.k, c.k}, V{a.f, c.f}};
  } else if constexpr (is_scalar_v<V>) {
    int e = 0;
    double m = std::frexp(b, &e);  // [1/2, 1)
    if (m < 0.70710678118654752440) {
      m *= 2;
      --e;
    }
    return {static_cast<double>(e), m - 1};
  } else {
    using I = xsimd::batch<std::uint64_t, typename V::arch_type>;
    constexpr std::uint64_t one = 0x3ff0000000000000, rt = 0x3fe6a09e667f3bcd;  // the bits of 1 and of sqrt(1/2)
    const I bits = xsimd::bitwise_cast<I>(b) + I(one - rt);  // the exponent steps up from sqrt(1/2) on
    // The biased exponent e (0 to 2047) as a double without an int64 conversion (none on AVX2):
    // the bits of 2^52 + e, less 2^52 + 1023.
    const V k = xsimd::bitwise_cast<V>((bits >> 52) | I(0x4330000000000000)) - V(0x1p52 + 1023);
    return {k, xsimd::bitwise_cast<V>((bits & I(0x000fffffffffffff)) + I(rt)) - V(1)};
  }
}
/// log b = k log 2 + 2 atanh(s), s = f / (2 + f) (|s| <= 0.172, s^2 <= 0.0295): 7 Taylor terms of
/// 2 atanh(s) / s in s^2, relative error 3e-12, relative also for b near 1 (k = 0). Short: even and
/// odd terms in two chains (horner_split), for kernels whose speed is set by their latency.
template <bool Short = false, class V>
TL_SPECIAL_KERNEL V log_from_split(const V& k, const V& s) {
  const V p = polynomial<Short, 2.0, 2.0 / 3, 2.0 / 5, 2.0 / 7, 2.0 / 9, 2.0 / 11, 2.0 / 13>(s * s);
  return vfma(k, V(std::numbers::ln2), s * p);
}

/// exp(+(hi + lo)) = exp(hi) (1 + lo).
template <class V>
TL_SPECIAL_KERNEL V exp_pos(const square2<V>& q) {
  const V e = vexp(q.hi);
  return sel(q.hi < V(709), vfma(q.lo, e, e), e);
}

/// f on the lanes of a float packet in double, rounded once (tl::detail::float_via_double): where
/// the lanes fill two double packets of 4 (AVX2), f runs once on both as a twin. Measured on AVX2
/// only: AVX-512 packets (8 doubles, 32 registers) keep one half at a time until measured there.
template <class B, class F>
TL_INLINE B float_via_double_twin(const B& x, F&& f) {
  using D = xsimd::batch<double, typename B::arch_type>;
  if constexpr (B::size == 2 * D::size && D::size == 4) {
    const auto h = tl::detail::float_halves(x);
    const twin<D> r = f(twin<D>{h[0], h[1]});
    return tl::detail::float_join<B>(std::array<D, 2>{r.a, r.b});
  } else {
    return tl::detail::float_via_double(x, f);
  }
}

/// Functors whose float packets have a kernel of their own specialize this (enabled = true, and
/// a static run(packet)); see TL_SPECIAL_FLOAT_PACKET.
template <class Derived>
struct float_packet_path {
  static constexpr bool enabled = false;
};

/// Kernels compute in double; float operands go through double (scalar) or through double
/// packets (tl::detail::float_via_double), which rounds the double result once, unless the
/// functor has a float packet path. Twin: a float packet's two double halves run the kernel as
/// one twin (float_via_double_twin; faster for kernels of long dependent chains and uniform
/// branches, slower for wide branch-free ones, whose live values then spill: measured per kernel).
template <class Derived, bool Twin = false>
struct via_double_unary : tl::detail::floating_unary {
  template <class T>
  TL_HDI T operator()(T x) const {
    static_assert(std::is_floating_point_v<T>, "tl::special: this function needs a real operand");
    const double d = static_cast<double>(x);
    return static_cast<T>(std::isnan(d) ? d : Derived::kernel(d));
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    if constexpr (std::is_same_v<typename B::value_type, float> && float_packet_path<Derived>::enabled)
      return float_packet_path<Derived>::run(x);
    else if constexpr (std::is_same_v<typename B::value_type, float> && Twin)
      return float_via_double_twin(x, [](const auto& d) TL_INLINE_LAMBDA { return kernel_nan(d); });
    else if constexpr (std::is_same_v<typename B::value_type, float>)
      return tl::detail::float_via_double(x, [](const auto& d) TL_INLINE_LAMBDA { return kernel_nan(d); });
    else return kernel_nan(x);
  }
  /// NaN in, NaN out, whatever the blended regions did with it.
  template <class B>
  static TL_INLINE B kernel_nan(const B& x) {
    return sel(visnan(x), x, Derived::kernel(x));
  }
};

/// Kernels computing in the operand's own precision (float packets stay float).
template <class Derived>
struct native_unary : tl::detail::floating_unary {
  template <class T>
  TL_HDI T operator()(T x) const {
    static_assert(std::is_floating_point_v<T>, "tl::special: this function needs a real operand");
    return static_cast<const Derived&>(*this).kernel(x);
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    return static_cast<const Derived&>(*this).kernel(x);
  }
};
template <class Derived>
struct native_binary : tl::detail::floating_binary {
  template <class T>
  TL_HDI T operator()(T x, T y) const {
    static_assert(std::is_floating_point_v<T>, "tl::special: this function needs real operands");
    return Derived::kernel(x, y);
  }
  template <class B>
  TL_INLINE B packet(const B& x, const B& y) const {
    return Derived::kernel(x, y);
  }
};

/// Binary functors whose kernel is a scalar double function Derived::eval(x, y) with a
/// data-dependent iteration count: float operands compute in double and round once; the packet
/// form runs the scalar kernel lane by lane (so the expressions around it stay vectorized).
/// The value every lane of v holds, or NaN where the lanes differ (a scalar operand broadcast over
/// a packet is the common case that packet kernels specialize for).
template <class B>
TL_INLINE double common_lane(const B& v) {
  alignas(64) typename B::value_type lanes[B::size];
  v.store_aligned(lanes);
  // one packet compare: a loop over the lanes would stop at an unpredictable lane
  return xsimd::all(v == B(lanes[0])) ? static_cast<double>(lanes[0]) : std::numeric_limits<double>::quiet_NaN();
}

/// Smallest lane of v (v itself for a scalar).
template <class V>
TL_SPECIAL_KERNEL double lane_min(const V& v) {
  if constexpr (is_scalar_v<V>) {
    return v;
  } else if constexpr (is_twin_v<V>) {
    const double a = lane_min(v.a), b = lane_min(v.b);
    return b < a ? b : a;
  } else {
    alignas(64) double lanes[V::size];
    v.store_aligned(lanes);
    double m = lanes[0];
    for (double l : lanes) m = l < m ? l : m;
    return m;
  }
}
/// Largest lane of v (v itself for a scalar).
template <class V>
TL_SPECIAL_KERNEL double lane_max(const V& v) {
  return -lane_min(V(-v));
}
template <class Derived>
struct lanewise_binary : tl::detail::floating_binary {
  template <class T>
  TL_HDI T operator()(T x, T y) const {
    static_assert(std::is_floating_point_v<T>, "tl::special: this function needs real operands");
    return static_cast<T>(Derived::eval(static_cast<double>(x), static_cast<double>(y)));
  }
  template <class B>
  TL_INLINE B packet(const B& x, const B& y) const {
    alignas(64) typename B::value_type a[B::size], b[B::size];
    x.store_aligned(a);
    y.store_aligned(b);
    for (std::size_t i = 0; i < B::size; ++i) a[i] = (*this)(a[i], b[i]);
    return B::load_aligned(a);
  }
  /// r where done holds, the scalar kernel on the other lanes only (for packet kernels that leave
  /// a few edge lanes to it).
  template <class B>
  TL_INLINE B packet_rest(const typename B::batch_bool_type& done, const B& r, const B& x, const B& y) const {
    if (xsimd::all(done)) return r;
    alignas(64) typename B::value_type out[B::size], a[B::size], b[B::size];
    alignas(64) bool d[B::size];
    r.store_aligned(out);
    x.store_aligned(a);
    y.store_aligned(b);
    done.store_aligned(d);
    for (std::size_t i = 0; i < B::size; ++i)
      if (!d[i]) out[i] = (*this)(a[i], b[i]);
    return B::load_aligned(out);
  }
};

}  // namespace tl::special::detail

/// Defines (inside tl::special::detail) the functor NAME##_fn computing NAME##_kernel in double
/// (TWIN: whether float packets take it as a twin, see via_double_unary).
#define TL_SPECIAL_VIA_DOUBLE_AS(NAME, TWIN)              \
  struct NAME##_fn : via_double_unary<NAME##_fn, TWIN> {  \
    static constexpr const char* name = #NAME;            \
    template <class V>                                    \
    static TL_SPECIAL_KERNEL V kernel(const V& x) {       \
      return NAME##_kernel(x);                            \
    }                                                     \
  };
#define TL_SPECIAL_VIA_DOUBLE(NAME) TL_SPECIAL_VIA_DOUBLE_AS(NAME, false)
#define TL_SPECIAL_VIA_DOUBLE_TWIN(NAME) TL_SPECIAL_VIA_DOUBLE_AS(NAME, true)
/// Gives the functor detail::NAME##_fn (inside tl::special::detail) the float packet kernel
/// NAME##_float_packet.
#define TL_SPECIAL_FLOAT_PACKET(NAME)     \
  template <>                             \
  struct float_packet_path<NAME##_fn> {   \
    static constexpr bool enabled = true; \
    template <class B>                    \
    static TL_INLINE B run(const B& x) {  \
      return NAME##_float_packet(x);      \
    }                                     \
  };
/// Defines the public factory tl::special::NAME(a) of the unary functor detail::NAME##_fn.
#define TL_SPECIAL_UNARY_FACTORY(NAME)                                      \
  template <expression A>                                                   \
  auto NAME(A&& a) {                                                        \
    return tl::detail::make_unary(detail::NAME##_fn{}, std::forward<A>(a));  \
  }
/// Defines the public factory tl::special::NAME(a, b) of the binary functor detail::NAME##_fn
/// (operands broadcast; either may be a scalar).
#define TL_SPECIAL_BINARY_FACTORY(NAME)                                                       \
  template <class A, class B>                                                                 \
    requires tl::detail::binary_operands<A, B>                                                \
  auto NAME(A&& a, B&& b) {                                                                   \
    return tl::detail::make_binary<detail::NAME##_fn>(std::forward<A>(a), std::forward<B>(b)); \
  }
