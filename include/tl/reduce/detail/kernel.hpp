#pragma once
/// @file kernel.hpp
/// @brief Internal: the CPU reduction kernel every reduction is built on, and the hand-off of a
/// node on a CUDA device to the CUDA one (tl/eval/cuda/reduce.cuh) (detail header).
///
/// A reducer describes one reduction: `acc_type`, `init()`, `map(x, k)` (element x at reduced
/// position k to an accumulator), `combine(a, b)` (a holds earlier positions than b), and, where
/// `simd<V>` holds, packet forms `pinit/pmap/pcombine/hreduce`.
///
/// Blocking is fixed and independent of the thread count, so results are bit-identical for any
/// `tl::set_num_threads`:
///  - innermost dim reduced ("row" reductions): each output's elements are read as rows along the
///    last dim; a row is cut into chunks of `reduce_chunk` elements, each chunk is summed pairwise
///    (recursive halving down to a base block summed with four SIMD accumulators), and the chunk
///    results of all rows are combined pairwise in order by a binary counter;
///  - innermost dim kept ("column" reductions): each task owns a tile of `reduce_tile` outputs
///    along the last dim and adds whole rows into a tile accumulator (vectorized across the kept
///    dim), `reduce_row_block` rows at a time; block results are combined pairwise in order.
/// Large work is spread over the thread pool either across outputs or, for few outputs, across
/// the chunks / row blocks of one output (the partial results are the same either way).
#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

#include "tl/core/storage.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/eval/device_ops.hpp"
#include "tl/expr/node.hpp"
#include "tl/reduce/detail/reducers.hpp"

#if defined(__CUDACC__)
#include "tl/eval/cuda/reduce.cuh"
#endif

