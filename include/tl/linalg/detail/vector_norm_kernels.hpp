#pragma once
/// @file vector_norm_kernels.hpp
/// @brief Internal header: norms of one contiguous run of values, the kernels behind
/// tl::linalg::vector_norm. The 2-norm is a SIMD sum of squares that is accepted when it can
/// have neither overflowed nor lost digits to underflow; otherwise it is recomputed with the
/// values scaled by a power of two near 1 / max|x| (exact), as LAPACK's nrm2 guards it.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "tl/core/simd.hpp"

#include "tl/core/complex.hpp"
#include "tl/core/dtype.hpp"
#include "tl/ops/detail/loops.hpp"

namespace tl::linalg::detail {

/// Horizontal sum of a packet (in lane order).
template <class B>
typename B::value_type hsum_lanes(const B& b) {
  alignas(64) typename B::value_type t[B::size];
  b.store_aligned(t);
  typename B::value_type s = 0;
  for (std::size_t i = 0; i < B::size; ++i) s += t[i];
  return s;
}

/// sum of (x[i] * s1 * s2)^2 over a contiguous real array (s1 = s2 = 1: the plain sum of squares).
/// Four independent packet accumulators; the remainder in scalar code.
template <class R, bool Scaled>
R sumsq_run(const R* p, index_t n, R s1 = 1, R s2 = 1) {
  using B = xsimd::batch<R>;
  constexpr index_t W = static_cast<index_t>(B::size);
  B a0(R(0)), a1(R(0)), a2(R(0)), a3(R(0));
  const B v1(s1), v2(s2);
  auto sc = [&](B x) {
    if constexpr (Scaled) return (x * v1) * v2;
    else return x;
  };
  index_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    const B x0 = sc(B::load_unaligned(p + i)), x1 = sc(B::load_unaligned(p + i + W));
    const B x2 = sc(B::load_unaligned(p + i + 2 * W)), x3 = sc(B::load_unaligned(p + i + 3 * W));
    a0 = tl::detail::simd_fma(x0, x0, a0);
    a1 = tl::detail::simd_fma(x1, x1, a1);
    a2 = tl::detail::simd_fma(x2, x2, a2);
    a3 = tl::detail::simd_fma(x3, x3, a3);
  }
  for (; i + W <= n; i += W) {
    const B x = sc(B::load_unaligned(p + i));
    a0 = tl::detail::simd_fma(x, x, a0);
  }
  R s = hsum_lanes((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) {
    const R x = Scaled ? (p[i] * s1) * s2 : p[i];
    s = std::fma(x, x, s);
  }
  return s;
}

/// max |x[i]| over a contiguous real array; NaN if any value is NaN.
template <class R>
R amax_run(const R* p, index_t n) {
  using B = xsimd::batch<R>;
  constexpr index_t W = static_cast<index_t>(B::size);
  B m(R(0));
  B nan_seen(R(0));
  index_t i = 0;
  for (; i + W <= n; i += W) {
    const B x = xsimd::abs(B::load_unaligned(p + i));
    nan_seen = nan_seen + (x - x);  // NaN - NaN and inf - inf are NaN; finite - finite is 0
    m = xsimd::max(m, x);
  }
  alignas(64) R t[B::size];
  m.store_aligned(t);
  R r = 0;
  for (std::size_t k = 0; k < B::size; ++k) r = std::max(r, t[k]);
  bool nan = false;
  nan_seen.store_aligned(t);
  for (std::size_t k = 0; k < B::size; ++k) nan = nan || std::isnan(t[k]);
  for (; i < n; ++i) {
    const R x = std::fabs(p[i]);
    nan = nan || std::isnan(x);
    r = std::max(r, x);
  }
  // inf - inf gave NaN above: only report NaN when a value really is NaN.
  if (nan) {
    for (index_t k = 0; k < n; ++k)
      if (std::isnan(p[k])) return p[k];
  }
  return r;
}

/// Elements per task of the chunked (multi-threaded) 2-norm of one long run. Fixed, so the
/// result does not depend on the thread count.
inline constexpr index_t nrm2_chunk = index_t(1) << 15;

/// Sum of f(chunk) over the fixed chunks of [0, n), the chunks computed in parallel when there
/// are several, the partial results added in order.
template <class R, class F>
R chunked_sum(index_t n, F&& f) {
  const index_t nc = (n + nrm2_chunk - 1) / nrm2_chunk;
  if (nc <= 1) return f(index_t(0), n);
  std::vector<R> part(static_cast<std::size_t>(nc));
  tl::detail::parallel_ranges(nc, 1, [&](index_t lo, index_t hi) {
    for (index_t c = lo; c < hi; ++c)
      part[static_cast<std::size_t>(c)] = f(c * nrm2_chunk, std::min(n, (c + 1) * nrm2_chunk));
  });
  R s = 0;
  for (R v : part) s += v;
  return s;
}

/// sum of x[i]^2 of a float array accumulated in double (neither overflows nor underflows).
inline double sumsq_run_f2d(const float* p, index_t n) {
  using B = xsimd::batch<double>;
  constexpr index_t W = static_cast<index_t>(B::size);
  B a0(0.0), a1(0.0), a2(0.0), a3(0.0);
  index_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    const B x0 = B::load_unaligned(p + i), x1 = B::load_unaligned(p + i + W);
    const B x2 = B::load_unaligned(p + i + 2 * W), x3 = B::load_unaligned(p + i + 3 * W);
    a0 = tl::detail::simd_fma(x0, x0, a0);
    a1 = tl::detail::simd_fma(x1, x1, a1);
    a2 = tl::detail::simd_fma(x2, x2, a2);
    a3 = tl::detail::simd_fma(x3, x3, a3);
  }
  double s = hsum_lanes((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) s = std::fma(double(p[i]), double(p[i]), s);
  return s;
}

/// The 2-norm of a contiguous real array, safe from overflow and underflow: float is summed in
/// double (whose range holds every float square and sum); double is scaled when needed.
template <class R>
R nrm2_run(const R* p, index_t n, bool parallel) {
  if constexpr (std::is_same_v<R, float>) {
    auto part = [&](index_t lo, index_t hi) { return sumsq_run_f2d(p + lo, hi - lo); };
    return static_cast<float>(std::sqrt(parallel ? chunked_sum<double>(n, part) : part(0, n)));
  }
  auto plain = [&](index_t lo, index_t hi) { return sumsq_run<R, false>(p + lo, hi - lo); };
  const R s = parallel ? chunked_sum<R>(n, plain) : plain(0, n);
  if (std::isnan(s)) return s;
  // Accepted unless a square overflowed, or squares below the normal range (each off by at most
  // the smallest subnormal) could be a visible part of the sum.
  if (s <= std::numeric_limits<R>::max() && s >= static_cast<R>(n) * std::numeric_limits<R>::min())
    return std::sqrt(s);
  R m = 0;
  if (parallel) {
    const index_t nc = (n + nrm2_chunk - 1) / nrm2_chunk;
    std::vector<R> part(static_cast<std::size_t>(std::max<index_t>(nc, 1)), R(0));
    tl::detail::parallel_ranges(nc, 1, [&](index_t lo, index_t hi) {
      for (index_t c = lo; c < hi; ++c)
        part[static_cast<std::size_t>(c)] =
            amax_run(p + c * nrm2_chunk, std::min(n, (c + 1) * nrm2_chunk) - c * nrm2_chunk);
    });
    for (R v : part) m = std::max(m, v);
  } else {
    m = amax_run(p, n);
  }
  if (m == R(0) || std::isinf(m)) return m;
  // Scale by 2^-e with m * 2^-e in [1, 2): exact; split in two factors, each representable.
  const int e = std::ilogb(m);
  const int e1 = -e / 2, e2 = -e - e1;
  const R s1 = std::ldexp(R(1), e1), s2 = std::ldexp(R(1), e2);
  auto scaled = [&](index_t lo, index_t hi) { return sumsq_run<R, true>(p + lo, hi - lo, s1, s2); };
  const R t = parallel ? chunked_sum<R>(n, scaled) : scaled(0, n);
  return std::ldexp(std::sqrt(t), e);
}

/// |x| of a real or complex value (hypot for complex).
template <class T>
real_t<T> abs_value(const T& x) {
  if constexpr (is_complex_v<T>) return std::hypot(x.re, x.im);
  else return std::fabs(x);
}

/// Norms other than 2 of a contiguous run of values (real or complex); `ord` is finite and not 2,
/// or +-inf. The run is non-empty where the order has no identity (checked by the caller).
template <class T>
real_t<T> other_norm_run(const T* p, index_t n, double ord) {
  using R = real_t<T>;
  using Acc = double;  // sums of float values are accumulated in double
  if (ord == std::numeric_limits<double>::infinity()) {
    if constexpr (!is_complex_v<T>) return amax_run(p, n);
    R m = 0;
    for (index_t i = 0; i < n; ++i) {
      const R a = abs_value(p[i]);
      if (std::isnan(a)) return a;
      m = std::max(m, a);
    }
    return m;
  }
  if (ord == -std::numeric_limits<double>::infinity()) {
    R m = std::numeric_limits<R>::infinity();
    for (index_t i = 0; i < n; ++i) {
      const R a = abs_value(p[i]);
      if (std::isnan(a)) return a;
      m = std::min(m, a);
    }
    return m;
  }
  if (ord == 0) {
    index_t c = 0;
    for (index_t i = 0; i < n; ++i) c += p[i] != T(0);
    return static_cast<R>(c);
  }
  if (ord == 1) {
    Acc s = 0;
    for (index_t i = 0; i < n; ++i) s += abs_value(p[i]);
    return static_cast<R>(s);
  }
  const R q = static_cast<R>(ord);
  if (ord > 0) {
    // (sum (|x| / m)^p)^(1/p) * m with m = max |x|: no overflow or underflow of the powers.
    const R m = other_norm_run(p, n, std::numeric_limits<double>::infinity());
    if (!(m > R(0)) || std::isinf(m)) return m;
    Acc s = 0;
    for (index_t i = 0; i < n; ++i) s += std::pow(Acc(abs_value(p[i]) / m), Acc(q));
    return static_cast<R>(m * std::pow(s, Acc(1) / Acc(q)));
  }
  Acc s = 0;
  for (index_t i = 0; i < n; ++i) s += std::pow(Acc(abs_value(p[i])), Acc(q));
  return static_cast<R>(std::pow(s, Acc(1) / Acc(q)));
}

/// Any order of one contiguous run.
template <class T>
real_t<T> norm_run(const T* p, index_t n, double ord, bool parallel) {
  using R = real_t<T>;
  if (ord == 2) {
    // A complex run is a real run of twice the length: |z|^2 = re^2 + im^2.
    if constexpr (is_complex_v<T>) return nrm2_run(reinterpret_cast<const R*>(p), 2 * n, parallel);
    else return nrm2_run(p, n, parallel);
  }
  return other_norm_run(p, n, ord);
}

}  // namespace tl::linalg::detail
