#pragma once
/// @file polynomial.hpp
/// @brief tl::special orthogonal polynomials (x, n): chebyshev_polynomial_t/u/v/w, their shifted
/// forms, hermite_polynomial_h/he, laguerre_polynomial_l, legendre_polynomial_p (torch.special).
///
/// Lazy binary expressions (x and n broadcast; either may be a scalar), float or double (integer
/// operands compute in float), evaluated in double, on double packets (a packet whose lanes have
/// different degrees runs the recurrence to the largest of them).
/// torch's conventions: n is truncated to an integer, n < 0 gives 0; the Chebyshev polynomials
/// take the closed trigonometric forms for |x| < 1 and large n (T: n > 6; U, V, W: n > 8) and exact
/// values at |x| = 1; the shifted forms are the plain ones at 2x - 1. A NaN or infinite n gives
/// NaN (torch converts it to an integer).
/// @code
/// tl::tensor<double, 1> t5 = ts::chebyshev_polynomial_t(x, 5);
/// @endcode
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "tl/expr/node.hpp"
#include "tl/special/detail/kernel.hpp"

namespace tl::special {
namespace detail {

enum class poly_kind { t, u, v, w, h, he, l, p };

/// k / (k + 1) and 1 / (k + 1), the coefficients of the Legendre and Laguerre steps, for k < 128
/// (packets read them here instead of dividing once per step; the values are the same).
struct poly_coefficients {
  double b[128], c[128];
};
inline constexpr poly_coefficients poly_table = [] {
  poly_coefficients t{};
  for (int k = 0; k < 128; ++k) {
    t.b[k] = static_cast<double>(k) / (k + 1);
    t.c[k] = 1.0 / (k + 1);
  }
  return t;
}();

/// a b + c, a b - c and c - a b for the recurrence steps: fused where the target has a fused
/// multiply-add, two roundings otherwise, in the scalar and the packet code alike (without FMA
/// hardware, std::fma is a slow library call and xsimd's packets round twice: the paths would
/// differ).
enum class step_op { fma, fms, fnma };
template <step_op Op, class V>
TL_HDI V step_fused(const V& a, const V& b, const V& c) {
#ifdef __FMA__
  if constexpr (Op == step_op::fma) return vfma(a, b, c);
  else if constexpr (Op == step_op::fms) return vfms(a, b, c);
  else return vfnma(a, b, c);
#else
  if constexpr (Op == step_op::fma) return a * b + c;
  else if constexpr (Op == step_op::fms) return a * b - c;
  else return c - a * b;
#endif
}

/// The polynomial of kind K and degree 1 at x.
template <poly_kind K, class V>
TL_HDI V poly_first(const V& x) {
  if constexpr (K == poly_kind::t || K == poly_kind::he || K == poly_kind::p) return x;
  else if constexpr (K == poly_kind::u || K == poly_kind::h) return x + x;
  else if constexpr (K == poly_kind::v) return x + x - V(1);
  else if constexpr (K == poly_kind::w) return x + x + V(1);
  else return V(1) - x;
}
/// One step of the three-term recurrence of kind K (fused multiply-adds where the target has
/// them): degree k + 1 from q (degree k) and p (k - 1);
/// kv = k (carried by the loop as a packet), x2 = x + x. Legendre as x q + k/(k + 1) (x q - p) and Laguerre as
/// q + k/(k + 1) (q - p) - x q/(k + 1): no division, and the values at x = +-1 (Legendre) and
/// x = 0 (Laguerre) stay exact, since the differences vanish there.
template <poly_kind K, class V>
TL_HDI V poly_step(long long k, const V& kv, const V& x, const V& x2, const V& p, const V& q) {
  if constexpr (K == poly_kind::h) {
    return step_fused<step_op::fms>(x2, q, (kv + kv) * p);
  } else if constexpr (K == poly_kind::he) {
    return step_fused<step_op::fms>(x, q, kv * p);
  } else if constexpr (K == poly_kind::p || K == poly_kind::l) {
    const double kd = static_cast<double>(k);
    double b = kd / (kd + 1), c = 1 / (kd + 1);
    if constexpr (!is_scalar_v<V>) {
      if (k < 128) b = poly_table.b[k], c = poly_table.c[k];
    }
    if constexpr (K == poly_kind::p) {
      const V t = x * q;
      return step_fused<step_op::fma>(V(b), t - p, t);
    } else {
      return step_fused<step_op::fma>(V(b), q - p, step_fused<step_op::fnma>(V(c) * x, q, q));
    }
  } else {
    return step_fused<step_op::fms>(x2, q, p);
  }
}
/// The three-term recurrence of kind K to degree n >= 1, on a double or a packet of doubles.
template <poly_kind K, class V>
TL_HDI V poly_recurrence(const V& x, long long n) {
  const V x2 = x + x;
  V p(1), q = poly_first<K>(x), kv(1);
  for (long long k = 1; k < n; ++k) {
    const V r = poly_step<K>(k, kv, x, x2, p, q);
    p = q;
    q = r;
    kv = kv + V(1);
  }
  return q;
}
/// The recurrence on H packets (a float packet's double halves), advanced together: each step
/// waits on one fused multiply-add of the step before, so one chain alone would leave the
/// multiply-add units idle. With Lanes, the lanes have their own degrees nv (integers; the lanes
/// of degree >= 1 matter): it runs to nmax, and each lane keeps the value of its own degree, the
/// same value poly_recurrence gives it; without, every lane has degree nmax >= 1.
template <poly_kind K, bool Lanes, class D, std::size_t H>
TL_INLINE std::array<D, H> poly_recurrence_n(const std::array<D, H>& x, const std::array<D, H>& nv, long long nmax) {
  // Up to a multiple of 4 steps (the extra ones change no lane's value): a loop count that
  // varies from packet to packet would be mispredicted at its exit, and the packet's work with it.
  if constexpr (Lanes) nmax = nmax < (1ll << 60) ? (nmax + 2) / 4 * 4 + 1 : nmax;
  std::array<D, H> x2, p, q, res;
  for (std::size_t h = 0; h < H; ++h) {
    x2[h] = x[h] + x[h];
    p[h] = D(1);
    q[h] = res[h] = poly_first<K>(x[h]);
  }
  D kv(1);
  for (long long k = 1; k < nmax; ++k) {
    const D kn = kv + D(1);
    for (std::size_t h = 0; h < H; ++h) {
      const D r = poly_step<K>(k, kv, x[h], x2[h], p[h], q[h]);
      p[h] = q[h];
      q[h] = r;
      if constexpr (Lanes) res[h] = xsimd::select(nv[h] == kn, r, res[h]);
    }
    kv = kn;
  }
  if constexpr (Lanes) return res;
  else return q;
}
/// The recurrence's value past its overflow. Beyond the largest zero of the degree-n polynomial
/// (|y| above Szegő's bound: 1 for the Chebyshev kinds and Legendre, sqrt(2n + 1) for H,
/// sqrt(4n + 2) for He, 4n + 2 for Laguerre), every term of the recurrence has the sign of its
/// leading term c_k y^k and its magnitude grows with the degree, so once a term overflows the value
/// is beyond the range too, while the next step forms inf - inf. There a NaN r becomes +-inf with
/// the sign of c_n y^n: sign(y)^n, times (-1)^n for Laguerre (c_n = (-1)^n / n!). Other lanes pass
/// through (torch's recurrences return the NaN). V is a double or a packet of doubles; nv the
/// degree (an integer >= 1).
template <poly_kind K, class V>
TL_HDI V poly_past_overflow(const V& y, const V& nv, const V& r) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  // Szegő's bound on the largest zero, from t = 2n + 1 (H), 4n + 2 (He, L) or 1 (the others)
  constexpr double tm = K == poly_kind::h ? 2 : (K == poly_kind::he || K == poly_kind::l) ? 4 : 0;
  constexpr double tc = K == poly_kind::h ? 1 : (K == poly_kind::he || K == poly_kind::l) ? 2 : 1;
  constexpr bool root = K == poly_kind::h || K == poly_kind::he;
  if constexpr (is_scalar_v<V>) {
    if (!std::isnan(r)) return r;
    const double t = nv * tm + tc;
    if (!(std::fabs(y) > (root ? std::sqrt(t) : t))) return r;
    const bool odd = static_cast<long long>(nv) % 2 != 0;
    const bool neg = odd && (K == poly_kind::l ? y > 0 : y < 0);
    return neg ? -inf : inf;
  } else {
    auto bad = xsimd::isnan(r);
    if (!xsimd::any(bad)) return r;
    const V t = nv * V(tm) + V(tc);
    bad = bad && xsimd::abs(y) > (root ? xsimd::sqrt(t) : t);
    const V half = nv * V(0.5);
    const auto odd = xsimd::floor(half) != half;
    const auto neg = odd && (K == poly_kind::l ? y > V(0) : y < V(0));
    return xsimd::select(bad, xsimd::select(neg, V(-inf), V(inf)), r);
  }
}

/// poly_recurrence_lanes on one packet.
template <poly_kind K, class D>
TL_INLINE D poly_recurrence_lanes(const D& x, const D& nv, long long nmax) {
  return poly_recurrence_n<K, true>(std::array<D, 1>{x}, std::array<D, 1>{nv}, nmax)[0];
}

/// The polynomial of kind K and degree n at x, in double (torch's formulas and special cases).
template <poly_kind K>
TL_HDI double poly_eval(double x, double nd) {
  if (std::isnan(x) || !std::isfinite(nd)) return std::numeric_limits<double>::quiet_NaN();
  const long long n = static_cast<long long>(nd < 0x1p62 ? nd : 0x1p62);  // truncated, as torch
  if (n < 0) return 0;
  const bool even = n % 2 == 0;
  const double ax = std::fabs(x);
  if constexpr (K == poly_kind::t || K == poly_kind::u || K == poly_kind::v || K == poly_kind::w) {
    const double n1 = static_cast<double>(n);
    if (ax == 1) {
      if constexpr (K == poly_kind::t) return (x > 0 || even) ? 1 : -1;
      if constexpr (K == poly_kind::u) return (x > 0 || even) ? n1 + 1 : -(n1 + 1);
      if constexpr (K == poly_kind::v) return x > 0 ? 1 : (even ? n1 + n1 + 1 : -(n1 + n1 + 1));
      if constexpr (K == poly_kind::w) return x > 0 ? n1 + n1 + 1 : (even ? 1 : -1);
    }
    if (ax < 1 && n > (K == poly_kind::t ? 6 : 8)) {
      const double th = std::acos(x);
      if constexpr (K == poly_kind::t) return std::cos(n1 * th);
      if constexpr (K == poly_kind::u) {
        const double s = std::sin(th);
        return s != 0 ? std::sin((n1 + 1) * th) / s : (n1 + 1) * std::cos((n1 + 1) * th) * x;
      }
      if constexpr (K == poly_kind::v) return std::cos((n1 + 0.5) * th) / std::cos(th / 2);
      if constexpr (K == poly_kind::w) return std::sin((n1 + 0.5) * th) / std::sin(th / 2);
    }
  }
  if (n == 0) return 1;
  if constexpr (K == poly_kind::l) {
    if (x == 0) return 1;
  }
  return poly_past_overflow<K>(x, static_cast<double>(n), poly_recurrence<K>(x, n));
}

/// acos(y) on a packet of doubles, |y| <= 1, to about half an ULP (xsimd's acos is 1.2 ULP, and
/// the trigonometric forms multiply the error of acos by up to n + 1/2): asin(r) = r + r z A(z),
/// z = r^2 <= 1/4 (A: our Chebyshev fit, fit_special_coefficients.py); pi/2 - y formed exactly
/// below |y| = 1/2; above, 2 asin(s) or pi - 2 asin(s) with s = sqrt((1 -+ y) / 2) and the
/// square root's rounding error carried.
template <class D>
TL_INLINE D acos_packet(const D& y) {
  const auto A = [](const D& z) {
    return horner<0.17680460199399817, 0.010972967607792887, 0.0009145648551062361, 8.778021135212931e-05, 9.151973254686311e-06, 1.0074723775341686e-06, 1.1524657200383183e-07, 1.3565257670245776e-08, 1.6323759553538724e-09, 1.9991028034402914e-10, 2.4801535695167338e-11, 3.117793757139341e-12, 4.202279751015744e-13, 5.38639347086339e-14>(vfma(z, D(8), D(-1)));
  };
  const D ay = xsimd::abs(y);
  // |y| <= 1/2: (pi/2 - y) exactly as hi + lo, then the small rest
  const D z0 = y * y;
  const dd<D> t0 = two_sum(D(1.5707963267948966), -y);
  const D near = t0.hi + (t0.lo + (D(6.123233995736766e-17) - y * z0 * A(z0)));
  // |y| > 1/2: z = (1 - |y|) / 2 exactly, s + c = sqrt(z) to twice the precision
  const D z = (D(1) - ay) * D(0.5);
  const D s = xsimd::sqrt(z);
  const D c = xsimd::select(s > D(0), vfma(-s, s, z) / (s + s), D(0));
  const D lo = c + s * z * A(z);  // asin(s + c) - s
  const dd<D> t1 = two_sum(D(3.141592653589793), D(-2) * s);
  const D far = xsimd::select(y > D(0), D(2) * (s + lo), t1.hi + (t1.lo + (D(1.2246467991473532e-16) - D(2) * lo)));
  return xsimd::select(ay <= D(0.5), near, far);
}

/// The Chebyshev polynomial of kind K on a packet of doubles, in the lanes of degree nv >= 1 (nv
/// holds integers; the caller sets the other lanes and NaN): the same formulas and cases as
/// poly_eval (exact values at |y| = 1, the trigonometric forms for |y| < 1 and large n, the
/// recurrence elsewhere, run to the largest degree among its lanes); acos_packet, cos and sin
/// from xsimd. Mixed: the lanes' degrees may differ; otherwise they are all n.
template <poly_kind K, bool Mixed, class D>
TL_INLINE D chebyshev_packet(const D& y, const D& nv, long long n) {
  const D ay = xsimd::abs(y);
  const auto edge = ay == D(1);
  const auto trig = ay < D(1) && nv > D(K == poly_kind::t ? 6 : 8);
  const auto rec = !(trig || edge) && nv >= D(1);
  D res(0);
  if (xsimd::any(rec)) {
    if constexpr (Mixed) res = poly_recurrence_lanes<K>(y, nv, static_cast<long long>(lane_max(xsimd::select(rec, nv, D(1)))));
    else res = poly_recurrence<K>(y, n);
    res = poly_past_overflow<K>(y, nv, res);
  }
  if (xsimd::any(trig)) {
    const D th = acos_packet(y);
    D f;
    if constexpr (K == poly_kind::t) {
      f = xsimd::cos(nv * th);
    } else if constexpr (K == poly_kind::u) {
      const D sn = xsimd::sin(th), n1 = nv + D(1);
      f = xsimd::sin(n1 * th) / sn;
      if (const auto zero = sn == D(0); xsimd::any(zero)) f = xsimd::select(zero, n1 * xsimd::cos(n1 * th) * y, f);
    } else if constexpr (K == poly_kind::v) {
      f = xsimd::cos((nv + D(0.5)) * th) / xsimd::cos(th / D(2));
    } else {
      f = xsimd::sin((nv + D(0.5)) * th) / xsimd::sin(th / D(2));
    }
    res = xsimd::select(trig, f, res);
  }
  if (xsimd::any(edge)) {
    const D half = nv * D(0.5);
    const D sgn = xsimd::select(xsimd::floor(half) == half, D(1), D(-1));  // (-1)^n
    const auto pos = y > D(0);
    const D odd2 = nv + nv + D(1);
    D e;
    if constexpr (K == poly_kind::t) e = xsimd::select(pos, D(1), sgn);
    else if constexpr (K == poly_kind::u) e = (nv + D(1)) * xsimd::select(pos, D(1), sgn);
    else if constexpr (K == poly_kind::v) e = xsimd::select(pos, D(1), sgn * odd2);
    else e = xsimd::select(pos, odd2, sgn);
    res = xsimd::select(edge, e, res);
  }
  return res;
}

/// Elementwise (x, n) functor; Shifted evaluates at 2x - 1 (computed in double per element).
/// Packets run on double packets: those whose lanes share one degree n >= 1 (a scalar n, the
/// common case) run the recurrence without per-lane selection; the others run it to their
/// largest degree, each lane keeping its own (and set the lanes with n < 1, a NaN or infinite n).
/// For the Chebyshev kinds also the trigonometric forms and the exact values at |x| = 1.
template <poly_kind K, bool Shifted>
struct poly_fn : lanewise_binary<poly_fn<K, Shifted>> {
  static constexpr const char* name = "orthogonal_polynomial";
  static TL_HDI double eval(double x, double n) { return poly_eval<K>(Shifted ? x + x - 1 : x, n); }

