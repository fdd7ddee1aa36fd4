#pragma once
/// @file softmax.cuh
/// @brief Internal: softmax and log_softmax on a CUDA device (nvcc only; included by
/// tl/reduce/softmax.hpp and tl/eval/eval.hpp). See kernels/softmax.cuh for the kernels.
#include <cuda_runtime.h>

#include <algorithm>
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
/// The longest row (in bytes) the chunked kernel keeps in registers: 512 threads of 4 chunks.
inline constexpr std::size_t cuda_softmax_chunked_bytes = 32768;

template <class P>
inline constexpr bool is_plain_leaf_v = false;
template <class T, class E>
inline constexpr bool is_plain_leaf_v<tensor_leaf<T, E>> = true;

/// Whether the chunked kernel can read lines through row_access<P> into V: P is one plain tensor
/// of V, V real floating.
template <class V, class P>
inline constexpr bool cuda_softmax_chunked_type =
    is_plain_leaf_v<P> && (std::is_same_v<V, float> || std::is_same_v<V, double>) &&
    std::is_same_v<typename P::value_type, V>;

/// Whether the chunked kernel can read these lines and write `out`: unit stride along the dim, every
/// row start (and the output) 16-byte aligned, a whole number of chunks, and a row longer than a
/// warp's share but within the registers of a block.
template <class V, class L>
bool cuda_softmax_chunked_ok(const L& lines, const V* out) {
  using P = std::remove_cvref_t<decltype(lines.access.p)>;
  if constexpr (!cuda_softmax_chunked_type<V, P>) {
    return false;
  } else {
    constexpr std::size_t R = P::rank;
    constexpr index_t n = 16 / sizeof(V);
    const auto& p = lines.access.p;
    if (lines.len <= cuda_softmax_warp_len || lines.len % n != 0 ||
        static_cast<std::size_t>(lines.len) * sizeof(V) > cuda_softmax_chunked_bytes)
      return false;
    if (p.m_stride[R - 1] != 1 || lines.layout.step != 1 || reinterpret_cast<std::uintptr_t>(p.p) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(out) % 16 != 0)
      return false;
    for (std::size_t k = 0; k + 1 < R; ++k)
      if (p.m_shape[k] != 1 && p.m_stride[k] % n != 0) return false;
    return true;
  }
}

/// The one stride s with row o at offset o * s, for rows indexed row-major over dims of extents
/// ext[0, n) and strides str[0, n); -1 where there is none.
inline index_t cuda_uniform_row_step(const index_t* ext, const index_t* str, std::size_t n) {
  index_t step = 0, next = 0;  // next: the stride the next outer dim must have
  bool seen = false;          // a dim of extent > 1 was seen
  for (std::size_t k = n; k-- > 0;) {
    if (ext[k] == 1) continue;
    if (!seen) {
      step = str[k];
      seen = true;
    } else if (str[k] != next) {
      return -1;
    }
    next = str[k] * ext[k];
  }
  return step < 0 ? -1 : step;  // -1 doubles as "none": a negative stride takes the general path
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
  if constexpr (cuda_softmax_chunked_type<V, std::remove_cvref_t<decltype(lines.access.p)>>) {
    if (cuda_softmax_chunked_ok<V>(lines, out)) {
      // A block per row (the grid-stride loop covers more rows than one grid holds); the block
      // takes the fewest threads that hold the row in 2 chunks each, or 512 threads of 4 chunks.
      const index_t nchunk = len / static_cast<index_t>(16 / sizeof(V));
      const auto grid = static_cast<unsigned>(std::min<index_t>(nlines, index_t{1} << 30));
      const auto& p = lines.access.p;
      const index_t in_step = cuda_uniform_row_step(p.m_shape.data(), p.m_stride.data(), R - 1);
      const index_t out_step = cuda_uniform_row_step(lines.layout.ext, lines.layout.str, R - 1);
      const bool uniform = in_step >= 0 && out_step >= 0;
      const auto run = [&](auto kernel, int threads) {
        kernel<<<grid, threads, 0, s>>>(lines.access, nlines, len, out, lines.layout, p.p, uniform ? in_step : -1,
                                        uniform ? out_step : -1);
      };
      if (nchunk <= 256)
        run(k::softmax_rows_chunked<128, 2, Log, V, A, R>, 128);
      else if (nchunk <= 512)
        run(k::softmax_rows_chunked<256, 2, Log, V, A, R>, 256);
      else if (nchunk <= 1024)
        run(k::softmax_rows_chunked<512, 2, Log, V, A, R>, 512);
      else
        run(k::softmax_rows_chunked<512, 4, Log, V, A, R>, 512);
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
