#pragma once
/// @file functors.hpp
/// @brief The elementwise operations: one small functor per op with a scalar and (where it
/// exists) an xsimd packet form.
///
/// A unary functor declares `input<T>` (the type it computes in for an operand of dtype T, e.g.
/// float for an int operand of sin), `result<In>`, and `simd<In>` (packet form available). Binary
/// functors get the promoted operand type. Packet forms have the same accuracy contract as the
/// scalar ones: within 2 ULP of the correctly rounded result over the tested ranges (xsimd's
/// kernels, tests/expr/elementwise_test.cpp; tl's float exp, sin, cos, tanh and sigmoid within
/// 1.5 ULP, simd_math.hpp and tests/expr/float_math_test.cpp), and results for NaN, +-inf and
/// signed zeros match <cmath>.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tl/core/simd.hpp"

#include "tl/core/complex.hpp"
#include "tl/core/dtype.hpp"
#include "tl/core/error.hpp"
#include "tl/expr/simd_math.hpp"

namespace tl::detail {

template <class T>
inline constexpr bool simd_float_v = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class T>
inline constexpr bool simd_arith_v = simd_float_v<T> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

/// The double packets holding a float packet's lanes, in order (B::size / D::size of them). On
/// AVX-512 and AVX the halves are converted in registers: through memory, a packet stored whole
/// and reloaded by halves (and the reverse in float_join) misses store-to-load forwarding on
/// Intel cores, which cost the float kernels computed in double up to 2.5x there.
template <class B>
TL_INLINE auto float_halves(const B& x) {
  using D = xsimd::batch<double, typename B::arch_type>;
  constexpr std::size_t n = B::size, m = D::size;
#if defined(__AVX512F__) && defined(__AVX512DQ__)
  if constexpr (n == 16 && m == 8) {
    const __m512 v = x;
    return std::array<D, 2>{D(_mm512_cvtps_pd(_mm512_castps512_ps256(v))), D(_mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)))};
  } else
#endif
#if defined(__AVX__)
  if constexpr (n == 8 && m == 4) {
    const __m256 v = x;
    return std::array<D, 2>{D(_mm256_cvtps_pd(_mm256_castps256_ps128(v))), D(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)))};
  } else
#endif
  {
  alignas(64) float xf[n];
  alignas(64) double xd[n];
  x.store_aligned(xf);
  for (std::size_t i = 0; i < n; ++i) xd[i] = xf[i];
  std::array<D, n / m> h;
  for (std::size_t i = 0; i < n / m; ++i) h[i] = D::load_aligned(xd + i * m);
  return h;
  }
}
/// The float packet of the lanes of h (float_halves reversed), each rounded once.
template <class B, class D, std::size_t H>
TL_INLINE B float_join(const std::array<D, H>& h) {
  constexpr std::size_t m = D::size;
#if defined(__AVX512F__) && defined(__AVX512DQ__)
  if constexpr (H == 2 && m == 8 && B::size == 16) {
    return B(_mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(h[0])), _mm512_cvtpd_ps(h[1]), 1));
  } else
#endif
#if defined(__AVX__)
  if constexpr (H == 2 && m == 4 && B::size == 8) {
    return B(_mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(h[0])), _mm256_cvtpd_ps(h[1]), 1));
  } else
