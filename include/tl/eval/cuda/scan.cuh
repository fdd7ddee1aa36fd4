#pragma once
/// @file scan.cuh
/// @brief Internal: cumsum and cumprod on a CUDA device (nvcc only; included by tl/reduce/cumulative.hpp
/// and tl/eval/eval.hpp). See kernels/scan.cuh for the kernels and their determinism.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "tl/eval/cpu/assign.hpp"
#include "tl/eval/cuda/kernels/scan.cuh"
#include "tl/eval/cuda/launch.cuh"
#include "tl/eval/cuda/runtime.cuh"
#include "tl/eval/device_ops.hpp"

namespace tl::detail {

/// Elements of a line one block scans; longer lines are cut into chunks of this length.
inline constexpr index_t cuda_scan_chunk = 8192;
/// Lines at most this long are scanned by one thread each.
inline constexpr index_t cuda_scan_short = 16;
/// With the scanned dim not innermost, this many lines are scanned by one thread each (coalesced).
inline constexpr index_t cuda_scan_many_lines = 4096;

template <bool IsProd, class N, class S, class Acc>
void cuda_scan_launch(const N& node_in, std::size_t d, S* out, int dev) {
  namespace k = cuda_kernels;
  constexpr std::size_t R = N::rank;
  static_assert(R >= 1);
  tl::cuda::detail::require_device(dev, "cumsum/cumprod");
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
  if (len <= cuda_scan_short || (d + 1 != R && nlines >= cuda_scan_many_lines)) {
    const unsigned grid = cuda_blocks((nlines + k::scan_threads - 1) / k::scan_threads, dev);
    k::scan_sequential<IsProd, S, Acc><<<grid, k::scan_threads, 0, s>>>(lines.access, nlines, len, out, lines.layout);
    TL_CUDA_CHECK(cudaGetLastError(), "cumsum/cumprod");
    return;
  }
  const index_t nchunk = (len + cuda_scan_chunk - 1) / cuda_scan_chunk;
  const unsigned grid = cuda_blocks(nlines * nchunk, dev);
  if (nchunk == 1) {
    k::scan_lines<IsProd, S, Acc><<<grid, k::scan_threads, 0, s>>>(lines.access, nlines, len, cuda_scan_chunk, nchunk,
                                                                    static_cast<const Acc*>(nullptr), out, lines.layout);
    TL_CUDA_CHECK(cudaGetLastError(), "cumsum/cumprod");
    return;
  }
  cuda_scratch carry(static_cast<std::size_t>(nlines * nchunk) * sizeof(Acc), dev);
  k::scan_chunk_totals<IsProd, Acc><<<grid, k::scan_threads, 0, s>>>(lines.access, nlines, len, cuda_scan_chunk,
                                                                      nchunk, carry.as<Acc>());
  TL_CUDA_CHECK(cudaGetLastError(), "cumsum/cumprod");
  k::scan_chunk_carries<IsProd, Acc><<<cuda_blocks(nlines, dev), k::scan_threads, 0, s>>>(carry.as<Acc>(), nlines,
                                                                                          nchunk);
  TL_CUDA_CHECK(cudaGetLastError(), "cumsum/cumprod");
  k::scan_lines<IsProd, S, Acc><<<grid, k::scan_threads, 0, s>>>(lines.access, nlines, len, cuda_scan_chunk, nchunk,
                                                                  carry.as<Acc>(), out, lines.layout);
  TL_CUDA_CHECK(cudaGetLastError(), "cumsum/cumprod");
}

/// Instantiates the launcher for this scan (accumulating in Acc) and fills its slot at static initialization.
template <bool IsProd, class N, class S, class Acc>
void register_cuda_scan() {
  fill_device_slot<cuda_scan_key<IsProd, N, S>, cuda_scan_fn<N, S>, &cuda_scan_launch<IsProd, N, S, Acc>>();
}

}  // namespace tl::detail
