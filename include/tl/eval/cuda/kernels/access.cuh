#pragma once
/// @file kernels/access.cuh
/// @brief Internal: how the reduction, scan and softmax kernels read an expression (nvcc only;
/// detail header).
///
/// The launchers broadcast a node to its full shape and permute it so that the dims a kernel walks
/// along come last (`node.permute`, which only reorders leaf strides). An accessor then reads element
/// k of line o (an output of a reduction, a row of a scan or softmax) through the node's row
/// accessors, without materializing anything:
///  - `prepare(o)`: per-line state, computed once per line (the divisions live here);
///  - `line(state, r)`: the row accessor of row r of that line (a line is `rows` rows of `len`
///    elements; element k is element k % len of row k / len);
///  - `len`: the row length. Rows are read with `get(j)`.
#include <cstddef>
#include <type_traits>
#include <utility>

#include "tl/expr/node.hpp"

namespace tl::detail::cuda_kernels {

/// Extents passed by value to a kernel.
template <std::size_t R>
struct extents_arg {
  index_t e[R > 0 ? R : 1];
};

/// Unravels `flat` over dims [first, last) of `ext` into idx (row-major; no division for last == first).
template <std::size_t R>
__device__ __forceinline__ void unravel_dims(index_t flat, const extents_arg<R>& ext, int first, int last,
                                             index_t* idx) {
#pragma unroll
  for (int d = static_cast<int>(R) - 1; d >= 0; --d) {
    if (d >= first && d < last) {
      const index_t q = flat / ext.e[d];
      idx[d] = flat - q * ext.e[d];
      flat = q;
    }
  }
}

/// A row accessor shifted by `base` elements.
template <class Row>
struct offset_row {
  Row row;
  index_t base;
  __device__ __forceinline__ auto get(index_t j) const { return row.get(base + j); }
};

/// A contiguous node (every leaf contiguous with its shape) whose line o is the flat range
/// [o * len, (o + 1) * len): one row per line.
template <class Lin>
struct linear_access {
  Lin lin;
  index_t len;
  using state = index_t;
  __device__ __forceinline__ index_t prepare(index_t o) const { return o * len; }
  __device__ __forceinline__ offset_row<Lin> line(index_t base, index_t) const { return {lin, base}; }
};

/// A node P whose last dim is the one walked: line o is the row of P at the unravelled index o of
/// its other dims (one row per line).
template <class P>
struct row_access {
  static constexpr std::size_t R = P::rank;
  using state = decltype(std::declval<const P&>().row(nullptr));
  P p;
  extents_arg<R> ext;
  index_t len;
  __device__ __forceinline__ state prepare(index_t o) const {
    index_t idx[R] = {};
    unravel_dims<R>(o, ext, 0, static_cast<int>(R) - 1, idx);
    return p.row(idx);
  }
  __device__ __forceinline__ const state& line(const state& s, index_t) const { return s; }
};

/// A node P with the dims of a line last, [nk, R): line o is at the unravelled index o of dims
/// [0, nk); its row r is the unravelled index r of dims [nk, R - 1).
template <class P>
struct general_access {
  static constexpr std::size_t R = P::rank;
  struct state {
    index_t idx[R];
  };
  P p;
  extents_arg<R> ext;
  int nk;
  index_t len;
  __device__ __forceinline__ state prepare(index_t o) const {
    state s{};
    unravel_dims<R>(o, ext, 0, nk, s.idx);
    return s;
  }
  __device__ __forceinline__ auto line(const state& s, index_t r) const {
    index_t idx[R];
#pragma unroll
    for (std::size_t d = 0; d < R; ++d) idx[d] = s.idx[d];
    unravel_dims<R>(r, ext, nk, static_cast<int>(R) - 1, idx);
    return p.row(idx);
  }
};

/// Column reductions: P is [outer kept dims (nouter), reduced dims, kept last dim]. Line o is
/// (outer index o / K, column o % K); its elements are the reduced positions r, read in order
/// with an odometer over the reduced dims (no division per element).
template <class P>
struct column_access {
  static constexpr std::size_t R = P::rank;
  struct state {
    index_t idx[R];
    index_t col;
  };
  P p;
  extents_arg<R> ext;
  int nouter;
  /// State of line o positioned at reduced position r.
  __device__ __forceinline__ state start(index_t o, index_t r) const {
    state s{};
    const index_t k = ext.e[R - 1];
    const index_t q = o / k;
    s.col = o - q * k;
    unravel_dims<R>(q, ext, 0, nouter, s.idx);
    unravel_dims<R>(r, ext, nouter, static_cast<int>(R) - 1, s.idx);
    return s;
  }
  __device__ __forceinline__ auto get(const state& s) const { return p.row(s.idx).get(s.col); }
  /// Moves s to the next reduced position.
  __device__ __forceinline__ void next(state& s) const {
#pragma unroll
    for (int d = static_cast<int>(R) - 2; d >= 0; --d) {
      if (d < nouter) break;
      if (++s.idx[d] < ext.e[d]) break;
      s.idx[d] = 0;
    }
  }
};

/// Column reductions of a contiguous node (every leaf contiguous with its shape) whose dims are
/// [outer kept, reduced, inner kept] with `inner` elements per row: line o = (q, c) is the flat
/// positions q * nred * inner + r * inner + c, so stepping to the next row is one addition (the
/// general `column_access` recomputes the address from an index per element, which cost a
/// column sum a third of its bandwidth).
template <class Lin>
struct linear_column_access {
  struct state {
    index_t flat;
  };
  Lin lin;
  index_t inner;
  index_t nred;
  __device__ __forceinline__ state start(index_t o, index_t r) const {
    const index_t q = o / inner;
    return {(q * nred + r) * inner + (o - q * inner)};
  }
  __device__ __forceinline__ auto get(const state& s) const { return lin.get(s.flat); }
  __device__ __forceinline__ void next(state& s) const { s.flat += inner; }
};

/// A contiguous tensor viewed with one dim last: line o starts at `offset(o)` and steps by `step`.
template <std::size_t R>
struct line_layout {
  index_t ext[R > 1 ? R - 1 : 1];
  index_t str[R > 1 ? R - 1 : 1];
  index_t step;
  __device__ __forceinline__ index_t offset(index_t o) const {
    index_t off = 0;
#pragma unroll
    for (int d = static_cast<int>(R) - 2; d >= 0; --d) {
      const index_t q = o / ext[d];
      off += (o - q * ext[d]) * str[d];
      o = q;
    }
    return off;
  }
};

}  // namespace tl::detail::cuda_kernels