#endif
  {
  alignas(64) double xd[H * m];
  alignas(64) float xf[H * m];
  for (std::size_t i = 0; i < H; ++i) h[i].store_aligned(xd + i * m);
  for (std::size_t i = 0; i < H * m; ++i) xf[i] = static_cast<float>(xd[i]);
  return B::load_aligned(xf);
  }
}
/// Evaluates f on float packets through double precision (for ops whose float kernels in xsimd
/// exceed 2 ULP): f takes one double packet per operand, and the result is the double result
/// rounded once, within 1 ULP in float.
template <class F, class B, class... Bs>
TL_INLINE B float_via_double_n(F&& f, const B& x, const Bs&... ys) {
  const auto hx = float_halves(x);
  const auto hy = std::make_tuple(float_halves(ys)...);
  auto r = hx;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    for (std::size_t i = 0; i < hx.size(); ++i) r[i] = f(hx[i], std::get<I>(hy)[i]...);
  }(std::index_sequence_for<Bs...>{});
  return float_join<B>(r);
}
/// f(x, ys...) with the operands' lanes reordered so that the lanes where m holds come first (in
/// their order, then the others in theirs), and the result's lanes put back where they came from.
/// For packet kernels whose cost is set by the packet's slowest lane in each method (loops that run
/// until every lane is done): grouped, the double halves of a float packet each run only the
/// methods of their own lanes. AVX-512 float packets (compress / expand); elsewhere f(x, ys...).
template <class F, class B, class... Bs>
TL_INLINE B grouped_lanes(F&& f, const typename B::batch_bool_type& m, const B& x, const Bs&... ys) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<typename B::value_type, float> && B::size == 16) {
    const __mmask16 k = static_cast<__mmask16>(m), rest = static_cast<__mmask16>(~k);
    const __mmask16 tail = static_cast<__mmask16>(0xFFFFu << __builtin_popcount(k));  // lanes c..15
    const auto group = [&](const B& v) {
      return B(_mm512_mask_expand_ps(_mm512_maskz_compress_ps(k, v), tail, _mm512_maskz_compress_ps(rest, v)));
    };
    const __m512 r = f(group(x), group(ys)...);
    return B(_mm512_mask_expand_ps(_mm512_maskz_expand_ps(k, r), rest, _mm512_maskz_compress_ps(tail, r)));
  }
#endif
  static_cast<void>(m);
  return f(x, ys...);
}
/// float_via_double_n for one operand.
template <class B, class F>
TL_INLINE B float_via_double(const B& x, F&& f) {
  return float_via_double_n(f, x);
}

/// Base for ops that compute in a floating type (ints and bool become float).
struct floating_unary {
  template <class T>
  using input = to_floating_t<T>;
  template <class T>
  using result = T;
  template <class T>
  static constexpr bool simd = simd_float_v<T>;
};

// Transcendental functions: scalar through <cmath> (or tl::complex overloads via ADL), packets through
// xsimd, or tl's own float kernels (simd_math.hpp) for exp, sin, cos and tanh.
#define TL_FLOAT_UNARY(NAME, XS)                                   \
  struct NAME##_fn : floating_unary {                              \
    static constexpr const char* name = #NAME;                     \
    template <class T>                                             \
    TL_HDI T operator()(T x) const {                            \
      using std::NAME;                                             \
      return NAME(x);                                              \
    }                                                              \
    template <class B>                                             \
    TL_INLINE B packet(const B& x) const {                         \
      return XS(x);                                                \
    }                                                              \
  };
TL_FLOAT_UNARY(sqrt, xsimd::sqrt)
TL_FLOAT_UNARY(exp, fmath::vexp)
TL_FLOAT_UNARY(log, xsimd::log)
TL_FLOAT_UNARY(log10, xsimd::log10)
TL_FLOAT_UNARY(sin, fmath::vsin)
TL_FLOAT_UNARY(cos, fmath::vcos)
TL_FLOAT_UNARY(acos, xsimd::acos)
TL_FLOAT_UNARY(atan, xsimd::atan)
TL_FLOAT_UNARY(sinh, xsimd::sinh)
TL_FLOAT_UNARY(cosh, xsimd::cosh)
TL_FLOAT_UNARY(tanh, fmath::vtanh)
TL_FLOAT_UNARY(asinh, xsimd::asinh)
TL_FLOAT_UNARY(acosh, xsimd::acosh)
TL_FLOAT_UNARY(atanh, xsimd::atanh)
#undef TL_FLOAT_UNARY

