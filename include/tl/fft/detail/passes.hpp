#pragma once
/// @file passes.hpp
/// @brief Internal header: one FFT pass along one axis of a contiguous array (complex-to-complex,
/// real-to-complex, complex-to-real), batched over the other axes on the thread pool.
///
/// An array is viewed as [outer, len, inner] around the transformed axis. Contiguous lines
/// (inner == 1) are transformed one at a time; strided lines are gathered in blocks of up to one
/// SIMD packet of adjacent lines (the lanes), transformed together, and scattered back, so each
/// memory access reads or writes a run of adjacent elements.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/fft/detail/plan.hpp"
#include "tl/fft/detail/plan_cache.hpp"
#include "tl/ops/detail/loops.hpp"

namespace tl::fft::detail {

/// Per-thread work arrays, grown on demand and reused across calls.
template <class T>
struct scratch {
  // One block holding the four work arrays, each start shifted by a few cache lines so that
  // arrays of power-of-two sizes do not alias modulo 4 KiB (loads of one and stores to another
  // would then stall on false store-to-load dependencies).
  std::vector<T> block;
  std::size_t data_cap = 0, work_cap = 0;
  T *re = nullptr, *im = nullptr, *wre = nullptr, *wim = nullptr;
  std::vector<complex<T>> line;
  void reserve(std::size_t data, std::size_t work) {
    if (data <= data_cap && work <= work_cap) return;
    data_cap = std::max(data, data_cap);
    work_cap = std::max(work, work_cap);
    constexpr std::size_t pad = 64 / sizeof(T);  // one cache line
    block.assign(2 * data_cap + 2 * work_cap + 10 * pad, T(0));
    re = block.data();
    im = re + data_cap + 3 * pad;
    wre = im + data_cap + 2 * pad;
    wim = wre + work_cap + 3 * pad;
  }
  static scratch& local() {
    thread_local scratch s;
    return s;
  }
};

/// Splits count interleaved complex values into re[] and im[].
template <class T>
void deinterleave(const complex<T>* src, index_t count, T* re, T* im) {
  using P = packet256<T>;
  constexpr index_t w = lanes_of<P>;
  index_t k = 0;
  const T* s = reinterpret_cast<const T*>(src);
  if constexpr (w > 1)
    for (; k + w <= count; k += w) {
      P even, odd;
      unzip(P::load_unaligned(s + 2 * k), P::load_unaligned(s + 2 * k + w), even, odd);
      even.store_unaligned(re + k);
      odd.store_unaligned(im + k);
    }
  for (; k < count; ++k) {
    re[k] = s[2 * k];
    im[k] = s[2 * k + 1];
  }
}
/// dst[k] = scale * (re[k] + i im[k]) for k < count.
template <class T>
void interleave(const T* re, const T* im, index_t count, T scale, complex<T>* dst) {
  using P = packet256<T>;
  constexpr index_t w = lanes_of<P>;
  index_t k = 0;
  T* d = reinterpret_cast<T*>(dst);
  if constexpr (w > 1) {
    const P sc(scale);
    for (; k + w <= count; k += w) {
      P lo, hi;
      zip(P::load_unaligned(re + k) * sc, P::load_unaligned(im + k) * sc, lo, hi);
      lo.store_unaligned(d + 2 * k);
      hi.store_unaligned(d + 2 * k + w);
    }
  }
  for (; k < count; ++k) {
    d[2 * k] = re[k] * scale;
    d[2 * k + 1] = im[k] * scale;
  }
}

/// Lines per task so that one task does at least ~32k element visits.
inline index_t grain_for(index_t len) { return std::max<index_t>(1, (index_t{1} << 15) / std::max<index_t>(1, len)); }

/// Complex-to-complex transform along the middle axis of src [outer, nin, inner] into
/// dst [outer, n, inner] (zero-padding or truncating each line to n), scaled by `scale`.
/// src == dst is allowed when nin == n.
template <class T>
void c2c_pass(const complex<T>* src, complex<T>* dst, index_t outer, index_t nin, index_t n, index_t inner,
              bool inverse, T scale) {
  if (outer == 0 || inner == 0) return;
  if constexpr (has_dft64<T>) {
    // Whole lines of 64 points: in registers, without a plan.
    if (n == 64 && inner == 1 && nin >= n) {
      const T* s = reinterpret_cast<const T*>(src);
      T* d = reinterpret_cast<T*>(dst);
      if (outer == 1) return dft64_line(s, d, inverse, scale);
      tl::detail::parallel_ranges(outer, grain_for(n), [&](index_t lo, index_t hi) {
        for (index_t o = lo; o < hi; ++o) dft64_line(s + 2 * o * nin, d + 2 * o * n, inverse, scale);
      });
      return;
    }
  }
  const auto plan = plan_cache::instance().complex_plan<T>(n);
  const index_t ncopy = std::min(nin, n);
  const index_t W = static_cast<index_t>(packet<T>::size);
  const index_t L = inner == 1 ? 1 : (inner >= 2 * W ? 2 * W : std::min(W, inner));
  const index_t nblk = (inner + L - 1) / L;
  // Whole contiguous lines: the plan reads and writes the interleaved values itself.
  const bool direct = inner == 1 && ncopy == n && plan->interleaved_ok();
  if (direct && outer == 1) {  // one whole line: no task split (a short line's call cost counts)
    scratch<T>& sc = scratch<T>::local();
    sc.reserve(static_cast<std::size_t>(n), static_cast<std::size_t>(plan->scratch_size()));
    plan->run_interleaved(reinterpret_cast<const T*>(src), reinterpret_cast<T*>(dst), sc.re, sc.im, sc.wre, sc.wim,
                          inverse, scale);
    return;
  }
  tl::detail::parallel_ranges(outer * nblk, std::max<index_t>(1, grain_for(n * L)), [&](index_t lo, index_t hi) {
    scratch<T>& sc = scratch<T>::local();
    sc.reserve(static_cast<std::size_t>(n * L), static_cast<std::size_t>(plan->scratch_size() * L));
    // The inverse runs the forward kernels on swapped (imag, real) arrays.
    T* pr = inverse ? sc.im : sc.re;
    T* pi = inverse ? sc.re : sc.im;
    for (index_t t = lo; t < hi; ++t) {
      const index_t o = t / nblk, i0 = (t % nblk) * L, lanes = std::min(L, inner - i0);
      const complex<T>* s0 = src + (o * nin) * inner + i0;
      complex<T>* d0 = dst + (o * n) * inner + i0;
      if (direct) {
        plan->run_interleaved(reinterpret_cast<const T*>(s0), reinterpret_cast<T*>(d0), sc.re, sc.im, sc.wre, sc.wim,
                              inverse, scale);
        continue;
      }
      if (inner == 1) {
        deinterleave(s0, ncopy, pr, pi);
      } else if (lanes == L) {
        for (index_t k = 0; k < ncopy; ++k) deinterleave(s0 + k * inner, L, pr + k * L, pi + k * L);
      } else {
        for (index_t k = 0; k < ncopy; ++k) {
          const complex<T>* sk = s0 + k * inner;
          for (index_t l = 0; l < lanes; ++l) {
            pr[k * L + l] = sk[l].re;
            pi[k * L + l] = sk[l].im;
          }
          for (index_t l = lanes; l < L; ++l) pr[k * L + l] = pi[k * L + l] = T(0);
        }
      }
      std::fill(pr + ncopy * L, pr + n * L, T(0));
      std::fill(pi + ncopy * L, pi + n * L, T(0));
      const auto [rr, ri] = plan->run(sc.re, sc.im, sc.wre, sc.wim, L);
      const T* outr = inverse ? ri : rr;
      const T* outi = inverse ? rr : ri;
      if (inner == 1) {
        interleave(outr, outi, n, scale, d0);
      } else if (lanes == L) {
        for (index_t k = 0; k < n; ++k) interleave(outr + k * L, outi + k * L, L, scale, d0 + k * inner);
      } else {
        for (index_t k = 0; k < n; ++k) {
          complex<T>* dk = d0 + k * inner;
          for (index_t l = 0; l < lanes; ++l) dk[l] = complex<T>(outr[k * L + l] * scale, outi[k * L + l] * scale);
        }
      }
    }
  });
}

/// Real-to-complex transform along the middle axis of src [outer, nin, inner] (real) into
/// dst [outer, n / 2 + 1, inner] (complex), the input zero-padded or truncated to n.
template <class T>
void r2c_pass(const T* src, complex<T>* dst, index_t outer, index_t nin, index_t n, index_t inner, T scale) {
  if (outer == 0 || inner == 0) return;
  const auto plan = plan_cache::instance().real<T>(n);
  const c2c_plan<T>& cp = plan->inner();
  const index_t h = n / 2, nout = h + 1, nc = cp.size();
  tl::detail::parallel_ranges(outer * inner, grain_for(n), [&](index_t lo, index_t hi) {
    scratch<T>& sc = scratch<T>::local();
    sc.reserve(static_cast<std::size_t>(nc), static_cast<std::size_t>(cp.scratch_size()));
    T* re = sc.re;
    T* im = sc.im;
    for (index_t t = lo; t < hi; ++t) {
      const index_t o = t / inner, i = t % inner;
      const T* s0 = src + o * nin * inner + i;
      complex<T>* d0 = dst + o * nout * inner + i;
      if (n % 2 == 0) {
        // z_j = x_2j + i x_2j+1
        const index_t full = std::min(nin, n) / 2;
        if (inner == 1) {
          deinterleave(reinterpret_cast<const complex<T>*>(s0), full, re, im);
        } else {
          for (index_t j = 0; j < full; ++j) {
            re[j] = s0[(2 * j) * inner];
            im[j] = s0[(2 * j + 1) * inner];
          }
        }
        for (index_t j = full; j < h; ++j) {
          re[j] = 2 * j < nin ? s0[(2 * j) * inner] : T(0);
          im[j] = 2 * j + 1 < nin ? s0[(2 * j + 1) * inner] : T(0);
        }
        const auto [zr, zi] = cp.run(re, im, sc.wre, sc.wim, 1);
        const T* wr = plan->w_re();
        const T* wi = plan->w_im();
        const T half = T(0.5) * scale;
        // X_k = E + w^k O with E = (Z_a + conj Z_b) / 2, O = -i (Z_a - conj Z_b) / 2, a = k and
        // b = h - k (both 0 for k = 0 and k = h), on scalars or packets of consecutive k.
        const auto post = [&]<class V>(const V& ar, const V& ai, const V& br, const V& bi, const V& cr, const V& ci,
                                       V& xr, V& xi) {
          const V er = ar + br, ei = ai - bi, dr = ar - br, di = ai + bi;
          xr = fmadd(ci, dr, fmadd(cr, di, er)) * splat<V>(half);
          xi = fmsub(ci, di, fmsub(cr, dr, ei)) * splat<V>(half);
        };
        index_t k = 0;
        using P = packet256<T>;
        constexpr index_t w = lanes_of<P>;
        if constexpr (w > 1)
          if (inner == 1) {  // packets over k in [1, h - 1]: Z_b loaded backwards
            T* d = reinterpret_cast<T*>(d0);
            for (k = 1; k + w <= h; k += w) {
              P xr, xi, zlo, zhi;
              post(P::load_unaligned(zr + k), P::load_unaligned(zi + k),
                   reverse_lanes(P::load_unaligned(zr + h - k - w + 1)),
                   reverse_lanes(P::load_unaligned(zi + h - k - w + 1)), P::load_unaligned(wr + k),
                   P::load_unaligned(wi + k), xr, xi);
              zip(xr, xi, zlo, zhi);
              zlo.store_unaligned(d + 2 * k);
              zhi.store_unaligned(d + 2 * k + w);
            }
          }
        const auto one = [&](index_t q) {
          const index_t a = q == h ? 0 : q, b = q == 0 ? 0 : h - q;
          T xr, xi;
          post(zr[a], zi[a], zr[b], zi[b], wr[q], wi[q], xr, xi);
          d0[q * inner] = complex<T>(xr, xi);
        };
        one(0);
        for (k = std::max<index_t>(k, 1); k <= h; ++k) one(k);
      } else {
        for (index_t j = 0; j < n; ++j) {
          re[j] = j < nin ? s0[j * inner] : T(0);
          im[j] = T(0);
        }
        const auto [zr, zi] = cp.run(re, im, sc.wre, sc.wim, 1);
        for (index_t k = 0; k < nout; ++k) d0[k * inner] = complex<T>(zr[k] * scale, zi[k] * scale);
      }
    }
  });
}

/// Complex-to-real transform (inverse of r2c) along the middle axis of src [outer, nin, inner]
/// (the non-negative frequencies; missing ones are zero, extra ones ignored) into
/// dst [outer, n, inner] (real). The imaginary parts of the zero (and, for even n, the Nyquist)
/// frequency are ignored, as a real signal's spectrum has none. `conj_in` conjugates the input.
template <class T>
void c2r_pass(const complex<T>* src, T* dst, index_t outer, index_t nin, index_t n, index_t inner, T scale,
              bool conj_in) {
  if (outer == 0 || inner == 0) return;
  const auto plan = plan_cache::instance().real<T>(n);
  const c2c_plan<T>& cp = plan->inner();
  const index_t h = n / 2, nc = cp.size(), nuse = std::min(nin, h + 1);
  const T sgn = conj_in ? T(-1) : T(1);
  tl::detail::parallel_ranges(outer * inner, grain_for(n), [&](index_t lo, index_t hi) {
    scratch<T>& sc = scratch<T>::local();
    sc.reserve(static_cast<std::size_t>(nc), static_cast<std::size_t>(cp.scratch_size()));
    if (sc.line.size() < static_cast<std::size_t>(h + 1)) sc.line.resize(static_cast<std::size_t>(h + 1));
    complex<T>* X = sc.line.data();
    T* re = sc.re;
    T* im = sc.im;
    for (index_t t = lo; t < hi; ++t) {
      const index_t o = t / inner, i = t % inner;
      const complex<T>* s0 = src + o * nin * inner + i;
      T* d0 = dst + o * n * inner + i;
      for (index_t k = 0; k < nuse; ++k) X[k] = complex<T>(s0[k * inner].re, sgn * s0[k * inner].im);
      for (index_t k = nuse; k <= h; ++k) X[k] = complex<T>(T(0), T(0));
      X[0].im = T(0);
      if (n % 2 == 0) {
        X[h].im = T(0);
        const T* wr = plan->w_re();
        const T* wi = plan->w_im();
        // Z'_k = (X_k + conj X_{h-k}) + i w^-k (X_k - conj X_{h-k}); stored swapped (imag, real)
        // so that the forward kernels compute the inverse transform.
        for (index_t k = 0; k < h; ++k) {
          const complex<T> a = X[k], b = X[h - k];
          const T er = a.re + b.re, ei = a.im - b.im;
          const T dr = a.re - b.re, di = a.im + b.im;
          // w^-k d = (wr dr + wi di) + i (wr di - wi dr); times i: (-(wr di - wi dr), wr dr + wi di)
          const T tr = wr[k] * dr + wi[k] * di, ti = wr[k] * di - wi[k] * dr;
          im[k] = er - ti;  // real part, swapped
          re[k] = ei + tr;  // imaginary part, swapped
        }
        const auto [zi, zr] = cp.run(re, im, sc.wre, sc.wim, 1);
        if (inner == 1) {
          interleave(zr, zi, h, scale, reinterpret_cast<complex<T>*>(d0));
        } else {
          for (index_t j = 0; j < h; ++j) {
            d0[(2 * j) * inner] = zr[j] * scale;
            d0[(2 * j + 1) * inner] = zi[j] * scale;
          }
        }
      } else {
        // The full Hermitian spectrum, swapped; the inverse's real part is the signal.
        for (index_t k = 0; k <= h; ++k) {
          im[k] = X[k].re;
          re[k] = X[k].im;
        }
        for (index_t k = h + 1; k < n; ++k) {
          im[k] = X[n - k].re;
          re[k] = -X[n - k].im;
        }
        const auto [zi, zr] = cp.run(re, im, sc.wre, sc.wim, 1);
        (void)zi;
        for (index_t j = 0; j < n; ++j) d0[j * inner] = zr[j] * scale;
      }
    }
  });
}

}  // namespace tl::fft::detail
