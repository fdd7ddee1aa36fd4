#pragma once
/// @file softmax.cuh
/// @brief Internal: softmax and log_softmax on a CUDA device (nvcc only; included by
/// tl/reduce/softmax.hpp and tl/eval/eval.hpp). See kernels/softmax.cuh for the kernels.
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "tl/eval/cpu/assign.hpp"
#include "tl/eval/cuda/kernels/softmax.cuh"
#include "tl/eval/cuda/launch.cuh"
#include "tl/eval/cuda/runtime.cuh"
#include "tl/eval/device_ops.hpp"

namespace tl::detail {

/// With the softmax dim not innermost, at least this many rows, and an innermost extent at least
/// this wide, one thread handles each row (coalesced across rows).
inline constexpr index_t cuda_softmax_column_rows = 1024;
inline constexpr index_t cuda_softmax_column_width = 32;
/// Rows up to this long get a warp each, longer ones a block.
inline constexpr index_t cuda_softmax_warp_len = 32 * cuda_kernels::softmax_cached;

template <bool Log, class N, class V>
void cuda_softmax_launch(const N& node_in, std::size_t d, V* out, int dev) {
  namespace k = cuda_kernels;
  constexpr std::size_t R = N::rank;
  static_assert(R >= 1);
  tl::cuda::detail::require_device(dev, "softmax");
  tl::cuda::device_guard guard(dev);
  const cudaStream_t s = tl::cuda::current_stream();
  const auto node = to_plain(node_in);
  const auto lines = cuda_lines_of(node, d);
  static_assert(std::is_trivially_copyable_v<decltype(lines.access)>,
                "tl: internal: a CUDA kernel argument must be trivially copyable");
  static_assert(sizeof(lines.access) <= 3500,
                "tl: this expression is too large to pass to one CUDA kernel (over 3.5 KB of operands); evaluate "
                "part of it into a tensor first");
  const index_t nlines = lines.nlines, len = lines.len;
  if (nlines == 0 || len == 0) return;
  if (d + 1 != R && nlines >= cuda_softmax_column_rows && node.shape()[R - 1] >= cuda_softmax_column_width) {
    const unsigned grid = cuda_blocks((nlines + k::softmax_threads - 1) / k::softmax_threads, dev);
    k::softmax_columns<Log, V><<<grid, k::softmax_threads, 0, s>>>(lines.access, nlines, len, out, lines.layout);
  } else if (len <= cuda_softmax_warp_len) {
    constexpr index_t groups = k::softmax_threads / 32;
    const unsigned grid = cuda_blocks((nlines + groups - 1) / groups, dev);
    k::softmax_rows<32, Log, V><<<grid, k::softmax_threads, 0, s>>>(lines.access, nlines, len, out, lines.layout);
  } else {
    k::softmax_rows<k::softmax_threads, Log, V><<<cuda_blocks(nlines, dev), k::softmax_threads, 0, s>>>(
        lines.access, nlines, len, out, lines.layout);
  }
  TL_CUDA_CHECK(cudaGetLastError(), "softmax");
}

/// Instantiates the launcher for this softmax and fills its slot at static initialization.
template <bool Log, class N, class V>
void register_cuda_softmax() {
  fill_device_slot<cuda_softmax_key<Log, N, V>, cuda_softmax_fn<N, V>, &cuda_softmax_launch<Log, N, V>>();
}

}  // namespace tl::detail
