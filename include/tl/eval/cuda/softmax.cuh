#pragma once
/// @file softmax.cuh
/// @brief Internal: softmax and log_softmax on a CUDA device (nvcc only; included by
/// tl/reduce/softmax.hpp and tl/eval/eval.hpp). See kernels/softmax.cuh for the kernels.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
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
/// The longest row (in bytes) the staged kernel keeps in shared memory (two per block).
inline constexpr std::size_t cuda_softmax_stage_bytes = 16384;

template <class P>
inline constexpr bool is_plain_leaf_v = false;
template <class T, class E>
inline constexpr bool is_plain_leaf_v<tensor_leaf<T, E>> = true;

/// Whether the staged kernel can read lines through row_access<P> into V: P is one plain tensor of
/// V, V real floating.
template <class V, class P>
inline constexpr bool cuda_softmax_staged_type =
    is_plain_leaf_v<P> && (std::is_same_v<V, float> || std::is_same_v<V, double>) &&
    std::is_same_v<typename P::value_type, V>;

/// Whether the staged kernel can read these lines and write `out`: unit stride along the dim, every
/// row start (and the output) 16-byte aligned, a whole number of chunks, and a row longer than a
/// warp's share but within the stage.
template <class V, class L>
bool cuda_softmax_staged_ok(const L& lines, const V* out) {
  using P = std::remove_cvref_t<decltype(lines.access.p)>;
  if constexpr (!cuda_softmax_staged_type<V, P>) {
    return false;
  } else {
    constexpr std::size_t R = P::rank;
    constexpr index_t n = 16 / sizeof(V);
    const auto& p = lines.access.p;
    if (lines.len <= cuda_softmax_warp_len || lines.len % n != 0 ||
        static_cast<std::size_t>(lines.len) * sizeof(V) > cuda_softmax_stage_bytes)
      return false;
    if (p.m_stride[R - 1] != 1 || lines.layout.step != 1 || reinterpret_cast<std::uintptr_t>(p.p) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(out) % 16 != 0)
      return false;
    for (std::size_t k = 0; k + 1 < R; ++k)
      if (p.m_shape[k] != 1 && p.m_stride[k] % n != 0) return false;
    return true;
  }
}

/// Blocks of a softmax kernel resident on one multiprocessor of device dev (the last answer is kept
/// per thread: a loop of equal calls queries once).
template <class Kernel>
int cuda_resident_blocks(Kernel kernel, std::size_t smem, int dev) {
  struct query {
    const void* kernel;
    std::size_t smem;
    int dev, blocks;
  };
  thread_local query last{nullptr, 0, -1, 0};
  const void* key = reinterpret_cast<const void*>(kernel);
  if (last.kernel != key || last.smem != smem || last.dev != dev) {
    int n = 0;
    TL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, cuda_kernels::softmax_threads, smem),
                  "softmax");
    last = {key, smem, dev, n > 0 ? n : 1};
  }
  return last.blocks;
}

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
  using A = std::remove_cvref_t<decltype(lines.access)>;
  if constexpr (cuda_softmax_staged_type<V, std::remove_cvref_t<decltype(lines.access.p)>>) {
    if (cuda_softmax_staged_ok<V>(lines, out)) {
      // Persistent blocks, each taking the same number of rows (within one).
      const auto kernel = k::softmax_rows_staged<Log, V, A, R>;
      const std::size_t smem = 2 * static_cast<std::size_t>(len) * sizeof(V);
      const index_t slots =
          static_cast<index_t>(tl::cuda::detail::sm_count(dev)) * cuda_resident_blocks(kernel, smem, dev);
      const index_t per_block = (nlines + slots - 1) / slots;
      const auto grid = static_cast<unsigned>((nlines + per_block - 1) / per_block);
      kernel<<<grid, k::softmax_threads, smem, s>>>(lines.access, nlines, len, out, lines.layout);
      TL_CUDA_CHECK(cudaGetLastError(), "softmax");
      return;
    }
  }
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