  static constexpr bool chebyshev = K == poly_kind::t || K == poly_kind::u || K == poly_kind::v || K == poly_kind::w;
  template <class D>
  static TL_INLINE D shifted(const D& xd) {
    return Shifted ? xd + xd - D(1) : xd;  // rounded as eval rounds it (exact for a float x)
  }

  /// Non-Chebyshev kinds, every lane of degree n >= 1, on H double packets (a float packet's
  /// halves run together).
  template <class D, std::size_t H>
  static TL_INLINE std::array<D, H> one_degree(std::array<D, H> y, long long n) {
    for (auto& yh : y) yh = shifted(yh);
    std::array<D, H> res;
    if constexpr (H == 1) res[0] = poly_recurrence<K>(y[0], n);
    else res = poly_recurrence_n<K, false>(y, y, n);
    const D nv(static_cast<double>(n));
    for (std::size_t h = 0; h < H; ++h) res[h] = xsimd::select(xsimd::isnan(y[h]), y[h], poly_past_overflow<K>(y[h], nv, res[h]));
    return res;
  }
  /// Packets with a degree per lane, as H double packets (a float packet's halves run together).
  template <class D, std::size_t H>
  static TL_INLINE std::array<D, H> degree_per_lane(std::array<D, H> y, const std::array<D, H>& nd) {
    std::array<D, H> nv;
    double nmax = 1;
    for (std::size_t h = 0; h < H; ++h) {
      y[h] = shifted(y[h]);
      // n truncated toward zero as eval truncates it (below 2^52 by adding and subtracting
      // 2^52); NaN for a NaN or infinite n
      const D a = xsimd::min(xsimd::abs(nd[h]), D(0x1p62));
      const D r = xsimd::select(a < D(0x1p52), (a + D(0x1p52)) - D(0x1p52), a);
      nv[h] = xsimd::select(xsimd::abs(nd[h]) < D(std::numeric_limits<double>::infinity()),
                            xsimd::copysign(xsimd::select(r > a, r - D(1), r), nd[h]), D(std::numeric_limits<double>::quiet_NaN()));
      nmax = std::max(nmax, lane_max(xsimd::select(nv[h] >= D(1), nv[h], D(1))));
    }
    std::array<D, H> res;
    if constexpr (chebyshev) {
      for (std::size_t h = 0; h < H; ++h) res[h] = chebyshev_packet<K, true>(y[h], nv[h], 0);
    } else {
      res = poly_recurrence_n<K, true>(y, nv, static_cast<long long>(nmax));
      for (std::size_t h = 0; h < H; ++h) res[h] = poly_past_overflow<K>(y[h], nv[h], res[h]);
    }
    for (std::size_t h = 0; h < H; ++h) {
      res[h] = xsimd::select(nv[h] == D(0), D(1), res[h]);
      res[h] = xsimd::select(nv[h] < D(0), D(0), res[h]);
      res[h] = xsimd::select(xsimd::isnan(nv[h]), nv[h], res[h]);
      res[h] = xsimd::select(xsimd::isnan(y[h]), y[h], res[h]);
    }
    return res;
    }