/// tan and asin: float packets go through double; double tan uses libm (xsimd's is 2.2 ULP).
struct tan_fn : floating_unary {
  static constexpr const char* name = "tan";
  template <class T>
  static constexpr bool simd = std::is_same_v<T, float>;
  template <class T>
  TL_HDI T operator()(T x) const {
    using std::tan;
    return tan(x);
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    return float_via_double(x, [](const auto& d) { return xsimd::tan(d); });
  }
};
struct asin_fn : floating_unary {
  static constexpr const char* name = "asin";
  template <class T>
  TL_HDI T operator()(T x) const {
    using std::asin;
    return asin(x);
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    if constexpr (std::is_same_v<typename B::value_type, float>)
      return float_via_double(x, [](const auto& d) { return xsimd::asin(d); });
    else return xsimd::asin(x);
  }
};

/// Real-only floating functions (complex operands are rejected at compile time).
#define TL_REAL_UNARY(NAME, XS)                                                                    \
  struct NAME##_fn : floating_unary {                                                              \
    static constexpr const char* name = #NAME;                                                     \
    template <class T>                                                                             \
    TL_HDI T operator()(T x) const {                                                            \
      static_assert(!is_complex_v<T>, "tl: " #NAME " is not defined for complex tensors");        \
      return std::NAME(x);                                                                         \
    }                                                                                              \
    template <class B>                                                                             \
    TL_INLINE B packet(const B& x) const {                                                         \
      return xsimd::XS(x);                                                                         \
    }                                                                                              \
  };
TL_REAL_UNARY(exp2, exp2)
TL_REAL_UNARY(expm1, expm1)
TL_REAL_UNARY(log2, log2)
TL_REAL_UNARY(log1p, log1p)
#undef TL_REAL_UNARY

struct rsqrt_fn : floating_unary {
  static constexpr const char* name = "rsqrt";
  template <class T>
  TL_HDI T operator()(T x) const {
    using std::sqrt;
    return T(1) / sqrt(x);
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    return B(1) / xsimd::sqrt(x);  // exact division: xsimd::rsqrt is an approximation
  }
};

struct sigmoid_fn : floating_unary {
  static constexpr const char* name = "sigmoid";
  template <class T>
  TL_HDI T operator()(T x) const {
    using std::exp;
    return T(1) / (T(1) + exp(-x));
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    if constexpr (std::is_same_v<typename B::value_type, float>) return fmath::sigmoid<typename B::arch_type>(x);
    else return B(1) / (B(1) + xsimd::exp(-x));
  }
};

/// GELU with the exact erf form: x/2 (1 + erf(x / sqrt 2)).
struct gelu_fn : floating_unary {
  static constexpr const char* name = "gelu";
  template <class T>
  TL_HDI T operator()(T x) const {
    static_assert(!is_complex_v<T>, "tl: gelu is not defined for complex tensors");
    return T(0.5) * x * (T(1) + std::erf(x * T(std::numbers::sqrt2 / 2)));
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    using T = typename B::value_type;
    return B(T(0.5)) * x * (B(T(1)) + xsimd::erf(x * B(T(std::numbers::sqrt2 / 2))));
  }
};

/// softplus(x) = log1p(exp(beta x)) / beta, and x where beta x > threshold (torch's defaults 1, 20).
struct softplus_fn : floating_unary {
  static constexpr const char* name = "softplus";
  double beta = 1, threshold = 20;
  template <class T>
  TL_HDI T operator()(T x) const {
    static_assert(!is_complex_v<T>, "tl: softplus is not defined for complex tensors");
    const T bx = x * T(beta);
    return bx > T(threshold) ? x : std::log1p(std::exp(bx)) / T(beta);
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    using T = typename B::value_type;
    const B bx = x * B(T(beta));
    return xsimd::select(bx > B(T(threshold)), x, xsimd::log1p(fmath::vexp(bx)) / B(T(beta)));
  }
};

// ---- sign-preserving ops (keep the dtype) --------------------------------------------------
struct same_type_unary {
  template <class T>
  using input = T;
  template <class T>
  using result = T;
};

