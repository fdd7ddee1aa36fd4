#pragma once
/// @file kernels/sort.cuh
/// @brief Internal: the gather and scatter kernels around CUB's radix sort (nvcc only; detail header).
///
/// `sort_gather` copies each line of the input into contiguous radix keys with their positions;
/// keys follow the host's order (tl/ops/detail/sort_keys.hpp): every NaN becomes the same positive
/// quiet NaN, which CUB's float ordering puts after +inf (ascending) and before it (descending), and
/// CUB already treats -0.0 and +0.0 as equal. Radix sort is stable, so equal keys keep their
/// positions' order, as the host's tie-break by index does. `sort_scatter` then writes the values,
/// read back from the input at the sorted positions (so NaN payloads and signed zeros survive), and
/// the positions as int64.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tl/eval/cuda/kernels/access.cuh"

namespace tl::detail::cuda_kernels {

inline constexpr int sort_threads = 256;

/// The radix key type of T (bool sorts as an unsigned byte).
template <class T>
using sort_key_t = std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>;

template <class T>
__device__ __forceinline__ sort_key_t<T> sort_key(const T& v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v) ? std::numeric_limits<T>::quiet_NaN() : v;
  else return static_cast<sort_key_t<T>>(v);
}

/// keys[f] and pos[f] for the flat index f = line * n + j of every element.
template <class T, std::size_t R>
__global__ void __launch_bounds__(sort_threads)
    sort_gather(const T* src, const line_layout<R> in, index_t n, index_t total, sort_key_t<T>* keys, int* pos) {
  for (index_t f = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; f < total;
       f += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t l = f / n, j = f - l * n;
    keys[f] = sort_key(src[in.offset(l) + j * in.step]);
    pos[f] = static_cast<int>(j);
  }
}

/// offsets[i] = i * n for i in [0, count]: the segment boundaries of lines of n elements.
/// (A template, as every kernel in a header must be, so that each translation unit may hold it.)
template <class Offset>
__global__ void __launch_bounds__(sort_threads) sort_offsets(Offset* offsets, index_t count, index_t n) {
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i <= count;
       i += static_cast<index_t>(gridDim.x) * blockDim.x)
    offsets[i] = static_cast<Offset>(i * n);
}

/// Element j of sorted line l: the input at the sorted position, and that position.
template <class T, std::size_t R>
__global__ void __launch_bounds__(sort_threads)
    sort_scatter(const T* src, const line_layout<R> in, index_t n, index_t total, const int* pos, T* values,
                 std::int64_t* indices, const line_layout<R> out) {
  for (index_t f = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; f < total;
       f += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t l = f / n, j = f - l * n;
    const index_t p = pos[f];
    const index_t o = out.offset(l) + j * out.step;
    values[o] = src[in.offset(l) + p * in.step];
    indices[o] = p;
  }
}

}  // namespace tl::detail::cuda_kernels
