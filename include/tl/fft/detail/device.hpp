#pragma once
/// @file device.hpp
/// @brief Internal header: the transforms of CUDA tensors, one cuFFT call per transformed dim.
/// Host code only (no CUDA headers): it finds the cuFFT launcher through a device slot that
/// tl/fft/cuda/fft.cuh fills in translation units compiled by nvcc (see tl/eval/device_slot.hpp).
/// Padding, truncation, scaling and conjugation run as tl expressions on the device.
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/creation.hpp"
#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/eval/device_slot.hpp"
#include "tl/expr/elementwise.hpp"
#include "tl/fft/detail/dim_list.hpp"

namespace tl::fft::detail {

/// What one cuFFT pass computes.
enum class device_kind : int { c2c, r2c, c2r };
template <class T>
struct cufft_key {};
/// Transforms the middle axis of [outer, n or n / 2 + 1, inner] (contiguous, on `device`) from src
/// into dst (src may equal dst for c2c; c2r overwrites src). Unnormalized.
using cufft_fn = void (*)(device_kind kind, const void* src, void* dst, index_t outer, index_t n, index_t inner,
                          bool inverse, int device);

// Fills the slot (tl/fft/cuda/fft.cuh; nvcc only).
template <class T>
void register_cufft();

template <class T>
cufft_fn device_fft(const char* op) {
#if defined(__CUDACC__)
  register_cufft<T>();
#endif
  return tl::detail::require_device_slot<cufft_key<T>, cufft_fn>(tl::detail::cat_str("fft::", op).c_str());
}

/// t zero-padded or truncated to extent n along dim d (a new tensor on t's device).
template <class Tn>
Tn resized(const Tn& t, std::size_t d, index_t n) {
  auto ns = t.shape();
  ns[d] = n;
  Tn out = tl::zeros<typename Tn::value_type>(ns, t.device());
  const index_t k = std::min(n, t.shape()[d]);
  if (k > 0) out.slice(static_cast<index_t>(d), 0, k) = t.slice(static_cast<index_t>(d), 0, k);
  return out;
}

/// cur scaled by s in place (cur is ours).
template <class Tn, class T>
void scale_on_device(Tn& cur, T s) {
  if (s != T(1)) cur = cur * s;
}

/// Extents before and after axis d of a row-major shape.
template <std::size_t R>
std::pair<index_t, index_t> outer_inner(const shape_t<R>& s, std::size_t d) {
  index_t o = 1, i = 1;
  for (std::size_t k = 0; k < d; ++k) o *= s[k];
  for (std::size_t k = d + 1; k < R; ++k) i *= s[k];
  return {o, i};
}

/// Complex passes over dims [first, last) of a device tensor, pass q scaled by scales[q] (`owned`:
/// cur may be overwritten).
template <class T, std::size_t R>
tensor<complex<T>, R> device_c2c(const char* op, tensor<complex<T>, R> cur, const dim_list<std::size_t>& dims,
                                 const dim_list<index_t>& sizes, std::size_t first, std::size_t last, bool inverse,
                                 const std::vector<T>& scales, bool owned) {
  const cufft_fn f = device_fft<T>(op);
  for (std::size_t q = first; q < last; ++q) {
    const std::size_t d = dims[q];
    const index_t n = sizes[q];
    if (cur.shape()[d] != n) {
      cur = resized(cur, d, n);
      owned = true;
    }
    // In place on a tensor of our own, else out of place into a new one (no copy of the input first).
    tensor<complex<T>, R> out = owned ? cur : tensor<complex<T>, R>(cur.shape(), cur.device());
    const auto [outer, inner] = outer_inner(cur.shape(), d);
    if (cur.numel() > 0) f(device_kind::c2c, cur.data(), out.data(), outer, n, inner, inverse, cur.device().index());
    cur = out;
    owned = true;
    scale_on_device(cur, scales[q]);
  }
  return cur;
}

/// Real-to-complex pass over dim d to length n (the input padded or truncated first).
template <class T, std::size_t R>
tensor<complex<T>, R> device_r2c(const char* op, tensor<T, R> x, std::size_t d, index_t n, T scale) {
  if (x.shape()[d] != n) x = resized(x, d, n);
  shape_t<R> ns = x.shape();
  ns[d] = n / 2 + 1;
  tensor<complex<T>, R> out(ns, x.device());
  const auto [outer, inner] = outer_inner(ns, d);
  if (out.numel() > 0)
    device_fft<T>(op)(device_kind::r2c, x.data(), out.data(), outer, n, inner, false, x.device().index());
  scale_on_device(out, scale);
  return out;
}

/// Complex-to-real pass over dim d to n real values (the input padded or truncated to n / 2 + 1).
template <class T, std::size_t R>
tensor<T, R> device_c2r(const char* op, tensor<complex<T>, R> x, std::size_t d, index_t n, T scale, bool owned) {
  if (x.shape()[d] != n / 2 + 1)
    x = resized(x, d, n / 2 + 1);
  else if (!owned)
    x = x.clone();  // cuFFT's c2r overwrites its input
  shape_t<R> ns = x.shape();
  ns[d] = n;
  tensor<T, R> out(ns, x.device());
  const auto [outer, inner] = outer_inner(ns, d);
  if (out.numel() > 0)
    device_fft<T>(op)(device_kind::c2r, x.data(), out.data(), outer, n, inner, true, x.device().index());
  scale_on_device(out, scale);
  return out;
}

}  // namespace tl::fft::detail