struct neg_fn : same_type_unary {
  static constexpr const char* name = "neg";
  template <class T>
  static constexpr bool simd = simd_arith_v<T>;
  template <class T>
  TL_HDI T operator()(T x) const {
    static_assert(!std::is_same_v<T, bool>, "tl: negation of a bool tensor is not supported; use logical_not");
    return -x;
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    return -x;
  }
};

struct square_fn : same_type_unary {
  static constexpr const char* name = "square";
  template <class T>
  static constexpr bool simd = simd_arith_v<T>;
  template <class T>
  TL_HDI T operator()(T x) const { return x * x; }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    return x * x;
  }
};

struct abs_fn {
  static constexpr const char* name = "abs";
  template <class T>
  using input = T;
  template <class T>
  using result = real_t<T>;
  template <class T>
  static constexpr bool simd = simd_arith_v<T>;
  template <class T>
  TL_HDI real_t<T> operator()(T x) const {
    if constexpr (is_complex_v<T>) return tl::abs(x);
    else if constexpr (std::is_same_v<T, bool>) return x;
    else if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
    else return x < 0 ? -x : x;
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    return xsimd::abs(x);
  }
};

/// sign: -1, 0 or +1 (NaN stays NaN, signed zero is kept).
struct sign_fn : same_type_unary {
  static constexpr const char* name = "sign";
  template <class T>
  static constexpr bool simd = simd_float_v<T>;
  template <class T>
  TL_HDI T operator()(T x) const {
    static_assert(!is_complex_v<T>, "tl: sign is not defined for complex tensors (use sgn: x / abs(x))");
    if constexpr (std::is_same_v<T, bool>) return x;
    else if constexpr (std::is_floating_point_v<T>) return x > 0 ? T(1) : x < 0 ? T(-1) : x;
    else return static_cast<T>((x > 0) - (x < 0));
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    using T = typename B::value_type;
    return xsimd::select(x > B(T(0)), B(T(1)), xsimd::select(x < B(T(0)), B(T(-1)), x));
  }
};

struct relu_fn : same_type_unary {
  static constexpr const char* name = "relu";
  template <class T>
  static constexpr bool simd = simd_arith_v<T>;
  template <class T>
  TL_HDI T operator()(T x) const {
    static_assert(!is_complex_v<T> && !std::is_same_v<T, bool>, "tl: relu needs a real, non-bool tensor");
    return x < T(0) ? T(0) : x;  // NaN propagates
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    using T = typename B::value_type;
    return xsimd::select(x < B(T(0)), B(T(0)), x);
  }
};

/// Rounding family: identity on integers.
#define TL_ROUND_UNARY(NAME, STDF, XS)                                                            \
  struct NAME##_fn : same_type_unary {                                                          \
    static constexpr const char* name = #NAME;                                                  \
    template <class T>                                                                          \
    static constexpr bool simd = simd_arith_v<T>;                                               \
    template <class T>                                                                          \
    TL_HDI T operator()(T x) const {                                                         \
      static_assert(!is_complex_v<T>, "tl: " #NAME " is not defined for complex tensors");     \
      if constexpr (std::is_floating_point_v<T>) return STDF(x);                                \
      else return x;                                                                            \
    }                                                                                           \
    template <class B>                                                                          \
    TL_INLINE B packet(const B& x) const {                                                      \
      if constexpr (simd_float_v<typename B::value_type>) return xsimd::XS(x);                  \
      else return x;                                                                            \
    }                                                                                           \
  };
TL_ROUND_UNARY(floor, std::floor, floor)
TL_ROUND_UNARY(ceil, std::ceil, ceil)
TL_ROUND_UNARY(trunc, std::trunc, trunc)
TL_ROUND_UNARY(round, std::nearbyint, nearbyint)  // half to even, like torch.round
#undef TL_ROUND_UNARY