namespace tl::detail {

/// Elements per partial result along one reduced row.
inline constexpr index_t reduce_chunk = 1 << 14;
/// Outputs along the kept innermost dim handled by one task (column reductions).
inline constexpr index_t reduce_tile = 4096;
/// Rows added sequentially into a tile before pairwise combining (column reductions).
inline constexpr index_t reduce_row_block = 64;
/// Below this many outputs, a reduction parallelizes inside each output instead of across outputs.
inline constexpr index_t reduce_few_outputs = 32;

/// A growable array of accumulators (std::vector<bool> has no data()).
template <class A>
struct acc_buffer {
  std::unique_ptr<A[]> m_p;
  std::size_t m_n = 0;
  acc_buffer() = default;
  explicit acc_buffer(std::size_t n) : m_p(new A[n]()), m_n(n) {}
  void resize(std::size_t n) {
    if (n <= m_n) return;
    const std::size_t cap = std::max(n, 2 * m_n);
    std::unique_ptr<A[]> q(new A[cap]());
    std::copy_n(m_p.get(), m_n, q.get());
    m_p = std::move(q);
    m_n = cap;
  }
  A* data() const { return m_p.get(); }
  A& operator[](std::size_t i) const { return m_p[i]; }
};

/// Pairwise combination of a stream of partial results (a binary counter): O(log n) state, a
/// tree shape that depends only on the number of partials, and left-before-right order.
template <class Red>
struct pairwise_stack {
  using A = typename Red::acc_type;
  const Red& red;
  A vals[64]{};
  int levels[64]{};
  int n = 0;
  explicit pairwise_stack(const Red& r) : red(r) {}
  void push(A v) {
    int lv = 0;
    while (n > 0 && levels[n - 1] == lv) {
      v = red.combine(vals[n - 1], v);
      --n;
      ++lv;
    }
    vals[n] = v;
    levels[n] = lv;
    ++n;
  }
  A result() const {
    if (n == 0) return red.init();
    A r = vals[n - 1];
    for (int i = n - 2; i >= 0; --i) r = red.combine(vals[i], r);
    return r;
  }
};

template <class Red, class Row>
using row_value_t = std::remove_cvref_t<decltype(std::declval<const Row&>().get(0))>;

/// Does the packet path apply to a node N under reducer Red?
template <class Red, class N>
inline constexpr bool reduce_simd_v = N::simd_ok && simd_type_v<typename N::value_type> &&
                                      Red::template simd<typename N::value_type>;

/// Pairwise reduction of row elements [lo, hi); element j has reduced position kbase + j.
template <bool Simd, class Red, class Row>
typename Red::acc_type reduce_span(const Red& red, const Row& row, index_t lo, index_t hi, index_t kbase) {
  using A = typename Red::acc_type;
  const index_t n = hi - lo;
  if constexpr (Simd) {
    using V = row_value_t<Red, Row>;
    using B = batch_t<V>;
    constexpr index_t W = static_cast<index_t>(B::size);
    constexpr index_t base = 32 * W;
    if (n > base) {
      const index_t half = (n / 2) / (4 * W) * (4 * W);
      const A l = reduce_span<Simd>(red, row, lo, lo + half, kbase);
      return red.combine(l, reduce_span<Simd>(red, row, lo + half, hi, kbase));
    }
    B a0 = red.template pinit<B>(), a1 = a0, a2 = a0, a3 = a0;
    index_t j = lo;
    for (; j + 4 * W <= hi; j += 4 * W) {
      a0 = red.pcombine(a0, red.pmap(row.template packet<B>(j)));
      a1 = red.pcombine(a1, red.pmap(row.template packet<B>(j + W)));
      a2 = red.pcombine(a2, red.pmap(row.template packet<B>(j + 2 * W)));
      a3 = red.pcombine(a3, red.pmap(row.template packet<B>(j + 3 * W)));
    }
    for (; j + W <= hi; j += W) a0 = red.pcombine(a0, red.pmap(row.template packet<B>(j)));
    A acc = red.hreduce(red.pcombine(red.pcombine(a0, a1), red.pcombine(a2, a3)));
    for (; j < hi; ++j) acc = red.combine(acc, red.map(row.get(j), kbase + j));
    return acc;
  } else {
    constexpr index_t base = 128;
    if (n > base) {
      const index_t half = (n / 2) / 8 * 8;
      const A l = reduce_span<Simd>(red, row, lo, lo + half, kbase);
      return red.combine(l, reduce_span<Simd>(red, row, lo + half, hi, kbase));
    }
    A acc = red.init();
    for (index_t j = lo; j < hi; ++j) acc = red.combine(acc, red.map(row.get(j), kbase + j));
    return acc;
  }
}

/// One output from one row of L elements, with the blocking of reduce_rows (bit-identical to it).
template <bool Simd, class Red, class Row>
typename Red::acc_type reduce_one_row(const Red& red, const Row& row, index_t L) {
  pairwise_stack<Red> st(red);
  const index_t nchunk = std::max<index_t>(1, (L + reduce_chunk - 1) / reduce_chunk);
  for (index_t c = 0; c < nchunk; ++c)
    st.push(reduce_span<Simd>(red, row, c * reduce_chunk, std::min(L, (c + 1) * reduce_chunk), 0));
  return st.result();
}

/// Unravels a flat index over dims [first, last) of `shape` into idx.
template <std::size_t R>
TL_INLINE void unravel(index_t flat, const shape_t<R>& shape, std::size_t first, std::size_t last,
                       std::array<index_t, R>& idx) {
  for (std::size_t k = last; k-- > first;) {
    idx[k] = flat % shape[k];
    flat /= shape[k];
  }
}

/// Reduction with the innermost dim reduced (or every dim): P has the kept dims first, reduced last.
template <class Red, class N, class Store>
void reduce_rows(const Red& red, const N& P, std::size_t nkept, Store& store) {
  constexpr std::size_t R = N::rank;
  using A = typename Red::acc_type;
  constexpr bool simd = reduce_simd_v<Red, N>;
  const auto s = P.shape();
  const index_t L = s[R - 1];
  index_t nout = 1, nrows = 1;
  for (std::size_t d = 0; d < nkept; ++d) nout *= s[d];
  for (std::size_t d = nkept; d < R - 1; ++d) nrows *= s[d];
  const index_t nchunk = std::max<index_t>(1, (L + reduce_chunk - 1) / reduce_chunk);
  auto& pool = thread_pool::instance();
  // Partial p (row p / nchunk, chunk p % nchunk) of output o.
  auto partial = [&](index_t o, index_t p) {
    std::array<index_t, R> idx{};
    unravel<R>(o, s, 0, nkept, idx);
    const index_t r = p / nchunk, c = p % nchunk;
    unravel<R>(r, s, nkept, R - 1, idx);
    const auto row = P.row(idx.data());
    const index_t lo = c * reduce_chunk, hi = std::min(L, lo + reduce_chunk);
    return reduce_span<simd>(red, row, lo, hi, r * L);
  };
  const index_t nparts = nrows * nchunk;
  const index_t work = nparts * std::min(L, reduce_chunk);
  if (nout >= reduce_few_outputs || nparts == 1) {
    const index_t per_task = std::max<index_t>(1, reduce_chunk / std::max<index_t>(1, work));
    pool.parallel_for((nout + per_task - 1) / per_task, [&](index_t t) {
      const index_t o1 = std::min(nout, (t + 1) * per_task);
      for (index_t o = t * per_task; o < o1; ++o) {
        pairwise_stack<Red> st(red);
        for (index_t p = 0; p < nparts; ++p) st.push(partial(o, p));
        store(o, st.result());
      }
    });
    return;
  }
  acc_buffer<A> parts(static_cast<std::size_t>(nparts));
  const index_t per_task = std::max<index_t>(1, reduce_chunk / std::max<index_t>(1, std::min(L, reduce_chunk)));
  for (index_t o = 0; o < nout; ++o) {
    pool.parallel_for((nparts + per_task - 1) / per_task, [&](index_t t) {
      const index_t p1 = std::min(nparts, (t + 1) * per_task);
      for (index_t p = t * per_task; p < p1; ++p) parts[static_cast<std::size_t>(p)] = partial(o, p);
    });
    pairwise_stack<Red> st(red);
    for (index_t p = 0; p < nparts; ++p) st.push(parts[static_cast<std::size_t>(p)]);
    store(o, st.result());
  }
}

/// Reduction of a contiguous node whose reduced dims are all after its kept dims: output o
/// reduces the flat range [o n, (o + 1) n).
template <class Red, class N, class Store>
void reduce_linear(const Red& red, const N& node, index_t nout, index_t n, Store& store) {
  using A = typename Red::acc_type;
  constexpr bool simd = reduce_simd_v<Red, N>;
  const auto lin = node.linear();
  const index_t nchunk = (n + reduce_chunk - 1) / reduce_chunk;
  auto partial = [&](index_t o, index_t c) {
    const index_t lo = o * n + c * reduce_chunk, hi = std::min(o * n + n, lo + reduce_chunk);
    return reduce_span<simd>(red, lin, lo, hi, -o * n);
  };
  auto& pool = thread_pool::instance();
  if (nout >= reduce_few_outputs || nchunk == 1) {
    const index_t per_task = std::max<index_t>(1, reduce_chunk / n);
    pool.parallel_for((nout + per_task - 1) / per_task, [&](index_t t) {
      const index_t o1 = std::min(nout, (t + 1) * per_task);
      for (index_t o = t * per_task; o < o1; ++o) {
        pairwise_stack<Red> st(red);
        for (index_t c = 0; c < nchunk; ++c) st.push(partial(o, c));
        store(o, st.result());
      }
    });
    return;
  }
  acc_buffer<A> parts(static_cast<std::size_t>(nchunk));
  for (index_t o = 0; o < nout; ++o) {
    pool.parallel_for(nchunk, [&](index_t c) { parts[static_cast<std::size_t>(c)] = partial(o, c); });
    pairwise_stack<Red> st(red);
    for (index_t c = 0; c < nchunk; ++c) st.push(parts[static_cast<std::size_t>(c)]);
    store(o, st.result());
  }
}

/// Adds rows [r0, r1) of a column reduction into acc[0, w) (tile starting at column c0), in row
/// order; four rows are read per sweep over the tile (same arithmetic, a quarter of the
/// accumulator traffic).
template <bool Simd, class Red, class N>
void accumulate_rows(const Red& red, const N& P, std::array<index_t, N::rank>& idx, std::size_t first,
                     index_t r0, index_t r1, index_t c0, index_t w, typename Red::acc_type* acc) {
  constexpr std::size_t R = N::rank;
  const auto s = P.shape();
  for (index_t j = 0; j < w; ++j) acc[j] = red.init();
  index_t r = r0;
  if constexpr (Simd) {
    using V = typename N::value_type;
    using B = batch_t<V>;
    constexpr index_t W = static_cast<index_t>(B::size);
    for (; r + 4 <= r1; r += 4) {
      unravel<R>(r, s, first, R - 1, idx);
      const auto q0 = P.row(idx.data());
      unravel<R>(r + 1, s, first, R - 1, idx);
      const auto q1 = P.row(idx.data());
      unravel<R>(r + 2, s, first, R - 1, idx);
      const auto q2 = P.row(idx.data());
      unravel<R>(r + 3, s, first, R - 1, idx);
      const auto q3 = P.row(idx.data());
      index_t j = 0;
      for (; j + W <= w; j += W) {
        B a = B::load_unaligned(acc + j);
        a = red.pcombine(a, red.pmap(q0.template packet<B>(c0 + j)));
        a = red.pcombine(a, red.pmap(q1.template packet<B>(c0 + j)));
        a = red.pcombine(a, red.pmap(q2.template packet<B>(c0 + j)));
        a = red.pcombine(a, red.pmap(q3.template packet<B>(c0 + j)));
        a.store_unaligned(acc + j);
      }
      for (; j < w; ++j) {
        auto a = red.combine(acc[j], red.map(q0.get(c0 + j), r));
        a = red.combine(a, red.map(q1.get(c0 + j), r + 1));
        a = red.combine(a, red.map(q2.get(c0 + j), r + 2));
        acc[j] = red.combine(a, red.map(q3.get(c0 + j), r + 3));
      }
    }
  }
  for (; r < r1; ++r) {
    unravel<R>(r, s, first, R - 1, idx);
    const auto row = P.row(idx.data());
    index_t j = 0;
    if constexpr (Simd) {
      using V = typename N::value_type;
      using B = batch_t<V>;
      constexpr index_t W = static_cast<index_t>(B::size);
      for (; j + W <= w; j += W) {
        const B a = B::load_unaligned(acc + j);
        red.pcombine(a, red.pmap(row.template packet<B>(c0 + j))).store_unaligned(acc + j);
      }
    }
    for (; j < w; ++j) acc[j] = red.combine(acc[j], red.map(row.get(c0 + j), r));
  }
}

/// Pairwise (binary counter) combination of tile buffers of width w.
template <class Red>
struct tile_stack {
  using A = typename Red::acc_type;
  const Red& red;
  index_t w;
  acc_buffer<A> buf;
  std::vector<int> levels;
  tile_stack(const Red& r, index_t width) : red(r), w(width) {}
  /// A fresh slot to fill, on top of the stack.
  A* top_slot() {
    buf.resize((levels.size() + 1) * static_cast<std::size_t>(w));
    return buf.data() + levels.size() * static_cast<std::size_t>(w);
  }
  /// Pushes the slot returned by top_slot().
  void push() {
    int lv = 0;
    A* cur = buf.data() + levels.size() * static_cast<std::size_t>(w);
    while (!levels.empty() && levels.back() == lv) {
      A* left = cur - w;
      for (index_t j = 0; j < w; ++j) left[j] = red.combine(left[j], cur[j]);
      cur = left;
      levels.pop_back();
      ++lv;
    }
    levels.push_back(lv);
  }
  /// Combines everything into the first slot and returns it.
  const A* result() {
    if (levels.empty()) {
      A* p = top_slot();
      for (index_t j = 0; j < w; ++j) p[j] = red.init();
      return p;
    }
    for (std::size_t i = levels.size() - 1; i > 0; --i) {
      A* left = buf.data() + (i - 1) * static_cast<std::size_t>(w);
      const A* right = left + w;
      for (index_t j = 0; j < w; ++j) left[j] = red.combine(left[j], right[j]);
    }
    return buf.data();
  }
};

/// Reduction with the innermost dim kept: P is [outer kept dims, reduced dims, last dim].
template <class Red, class N, class Store>
void reduce_cols(const Red& red, const N& P, std::size_t nouter, Store& store) {
  constexpr std::size_t R = N::rank;
  using A = typename Red::acc_type;
  constexpr bool simd = reduce_simd_v<Red, N>;
  const auto s = P.shape();
  const index_t K = s[R - 1];
  index_t nout = 1, nrows = 1;
  for (std::size_t d = 0; d < nouter; ++d) nout *= s[d];
  for (std::size_t d = nouter; d < R - 1; ++d) nrows *= s[d];
  const index_t ntile = (K + reduce_tile - 1) / reduce_tile;
  const index_t ntask = nout * ntile;
  const index_t nblock = (nrows + reduce_row_block - 1) / reduce_row_block;
  auto& pool = thread_pool::instance();
  auto tile_of = [&](index_t t, index_t& o, index_t& c0, index_t& w) {
    o = t / ntile;
    c0 = (t % ntile) * reduce_tile;
    w = std::min(reduce_tile, K - c0);
  };
  if (ntask >= reduce_few_outputs || nblock <= 1) {
    pool.parallel_for(ntask, [&](index_t t) {
      index_t o, c0, w;
      tile_of(t, o, c0, w);
      std::array<index_t, R> idx{};
      unravel<R>(o, s, 0, nouter, idx);
      tile_stack<Red> st(red, w);
      for (index_t b = 0; b < nblock; ++b) {
        accumulate_rows<simd>(red, P, idx, nouter, b * reduce_row_block,
                              std::min(nrows, (b + 1) * reduce_row_block), c0, w, st.top_slot());
        st.push();
      }
      const A* res = st.result();
      for (index_t j = 0; j < w; ++j) store(o * K + c0 + j, res[j]);
    });
    return;
  }
  // Few tiles, many rows: blocks of one tile in parallel, then combined in order.
  for (index_t t = 0; t < ntask; ++t) {
    index_t o, c0, w;
    tile_of(t, o, c0, w);
    acc_buffer<A> parts(static_cast<std::size_t>(nblock * w));
    const index_t per_task = std::max<index_t>(1, reduce_chunk / (reduce_row_block * w));
    pool.parallel_for((nblock + per_task - 1) / per_task, [&](index_t q) {
      std::array<index_t, R> idx{};
      unravel<R>(o, s, 0, nouter, idx);
      const index_t b1 = std::min(nblock, (q + 1) * per_task);
      for (index_t b = q * per_task; b < b1; ++b)
        accumulate_rows<simd>(red, P, idx, nouter, b * reduce_row_block, std::min(nrows, (b + 1) * reduce_row_block),
                              c0, w, parts.data() + b * w);
    });
    tile_stack<Red> st(red, w);
    for (index_t b = 0; b < nblock; ++b) {
      A* slot = st.top_slot();
      std::copy_n(parts.data() + b * w, w, slot);
      st.push();
    }
    const A* res = st.result();
    for (index_t j = 0; j < w; ++j) store(o * K + c0 + j, res[j]);
  }
}

/// Runs reducer `red` over a node on CUDA device `dev` (tl/eval/cuda/reduce.cuh): out[o] =
/// fin.finish(acc_o, o) for every output o, `out` in device memory. Deterministic: the blocking
/// depends only on the shape, never on timing.
template <class Red, class N, class Out, class Fin>
void run_reduce_on_device(const Red& red, const N& node, const std::array<bool, N::rank>& mask, Out* out,
                          const Fin& fin, tl::device dev) {
#if defined(__CUDACC__)
  register_cuda_reduce<Red, N, Out, Fin>();
#endif
  require_device_slot<cuda_reduce_key<Red, N, Out, Fin>, cuda_reduce_fn<Red, N, Out, Fin>>("reduce")(
      red, node, mask, out, fin, dev.index());
}

/// reduce_kernel for a node on a CUDA device: the accumulators are computed there, copied to the host
/// and handed to `store` in output order.
template <class Red, class N, class Store>
void reduce_kernel_via_device(const Red& red, const N& node, const std::array<bool, N::rank>& mask, Store& store,
                              tl::device dev) {
  using A = typename Red::acc_type;
  const auto s = node.shape();
  index_t nout = 1;
  for (std::size_t d = 0; d < N::rank; ++d)
    if (!mask[d]) nout *= s[d];
  if (nout == 0) return;
  const std::size_t bytes = static_cast<std::size_t>(nout) * sizeof(A);
  const auto buf = make_storage(bytes, dev);
  run_reduce_on_device(red, node, mask, static_cast<A*>(buf->ptr), fin_acc<A>{}, dev);
  acc_buffer<A> host(static_cast<std::size_t>(nout));
  require_device_runtime("reduce").copy(host.data(), tl::device::cpu, buf->ptr, dev, bytes, false);
  for (index_t o = 0; o < nout; ++o) store(o, host[static_cast<std::size_t>(o)]);
}

/// Runs reducer `red` over expression node `node` (any rank), reducing the dims set in `mask`.
/// `store(o, acc)` receives the accumulator of output o (outputs in row-major order of the kept
/// dims); it is called once per output, possibly from several threads. A node on a CUDA device is
/// reduced there and `store` gets the accumulators on the host (see reduce_into in run.hpp for a
/// reduction that stays on the device).
template <class Red, class N, class Store>
void reduce_kernel(const Red& red, const N& node, const std::array<bool, N::rank>& mask, Store&& store) {
  constexpr std::size_t R = N::rank;
  const tl::device dev = expression_device(node);
  if (dev.is_cuda()) {
    reduce_kernel_via_device(red, node, mask, store, dev);
    return;
  }
  if constexpr (R == 0) {
    store(0, red.combine(red.init(), red.map(node.row(nullptr).get(0), 0)));
  } else {
    const auto s = node.shape();
    index_t nout = 1, n = 1;
    for (std::size_t d = 0; d < R; ++d) (mask[d] ? n : nout) *= s[d];
    if (nout == 0) return;
    if (n == 0) {
      for (index_t o = 0; o < nout; ++o) store(o, red.init());
      return;
    }
    auto bn = node.bcast(s);
    // Kept dims before reduced ones and a contiguous node: flat ranges.
    bool suffix = true;
    for (std::size_t d = 1; d < R; ++d)
      if (mask[d - 1] && !mask[d]) suffix = false;
    if (suffix && bn.linear_ok()) {
      reduce_linear(red, bn, nout, n, store);
      return;
    }
    std::array<std::size_t, R> perm{};
    std::size_t k = 0;
    if (mask[R - 1]) {
      for (std::size_t d = 0; d < R; ++d)
        if (!mask[d]) perm[k++] = d;
      const std::size_t nkept = k;
      for (std::size_t d = 0; d < R; ++d)
        if (mask[d]) perm[k++] = d;
      reduce_rows(red, bn.permute(perm), nkept, store);
    } else {
      for (std::size_t d = 0; d + 1 < R; ++d)
        if (!mask[d]) perm[k++] = d;
      const std::size_t nouter = k;
      for (std::size_t d = 0; d + 1 < R; ++d)
        if (mask[d]) perm[k++] = d;
      perm[R - 1] = R - 1;
      reduce_cols(red, bn.permute(perm), nouter, store);
    }
  }
}

}  // namespace tl::detail
