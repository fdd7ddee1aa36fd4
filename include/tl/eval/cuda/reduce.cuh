#pragma once
/// @file reduce.cuh
/// @brief Internal: reductions on a CUDA device (nvcc only; included by tl/reduce/detail/kernel.hpp
/// and tl/eval/eval.hpp).
///
/// `cuda_reduce_launch` consumes the expression node directly (no temporary for `sum(a * b)`): the
/// node is broadcast to its full shape and then read in one of four ways (kernels/access.cuh):
///  - kept dims before reduced ones and every leaf contiguous: output o is the flat range
///    [o n, (o + 1) n) (full reductions and `sum(x, -1)` of contiguous data);
///  - one reduced dim: permuted last, each output is one (possibly strided) row;
///  - several reduced dims: permuted last, each output is a run of rows;
///  - innermost dim kept (and at least `cuda_column_min` wide): one thread per output walks the
///    reduced positions, coalesced across outputs (`sum(x, 0)`); for a contiguous node with one run
///    of reduced dims the walk is a flat index stepped by the inner size.
/// Few outputs are split into segments reduced by separate blocks and combined by a second kernel.
/// Segment counts and group sizes depend only on the shape, so results are deterministic.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>

#include "tl/eval/cpu/assign.hpp"
#include "tl/eval/cuda/kernels/reduce.cuh"
#include "tl/eval/cuda/launch.cuh"
#include "tl/eval/cuda/runtime.cuh"
#include "tl/eval/device_ops.hpp"