struct frac_fn : same_type_unary {
  static constexpr const char* name = "frac";
  template <class T>
  static constexpr bool simd = simd_float_v<T>;
  template <class T>
  TL_HDI T operator()(T x) const {
    static_assert(std::is_floating_point_v<T>, "tl: frac needs a floating tensor");
    return x - std::trunc(x);
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    return x - xsimd::trunc(x);
  }
};

/// Predicates returning bool.
struct bool_unary {
  template <class T>
  using input = T;
  template <class T>
  using result = bool;
  template <class T>
  static constexpr bool simd = false;
};
struct isnan_fn : bool_unary {
  static constexpr const char* name = "isnan";
  template <class T>
  TL_HDI bool operator()(T x) const {
    if constexpr (is_complex_v<T>) return std::isnan(x.re) || std::isnan(x.im);
    else if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
    else return false;
  }
};
struct isinf_fn : bool_unary {
  static constexpr const char* name = "isinf";
  template <class T>
  TL_HDI bool operator()(T x) const {
    if constexpr (is_complex_v<T>) return std::isinf(x.re) || std::isinf(x.im);
    else if constexpr (std::is_floating_point_v<T>) return std::isinf(x);
    else return false;
  }
};
struct isfinite_fn : bool_unary {
  static constexpr const char* name = "isfinite";
  template <class T>
  TL_HDI bool operator()(T x) const {
    if constexpr (is_complex_v<T>) return std::isfinite(x.re) && std::isfinite(x.im);
    else if constexpr (std::is_floating_point_v<T>) return std::isfinite(x);
    else return true;
  }
};
struct logical_not_fn : bool_unary {
  static constexpr const char* name = "logical_not";
  template <class T>
  TL_HDI bool operator()(T x) const { return x == T(0); }
};

/// nan_to_num: NaN -> nan, +inf -> posinf, -inf -> neginf (defaults: 0, the largest and lowest finite values).
struct nan_to_num_fn : same_type_unary {
  static constexpr const char* name = "nan_to_num";
  template <class T>
  static constexpr bool simd = simd_float_v<T>;
  double nan = 0;
  double posinf = std::numeric_limits<double>::quiet_NaN();  // NaN: "use the type's max"
  double neginf = std::numeric_limits<double>::quiet_NaN();
  template <class T>
  TL_HDI T pos() const {
    return std::isnan(posinf) ? std::numeric_limits<T>::max() : static_cast<T>(posinf);
  }
  template <class T>
  TL_HDI T neg() const {
    return std::isnan(neginf) ? std::numeric_limits<T>::lowest() : static_cast<T>(neginf);
  }
  template <class T>
  TL_HDI T fix(T x) const {
    if (std::isnan(x)) return static_cast<T>(nan);
    if (std::isinf(x)) return x > 0 ? pos<T>() : neg<T>();
    return x;
  }
  template <class T>
  TL_HDI T operator()(T x) const {
    if constexpr (is_complex_v<T>) return T(fix(x.re), fix(x.im));
    else if constexpr (std::is_floating_point_v<T>) return fix(x);
    else return x;
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    using T = typename B::value_type;
    const B inf(std::numeric_limits<T>::infinity());
    B r = xsimd::select(xsimd::isnan(x), B(static_cast<T>(nan)), x);
    r = xsimd::select(x == inf, B(pos<T>()), r);
    return xsimd::select(x == -inf, B(neg<T>()), r);
  }
};

