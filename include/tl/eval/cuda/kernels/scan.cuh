#pragma once
/// @file kernels/scan.cuh
/// @brief Internal: the cumsum / cumprod kernels (nvcc only; detail header).
///
/// The node is permuted so that the scanned dim is last; each line is scanned in an accumulator type
/// Acc (double for float input, as on the host) and written, converted, to a contiguous output:
///  - `scan_sequential`: one thread per line, in order (the host's arithmetic exactly); used for short
///    lines and, when the scanned dim is not innermost, for many lines (neighbouring threads read
///    neighbouring elements);
///  - `scan_lines`: a block per (line, chunk) scans tiles of the chunk with CUB's BlockScan, carrying
///    the running prefix from tile to tile; for lines longer than one chunk, `scan_chunk_totals`
///    and `scan_chunk_carries` first compute each chunk's starting value. Chunk and tile sizes are
///    constants, so the result is deterministic.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "tl/eval/cuda/kernels/access.cuh"
#include "tl/expr/functors.hpp"

namespace tl::detail::cuda_kernels {

inline constexpr int scan_threads = 256;

template <bool IsProd>
struct scan_op {
  template <class A>
  __device__ __forceinline__ A operator()(const A& a, const A& b) const {
    if constexpr (IsProd) return a * b;
    else return a + b;
  }
};

template <bool IsProd, class Acc>
__device__ __forceinline__ Acc scan_identity() {
  return IsProd ? Acc(1) : Acc(0);
}

/// Block-wide running prefix for BlockScan's callback (called by the first warp; lane 0's result counts).
template <bool IsProd, class Acc>
struct running_prefix {
  Acc total;
  __device__ __forceinline__ Acc operator()(const Acc& block_aggregate) {
    const Acc before = total;
    total = scan_op<IsProd>{}(total, block_aggregate);
    return before;
  }
};

/// One thread per line: out[line o, j] = x_0 (op) ... (op) x_j, accumulated in Acc in order.
template <bool IsProd, class S, class Acc, class X, std::size_t R>
__global__ void __launch_bounds__(scan_threads)
    scan_sequential(const X x, index_t nlines, index_t len, S* out, const line_layout<R> lay) {
  for (index_t o = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < nlines;
       o += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const auto st = x.prepare(o);
    const auto row = x.line(st, 0);
    S* d = out + lay.offset(o);
    Acc a = scan_identity<IsProd, Acc>();
    for (index_t j = 0; j < len; ++j) {
      a = scan_op<IsProd>{}(a, cast_fn<Acc>{}(row.get(j)));
      d[j * lay.step] = cast_fn<S>{}(a);
    }
  }
}

/// Task t = (line t / nchunk, chunk t % nchunk): scans elements [c * chunk, min(len, (c + 1) * chunk))
/// of its line starting from carry[t] (the identity when carry is null).
template <bool IsProd, class S, class Acc, class X, std::size_t R>
__global__ void __launch_bounds__(scan_threads)
    scan_lines(const X x, index_t nlines, index_t len, index_t chunk, index_t nchunk, const Acc* carry, S* out,
               const line_layout<R> lay) {
  using block_scan = cub::BlockScan<Acc, scan_threads>;
  __shared__ typename block_scan::TempStorage temp;
  const index_t ntask = nlines * nchunk;
  for (index_t t = blockIdx.x; t < ntask; t += gridDim.x) {
    const index_t o = t / nchunk;
    const index_t lo = (t - o * nchunk) * chunk;
    const index_t hi = lo + chunk < len ? lo + chunk : len;
    const auto st = x.prepare(o);
    const auto row = x.line(st, 0);
    S* d = out + lay.offset(o);
    running_prefix<IsProd, Acc> prefix{carry ? carry[t] : scan_identity<IsProd, Acc>()};
    for (index_t base = lo; base < hi; base += scan_threads) {
      const index_t j = base + threadIdx.x;
      Acc v = j < hi ? cast_fn<Acc>{}(row.get(j)) : scan_identity<IsProd, Acc>();
      block_scan(temp).InclusiveScan(v, v, scan_op<IsProd>{}, prefix);
      if (j < hi) d[j * lay.step] = cast_fn<S>{}(v);
      __syncthreads();  // temp is reused by the next tile
    }
  }
}

/// totals[t] = the combination of the elements of task t = (line, chunk), as in scan_lines.
template <bool IsProd, class Acc, class X>
__global__ void __launch_bounds__(scan_threads)
    scan_chunk_totals(const X x, index_t nlines, index_t len, index_t chunk, index_t nchunk, Acc* totals) {
  using block_reduce = cub::BlockReduce<Acc, scan_threads>;
  __shared__ typename block_reduce::TempStorage temp;
  const index_t ntask = nlines * nchunk;
  for (index_t t = blockIdx.x; t < ntask; t += gridDim.x) {
    const index_t o = t / nchunk;
    const index_t lo = (t - o * nchunk) * chunk;
    const index_t hi = lo + chunk < len ? lo + chunk : len;
    const auto st = x.prepare(o);
    const auto row = x.line(st, 0);
    Acc a = scan_identity<IsProd, Acc>();
    for (index_t j = lo + threadIdx.x; j < hi; j += scan_threads) a = scan_op<IsProd>{}(a, cast_fn<Acc>{}(row.get(j)));
    a = block_reduce(temp).Reduce(a, scan_op<IsProd>{});
    if (threadIdx.x == 0) totals[t] = a;
    __syncthreads();
  }
}

/// Per line (one block each), replaces the chunk totals by their exclusive scan: each chunk's carry.
template <bool IsProd, class Acc>
__global__ void __launch_bounds__(scan_threads) scan_chunk_carries(Acc* totals, index_t nlines, index_t nchunk) {
  using block_scan = cub::BlockScan<Acc, scan_threads>;
  __shared__ typename block_scan::TempStorage temp;
  for (index_t o = blockIdx.x; o < nlines; o += gridDim.x) {
    Acc* line_totals = totals + o * nchunk;
    running_prefix<IsProd, Acc> prefix{scan_identity<IsProd, Acc>()};
    for (index_t base = 0; base < nchunk; base += scan_threads) {
      const index_t c = base + threadIdx.x;
      Acc v = c < nchunk ? line_totals[c] : scan_identity<IsProd, Acc>();
      block_scan(temp).ExclusiveScan(v, v, scan_op<IsProd>{}, prefix);
      if (c < nchunk) line_totals[c] = v;
      __syncthreads();
    }
  }
}

}  // namespace tl::detail::cuda_kernels