namespace tl::detail {

/// Tasks the inner kernel aims for before it splits outputs into segments, and the least segment length.
inline constexpr index_t cuda_reduce_tasks = 1024;
inline constexpr index_t cuda_reduce_min_segment = 8192;
/// Threads the column kernel aims for before it splits the rows, and the least rows per segment.
inline constexpr index_t cuda_column_threads = index_t{1} << 18;
inline constexpr index_t cuda_column_min_rows = 64;
/// Narrower kept innermost dims are reduced as rows (a column walk would leave most lanes idle).
inline constexpr index_t cuda_column_min = 16;
/// Below this many elements per output (and with many outputs) a warp reduces each output.
inline constexpr index_t cuda_block_min = 2048;

template <class A>
struct sum_reducer;

/// Blocks of `reduce_threads` per multiprocessor that the column kernel for reducer Red through
/// accessor X must fit in registers. A float or double sum of a plain contiguous tensor gets 8 (the
/// whole 2^18-thread grid resident at once on a 132-multiprocessor GPU, 32 registers, no spills).
/// Left to the compiler, the float sum took 34 registers, so 6 blocks fit, the grid ran in two waves
/// and reached 67% of DRAM bandwidth; with 32 registers it reaches 84% (8192 x 8192 floats on an
/// H200, Nsight Compute). Other reducers (arg/extreme pairs) would spill at 32 registers and keep the
/// compiler's choice.
template <class Red, class X>
inline constexpr int column_min_blocks = 1;
template <class A, class T>
inline constexpr int column_min_blocks<sum_reducer<A>, cuda_kernels::linear_column_access<const contig_row<T>>> =
    std::is_same_v<A, T> && (std::is_same_v<T, float> || std::is_same_v<T, double>) ? 8 : 1;

template <int G, class Red, class X, class Out, class Fin>
void cuda_reduce_inner(const Red& red, const X& x, index_t nout, index_t n, Out* out, const Fin& fin, int dev,
                       cudaStream_t s) {
  namespace k = cuda_kernels;
  using A = typename Red::acc_type;
  index_t nseg = 1;
  if (G == k::reduce_threads && nout < cuda_reduce_tasks)
    nseg = std::max<index_t>(1, std::min<index_t>((cuda_reduce_tasks + nout - 1) / nout, n / cuda_reduce_min_segment));
  const index_t seg = (n + nseg - 1) / nseg;
  nseg = (n + seg - 1) / seg;
  constexpr index_t groups = k::reduce_threads / G;
  const unsigned grid = cuda_blocks((nout * nseg + groups - 1) / groups, dev);
  if (nseg == 1) {
    k::reduce_inner<G><<<grid, k::reduce_threads, 0, s>>>(red, x, nout, n, seg, nseg, static_cast<A*>(nullptr), out,
                                                          fin);
    TL_CUDA_CHECK(cudaGetLastError(), "reduce");
    return;
  }
  cuda_scratch part(static_cast<std::size_t>(nout * nseg) * sizeof(A), dev);
  k::reduce_inner<G><<<grid, k::reduce_threads, 0, s>>>(red, x, nout, n, seg, nseg, part.as<A>(), out, fin);
  TL_CUDA_CHECK(cudaGetLastError(), "reduce");
  k::reduce_partials<<<cuda_blocks(nout, dev), k::reduce_threads, 0, s>>>(red, part.as<A>(), nout, nseg, out, fin);
  TL_CUDA_CHECK(cudaGetLastError(), "reduce");
}

/// Lines of n elements per output: a warp per output for short lines, or when there are enough
/// outputs to fill the GPU with warps (`cuda_column_threads` threads); else a block per output (or
/// segment). On an H200, row sums of 8192 x 8192 floats took 79 us with a block per row and 65 us
/// with a warp per row; 1024 x 65536 needs the blocks (1024 warps leave the GPU half idle).
template <class Red, class X, class Out, class Fin>
void cuda_reduce_lines(const Red& red, const X& x, index_t nout, index_t n, Out* out, const Fin& fin, int dev,
                       cudaStream_t s) {
  static_assert(std::is_trivially_copyable_v<X>, "tl: internal: a CUDA kernel argument must be trivially copyable");
  static_assert(sizeof(X) <= 3500,
                "tl: this expression is too large to pass to one CUDA kernel (over 3.5 KB of operands); evaluate "
                "part of it into a tensor first");
  const bool warps = nout > 64 && (n < cuda_block_min || nout * 32 >= cuda_column_threads);
  if (warps) cuda_reduce_inner<32>(red, x, nout, n, out, fin, dev, s);
  else cuda_reduce_inner<cuda_kernels::reduce_threads>(red, x, nout, n, out, fin, dev, s);
}

template <class Red, class X, class Out, class Fin>
void cuda_reduce_columns(const Red& red, const X& x, index_t nout, index_t nrows, Out* out, const Fin& fin, int dev,
                         cudaStream_t s) {
  static_assert(std::is_trivially_copyable_v<X>, "tl: internal: a CUDA kernel argument must be trivially copyable");
  static_assert(sizeof(X) <= 3500,
                "tl: this expression is too large to pass to one CUDA kernel (over 3.5 KB of operands); evaluate "
                "part of it into a tensor first");
  namespace k = cuda_kernels;
  using A = typename Red::acc_type;
  index_t nseg = 1;
  if (nout < cuda_column_threads)
    nseg = std::max<index_t>(
        1, std::min<index_t>({(cuda_column_threads + nout - 1) / nout, nrows / cuda_column_min_rows, index_t{256}}));
  const index_t seg = (nrows + nseg - 1) / nseg;
  nseg = (nrows + seg - 1) / seg;
  const unsigned grid = cuda_blocks((nout * nseg + k::reduce_threads - 1) / k::reduce_threads, dev);
  constexpr int min_blocks = column_min_blocks<Red, X>;
  if (nseg == 1) {
    k::reduce_columns<min_blocks><<<grid, k::reduce_threads, 0, s>>>(red, x, nout, nrows, seg, nseg,
                                                                      static_cast<A*>(nullptr), out, fin);
    TL_CUDA_CHECK(cudaGetLastError(), "reduce");
    return;
  }
  cuda_scratch part(static_cast<std::size_t>(nout * nseg) * sizeof(A), dev);
  k::reduce_columns<min_blocks><<<grid, k::reduce_threads, 0, s>>>(red, x, nout, nrows, seg, nseg, part.as<A>(), out,
                                                                    fin);
  TL_CUDA_CHECK(cudaGetLastError(), "reduce");
  const unsigned grid2 = cuda_blocks((nout + k::reduce_threads - 1) / k::reduce_threads, dev);
  k::reduce_column_partials<<<grid2, k::reduce_threads, 0, s>>>(red, part.as<A>(), nout, nseg, out, fin);
  TL_CUDA_CHECK(cudaGetLastError(), "reduce");
}

/// A broadcast node of rank >= 2 that is not one flat range per output: permuted so that each output
/// is a run of rows, or (innermost dim kept) reduced by columns.
template <class Red, class B, class Out, class Fin>
void cuda_reduce_permuted(const Red& red, const B& bn, const std::array<bool, B::rank>& mask, index_t nout, index_t n,
                          Out* out, const Fin& fin, int dev, cudaStream_t s) {
  namespace k = cuda_kernels;
  constexpr std::size_t R = B::rank;
  const auto sh = bn.shape();
  std::array<std::size_t, R> perm{};
  std::size_t m = 0;
  if (mask[R - 1] || sh[R - 1] < cuda_column_min) {
    // Kept dims first, reduced dims last: each output is a run of rows of the last dim.
    for (std::size_t d = 0; d < R; ++d)
      if (!mask[d]) perm[m++] = d;
    const std::size_t nk = m;
    for (std::size_t d = 0; d < R; ++d)
      if (mask[d]) perm[m++] = d;
    const auto p = bn.permute(perm);
    using P = std::remove_cv_t<decltype(p)>;
    const auto ext = cuda_extents<R>(p.shape());
    if (nk + 1 == R)
      cuda_reduce_lines(red, k::row_access<P>{p, ext, n}, nout, n, out, fin, dev, s);
    else
      cuda_reduce_lines(red, k::general_access<P>{p, ext, static_cast<int>(nk), ext.e[R - 1]}, nout, n, out, fin, dev,
                        s);
    return;
  }
  // [outer kept dims, reduced dims, kept last dim]: one thread per output, coalesced.
  for (std::size_t d = 0; d + 1 < R; ++d)
    if (!mask[d]) perm[m++] = d;
  const std::size_t nouter = m;
  for (std::size_t d = 0; d + 1 < R; ++d)
    if (mask[d]) perm[m++] = d;
  perm[R - 1] = R - 1;
  const auto p = bn.permute(perm);
  using P = std::remove_cv_t<decltype(p)>;
  cuda_reduce_columns(red, k::column_access<P>{p, cuda_extents<R>(p.shape()), static_cast<int>(nouter)}, nout, n, out,
                      fin, dev, s);
}

template <class Red, class N, class Out, class Fin>
void cuda_reduce_launch(const Red& red, const N& node_in, const std::array<bool, N::rank>& mask, Out* out,
                        const Fin& fin, int dev) {
  namespace k = cuda_kernels;
  constexpr std::size_t R = N::rank;
  tl::cuda::detail::require_device(dev, "reduce");
  tl::cuda::device_guard guard(dev);
  const cudaStream_t s = tl::cuda::current_stream();
  const auto node = to_plain(node_in);
  const auto sh = node.shape();
  index_t nout = 1, n = 1;
  for (std::size_t d = 0; d < R; ++d) (mask[d] ? n : nout) *= sh[d];
  if (nout == 0) return;
  if (n == 0) {
    k::reduce_empty<<<cuda_blocks((nout + k::reduce_threads - 1) / k::reduce_threads, dev), k::reduce_threads, 0, s>>>(
        red, nout, out, fin);
    TL_CUDA_CHECK(cudaGetLastError(), "reduce");
    return;
  }
  if constexpr (R == 0) {
    const auto lin = node.linear();
    cuda_reduce_lines(red, k::linear_access<decltype(lin)>{lin, 1}, 1, 1, out, fin, dev, s);
  } else {
    const auto bn = node.bcast(sh);
    bool suffix = true;
    for (std::size_t d = 1; d < R; ++d)
      if (mask[d - 1] && !mask[d]) suffix = false;
    // Column form: [kept dims, one run of reduced dims, kept dims], the trailing kept dims at least
    // cuda_column_min elements.
    std::size_t r0 = 0, r1 = 0;
    while (r0 < R && !mask[r0]) ++r0;
    r1 = r0;
    while (r1 < R && mask[r1]) ++r1;
    bool columns = r0 < R && r1 < R;
    index_t inner = 1;
    for (std::size_t d = r1; d < R; ++d) {
      if (mask[d]) columns = false;
      inner *= sh[d];
    }
    columns = columns && inner >= cuda_column_min;
    if (suffix && bn.linear_ok()) {
      const auto lin = bn.linear();
      cuda_reduce_lines(red, k::linear_access<decltype(lin)>{lin, n}, nout, n, out, fin, dev, s);
    } else if (columns && bn.linear_ok()) {
      const auto lin = bn.linear();
      cuda_reduce_columns(red, k::linear_column_access<decltype(lin)>{lin, inner, n}, nout, n, out, fin, dev, s);
    } else if constexpr (R == 1) {
      // One strided or broadcast row.
      using P = std::remove_cv_t<decltype(bn)>;
      cuda_reduce_lines(red, k::row_access<P>{bn, cuda_extents<R>(sh), n}, nout, n, out, fin, dev, s);
    } else {
      cuda_reduce_permuted(red, bn, mask, nout, n, out, fin, dev, s);
    }
  }
}

/// Instantiates the launcher for this reduction and fills its slot at static initialization.
template <class Red, class N, class Out, class Fin>
void register_cuda_reduce() {
  fill_device_slot<cuda_reduce_key<Red, N, Out, Fin>, cuda_reduce_fn<Red, N, Out, Fin>,
                   &cuda_reduce_launch<Red, N, Out, Fin>>();
}

}  // namespace tl::detail
