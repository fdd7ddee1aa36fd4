#pragma once
/// @file simd_shuffle.hpp
/// @brief Lane shuffles between packets (detail header): zip / unzip of interleaved complex
/// values, the two-source permute they are built on, and the transpose of a square block.
///
/// `zip(re, im, lo, hi)` turns split (planar) real and imaginary packets into interleaved complex
/// values stored as lo, hi; `unzip` is its inverse. AVX and SSE use in-lane unpacks and one
/// 128-bit permute; AVX-512 one two-source permute per result; other targets go through memory.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "tl/core/simd.hpp"

#if defined(__AVX__) || defined(__SSE2__)
#include <immintrin.h>
#endif

#include "tl/core/config.hpp"

namespace tl::detail {

/// The lane indices src(i, n), i < 2 n, of a two-source permute, as the index type of the
/// permute instructions (src is a captureless lambda type).
template <class F, class I, std::size_t N>
constexpr std::array<I, 2 * N> pair_index() {
  std::array<I, 2 * N> r{};
  for (std::size_t i = 0; i < 2 * N; ++i) r[i] = static_cast<I>(F{}(i, N));
  return r;
}

/// (x, y) = lanes src(i, n) of the concatenation (a, b), for i < 2 n (n lanes per packet): one
/// two-source permute per result on AVX-512, else through memory (the lane shuffles on targets
/// without a dedicated form).
template <class V, class F>
TL_INLINE void permute_pair(const V& a, const V& b, V& x, V& y, F src) {
  using T = typename V::value_type;
  constexpr std::size_t n = V::size;
#if defined(__AVX512F__)
  if constexpr (simd_register_bytes<V>() == 64 && std::is_same_v<T, float>) {
    static constexpr auto idx = pair_index<F, std::int32_t, n>();
    x = _mm512_permutex2var_ps(a, _mm512_loadu_si512(idx.data()), b);
    y = _mm512_permutex2var_ps(a, _mm512_loadu_si512(idx.data() + n), b);
    return;
  } else if constexpr (simd_register_bytes<V>() == 64 && std::is_same_v<T, double>) {
    static constexpr auto idx = pair_index<F, std::int64_t, n>();
    x = _mm512_permutex2var_pd(a, _mm512_loadu_si512(idx.data()), b);
    y = _mm512_permutex2var_pd(a, _mm512_loadu_si512(idx.data() + n), b);
    return;
  }
#endif
  alignas(64) T in[2 * n], out[2 * n];
  a.store_unaligned(in);
  b.store_unaligned(in + n);
  for (std::size_t i = 0; i < 2 * n; ++i) out[i] = in[src(i, n)];
  x = V::load_unaligned(out);
  y = V::load_unaligned(out + n);
}

/// lo, hi = the lanes of a and b interleaved (a0 b0 a1 b1 ... across the whole register: lo holds
/// the first halves of a and b, hi the second halves).
template <class V>
TL_INLINE void zip(const V& a, const V& b, V& lo, V& hi) {
  using T = typename V::value_type;
  constexpr std::size_t bytes = simd_register_bytes<V>();
  if constexpr (false) {
  }
#if defined(__SSE2__)
  else if constexpr (bytes == 16) {
    if constexpr (std::is_same_v<T, float>) {
      lo = _mm_unpacklo_ps(a, b);
      hi = _mm_unpackhi_ps(a, b);
    } else {
      lo = _mm_unpacklo_pd(a, b);
      hi = _mm_unpackhi_pd(a, b);
    }
  }
#endif
#if defined(__AVX__)
  else if constexpr (bytes == 32) {
    if constexpr (std::is_same_v<T, float>) {
      const __m256 u = _mm256_unpacklo_ps(a, b), v = _mm256_unpackhi_ps(a, b);
      lo = _mm256_permute2f128_ps(u, v, 0x20);
      hi = _mm256_permute2f128_ps(u, v, 0x31);
    } else {
      const __m256d u = _mm256_unpacklo_pd(a, b), v = _mm256_unpackhi_pd(a, b);
      lo = _mm256_permute2f128_pd(u, v, 0x20);
      hi = _mm256_permute2f128_pd(u, v, 0x31);
    }
  }
#endif
  else {  // AVX-512 (one permute per result) and other targets
    permute_pair(a, b, lo, hi, [](std::size_t i, std::size_t n) { return i % 2 * n + i / 2; });
  }
}

/// even, odd = the even- and odd-indexed lanes of the concatenation (a, b): the inverse of zip.
template <class V>
TL_INLINE void unzip(const V& a, const V& b, V& even, V& odd) {
  using T = typename V::value_type;
  constexpr std::size_t bytes = simd_register_bytes<V>();
  if constexpr (false) {
  }
#if defined(__SSE2__)
  else if constexpr (bytes == 16) {
    if constexpr (std::is_same_v<T, float>) {
      even = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
      odd = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    } else {
      even = _mm_unpacklo_pd(a, b);
      odd = _mm_unpackhi_pd(a, b);
    }
  }
#endif
#if defined(__AVX__)
  else if constexpr (bytes == 32) {
    if constexpr (std::is_same_v<T, float>) {
      const __m256 lo = _mm256_permute2f128_ps(a, b, 0x20), hi = _mm256_permute2f128_ps(a, b, 0x31);
      even = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
      odd = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
    } else {
      const __m256d lo = _mm256_permute2f128_pd(a, b, 0x20), hi = _mm256_permute2f128_pd(a, b, 0x31);
      even = _mm256_unpacklo_pd(lo, hi);
      odd = _mm256_unpackhi_pd(lo, hi);
    }
  }
#endif
  else {  // AVX-512 (one permute per result) and other targets
    permute_pair(a, b, even, odd, [](std::size_t i, std::size_t n) { return 2 * (i % n) + i / n; });
  }
}

/// One round of transpose_square: t[2 i], t[2 i + 1] = zip(r[i], r[i + size / 2]), back into r
/// (fold expressions, so that every index is a constant and the block stays in registers).
template <class V, std::size_t... I>
TL_INLINE void transpose_round(V (&r)[V::size], std::index_sequence<I...>) {
  constexpr std::size_t h = V::size / 2;
  V t[V::size];
  (zip(r[I], r[I + h], t[2 * I], t[2 * I + 1]), ...);
  ((r[2 * I] = t[2 * I], r[2 * I + 1] = t[2 * I + 1]), ...);
}

/// Transposes the V::size x V::size block whose rows are r[0 .. V::size): afterwards r[j] holds
/// what was column j. log2(V::size) rounds of zip, row i with row i + size / 2 (the perfect
/// shuffle: each round moves one bit of the column index into the row index).
template <class V>
TL_INLINE void transpose_square(V (&r)[V::size]) {
  constexpr std::size_t n = V::size;
  static_assert((n & (n - 1)) == 0, "tl: transpose_square needs a power-of-two lane count");
  if constexpr (n > 1) {
    [&]<std::size_t... R>(std::index_sequence<R...>) {
      ((static_cast<void>(R), transpose_round(r, std::make_index_sequence<n / 2>{})), ...);
    }(std::make_index_sequence<std::bit_width(n) - 1>{});
  }
}

}  // namespace tl::detail