  template <class B>
  TL_INLINE B packet(const B& x, const B& n) const {
    using T = typename B::value_type;
    const double n0 = common_lane(n);
    if (n0 >= 1 && n0 < 0x1p62) {  // one degree (also false for NaN)
      const auto nn = static_cast<long long>(n0);
      if constexpr (chebyshev) {
        const auto run = [nn](const auto& xd) {
          using D = std::remove_cvref_t<decltype(xd)>;
          const D y = shifted(xd);
          return xsimd::select(xsimd::isnan(y), y, chebyshev_packet<K, false>(y, D(static_cast<double>(nn)), nn));
        };
        if constexpr (std::is_same_v<T, float>) return tl::detail::float_via_double(x, run);
        else return run(x);
      } else {  // H double packets (a float packet's halves run together)
        if constexpr (std::is_same_v<T, float>) return tl::detail::float_join<B>(one_degree(tl::detail::float_halves(x), nn));
        else return one_degree(std::array<B, 1>{x}, nn)[0];
      }
    }
    // a degree per lane
    if constexpr (std::is_same_v<T, float>) return tl::detail::float_join<B>(degree_per_lane(tl::detail::float_halves(x), tl::detail::float_halves(n)));
    else return degree_per_lane(std::array<B, 1>{x}, std::array<B, 1>{n})[0];
  }
};

}  // namespace detail

