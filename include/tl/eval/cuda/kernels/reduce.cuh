#pragma once
/// @file kernels/reduce.cuh
/// @brief Internal: the reduction kernels (nvcc only; detail header).
///
/// A reducer (tl/reduce/detail/reducers.hpp) describes the arithmetic: `init()`, `map(x, k)`,
/// `combine(a, b)`; a finalizer turns accumulator o into output element o. Two kernel shapes:
///  - `reduce_inner`: a group of G threads (a warp or the whole block) reduces one output, or one
///    segment of an output's elements: each thread folds the elements j, j + G, ... of its rows in
///    order (four loads in flight), then the group combines the threads' values with CUB's
///    WarpReduce / BlockReduce. Segments are combined by `reduce_partials`;
///  - `reduce_columns`: the innermost dim is kept, so one thread per output walks the reduced
///    positions in order (neighbouring threads read neighbouring columns: coalesced); the rows may be
///    split into segments, combined in order by `reduce_column_partials`.
/// No atomics: every combination happens in an order fixed by the shape (the segment and group
/// sizes are functions of the extents only), so a reduction is bit-identical from run to run and on
/// any GPU.
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <type_traits>

#include "tl/eval/cuda/kernels/access.cuh"

namespace tl::detail::cuda_kernels {

inline constexpr int reduce_threads = 256;

/// The reducer's combine as a CUB reduction operator.
template <class Red>
struct combine_op {
  Red red;
  template <class A>
  __device__ __forceinline__ A operator()(const A& a, const A& b) const {
    return red.combine(a, b);
  }
};

/// acc folded with elements j, j + G, ... < jhi of `row` (reduced position kbase + j), eight loads in
/// flight before any is combined (a probe kernel with a warp per row of 8192 floats took 67.0 us
/// for 8192 rows with four on an H200, 65.1 us with eight).
template <int G, class Red, class Row>
__device__ __forceinline__ typename Red::acc_type fold_row(const Red& red, const Row& row, index_t j, index_t jhi,
                                                           index_t kbase, typename Red::acc_type acc) {
  for (; j + 7 * G < jhi; j += 8 * G) {
    std::remove_cvref_t<decltype(row.get(j))> v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = row.get(j + k * G);
#pragma unroll
    for (int k = 0; k < 8; ++k) acc = red.combine(acc, red.map(v[k], kbase + j + k * G));
  }
  for (; j < jhi; j += G) acc = red.combine(acc, red.map(row.get(j), kbase + j));
  return acc;
}

/// Task t = (output t / nseg, segment t % nseg) reduces positions [s * seg, min(n, (s + 1) * seg)) of
/// its output; groups of G threads (32 or reduce_threads) take one task each. With one segment the
/// group writes out[o] = fin.finish(acc, o), otherwise partial[t].
template <int G, class Red, class X, class Out, class Fin>
__global__ void __launch_bounds__(reduce_threads)
    reduce_inner(const Red red, const X x, index_t nout, index_t n, index_t seg, index_t nseg,
                 typename Red::acc_type* partial, Out* out, const Fin fin) {
  static_assert(G == 32 || G == reduce_threads);
  using A = typename Red::acc_type;
  constexpr int groups = reduce_threads / G;
  using block_reduce = cub::BlockReduce<A, reduce_threads>;
  using warp_reduce = cub::WarpReduce<A>;
  using temp_t = std::conditional_t<G == reduce_threads, typename block_reduce::TempStorage,
                                    typename warp_reduce::TempStorage[groups]>;
  __shared__ temp_t temp;
  const int lane = static_cast<int>(threadIdx.x) % G, group = static_cast<int>(threadIdx.x) / G;
  const index_t ntask = nout * nseg;
  const index_t len = x.len;
  for (index_t first = static_cast<index_t>(blockIdx.x) * groups; first < ntask;
       first += static_cast<index_t>(gridDim.x) * groups) {  // uniform across the block
    const index_t t = first + group;
    A acc = red.init();
    index_t o = 0;
    if (t < ntask) {
      // One segment per output (the common case) needs no 64-bit division per task.
      o = nseg == 1 ? t : t / nseg;
      const index_t k0 = (t - o * nseg) * seg;
      const index_t k1 = k0 + seg < n ? k0 + seg : n;
      const auto st = x.prepare(o);
      for (index_t r = k0 == 0 ? 0 : k0 / len; r * len < k1; ++r) {
        const index_t lo = k0 - r * len > 0 ? k0 - r * len : 0;
        const index_t hi = k1 - r * len < len ? k1 - r * len : len;
        acc = fold_row<G>(red, x.line(st, r), lo + lane, hi, r * len, acc);
      }
    }
    if constexpr (G == reduce_threads) {
      acc = block_reduce(temp).Reduce(acc, combine_op<Red>{red});
      __syncthreads();  // temp is reused by the next task
    } else {
      acc = warp_reduce(temp[group]).Reduce(acc, combine_op<Red>{red});
      __syncwarp();
    }
    if (lane == 0 && t < ntask) {
      if (nseg == 1) out[o] = fin.finish(acc, o);
      else partial[t] = acc;
    }
  }
}

/// out[o] = fin.finish(partials o * nseg .. o * nseg + nseg - 1 combined, o): one block per output.
template <class Red, class Out, class Fin>
__global__ void __launch_bounds__(reduce_threads)
    reduce_partials(const Red red, const typename Red::acc_type* partial, index_t nout, index_t nseg, Out* out,
                    const Fin fin) {
  using A = typename Red::acc_type;
  using block_reduce = cub::BlockReduce<A, reduce_threads>;
  __shared__ typename block_reduce::TempStorage temp;
  for (index_t o = blockIdx.x; o < nout; o += gridDim.x) {
    A acc = red.init();
    for (index_t s = threadIdx.x; s < nseg; s += reduce_threads) acc = red.combine(acc, partial[o * nseg + s]);
    acc = block_reduce(temp).Reduce(acc, combine_op<Red>{red});
    if (threadIdx.x == 0) out[o] = fin.finish(acc, o);
    __syncthreads();
  }
}

/// Thread task t = (segment t / nout, output t % nout) folds reduced positions [s * seg, min(nrows,
/// (s + 1) * seg)) of its output in order; one segment writes out[o], several write partial[t].
/// MinBlocks: blocks per multiprocessor the register allocation must allow (see
/// `column_min_blocks`).
template <int MinBlocks, class Red, class X, class Out, class Fin>
__global__ void __launch_bounds__(reduce_threads, MinBlocks)
    reduce_columns(const Red red, const X x, index_t nout, index_t nrows, index_t seg, index_t nseg,
                   typename Red::acc_type* partial, Out* out, const Fin fin) {
  using A = typename Red::acc_type;
  const index_t total = nout * nseg;
  for (index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t s = t / nout, o = t - s * nout;
    index_t r = s * seg;
    const index_t r1 = r + seg < nrows ? r + seg : nrows;
    auto st = x.start(o, r);
    A acc = red.init();
    // Eight loads in flight per thread before any is combined (memory parallelism: with four, an
    // 8192 x 8192 column sum took 1.66x as long on an H100).
    for (; r + 7 < r1; r += 8) {
      std::remove_cvref_t<decltype(x.get(st))> v[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        v[k] = x.get(st);
        x.next(st);
      }
#pragma unroll
      for (int k = 0; k < 8; ++k) acc = red.combine(acc, red.map(v[k], r + k));
    }
    for (; r < r1; ++r) {
      acc = red.combine(acc, red.map(x.get(st), r));
      x.next(st);
    }
    if (nseg == 1) out[o] = fin.finish(acc, o);
    else partial[t] = acc;
  }
}

/// out[o] = fin.finish(partial[o], partial[nout + o], ... combined in segment order, o).
template <class Red, class Out, class Fin>
__global__ void __launch_bounds__(reduce_threads)
    reduce_column_partials(const Red red, const typename Red::acc_type* partial, index_t nout, index_t nseg, Out* out,
                           const Fin fin) {
  using A = typename Red::acc_type;
  for (index_t o = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < nout;
       o += static_cast<index_t>(gridDim.x) * blockDim.x) {
    A acc = partial[o];
    for (index_t s = 1; s < nseg; ++s) acc = red.combine(acc, partial[s * nout + o]);
    out[o] = fin.finish(acc, o);
  }
}

/// Reductions over zero elements: out[o] = fin.finish(init, o).
template <class Red, class Out, class Fin>
__global__ void __launch_bounds__(reduce_threads) reduce_empty(const Red red, index_t nout, Out* out, const Fin fin) {
  for (index_t o = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < nout;
       o += static_cast<index_t>(gridDim.x) * blockDim.x)
    out[o] = fin.finish(red.init(), o);
}

}  // namespace tl::detail::cuda_kernels
