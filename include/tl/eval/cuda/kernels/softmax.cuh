#pragma once
/// @file kernels/softmax.cuh
/// @brief Internal: the softmax / log_softmax kernels (nvcc only; detail header).
///
/// One fused kernel per call, the softmax dim permuted last:
///  - `softmax_rows`: a group of G threads (a warp for rows up to 512 elements, else the block) per
///    row: the row's maximum (NaN propagates), the sum of exp(x - max), then the outputs, each
///    reduction combined with CUB's WarpReduce / BlockReduce and broadcast to the group. Rows of up
///    to G * softmax_cached elements are read once and kept in registers; longer rows are read
///    again for each step;
///  - `softmax_rows_chunked`: rows of one contiguous, 16-byte aligned real tensor of 2 to 32 KiB:
///    a block per row, each thread keeping its 16-byte chunks of the row in registers; a grid of
///    one block per row keeps loads of other rows in flight through each block's reductions;
///  - `softmax_columns`: the dim is not innermost and there are many rows: one thread per row, the
///    same three steps in order, neighbouring threads reading neighbouring elements.
/// The arithmetic follows the host: x - max, exp, a sum, then exp(x - max) * (1 / sum) or
/// (x - max) - log(sum). Reduction orders are fixed, so results are deterministic.
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <cmath>
#include <limits>
#include <type_traits>

#include "tl/eval/cuda/kernels/access.cuh"

