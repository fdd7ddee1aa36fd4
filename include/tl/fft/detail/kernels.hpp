#pragma once
/// @file kernels.hpp
/// @brief Internal header: the FFT butterflies (radix 2, 3, 4, 5, 7, 8, 11, 13) and one Stockham
/// stage, written once for a SIMD packet (xsimd) or a scalar, on split (planar) complex data.
///
/// Layout: a signal of n complex elements with L lanes (L independent signals transformed
/// together) stores the real parts of element e at re[e * L + lane], the imaginary parts likewise
/// in im. Every kernel computes the forward DFT (sign -1); the inverse is obtained by swapping
/// the real and imaginary arrays on the way in and out (IDFT(x) = swap(DFT(swap(x)))).
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "tl/core/simd.hpp"
#include "tl/core/simd_shuffle.hpp"

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "tl/core/config.hpp"

namespace tl::fft::detail {

/// Packet type used by the kernels for real type T: the widest register of the build.
template <class T>
using packet = xsimd::batch<T>;
/// The next narrower packets (T itself where the build has none): stages whose contiguous run is
/// shorter than a full packet, and the tails of longer runs, use them before falling back to
/// scalars. AVX-512 builds: 512, 256, 128 bits; AVX builds: 256, 128; SSE2: 128 only.
#if defined(__AVX512F__) && defined(__AVX2__)
template <class T>
using half_packet = xsimd::batch<T, xsimd::avx2>;
template <class T>
using quarter_packet = xsimd::batch<T, xsimd::sse2>;
#elif defined(__AVX__)
template <class T>
using half_packet = xsimd::batch<T, xsimd::sse2>;
template <class T>
using quarter_packet = T;
#else
template <class T>
using half_packet = T;
template <class T>
using quarter_packet = T;
#endif

/// Lanes of a packet type (1 for a scalar).
template <class V>
inline constexpr index_t lanes_of = [] {
  if constexpr (std::is_floating_point_v<V>)
    return index_t{1};
  else
    return static_cast<index_t>(V::size);
}();

/// The widest packet of at most 256 bits: the half packet on AVX-512 builds, whose in-lane
/// shuffles are cheaper than AVX-512's two-register permutes and whose batches are half as large.
template <class T>
using packet256 = std::conditional_t<(lanes_of<packet<T>> * sizeof(T) > 32), half_packet<T>, packet<T>>;

/// Calls f(std::type_identity<V>{}, from, to) with the widest packet type V whose width fits the
/// rest of [j0, j1), for the largest multiple of that width, then narrower ones, then scalars.
template <class T, class F>
TL_INLINE void for_each_width(index_t j0, index_t j1, F&& f) {
  index_t j = j0;
  auto take = [&]<class V>(std::type_identity<V> tag) {
    constexpr index_t w = lanes_of<V>;
    const index_t e = j + (j1 - j) / w * w;
    if (e > j) f(tag, j, e);
    j = e;
  };
  take(std::type_identity<packet<T>>{});
  if constexpr (!std::is_same_v<half_packet<T>, T>) take(std::type_identity<half_packet<T>>{});
  if constexpr (!std::is_same_v<quarter_packet<T>, T>) take(std::type_identity<quarter_packet<T>>{});
  take(std::type_identity<T>{});
}

// pair_index, permute_pair, zip and unzip live in tl/core/simd_shuffle.hpp (the GEMM's complex
// kernel stores through zip too).
using tl::detail::pair_index;
using tl::detail::permute_pair;
using tl::detail::unzip;
using tl::detail::zip;

/// The lanes of v in reverse order.
template <class V>
TL_INLINE V reverse_lanes(const V& v) {
  using T = typename V::value_type;
  constexpr std::size_t bytes = tl::detail::simd_register_bytes<V>();
  if constexpr (false) {
  }
#if defined(__SSE2__)
  else if constexpr (bytes == 16) {
    if constexpr (std::is_same_v<T, float>)
      return V(_mm_shuffle_ps(v, v, _MM_SHUFFLE(0, 1, 2, 3)));
    else
      return V(_mm_shuffle_pd(v, v, 1));
  }
#endif
#if defined(__AVX__)
  else if constexpr (bytes == 32) {
    if constexpr (std::is_same_v<T, float>) {
      const __m256 x = _mm256_permute2f128_ps(v, v, 1);
      return V(_mm256_permute_ps(x, _MM_SHUFFLE(0, 1, 2, 3)));
    } else {
      const __m256d x = _mm256_permute2f128_pd(v, v, 1);
      return V(_mm256_permute_pd(x, 0x5));
    }
  }
#endif
  else {  // AVX-512 (one two-source permute) and other targets
    V x, y;
    permute_pair(v, v, x, y, [](std::size_t i, std::size_t n) { return (n - 1 - i % n); });
    return x;
  }
}

/// Interleaves R packets (R a power of two): afterwards the R registers, stored one after the
/// other, hold a[0][0], a[1][0], ..., a[R-1][0], a[0][1], ... (element r of lane p at p R + r).
/// log2(R) rounds of zips pairing register i with i + R / 2. For R equal to the lane count this
/// is a transpose of the R x R tile; AVX float 8 x 8 and double 4 x 4 use shorter in-lane forms.
template <int R, class V>
TL_INLINE void interleave_regs(V* a) {
  static_assert(R >= 2 && (R & (R - 1)) == 0, "tl::fft: interleave_regs needs a power-of-two count");
  using T = typename V::value_type;
  [[maybe_unused]] constexpr std::size_t bytes = tl::detail::simd_register_bytes<V>();
  // Whether a tile form below handles this case (the rounds of zips at the end do the rest).
  constexpr bool tile =
#if defined(__AVX__)
      (bytes == 32 && ((std::is_same_v<T, float> && R == 8) || (std::is_same_v<T, double> && R == 4))) ||
#endif
#if defined(__AVX512F__)
      (bytes == 64 && ((std::is_same_v<T, double> && R == 8) || (std::is_same_v<T, float> && R == 16))) ||
#endif
      false;
#if defined(__AVX__)
  if constexpr (bytes == 32 && std::is_same_v<T, float> && R == 8) {
    __m256 t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_ps(a[i], a[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps(a[i], a[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
      u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
      u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
      u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
      u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; ++i) {
      a[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
      a[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
    }
    return;
  } else if constexpr (bytes == 32 && std::is_same_v<T, double> && R == 4) {
    const __m256d t0 = _mm256_unpacklo_pd(a[0], a[1]), t1 = _mm256_unpackhi_pd(a[0], a[1]);
    const __m256d t2 = _mm256_unpacklo_pd(a[2], a[3]), t3 = _mm256_unpackhi_pd(a[2], a[3]);
    a[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    a[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    a[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    a[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
    return;
  }
#endif
#if defined(__AVX512F__)
  // Full 64-byte tile transposes from in-lane unpacks and 128-bit block shuffles: about twice as
  // fast here as rounds of two-source permutes (8 x 8 doubles: 4.7 against 9.6 ns).
  if constexpr (bytes == 64 && std::is_same_v<T, double> && R == 8) {
    __m512d t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm512_unpacklo_pd(a[i], a[i + 1]);
      t[i + 1] = _mm512_unpackhi_pd(a[i], a[i + 1]);
    }
    for (int h = 0; h < 8; h += 4) {
      u[h] = _mm512_shuffle_f64x2(t[h], t[h + 2], 0x88);
      u[h + 1] = _mm512_shuffle_f64x2(t[h], t[h + 2], 0xdd);
      u[h + 2] = _mm512_shuffle_f64x2(t[h + 1], t[h + 3], 0x88);
      u[h + 3] = _mm512_shuffle_f64x2(t[h + 1], t[h + 3], 0xdd);
    }
    for (int c = 0; c < 4; ++c) {  // u[c], u[c + 4]: rows 0-3, 4-7 of columns 0, 2, 1, 3 (+ 4 in the high half)
      const int col = (c % 2) * 2 + c / 2;  // u order: 0, 2, 1, 3
      a[col] = _mm512_shuffle_f64x2(u[c], u[c + 4], 0x88);
      a[col + 4] = _mm512_shuffle_f64x2(u[c], u[c + 4], 0xdd);
    }
    return;
  } else if constexpr (bytes == 64 && std::is_same_v<T, float> && R == 16) {
    __m512 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
      t[i] = _mm512_unpacklo_ps(a[i], a[i + 1]);
      t[i + 1] = _mm512_unpackhi_ps(a[i], a[i + 1]);
    }
    for (int j = 0; j < 16; j += 4) {  // u[j + c]: rows j..j+3 of column 4 L + c in 128-bit lane L
      const __m512d t0 = _mm512_castps_pd(t[j]), t1 = _mm512_castps_pd(t[j + 1]);
      const __m512d t2 = _mm512_castps_pd(t[j + 2]), t3 = _mm512_castps_pd(t[j + 3]);
      u[j] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
      u[j + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
      u[j + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
      u[j + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
    }
    for (int c = 0; c < 4; ++c) {  // a 4 x 4 transpose of 128-bit blocks
      const __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44), v1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xee);
      const __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44);
      const __m512 v3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xee);
      a[c] = _mm512_shuffle_f32x4(v0, v2, 0x88);
      a[4 + c] = _mm512_shuffle_f32x4(v0, v2, 0xdd);
      a[8 + c] = _mm512_shuffle_f32x4(v1, v3, 0x88);
      a[12 + c] = _mm512_shuffle_f32x4(v1, v3, 0xdd);
    }
    return;
  }
#endif
  if constexpr (!tile) {
    for (int round = 1; round < R; round *= 2) {
      V b[R];
      for (int i = 0; i < R / 2; ++i) zip(a[i], a[i + R / 2], b[2 * i], b[2 * i + 1]);
      for (int i = 0; i < R; ++i) a[i] = b[i];
    }
  }
}

template <class V, class T>
TL_INLINE V load_from(const T* p) {
  if constexpr (std::is_same_v<V, T>)
    return *p;
  else
    return V::load_unaligned(p);
}
template <class V, class T>
TL_INLINE void store_to(T* p, const V& v) {
  if constexpr (std::is_same_v<V, T>)
    *p = v;
  else
    v.store_unaligned(p);
}
template <class V, class T>
TL_INLINE V splat(T x) {
  if constexpr (std::is_same_v<V, T>)
    return x;
  else
    return V(x);
}
/// a * b + c (fused on packets; a plain expression on scalars so that a build without FMA
/// hardware does not call a library fma).
template <class V>
TL_INLINE V fmadd(const V& a, const V& b, const V& c) {
  if constexpr (std::is_floating_point_v<V>)
    return a * b + c;
  else
    return tl::detail::simd_fma(a, b, c);
}
/// a * b - c.
template <class V>
TL_INLINE V fmsub(const V& a, const V& b, const V& c) {
  if constexpr (std::is_floating_point_v<V>)
    return a * b - c;
  else
    return tl::detail::simd_fms(a, b, c);
}

/// dst[q * ds + l] = src[l * ss + q] for l, q < W (W = the lanes of packet type P): a W x W tile
/// transpose in registers (interleave_regs), element by element on a scalar build.
template <class P, class T>
TL_INLINE void transpose_tile(const T* src, index_t ss, T* dst, index_t ds) {
  constexpr int W = static_cast<int>(lanes_of<P>);
  if constexpr (W >= 2) {
    P r[W];
    for (int i = 0; i < W; ++i) r[i] = P::load_unaligned(src + i * ss);
    interleave_regs<W>(r);
    for (int i = 0; i < W; ++i) r[i].store_unaligned(dst + i * ds);
  } else {
    dst[0] = src[0];
  }
}

/// Cosines and sines of 2*pi*j*k/R for odd radices, j, k in 1..(R-1)/2, computed in long double.
template <class T, int R>
struct odd_radix_table {
  static constexpr int h = (R - 1) / 2;
  T c[h][h], s[h][h];
  odd_radix_table() {
    const long double two_pi = 6.283185307179586476925286766559005768L;
    for (int k = 1; k <= h; ++k)
      for (int j = 1; j <= h; ++j) {
        const long double a = two_pi * static_cast<long double>((j * k) % R) / R;
        c[k - 1][j - 1] = static_cast<T>(std::cos(a));
        s[k - 1][j - 1] = static_cast<T>(std::sin(a));
      }
  }
  static const odd_radix_table& get() {
    static const odd_radix_table t;
    return t;
  }
};

/// In-register forward DFT of R points (re[k], im[k]); `tab` is the odd-radix table for odd R.
template <int R, class V, class T>
TL_INLINE void dft_points(V (&re)[R], V (&im)[R], const odd_radix_table<T, (R % 2 ? R : 3)>* tab) {
  if constexpr (R == 2) {
    const V r0 = re[0], i0 = im[0];
    re[0] = r0 + re[1];
    im[0] = i0 + im[1];
    re[1] = r0 - re[1];
    im[1] = i0 - im[1];
  } else if constexpr (R == 4) {
    const V t0r = re[0] + re[2], t0i = im[0] + im[2];
    const V t1r = re[0] - re[2], t1i = im[0] - im[2];
    const V t2r = re[1] + re[3], t2i = im[1] + im[3];
    const V t3r = re[1] - re[3], t3i = im[1] - im[3];
    re[0] = t0r + t2r;
    im[0] = t0i + t2i;
    re[2] = t0r - t2r;
    im[2] = t0i - t2i;
    re[1] = t1r + t3i;  // t1 + (-i) t3
    im[1] = t1i - t3r;
    re[3] = t1r - t3i;
    im[3] = t1i + t3r;
  } else if constexpr (R == 8) {
    V er[4] = {re[0], re[2], re[4], re[6]}, ei[4] = {im[0], im[2], im[4], im[6]};
    V orr[4] = {re[1], re[3], re[5], re[7]}, oi[4] = {im[1], im[3], im[5], im[7]};
    dft_points<4, V, T>(er, ei, nullptr);
    dft_points<4, V, T>(orr, oi, nullptr);
    const V h = splat<V>(static_cast<T>(0.707106781186547524400844362104849039L));
    {  // o1 *= (1 - i) / sqrt(2)
      const V x = orr[1], y = oi[1];
      orr[1] = (x + y) * h;
      oi[1] = (y - x) * h;
    }
    {  // o2 *= -i
      const V x = orr[2];
      orr[2] = oi[2];
      oi[2] = -x;
    }
    {  // o3 *= (-1 - i) / sqrt(2)
      const V x = orr[3], y = oi[3];
      orr[3] = (y - x) * h;
      oi[3] = -(x + y) * h;
    }
    for (int k = 0; k < 4; ++k) {
      re[k] = er[k] + orr[k];
      im[k] = ei[k] + oi[k];
      re[k + 4] = er[k] - orr[k];
      im[k + 4] = ei[k] - oi[k];
    }
  } else if constexpr (R == 16) {
    // 16 = 4 x 4: DFT4 over n1 of x[4 n1 + n2] for each n2, twiddles w16^(n2 k1), DFT4 over n2;
    // X[k1 + 4 k2] is output k2 of the k1-th second-round DFT.
    const T c1 = static_cast<T>(0.923879532511286756128183189396788933L);  // cos(pi / 8)
    const T s1 = static_cast<T>(0.382683432365089771728459984030398867L);  // sin(pi / 8)
    const V h = splat<V>(static_cast<T>(0.707106781186547524400844362104849039L));
    V ar[4][4], ai[4][4];  // [n2][k1]
    for (int n2 = 0; n2 < 4; ++n2) {
      V tr[4] = {re[n2], re[n2 + 4], re[n2 + 8], re[n2 + 12]};
      V ti[4] = {im[n2], im[n2 + 4], im[n2 + 8], im[n2 + 12]};
      dft_points<4, V, T>(tr, ti, nullptr);
      for (int k1 = 0; k1 < 4; ++k1) {
        ar[n2][k1] = tr[k1];
        ai[n2][k1] = ti[k1];
      }
    }
    // (x + i y) * exp(-2 pi i e / 16) for e = n2 k1 in {1, 2, 3, 4, 6, 9}.
    const auto rot = [&](V& x, V& y, T c, T sn) {  // * (c - i sn)
      const V cx = splat<V>(c), sx = splat<V>(sn);
      const V nx = fmadd(x, cx, y * sx);
      y = fmsub(y, cx, x * sx);
      x = nx;
    };
    rot(ar[1][1], ai[1][1], c1, s1);
    rot(ar[1][3], ai[1][3], s1, c1);
    rot(ar[3][1], ai[3][1], s1, c1);
    rot(ar[3][3], ai[3][3], -c1, -s1);
    {  // e = 2: * (1 - i) / sqrt(2)
      for (auto [n2, k1] : {std::pair{1, 2}, std::pair{2, 1}}) {
        const V x = ar[n2][k1], y = ai[n2][k1];
        ar[n2][k1] = (x + y) * h;
        ai[n2][k1] = (y - x) * h;
      }
    }
    {  // e = 4: * -i
      const V x = ar[2][2];
      ar[2][2] = ai[2][2];
      ai[2][2] = -x;
    }
    {  // e = 6: * (-1 - i) / sqrt(2)
      for (auto [n2, k1] : {std::pair{2, 3}, std::pair{3, 2}}) {
        const V x = ar[n2][k1], y = ai[n2][k1];
        ar[n2][k1] = (y - x) * h;
        ai[n2][k1] = -(x + y) * h;
      }
    }
    for (int k1 = 0; k1 < 4; ++k1) {
      V tr[4] = {ar[0][k1], ar[1][k1], ar[2][k1], ar[3][k1]};
      V ti[4] = {ai[0][k1], ai[1][k1], ai[2][k1], ai[3][k1]};
      dft_points<4, V, T>(tr, ti, nullptr);
      for (int k2 = 0; k2 < 4; ++k2) {
        re[k1 + 4 * k2] = tr[k2];
        im[k1 + 4 * k2] = ti[k2];
      }
    }
  } else {
    static_assert(R % 2 == 1, "tl::fft: unsupported radix");
    constexpr int h = (R - 1) / 2;
    V ur[h], ui[h], vr[h], vi[h];
    V y0r = re[0], y0i = im[0];
    for (int j = 1; j <= h; ++j) {
      ur[j - 1] = re[j] + re[R - j];
      ui[j - 1] = im[j] + im[R - j];
      vr[j - 1] = re[j] - re[R - j];
      vi[j - 1] = im[j] - im[R - j];
      y0r = y0r + ur[j - 1];
      y0i = y0i + ui[j - 1];
    }
    const V a0r = re[0], a0i = im[0];
    re[0] = y0r;
    im[0] = y0i;
    for (int k = 1; k <= h; ++k) {
      V ar = a0r, ai = a0i, br = splat<V>(T(0)), bi = splat<V>(T(0));
      for (int j = 0; j < h; ++j) {
        const V c = splat<V>(tab->c[k - 1][j]), s = splat<V>(tab->s[k - 1][j]);
        ar = fmadd(c, ur[j], ar);
        ai = fmadd(c, ui[j], ai);
        br = fmadd(s, vr[j], br);
        bi = fmadd(s, vi[j], bi);
      }
      // y_k = A - iB, y_{R-k} = A + iB
      re[k] = ar + bi;
      im[k] = ai - br;
      re[R - k] = ar - bi;
      im[R - k] = ai + br;
    }
  }
}

/// The per-stage twiddles of a Stockham stage: w[p * (R - 1) + r - 1] = exp(-2 pi i p r / (R m)).
template <class T>
struct stage_twiddles {
  const T* re;
  const T* im;
  /// The same twiddles laid out [r - 1][p] (first stage only, else null): packets over p.
  const T* re_by_r = nullptr;
  const T* im_by_r = nullptr;
};


/// One radix-R butterfly column of a Stockham stage on packets or scalars V:
/// y[j + s (p R + r)] = w^(p r) * sum_k x[j + s (p + k m)] e^(-2 pi i r k / R).
template <int R, class V, class T>
TL_INLINE void stage_column(index_t m, index_t s, index_t p, index_t j, const T* xr, const T* xi, T* yr, T* yi,
                            const V* wr, const V* wi, const odd_radix_table<T, (R % 2 ? R : 3)>* tab) {
  V ar[R], ai[R];
  for (int k = 0; k < R; ++k) {
    const index_t off = j + s * (p + k * m);
    ar[k] = load_from<V>(xr + off);
    ai[k] = load_from<V>(xi + off);
  }
  dft_points<R, V, T>(ar, ai, tab);
  const index_t o = j + s * p * R;
  store_to(yr + o, ar[0]);
  store_to(yi + o, ai[0]);
  for (int r = 1; r < R; ++r) {
    store_to(yr + o + s * r, fmsub(ar[r], wr[r - 1], ai[r] * wi[r - 1]));
    store_to(yi + o + s * r, fmadd(ar[r], wi[r - 1], ai[r] * wr[r - 1]));
  }
}

/// Split loads from planar arrays (re, im): element e of a line, a packet V of consecutive ones.
template <class T>
struct split_source {
  const T* re;
  const T* im;
  template <class V>
  TL_INLINE void operator()(index_t e, V& r, V& i) const {
    r = load_from<V>(re + e);
    i = load_from<V>(im + e);
  }
};
/// Loads from interleaved complex values (re, im, re, im, ...), split into packets; `swap`
/// exchanges the parts (the inverse transform runs the forward kernels on swapped data).
template <class T>
struct interleaved_source {
  const T* z;
  bool swap;
  template <class V>
  TL_INLINE void operator()(index_t e, V& r, V& i) const {
    V a, b;
    if constexpr (std::is_same_v<V, T>) {
      a = z[2 * e];
      b = z[2 * e + 1];
    } else {
      unzip(V::load_unaligned(z + 2 * e), V::load_unaligned(z + 2 * e + lanes_of<V>), a, b);
    }
    r = swap ? b : a;
    i = swap ? a : b;
  }
};
/// Split stores to planar arrays.
template <class T>
struct split_sink {
  T* re;
  T* im;
  template <class V>
  TL_INLINE void operator()(index_t e, const V& r, const V& i) const {
    store_to(re + e, r);
    store_to(im + e, i);
  }
};
/// Stores to interleaved complex values, each part times `scale`; `swap` as in interleaved_source.
template <class T>
struct interleaved_sink {
  T* z;
  bool swap;
  T scale;
  template <class V>
  TL_INLINE void operator()(index_t e, const V& r0, const V& i0) const {
    const V sc = splat<V>(scale);
    const V r = (swap ? i0 : r0) * sc, i = (swap ? r0 : i0) * sc;
    if constexpr (std::is_same_v<V, T>) {
      z[2 * e] = r;
      z[2 * e + 1] = i;
    } else {
      V lo, hi;
      zip(r, i, lo, hi);
      lo.store_unaligned(z + 2 * e);
      hi.store_unaligned(z + 2 * e + lanes_of<V>);
    }
  }
};

/// The first stage of a single line (inner length 1) with packets over the butterfly index p, for
/// a power-of-two radix R: packet V holds butterflies p0 .. p0 + w - 1, and interleave_regs puts
/// their outputs y[p R + r] in order (R <= w: the R result registers are stored contiguously;
/// R > w: R / w tile transposes). The last butterflies take narrower packets, then scalars.
/// `in` loads the input (split_source or interleaved_source).
template <int R, class T, class Src>
void first_stage_packets(index_t m, const Src& in, T* yr, T* yi, stage_twiddles<T> tw) {
  static_assert((R & (R - 1)) == 0, "tl::fft: the packetized first stage needs a power-of-two radix");
  const odd_radix_table<T, 3>* tab = nullptr;
  for_each_width<T>(0, m, [&]<class V>(std::type_identity<V>, index_t from, index_t to) {
    constexpr index_t w = lanes_of<V>;
    for (index_t p0 = from; p0 < to; p0 += w) {
      V ar[R], ai[R];
      for (int k = 0; k < R; ++k) in(p0 + k * m, ar[k], ai[k]);
      dft_points<R, V, T>(ar, ai, tab);
      for (int r = 1; r < R; ++r) {
        const V wr = load_from<V>(tw.re_by_r + (r - 1) * m + p0);
        const V wi = load_from<V>(tw.im_by_r + (r - 1) * m + p0);
        const V x = ar[r];
        ar[r] = fmsub(x, wr, ai[r] * wi);
        ai[r] = fmadd(x, wi, ai[r] * wr);
      }
      if constexpr (w == 1) {
        for (int r = 0; r < R; ++r) {
          yr[p0 * R + r] = ar[r];
          yi[p0 * R + r] = ai[r];
        }
      } else if constexpr (R < w) {  // the R registers hold y[p0 R .. (p0 + w) R) in order
        interleave_regs<R>(ar);
        interleave_regs<R>(ai);
        for (int r = 0; r < R; ++r) {
          ar[r].store_unaligned(yr + p0 * R + r * w);
          ai[r].store_unaligned(yi + p0 * R + r * w);
        }
      } else {  // R / w tile transposes; row q of tile b is y[(p0 + q) R + b w ..]
        for (int b = 0; b < R / w; ++b) {
          interleave_regs<w>(ar + b * w);
          interleave_regs<w>(ai + b * w);
          for (int q = 0; q < w; ++q) {
            ar[b * w + q].store_unaligned(yr + (p0 + q) * R + b * w);
            ai[b * w + q].store_unaligned(yi + (p0 + q) * R + b * w);
          }
        }
      }
    }
  });
}

/// The last stage (m = 1, every twiddle 1) of radix R over a contiguous run of s columns:
/// y[j + s r] = sum_k x[j + s k] e^(-2 pi i r k / R), read from x (split) and written through `out`
/// (split_sink or interleaved_sink).
template <int R, class T, class Dst>
void last_stage(index_t s, const T* xr, const T* xi, const Dst& out) {
  const odd_radix_table<T, (R % 2 ? R : 3)>* tab = nullptr;
  if constexpr (R % 2 == 1) tab = &odd_radix_table<T, R>::get();
  for_each_width<T>(0, s, [&]<class V>(std::type_identity<V>, index_t from, index_t to) {
    for (index_t j = from; j < to; j += lanes_of<V>) {
      V ar[R], ai[R];
      for (int k = 0; k < R; ++k) {
        ar[k] = load_from<V>(xr + j + s * k);
        ai[k] = load_from<V>(xi + j + s * k);
      }
      dft_points<R, V, T>(ar, ai, tab);
      for (int r = 0; r < R; ++r) out(j + s * r, ar[r], ai[r]);
    }
  });
}

/// The packet type of exactly 8 lanes of T, or T itself where the build has none: AVX-512 builds
/// take 512-bit double and 256-bit float packets, AVX builds 256-bit float ones.
template <class T>
using octet_packet =
    std::conditional_t<lanes_of<packet<T>> == 8, packet<T>,
                       std::conditional_t<lanes_of<half_packet<T>> == 8, half_packet<T>, T>>;
/// Whether dft64_line runs on this build for T.
template <class T>
inline constexpr bool has_dft64 = lanes_of<octet_packet<T>> == 8;

/// exp(-2 pi i j k / 64) for k = 1..7 (rows) and j = 0..7 (lanes), from cos(2 pi m / 64),
/// m = 0..16, rounded once (a compile-time table: no initialization on the hot path).
template <class T>
struct dft64_twiddles {
  alignas(64) T re[7][8]{};
  alignas(64) T im[7][8]{};
  constexpr dft64_twiddles() {
    constexpr long double c[17] = {1.0L,
                                   0.995184726672196886244836953109479922L,
                                   0.980785280403230449126182236134239037L,
                                   0.956940335732208864935797886980269969L,
                                   0.923879532511286756128183189396788287L,
                                   0.88192126434835502971275686366038835L,
                                   0.831469612302545237078788377617905757L,
                                   0.773010453362736960810906609758469801L,
                                   0.707106781186547524400844362104849039L,
                                   0.634393284163645498215171613225493371L,
                                   0.555570233019602224742830813948532874L,
                                   0.471396736825997648556387625905254378L,
                                   0.382683432365089771728459984030398867L,
                                   0.290284677254462367636192375817395275L,
                                   0.195090322016128267848284868477022241L,
                                   0.0980171403295606019941955638886418459L,
                                   0.0L};
    for (int k = 1; k < 8; ++k)
      for (int j = 0; j < 8; ++j) {
        const int a = j * k, q = a / 16, r = a % 16;  // angle 2 pi a / 64 = q pi / 2 + 2 pi r / 64
        const long double cr = c[r], sr = c[16 - r];
        const long double co = q == 0 ? cr : q == 1 ? -sr : q == 2 ? -cr : sr;
        const long double si = q == 0 ? sr : q == 1 ? cr : q == 2 ? -sr : -cr;
        re[k - 1][j] = static_cast<T>(co);
        im[k - 1][j] = static_cast<T>(-si);
      }
  }
};
template <class T>
inline constexpr dft64_twiddles<T> dft64_table{};

/// A 64-point DFT of one interleaved line in registers, times `scale` (`inverse`: the inverse
/// DFT). 64 = 8 x 8 with x[8 j1 + j2] in lane j2 of register j1: DFTs of 8 points across the
/// registers, twiddles exp(-2 pi i j2 k1 / 64), an 8 x 8 transpose, DFTs of 8 points again;
/// X[k1 + 8 k2] ends in lane k1 of register k2, so each register is 8 consecutive outputs. All of
/// src is read before dst is written (dst may be src). Needs has_dft64<T>.
template <class T>
TL_INLINE void dft64_line(const T* src, T* dst, bool inverse, T scale) {
  using V = octet_packet<T>;
  static_assert(lanes_of<V> == 8, "tl::fft: dft64_line needs 8-lane packets");
  V re[8], im[8];
  const interleaved_source<T> in{src, inverse};
  for (int j1 = 0; j1 < 8; ++j1) in(8 * j1, re[j1], im[j1]);
  dft_points<8, V, T>(re, im, nullptr);
  const dft64_twiddles<T>& tw = dft64_table<T>;
  for (int k1 = 1; k1 < 8; ++k1) {
    const V wr = V::load_aligned(tw.re[k1 - 1]), wi = V::load_aligned(tw.im[k1 - 1]);
    const V x = re[k1];
    re[k1] = fmsub(x, wr, im[k1] * wi);
    im[k1] = fmadd(x, wi, im[k1] * wr);
  }
  interleave_regs<8>(re);
  interleave_regs<8>(im);
  dft_points<8, V, T>(re, im, nullptr);
  const interleaved_sink<T> out{dst, inverse, scale};
  for (int k2 = 0; k2 < 8; ++k2) out(8 * k2, re[k2], im[k2]);
}

/// One Stockham stage of radix R: m butterfly groups, inner contiguous length s (stride of the
/// stage times the lane count). Reads x, writes y (distinct buffers). Runs of s columns take the
/// widest packets that fit (for_each_width).
template <int R, class T>
void stockham_stage(index_t m, index_t s, const T* xr, const T* xi, T* yr, T* yi, stage_twiddles<T> tw) {
  const odd_radix_table<T, (R % 2 ? R : 3)>* tab = nullptr;
  if constexpr (R % 2 == 1) tab = &odd_radix_table<T, R>::get();
  if constexpr ((R & (R - 1)) == 0 && packet<T>::size > 1)
    if (s == 1 && tw.re_by_r) return first_stage_packets<R, T>(m, split_source<T>{xr, xi}, yr, yi, tw);
  if (m == 1) return last_stage<R, T>(s, xr, xi, split_sink<T>{yr, yi});
  for (index_t p = 0; p < m; ++p) {
    const T* twr = tw.re + p * (R - 1);
    const T* twi = tw.im + p * (R - 1);
    for_each_width<T>(0, s, [&]<class V>(std::type_identity<V>, index_t from, index_t to) {
      V wr[R - 1], wi[R - 1];
      for (int r = 0; r < R - 1; ++r) {
        wr[r] = splat<V>(twr[r]);
        wi[r] = splat<V>(twi[r]);
      }
      for (index_t j = from; j < to; j += lanes_of<V>)
        stage_column<R, V, T>(m, s, p, j, xr, xi, yr, yi, wr, wi, tab);
    });
  }
}

}  // namespace tl::fft::detail