#define TL_SPECIAL_POLY(NAME, KIND, SHIFTED, DOC)                                                           \
  /** @brief DOC (torch.special.NAME); n < 0 gives 0. */                                                     \
  template <class X, class N>                                                                                \
    requires tl::detail::binary_operands<X, N>                                                               \
  auto NAME(X&& x, N&& n) {                                                                                  \
    return tl::detail::make_binary<detail::poly_fn<detail::poly_kind::KIND, SHIFTED>>(std::forward<X>(x),    \
                                                                                      std::forward<N>(n));  \
  }
TL_SPECIAL_POLY(chebyshev_polynomial_t, t, false, Chebyshev polynomial of the first kind T_n(x))
TL_SPECIAL_POLY(chebyshev_polynomial_u, u, false, Chebyshev polynomial of the second kind U_n(x))
TL_SPECIAL_POLY(chebyshev_polynomial_v, v, false, Chebyshev polynomial of the third kind V_n(x))
TL_SPECIAL_POLY(chebyshev_polynomial_w, w, false, Chebyshev polynomial of the fourth kind W_n(x))
TL_SPECIAL_POLY(shifted_chebyshev_polynomial_t, t, true, Shifted Chebyshev polynomial T_n(2x - 1))
TL_SPECIAL_POLY(shifted_chebyshev_polynomial_u, u, true, Shifted Chebyshev polynomial U_n(2x - 1))
TL_SPECIAL_POLY(shifted_chebyshev_polynomial_v, v, true, Shifted Chebyshev polynomial V_n(2x - 1))
TL_SPECIAL_POLY(shifted_chebyshev_polynomial_w, w, true, Shifted Chebyshev polynomial W_n(2x - 1))
TL_SPECIAL_POLY(hermite_polynomial_h, h, false, Hermite polynomial (physicists) H_n(x))
TL_SPECIAL_POLY(hermite_polynomial_he, he, false, Hermite polynomial (probabilists) He_n(x))
TL_SPECIAL_POLY(laguerre_polynomial_l, l, false, Laguerre polynomial L_n(x))
TL_SPECIAL_POLY(legendre_polynomial_p, p, false, Legendre polynomial P_n(x))
#undef TL_SPECIAL_POLY

}  // namespace tl::special