namespace tl::detail::cuda_kernels {

inline constexpr int softmax_threads = 256;
/// Elements per thread kept in registers.
inline constexpr int softmax_cached = 16;

template <class V>
struct softmax_max_op {
  __device__ __forceinline__ V operator()(const V& a, const V& b) const {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    return b > a ? b : a;
  }
};
struct softmax_sum_op {
  template <class V>
  __device__ __forceinline__ V operator()(const V& a, const V& b) const {
    return a + b;
  }
};

/// The group-wide reduction of v, returned to every thread of the group.
template <int G, class V, class Temp, class Op>
__device__ __forceinline__ V group_all_reduce(V v, Temp& temp, V* shared, int group, Op op) {
  if constexpr (G == 32) {
    v = cub::WarpReduce<V>(temp[group]).Reduce(v, op);
    v = __shfl_sync(0xffffffffu, v, 0);
    __syncwarp();  // temp is reused
    return v;
  } else {
    v = cub::BlockReduce<V, softmax_threads>(temp).Reduce(v, op);
    if (threadIdx.x == 0) shared[0] = v;
    __syncthreads();
    v = shared[0];
    __syncthreads();  // temp and shared are reused
    return v;
  }
}

template <int G, bool Log, class V, class X, std::size_t R>
__global__ void __launch_bounds__(softmax_threads)
    softmax_rows(const X x, index_t nlines, index_t len, V* out, const line_layout<R> lay) {
  static_assert(G == 32 || G == softmax_threads);
  constexpr int groups = softmax_threads / G;
  using temp_t = std::conditional_t<G == softmax_threads, typename cub::BlockReduce<V, softmax_threads>::TempStorage,
                                    typename cub::WarpReduce<V>::TempStorage[groups]>;
  __shared__ temp_t temp;
  __shared__ V shared[1];
  const int lane = static_cast<int>(threadIdx.x) % G, group = static_cast<int>(threadIdx.x) / G;
  const bool cached = len <= static_cast<index_t>(G) * softmax_cached;
  for (index_t first = static_cast<index_t>(blockIdx.x) * groups; first < nlines;
       first += static_cast<index_t>(gridDim.x) * groups) {  // uniform across the block
    const index_t o = first + group;
    const bool active = o < nlines;
    const auto st = x.prepare(active ? o : 0);
    const auto row = x.line(st, 0);
    V vals[softmax_cached];
    // 1. maximum
    V m = -std::numeric_limits<V>::infinity();
    if (active) {
      if (cached) {
#pragma unroll
        for (int i = 0; i < softmax_cached; ++i) {
          const index_t j = lane + static_cast<index_t>(i) * G;
          if (j < len) {
            vals[i] = static_cast<V>(row.get(j));
            m = softmax_max_op<V>{}(m, vals[i]);
          }
        }
      } else {
        for (index_t j = lane; j < len; j += G) m = softmax_max_op<V>{}(m, static_cast<V>(row.get(j)));
      }
    }
    m = group_all_reduce<G>(m, temp, shared, group, softmax_max_op<V>{});
    // 2. sum of exp(x - max); cached rows keep exp(x - max) (softmax) or x - max (log_softmax)
    V sum = 0;
    if (active) {
      if (cached) {
#pragma unroll
        for (int i = 0; i < softmax_cached; ++i) {
          const index_t j = lane + static_cast<index_t>(i) * G;
          if (j < len) {
            const V xs = vals[i] - m;
            const V ex = std::exp(xs);
            sum += ex;
            vals[i] = Log ? xs : ex;
          }
        }
      } else {
        for (index_t j = lane; j < len; j += G) sum += std::exp(static_cast<V>(row.get(j)) - m);
      }
    }
    sum = group_all_reduce<G>(sum, temp, shared, group, softmax_sum_op{});
    // 3. outputs
    if (active) {
      V* d = out + lay.offset(o);
      const V ls = std::log(sum), inv = V(1) / sum;
      if (cached) {
#pragma unroll
        for (int i = 0; i < softmax_cached; ++i) {
          const index_t j = lane + static_cast<index_t>(i) * G;
          if (j < len) d[j * lay.step] = Log ? vals[i] - ls : vals[i] * inv;
        }
      } else {
        for (index_t j = lane; j < len; j += G) {
          const V xs = static_cast<V>(row.get(j)) - m;
          d[j * lay.step] = Log ? xs - ls : std::exp(xs) * inv;
        }
      }
    }
  }
}

/// 16 bytes of V.
template <class V>
struct alignas(16) softmax_chunk {
  static constexpr int n = 16 / static_cast<int>(sizeof(V));
  V v[n];
};

/// The reduction of v over the block's T threads, returned to every thread: a butterfly of shuffles
/// within each warp, the warps' results through `shared` (T / 32 slots), then a butterfly over them.
/// The order depends on T alone.
template <int T, class V, class Op>
__device__ __forceinline__ V block_all_reduce(V v, V* shared, Op op) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  constexpr int warps = T / 32;
  if constexpr (warps > 1) {
    const int w = static_cast<int>(threadIdx.x) / 32, l = static_cast<int>(threadIdx.x) % 32;
    if (l == 0) shared[w] = v;
    __syncthreads();
    v = shared[l % warps];
#pragma unroll
    for (int o = warps / 2; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    __syncthreads();  // shared is reused
  }
  return v;
}

/// Rows of `len` elements (a whole number of 16-byte chunks, at most T * K of them) at
/// x.prepare(o).p, 16-byte aligned, and the output likewise: a block of T threads per row, each
/// thread loading its K chunks (c = thread + i * T) into registers with 16-byte loads, so the row
/// is read once and written once. One row per block with a grid of rows keeps many rows' loads in
/// flight on each multiprocessor through the reductions; the grid-stride loop covers more rows than
/// a grid holds. Where rows sit at one stride (in_step, out_step >= 0; the common case), row o is
/// found by one multiplication instead of an index unravelled with 64-bit divisions.
template <int T, int K, bool Log, class V, class X, std::size_t R>
__global__ void __launch_bounds__(T)
    softmax_rows_chunked(const X x, index_t nlines, index_t len, V* out, const line_layout<R> lay, const V* in,
                         index_t in_step, index_t out_step) {
  using chunk = softmax_chunk<V>;
  __shared__ V shared[T / 32];
  const index_t nchunk = len / chunk::n;
  for (index_t o = blockIdx.x; o < nlines; o += gridDim.x) {  // uniform across the block
    const chunk* const src = reinterpret_cast<const chunk*>(in_step >= 0 ? in + o * in_step : x.prepare(o).p);
    // Every load is issued before any is used (a branch around each load and its use would keep one
    // in flight); the chunks past the row hold -inf, which changes neither the maximum nor the sum.
    chunk v[K];
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const index_t c = threadIdx.x + static_cast<index_t>(i) * T;
      if (c < nchunk) {
        v[i] = src[c];
      } else {
#pragma unroll
        for (int k = 0; k < chunk::n; ++k) v[i].v[k] = -std::numeric_limits<V>::infinity();
      }
    }
    V m = -std::numeric_limits<V>::infinity();
#pragma unroll
    for (int i = 0; i < K; ++i)
#pragma unroll
      for (int k = 0; k < chunk::n; ++k) m = softmax_max_op<V>{}(m, v[i].v[k]);
    m = block_all_reduce<T>(m, shared, softmax_max_op<V>{});
    // The chunks keep exp(x - max) (softmax) or x - max (log_softmax).
    V sum = 0;
#pragma unroll
    for (int i = 0; i < K; ++i)
#pragma unroll
      for (int k = 0; k < chunk::n; ++k) {
        const V xs = v[i].v[k] - m;
        const V ex = std::exp(xs);
        sum += ex;
        v[i].v[k] = Log ? xs : ex;
      }
    sum = block_all_reduce<T>(sum, shared, softmax_sum_op{});
    const V ls = std::log(sum), inv = V(1) / sum;
    chunk* const d = reinterpret_cast<chunk*>(out + (out_step >= 0 ? o * out_step : lay.offset(o)));
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const index_t c = threadIdx.x + static_cast<index_t>(i) * T;
      if (c < nchunk) {
#pragma unroll
        for (int k = 0; k < chunk::n; ++k) v[i].v[k] = Log ? v[i].v[k] - ls : v[i].v[k] * inv;
        d[c] = v[i];
      }
    }
  }
}

template <bool Log, class V, class X, std::size_t R>
__global__ void __launch_bounds__(softmax_threads)
    softmax_columns(const X x, index_t nlines, index_t len, V* out, const line_layout<R> lay) {
  for (index_t o = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < nlines;
       o += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const auto st = x.prepare(o);
    const auto row = x.line(st, 0);
    V m = -std::numeric_limits<V>::infinity();
    for (index_t j = 0; j < len; ++j) m = softmax_max_op<V>{}(m, static_cast<V>(row.get(j)));
    V sum = 0;
    for (index_t j = 0; j < len; ++j) sum += std::exp(static_cast<V>(row.get(j)) - m);
    const V ls = std::log(sum), inv = V(1) / sum;
    V* d = out + lay.offset(o);
    for (index_t j = 0; j < len; ++j) {
      const V xs = static_cast<V>(row.get(j)) - m;
      d[j * lay.step] = Log ? xs - ls : std::exp(xs) * inv;
    }
  }
}

}  // namespace tl::detail::cuda_kernels