// ---- complex parts -------------------------------------------------------------------------
struct real_fn {
  static constexpr const char* name = "real";
  template <class T>
  using input = T;
  template <class T>
  using result = real_t<T>;
  template <class T>
  static constexpr bool simd = simd_arith_v<T>;
  template <class T>
  TL_HDI real_t<T> operator()(T x) const {
    if constexpr (is_complex_v<T>) return x.re;
    else return x;
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    return x;
  }
};
struct imag_fn {
  static constexpr const char* name = "imag";
  template <class T>
  using input = T;
  template <class T>
  using result = real_t<T>;
  template <class T>
  static constexpr bool simd = false;
  template <class T>
  TL_HDI real_t<T> operator()(T x) const {
    static_assert(is_complex_v<T>, "tl: imag is only defined for complex tensors (torch raises the same)");
    return x.im;
  }
};
struct conj_fn : same_type_unary {
  static constexpr const char* name = "conj";
  template <class T>
  static constexpr bool simd = simd_arith_v<T>;
  template <class T>
  TL_HDI T operator()(T x) const {
    if constexpr (is_complex_v<T>) return tl::conj(x);
    else return x;
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    return x;
  }
};
/// angle: arg for complex; for reals 0 (x >= 0), pi (x < 0), NaN stays NaN (torch.angle).
struct angle_fn {
  static constexpr const char* name = "angle";
  template <class T>
  using input = std::conditional_t<is_complex_v<T>, T, to_floating_t<T>>;
  template <class T>
  using result = real_t<T>;
  template <class T>
  static constexpr bool simd = false;
  template <class T>
  TL_HDI real_t<T> operator()(T x) const {
    if constexpr (is_complex_v<T>) return tl::arg(x);
    else return std::isnan(x) ? x : (x < 0 ? std::numbers::pi_v<T> : T(0));
  }
};

/// Cast to U (complex to real keeps the real part, as torch does with a warning).
template <class U>
struct cast_fn {
  static constexpr const char* name = "astype";
  template <class T>
  using input = T;
  template <class T>
  using result = U;
  template <class T>
  static constexpr bool simd = std::is_same_v<T, U> && simd_arith_v<T>;
  template <class T>
  TL_HDI U operator()(T x) const {
    if constexpr (is_complex_v<T> && !is_complex_v<U>) return static_cast<U>(x.re);
    else if constexpr (is_complex_v<U> && !is_complex_v<T>) return U(static_cast<real_t<U>>(x));
    else return static_cast<U>(x);
  }
  template <class B>
  TL_INLINE B packet(const B& x) const {
    return x;
  }
};

// ---- binary ops ----------------------------------------------------------------------------
struct arith_binary {
  template <class T>
  using input = T;
  template <class T>
  using result = T;
  template <class T>
  static constexpr bool simd = simd_arith_v<T>;
};

/// a + b, a - b, a * b, each rounded once. On the device, float and double use the round-to-nearest
/// intrinsics, which nvcc never contracts into a fused multiply-add: a fused kernel then rounds
/// every operation as the host evaluator (and torch's eager kernels) do, bit for bit.
enum class arith_op { add, sub, mul };
template <arith_op Op, class T>
TL_HDI T rounded(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    if constexpr (Op == arith_op::add)
      return __fadd_rn(a, b);
    else if constexpr (Op == arith_op::sub)
      return __fsub_rn(a, b);
    else
      return __fmul_rn(a, b);
  } else if constexpr (std::is_same_v<T, double>) {
    if constexpr (Op == arith_op::add)
      return __dadd_rn(a, b);
    else if constexpr (Op == arith_op::sub)
      return __dsub_rn(a, b);
    else
      return __dmul_rn(a, b);
  }
#endif
  if constexpr (Op == arith_op::add)
    return a + b;
  else if constexpr (Op == arith_op::sub)
    return a - b;
  else
    return a * b;
}

struct add_fn : arith_binary {
  static constexpr const char* name = "add";
  template <class T>
  TL_HDI T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else
      return rounded<arith_op::add>(a, b);
  }
  template <class B>
  TL_INLINE B packet(const B& a, const B& b) const {
    return a + b;
  }
};
struct sub_fn : arith_binary {
  static constexpr const char* name = "sub";
  template <class T>
  TL_HDI T operator()(T a, T b) const {
    static_assert(!std::is_same_v<T, bool>, "tl: subtraction of bool tensors is not supported; use logical_xor");
    return rounded<arith_op::sub>(a, b);
  }
  template <class B>
  TL_INLINE B packet(const B& a, const B& b) const {
    return a - b;
  }
};
struct mul_fn : arith_binary {
  static constexpr const char* name = "mul";
  template <class T>
  TL_HDI T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else
      return rounded<arith_op::mul>(a, b);
  }
  template <class B>
  TL_INLINE B packet(const B& a, const B& b) const {
    return a * b;
  }
};
/// True division: integer operands divide as floats (torch's `/`).
struct div_fn {
  static constexpr const char* name = "div";
  template <class T>
  using input = to_floating_t<T>;
  template <class T>
  using result = T;
  template <class T>
  static constexpr bool simd = simd_float_v<T>;
  template <class T>
  TL_HDI T operator()(T a, T b) const { return a / b; }
  template <class B>
  TL_INLINE B packet(const B& a, const B& b) const {
    return a / b;
  }
};

