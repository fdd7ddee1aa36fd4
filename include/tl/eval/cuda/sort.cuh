#pragma once
/// @file sort.cuh
/// @brief Internal: tl::sort on a CUDA device (nvcc only; included by tl/ops/sort.hpp and
/// tl/eval/eval.hpp): gather keys, CUB's (segmented) radix sort, scatter values and indices.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>

#include "tl/core/error.hpp"
#include "tl/eval/cuda/kernels/sort.cuh"
#include "tl/eval/cuda/launch.cuh"
#include "tl/eval/cuda/runtime.cuh"
#include "tl/eval/device_ops.hpp"

namespace tl::detail {

/// Radix sort of `total` keys with int positions: one segment (DeviceRadixSort) or lines of n
/// elements (DeviceSegmentedRadixSort).
template <class K>
void cuda_radix_sort(const K* keys_in, K* keys_out, const int* pos_in, int* pos_out, index_t total, index_t n,
                     bool descending, int dev, cudaStream_t s) {
  const int items = static_cast<int>(total);
  const index_t lines = total / n;
  std::size_t bytes = 0;
  if (lines == 1) {
    auto sort = [&](void* temp) {
      return descending ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, keys_in, keys_out, pos_in, pos_out,
                                                                   items, 0, static_cast<int>(sizeof(K) * 8), s)
                        : cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, pos_in, pos_out, items, 0,
                                                          static_cast<int>(sizeof(K) * 8), s);
    };
    TL_CUDA_CHECK(sort(nullptr), "sort");
    cuda_scratch temp(bytes, dev);
    TL_CUDA_CHECK(sort(temp.as<void>()), "sort");
    return;
  }
  cuda_scratch offsets(static_cast<std::size_t>(lines + 1) * sizeof(int), dev);
  cuda_kernels::sort_offsets<<<cuda_blocks((lines + cuda_kernels::sort_threads) / cuda_kernels::sort_threads, dev),
                               cuda_kernels::sort_threads, 0, s>>>(offsets.as<int>(), lines, n);
  TL_CUDA_CHECK(cudaGetLastError(), "sort");
  const int* off = offsets.as<int>();
  const int segments = static_cast<int>(lines);
  auto sort = [&](void* temp) {
    return descending
               ? cub::DeviceSegmentedRadixSort::SortPairsDescending(temp, bytes, keys_in, keys_out, pos_in, pos_out,
                                                                    items, segments, off, off + 1, 0,
                                                                    static_cast<int>(sizeof(K) * 8), s)
               : cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, keys_in, keys_out, pos_in, pos_out, items,
                                                          segments, off, off + 1, 0, static_cast<int>(sizeof(K) * 8), s);
  };
  TL_CUDA_CHECK(sort(nullptr), "sort");
  cuda_scratch temp(bytes, dev);
  TL_CUDA_CHECK(sort(temp.as<void>()), "sort");
}

template <class T, std::size_t R>
void cuda_sort_launch(const T* src, const shape_t<R>& shape, const shape_t<R>& strides, std::size_t d,
                      bool descending, T* values, std::int64_t* indices, int dev) {
  namespace k = cuda_kernels;
  using K = k::sort_key_t<T>;
  tl::cuda::detail::require_device(dev, "sort");
  tl::cuda::device_guard guard(dev);
  const cudaStream_t s = tl::cuda::current_stream();
  const index_t total = numel(shape);
  if (total == 0) return;
  if (total > std::numeric_limits<int>::max())
    throw value_error(cat_str("tl::sort: a CUDA tensor of ", total, " elements (shape ", shape_str(shape),
                              ") is more than the device sort handles (2^31 - 1 elements); sort it in parts"));
  // Lines along d: the other dims in order, d last (R == 0: one line of one element).
  k::line_layout<(R > 0 ? R : 1)> in{}, out{};
  index_t n = 1;
  if constexpr (R > 0) {
    const auto cs = contiguous_strides(shape);
    std::size_t m = 0;
    for (std::size_t k2 = 0; k2 < R; ++k2) {
      if (k2 == d) continue;
      in.ext[m] = out.ext[m] = shape[k2];
      in.str[m] = strides[k2];
      out.str[m] = cs[k2];
      ++m;
    }
    n = shape[d];
    in.step = strides[d];
    out.step = cs[d];
  } else {
    (void)strides;
    (void)d;
  }
  cuda_scratch keys(static_cast<std::size_t>(2 * total) * sizeof(K), dev);
  cuda_scratch pos(static_cast<std::size_t>(2 * total) * sizeof(int), dev);
  K* keys_in = keys.as<K>();
  int* pos_in = pos.as<int>();
  const unsigned grid = cuda_blocks((total + k::sort_threads - 1) / k::sort_threads, dev);
  k::sort_gather<<<grid, k::sort_threads, 0, s>>>(src, in, n, total, keys_in, pos_in);
  TL_CUDA_CHECK(cudaGetLastError(), "sort");
  cuda_radix_sort(keys_in, keys_in + total, pos_in, pos_in + total, total, n, descending, dev, s);
  k::sort_scatter<<<grid, k::sort_threads, 0, s>>>(src, in, n, total, pos_in + total, values, indices, out);
  TL_CUDA_CHECK(cudaGetLastError(), "sort");
}

/// Instantiates the launcher for sorting T along a dim of a rank-R tensor and fills its slot.
template <class T, std::size_t R>
void register_cuda_sort() {
  fill_device_slot<cuda_sort_key<T, R>, cuda_sort_fn<T, R>, &cuda_sort_launch<T, R>>();
}

}  // namespace tl::detail
