#pragma once
/// @file random.cuh
/// @brief Internal: random fills on a CUDA device (nvcc only; included by tl/eval/random.hpp).
///
/// The kernels follow the stream contract of tl/core/random.hpp word for word: element i of an op
/// reads the same Philox words on the device as on the host, so a seed gives the same tensors on
/// both. Each thread handles a run of `run` consecutive elements with one cursor (one Philox block
/// per four words).
#include <cuda_runtime.h>

#include <cstdint>

#include "tl/core/random.hpp"
#include "tl/eval/cuda/allocator.cuh"
#include "tl/eval/cuda/runtime.cuh"
#include "tl/eval/device_slot.hpp"

namespace tl::detail {

namespace cuda_kernels {
inline constexpr int random_run = 8;  // even: a Box–Muller pair never straddles two threads

template <random_kind K, class T>
__global__ void random_fill(T* out, index_t n, rng_state st, random_args a) {
  const index_t nthreads = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; t * random_run < n; t += nthreads) {
    const index_t lo = t * random_run;
    const index_t hi = lo + random_run < n ? lo + random_run : n;
    if constexpr (K == random_kind::uniform) {
      philox_cursor c(st, static_cast<std::uint64_t>(lo) * words_per_uniform<T>);
      for (index_t i = lo; i < hi; ++i) out[i] = c.template uniform<T>();
    } else if constexpr (K == random_kind::normal) {
      constexpr double two_pi = 6.283185307179586476925286766559;
      philox_cursor c(st, static_cast<std::uint64_t>(lo) * words_per_uniform<T>);
      for (index_t i = lo; i < hi; i += 2) {
        const double u1 = static_cast<double>(c.template uniform<T>());
        const double u2 = static_cast<double>(c.template uniform<T>());
        const double r = ::sqrt(-2.0 * ::log(1.0 - u1));
        const double th = two_pi * u2;
        out[i] = static_cast<T>(a.scale * (r * ::cos(th)));
        if (i + 1 < hi) out[i + 1] = static_cast<T>(a.scale * (r * ::sin(th)));
      }
    } else if constexpr (K == random_kind::randint) {
      philox_cursor c(st, 2 * static_cast<std::uint64_t>(lo));
      for (index_t i = lo; i < hi; ++i) {
        const std::uint64_t v = static_cast<std::uint64_t>(a.low) + c.next64() % a.range;
        out[i] = static_cast<T>(static_cast<std::int64_t>(v));
      }
    } else {
      philox_cursor c(st, 2 * static_cast<std::uint64_t>(lo));
      for (index_t i = lo; i < hi; ++i) out[i] = static_cast<T>(c.template uniform<double>() < a.p);
    }
  }
}
}  // namespace cuda_kernels

template <random_kind K, class T>
void cuda_random_launch(void* out, index_t n, rng_state st, const random_args& a, int dev) {
  if (n == 0) return;
  tl::cuda::detail::require_device(dev, "random");
  tl::cuda::device_guard guard(dev);
  constexpr int block = 256;
  const index_t threads = (n + cuda_kernels::random_run - 1) / cuda_kernels::random_run;
  const index_t cap = static_cast<index_t>(tl::cuda::detail::sm_count(dev)) * 32;
  const unsigned grid = static_cast<unsigned>(std::max<index_t>(1, std::min((threads + block - 1) / block, cap)));
  cuda_kernels::random_fill<K, T><<<grid, block, 0, tl::cuda::current_stream()>>>(static_cast<T*>(out), n, st, a);
  TL_CUDA_CHECK(cudaGetLastError(), "random");
}

/// Instantiates the launcher for draw K of dtype T and fills its slot at static initialization.
template <random_kind K, class T>
void register_cuda_random() {
  fill_device_slot<cuda_random_key<K, T>, cuda_random_fn, &cuda_random_launch<K, T>>();
}

}  // namespace tl::detail
