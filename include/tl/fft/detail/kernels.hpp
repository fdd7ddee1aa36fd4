#pragma once
/// @file kernels.hpp
/// @brief Internal header: the FFT butterflies (radix 2, 3, 4, 5, 7, 8, 11, 13) and one Stockham
/// stage, written once for a SIMD packet (xsimd) or a scalar, on split (planar) complex data.
///
/// Layout: a signal of n complex elements with L lanes (L independent signals transformed
/// together) stores the real parts of element e at re[e * L + lane], the imaginary parts likewise
/// in im. Every kernel computes the forward DFT (sign -1); the inverse is obtained by swapping
/// the real and imaginary arrays on the way in and out (IDFT(x) = swap(DFT(swap(x)))).
#include <cmath>
#include <cstddef>
#include <type_traits>
#include "tl/core/simd.hpp"

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "tl/core/config.hpp"

namespace tl::fft::detail {

/// Packet type used by the kernels for real type T.
template <class T>
using packet = xsimd::batch<T>;

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

/// dst[q * ds + l] = src[l * ss + q] for l, q < W (W = packet size): a W x W tile transpose,
/// in registers for AVX float (8 x 8) and double (4 x 4), element by element otherwise.
template <class T>
TL_INLINE void transpose_tile(const T* src, index_t ss, T* dst, index_t ds) {
  constexpr index_t W = static_cast<index_t>(packet<T>::size);
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, float> && W == 8) {
    __m256 r[8], t[8], u[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ss);
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
      u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
      u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
      u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
      u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; ++i) {
      _mm256_storeu_ps(dst + i * ds, _mm256_permute2f128_ps(u[i], u[i + 4], 0x20));
      _mm256_storeu_ps(dst + (i + 4) * ds, _mm256_permute2f128_ps(u[i], u[i + 4], 0x31));
    }
  } else if constexpr (std::is_same_v<T, double> && W == 4) {
    const __m256d r0 = _mm256_loadu_pd(src), r1 = _mm256_loadu_pd(src + ss);
    const __m256d r2 = _mm256_loadu_pd(src + 2 * ss), r3 = _mm256_loadu_pd(src + 3 * ss);
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(dst, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(dst + ds, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(dst + 2 * ds, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(dst + 3 * ds, _mm256_permute2f128_pd(t1, t3, 0x31));
  } else
#endif
  {
    for (index_t l = 0; l < W; ++l)
      for (index_t q = 0; q < W; ++q) dst[q * ds + l] = src[l * ss + q];
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
template <int R, bool Twiddle, class V, class T>
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
    if constexpr (Twiddle) {
      store_to(yr + o + s * r, fmsub(ar[r], wr[r - 1], ai[r] * wi[r - 1]));
      store_to(yi + o + s * r, fmadd(ar[r], wi[r - 1], ai[r] * wr[r - 1]));
    } else {
      store_to(yr + o + s * r, ar[r]);
      store_to(yi + o + s * r, ai[r]);
    }
  }
}

/// The first stage of a single line (inner length 1) with packets over the butterfly index p:
/// R / W tile transposes put each packet's outputs y[p R + r] in place; the last m % W butterflies
/// run in scalar code. Needs R % W == 0.
template <int R, class T>
void first_stage_packets(index_t m, const T* xr, const T* xi, T* yr, T* yi, stage_twiddles<T> tw) {
  using P = packet<T>;
  constexpr index_t W = static_cast<index_t>(P::size);
  const odd_radix_table<T, (R % 2 ? R : 3)>* tab = nullptr;
  alignas(64) T tr[R * W], ti[R * W];
  const index_t mv = m - m % W;
  for (index_t p = mv; p < m; ++p)
    stage_column<R, true, T, T>(m, 1, p, 0, xr, xi, yr, yi, tw.re + p * (R - 1), tw.im + p * (R - 1), tab);
  for (index_t p0 = 0; p0 < mv; p0 += W) {
    P ar[R], ai[R];
    for (int k = 0; k < R; ++k) {
      ar[k] = P::load_unaligned(xr + p0 + k * m);
      ai[k] = P::load_unaligned(xi + p0 + k * m);
    }
    dft_points<R, P, T>(ar, ai, tab);
    ar[0].store_aligned(tr);
    ai[0].store_aligned(ti);
    for (int r = 1; r < R; ++r) {
      const P wr = P::load_unaligned(tw.re_by_r + (r - 1) * m + p0);
      const P wi = P::load_unaligned(tw.im_by_r + (r - 1) * m + p0);
      fmsub(ar[r], wr, ai[r] * wi).store_aligned(tr + r * W);
      fmadd(ar[r], wi, ai[r] * wr).store_aligned(ti + r * W);
    }
    for (index_t b = 0; b < R / W; ++b) {
      transpose_tile(tr + b * W * W, W, yr + p0 * R + b * W, R);
      transpose_tile(ti + b * W * W, W, yi + p0 * R + b * W, R);
    }
  }
}

/// One Stockham stage of radix R: m butterfly groups, inner contiguous length s (stride of the
/// stage times the lane count). Reads x, writes y (distinct buffers).
template <int R, class T>
void stockham_stage(index_t m, index_t s, const T* xr, const T* xi, T* yr, T* yi, stage_twiddles<T> tw) {
  using P = packet<T>;
  constexpr index_t W = static_cast<index_t>(P::size);
  const odd_radix_table<T, (R % 2 ? R : 3)>* tab = nullptr;
  if constexpr (R % 2 == 1) tab = &odd_radix_table<T, R>::get();
  if constexpr (R % W == 0) {
    if (s == 1 && m >= W && tw.re_by_r) return first_stage_packets<R, T>(m, xr, xi, yr, yi, tw);
  }
  if (m == 1) {  // the last stage: every twiddle is 1
    const index_t sv = s - s % W;
    for (index_t j = 0; j < sv; j += W) stage_column<R, false, P, T>(1, s, 0, j, xr, xi, yr, yi, nullptr, nullptr, tab);
    for (index_t j = sv; j < s; ++j) stage_column<R, false, T, T>(1, s, 0, j, xr, xi, yr, yi, nullptr, nullptr, tab);
  } else if (s >= W) {
    const index_t sv = s - s % W;
    for (index_t p = 0; p < m; ++p) {
      P wr[R - 1], wi[R - 1];
      T swr[R - 1], swi[R - 1];
      for (int r = 0; r < R - 1; ++r) {
        swr[r] = tw.re[p * (R - 1) + r];
        swi[r] = tw.im[p * (R - 1) + r];
        wr[r] = P(swr[r]);
        wi[r] = P(swi[r]);
      }
      for (index_t j = 0; j < sv; j += W) stage_column<R, true, P, T>(m, s, p, j, xr, xi, yr, yi, wr, wi, tab);
      for (index_t j = sv; j < s; ++j) stage_column<R, true, T, T>(m, s, p, j, xr, xi, yr, yi, swr, swi, tab);
    }
  } else {
    for (index_t p = 0; p < m; ++p) {
      const T* wr = tw.re + p * (R - 1);
      const T* wi = tw.im + p * (R - 1);
      for (index_t j = 0; j < s; ++j) stage_column<R, true, T, T>(m, s, p, j, xr, xi, yr, yi, wr, wi, tab);
    }
  }
}

}  // namespace tl::fft::detail