/// Comparisons and logical ops give bool.
struct bool_binary {
  template <class T>
  using input = T;
  template <class T>
  using result = bool;
  template <class T>
  static constexpr bool simd = false;
};
#define TL_COMPARE(NAME, OP, ORDERED)                                                              \
  struct NAME##_fn : bool_binary {                                                                 \
    static constexpr const char* name = #NAME;                                                     \
    template <class T>                                                                             \
    TL_HDI bool operator()(T a, T b) const {                                                    \
      static_assert(!(ORDERED && is_complex_v<T>), "tl: complex numbers have no ordering (" #NAME ")"); \
      return a OP b;                                                                               \
    }                                                                                              \
  };
TL_COMPARE(eq, ==, false)
TL_COMPARE(ne, !=, false)
TL_COMPARE(lt, <, true)
TL_COMPARE(le, <=, true)
TL_COMPARE(gt, >, true)
TL_COMPARE(ge, >=, true)
#undef TL_COMPARE
struct logical_and_fn : bool_binary {
  static constexpr const char* name = "logical_and";
  template <class T>
  TL_HDI bool operator()(T a, T b) const { return (a != T(0)) && (b != T(0)); }
};
struct logical_or_fn : bool_binary {
  static constexpr const char* name = "logical_or";
  template <class T>
  TL_HDI bool operator()(T a, T b) const { return (a != T(0)) || (b != T(0)); }
};
struct logical_xor_fn : bool_binary {
  static constexpr const char* name = "logical_xor";
  template <class T>
  TL_HDI bool operator()(T a, T b) const { return (a != T(0)) != (b != T(0)); }
};

/// maximum / minimum propagate NaN (torch.maximum).
struct maximum_fn : arith_binary {
  static constexpr const char* name = "maximum";
  template <class T>
  TL_HDI T operator()(T a, T b) const {
    static_assert(!is_complex_v<T>, "tl: maximum is not defined for complex tensors");
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(a) || std::isnan(b)) return a + b;
    return a < b ? b : a;
  }
  template <class B>
  TL_INLINE B packet(const B& a, const B& b) const {
    if constexpr (simd_float_v<typename B::value_type>)
      return xsimd::select(xsimd::isnan(a) || xsimd::isnan(b), a + b, xsimd::max(a, b));
    else return xsimd::max(a, b);
  }
};
struct minimum_fn : arith_binary {
  static constexpr const char* name = "minimum";
  template <class T>
  TL_HDI T operator()(T a, T b) const {
    static_assert(!is_complex_v<T>, "tl: minimum is not defined for complex tensors");
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(a) || std::isnan(b)) return a + b;
    return b < a ? b : a;
  }
  template <class B>
  TL_INLINE B packet(const B& a, const B& b) const {
    if constexpr (simd_float_v<typename B::value_type>)
      return xsimd::select(xsimd::isnan(a) || xsimd::isnan(b), a + b, xsimd::min(a, b));
    else return xsimd::min(a, b);
  }
};

