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
///  - `softmax_rows_staged`: rows of one contiguous, 16-byte aligned real tensor of 2 to 16 KiB:
///    each block walks its rows with a two-stage pipeline in shared memory (the next row is copied in
///    with `cp.async` while the current one is reduced and written), so loads stay in flight through
///    the reductions; each thread reads, reduces and writes only the 16-byte chunks it copied in;
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

/// 16 bytes from global to shared memory without passing through registers (sm_80 and later; a
/// plain copy before).
__device__ __forceinline__ void copy16_async(void* smem, const void* gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
#else
  *static_cast<int4*>(smem) = *static_cast<const int4*>(gmem);
#endif
}
/// Closes the group of copies issued since the last commit.
__device__ __forceinline__ void copy_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
/// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void copy_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/// 16 bytes of V.
template <class V>
struct alignas(16) softmax_chunk {
  static constexpr int n = 16 / static_cast<int>(sizeof(V));
  V v[n];
};

/// Rows of `len` elements (a multiple of 16 / sizeof(V)) at x.prepare(o).p, 16-byte aligned; the
/// dynamic shared memory holds two rows. Block b takes rows b, b + gridDim.x, ...
template <bool Log, class V, class X, std::size_t R>
__global__ void __launch_bounds__(softmax_threads)
    softmax_rows_staged(const X x, index_t nlines, index_t len, V* out, const line_layout<R> lay) {
  using chunk = softmax_chunk<V>;
  extern __shared__ int4 softmax_stage[];
  __shared__ typename cub::BlockReduce<V, softmax_threads>::TempStorage temp;
  __shared__ V shared[1];
  const index_t nchunk = len / chunk::n;
  chunk* const stage[2] = {reinterpret_cast<chunk*>(softmax_stage), reinterpret_cast<chunk*>(softmax_stage) + nchunk};
  const index_t first = threadIdx.x, step = softmax_threads;
  auto fetch = [&](index_t o, int b) {
    if (o < nlines) {
      const V* src = x.prepare(o).p;
      for (index_t c = first; c < nchunk; c += step) copy16_async(stage[b] + c, src + c * chunk::n);
    }
    copy_async_commit();  // an empty group past the last row keeps the wait count uniform
  };
  index_t o = blockIdx.x;
  fetch(o, 0);
  for (int b = 0; o < nlines; o += gridDim.x, b ^= 1) {  // uniform across the block
    // The other buffer was last read by this thread's own chunks, before this point.
    fetch(o + gridDim.x, b ^ 1);
    copy_async_wait<1>();  // this thread's chunks of row o have landed
    chunk* const row = stage[b];
    // 1. maximum
    V m = -std::numeric_limits<V>::infinity();
    for (index_t c = first; c < nchunk; c += step) {
      const chunk v = row[c];
#pragma unroll
      for (int k = 0; k < chunk::n; ++k) m = softmax_max_op<V>{}(m, v.v[k]);
    }
    m = group_all_reduce<softmax_threads>(m, temp, shared, 0, softmax_max_op<V>{});
    // 2. sum of exp(x - max); the chunk keeps exp(x - max) (softmax) or x - max (log_softmax)
    V sum = 0;
    for (index_t c = first; c < nchunk; c += step) {
      chunk v = row[c];
#pragma unroll
      for (int k = 0; k < chunk::n; ++k) {
        const V xs = v.v[k] - m;
        const V ex = std::exp(xs);
        sum += ex;
        v.v[k] = Log ? xs : ex;
      }
      row[c] = v;
    }
    sum = group_all_reduce<softmax_threads>(sum, temp, shared, 0, softmax_sum_op{});
    // 3. outputs
    const V ls = std::log(sum), inv = V(1) / sum;
    chunk* const d = reinterpret_cast<chunk*>(out + lay.offset(o));
    for (index_t c = first; c < nchunk; c += step) {
      chunk v = row[c];
#pragma unroll
      for (int k = 0; k < chunk::n; ++k) v.v[k] = Log ? v.v[k] - ls : v.v[k] * inv;
      d[c] = v;
    }
  }
  copy_async_wait<0>();
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