struct floating_binary {
  template <class T>
  using input = to_floating_t<T>;
  template <class T>
  using result = T;
  template <class T>
  static constexpr bool simd = simd_float_v<T>;
};
struct atan2_fn : floating_binary {
  static constexpr const char* name = "atan2";
  template <class T>
  TL_HDI T operator()(T a, T b) const {
    static_assert(!is_complex_v<T>, "tl: atan2 is not defined for complex tensors");
    return std::atan2(a, b);
  }
  template <class B>
  TL_INLINE B packet(const B& a, const B& b) const {
    return xsimd::atan2(a, b);
  }
};
struct hypot_fn : floating_binary {
  static constexpr const char* name = "hypot";
  template <class T>
  TL_HDI T operator()(T a, T b) const {
    static_assert(!is_complex_v<T>, "tl: hypot is not defined for complex tensors");
    return std::hypot(a, b);
  }
  template <class B>
  TL_INLINE B packet(const B& a, const B& b) const {
    return xsimd::hypot(a, b);
  }
};

template <class T>
TL_INLINE void check_int_divisor(const char* op, T b) {
  if (b == T(0)) throw value_error(cat_str("tl::", op, ": integer division by zero"));
}

/// fmod: C's fmod (result has the dividend's sign); integers use %, and a zero divisor throws.
struct fmod_fn {
  static constexpr const char* name = "fmod";
  template <class T>
  using input = T;
  template <class T>
  using result = T;
  template <class T>
  static constexpr bool simd = simd_float_v<T>;
  template <class T>
  TL_HDI T operator()(T a, T b) const {
    static_assert(!is_complex_v<T> && !std::is_same_v<T, bool>, "tl: fmod needs real, non-bool operands");
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);
    } else {
      check_int_divisor("fmod", b);
      if (b == T(-1)) return T(0);
      return a % b;
    }
  }
  template <class B>
  TL_INLINE B packet(const B& a, const B& b) const {
    return xsimd::fmod(a, b);
  }
};
/// remainder: Python's modulo (result has the divisor's sign), a - floor(a / b) * b.
struct remainder_fn {
  static constexpr const char* name = "remainder";
  template <class T>
  using input = T;
  template <class T>
  using result = T;
  template <class T>
  static constexpr bool simd = false;
  template <class T>
  TL_HDI T operator()(T a, T b) const {
    static_assert(!is_complex_v<T> && !std::is_same_v<T, bool>, "tl: remainder needs real, non-bool operands");
    if constexpr (std::is_floating_point_v<T>) {
      T r = std::fmod(a, b);
      if (r != T(0) && ((r < 0) != (b < 0))) r += b;
      else if (r == T(0)) r = std::copysign(T(0), b);
      return r;
    } else {
      check_int_divisor("remainder", b);
      if (b == T(-1)) return T(0);
      T r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
  }
};
/// pow: floating pow; integer base and exponent stay integer (negative exponents give 0 unless |base| == 1).
struct pow_fn {
  static constexpr const char* name = "pow";
  template <class T>
  using input = std::conditional_t<std::is_same_v<T, bool>, std::int64_t, T>;
  template <class T>
  using result = T;
  template <class T>
  static constexpr bool simd = simd_float_v<T>;
  template <class T>
  TL_HDI T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b < 0) return a == 1 ? T(1) : a == -1 ? ((b & 1) ? T(-1) : T(1)) : T(0);
      T r = 1, base = a;
      for (T e = b; e; e >>= 1) {
        if (e & 1) r = static_cast<T>(r * base);
        base = static_cast<T>(base * base);
      }
      return r;
    } else {
      using std::pow;
      return pow(a, b);
    }
  }
  template <class B>
  TL_INLINE B packet(const B& a, const B& b) const {
    return xsimd::pow(a, b);
  }
};
/// polar(abs, angle) -> complex.
struct polar_fn {
  static constexpr const char* name = "polar";
  template <class T>
  using input = to_floating_t<T>;
  template <class T>
  using result = complex<T>;
  template <class T>
  static constexpr bool simd = false;
  template <class T>
  TL_HDI complex<T> operator()(T r, T th) const {
    static_assert(std::is_floating_point_v<T>, "tl: polar needs real floating operands");
    return tl::polar(r, th);
  }
};

}  // namespace tl::detail
