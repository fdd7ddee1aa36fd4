#pragma once
/// @file kernels/assign.cuh
/// @brief Internal: the fused elementwise kernels (nvcc only; detail header).
///
/// One kernel per assignment. Three shapes of loop, all grid-stride over a tile of
/// `block * unroll` elements (each thread handles `unroll` elements, coalesced):
///  - linear, vector: destination and every operand contiguous and 16-byte aligned: each thread
///    loads and stores `16 / sizeof(T)` consecutive elements at once (128-bit accesses);
///  - linear: contiguous but unaligned or of a type without a vector form;
///  - strided: any layout; the flat index is unravelled over the destination's shape.
/// The index type is 32-bit when the element count allows it (cheaper division and addressing).
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "tl/core/complex.hpp"
#include "tl/expr/functors.hpp"
#include "tl/expr/node.hpp"

namespace tl::detail::cuda_kernels {

inline constexpr int block_size = 256;
inline constexpr int unroll = 4;

/// Writes v into the destination element with the assignment operator, honouring a lazy conjugate.
template <assign_op Op, class T, class V>
__device__ __forceinline__ void store_element(T& dst, const V& v, bool dconj) {
  const T x = cast_fn<T>{}(v);
  if constexpr (Op == assign_op::set) {  // never read the destination: it may be uninitialized
    if constexpr (is_complex_v<T>) dst = dconj ? tl::conj(x) : x;
    else dst = x;
    return;
  }
  if constexpr (is_complex_v<T>) {
    if (dconj) {
      dst = tl::conj(combine<Op>(tl::conj(dst), x));
      return;
    }
  }
  dst = combine<Op>(dst, x);
}

// ---- vector loads through row accessors -----------------------------------------------------
template <class T, int W>
struct alignas(sizeof(T) * W >= 16 ? 16 : alignof(T)) chunk {
  T v[W];
};

template <class Row>
using row_value_t = std::remove_cvref_t<decltype(std::declval<const Row&>().get(0))>;

// Declared before any is defined: each overload loads its operands through the others, and the
// rows live in tl::detail, where argument-dependent lookup would not find these.
template <int W, class T>
__device__ __forceinline__ void load_n(const contig_row<T>& r, index_t j, T (&out)[W]);
template <int W, class T>
__device__ __forceinline__ void load_n(const strided_row<T>& r, index_t j, T (&out)[W]);
template <int W, class T>
__device__ __forceinline__ void load_n(const scalar_row<T>& r, index_t, T (&out)[W]);
template <int W, class Op, class In, class C, class V>
__device__ __forceinline__ void load_n(const unary_row<Op, In, C>& r, index_t j, V (&out)[W]);
template <int W, class Op, class In, class L, class R, class V>
__device__ __forceinline__ void load_n(const binary_row<Op, In, L, R>& r, index_t j, V (&out)[W]);
template <int W, class Op, class A, class B, class C, class V>
__device__ __forceinline__ void load_n(const ternary_row<Op, A, B, C>& r, index_t j, V (&out)[W]);

template <int W, class T>
__device__ __forceinline__ void load_n(const contig_row<T>& r, index_t j, T (&out)[W]) {
  if constexpr ((sizeof(T) * W) % 16 == 0 && !is_complex_v<T>) {
    constexpr int per = static_cast<int>(16 / sizeof(T));
#pragma unroll
    for (int c = 0; c < W / per; ++c) {
      const chunk<T, per> q = *reinterpret_cast<const chunk<T, per>*>(r.p + j + c * per);
#pragma unroll
      for (int k = 0; k < per; ++k) out[c * per + k] = q.v[k];
    }
  } else {
#pragma unroll
    for (int k = 0; k < W; ++k) out[k] = r.get(j + k);
  }
}
template <int W, class T>
__device__ __forceinline__ void load_n(const strided_row<T>& r, index_t j, T (&out)[W]) {
#pragma unroll
  for (int k = 0; k < W; ++k) out[k] = r.get(j + k);
}
template <int W, class T>
__device__ __forceinline__ void load_n(const scalar_row<T>& r, index_t, T (&out)[W]) {
#pragma unroll
  for (int k = 0; k < W; ++k) out[k] = r.v;
}
template <int W, class Op, class In, class C, class V>
__device__ __forceinline__ void load_n(const unary_row<Op, In, C>& r, index_t j, V (&out)[W]) {
  row_value_t<C> a[W];
  load_n<W>(r.c, j, a);
#pragma unroll
  for (int k = 0; k < W; ++k) out[k] = r.op(static_cast<In>(a[k]));
}
template <int W, class Op, class In, class L, class R, class V>
__device__ __forceinline__ void load_n(const binary_row<Op, In, L, R>& r, index_t j, V (&out)[W]) {
  row_value_t<L> a[W];
  row_value_t<R> b[W];
  load_n<W>(r.l, j, a);
  load_n<W>(r.r, j, b);
#pragma unroll
  for (int k = 0; k < W; ++k) out[k] = r.op(static_cast<In>(a[k]), static_cast<In>(b[k]));
}
template <int W, class Op, class A, class B, class C, class V>
__device__ __forceinline__ void load_n(const ternary_row<Op, A, B, C>& r, index_t j, V (&out)[W]) {
  row_value_t<A> a[W];
  row_value_t<B> b[W];
  row_value_t<C> c[W];
  load_n<W>(r.a, j, a);
  load_n<W>(r.b, j, b);
  load_n<W>(r.c, j, c);
#pragma unroll
  for (int k = 0; k < W; ++k) out[k] = r.op(a[k], b[k], c[k]);
}

// ---- kernels --------------------------------------------------------------------------------

/// Calls f(i) for every i in [0, n): grid-stride over tiles of block_size * unroll indices, each
/// thread taking `unroll` indices block_size apart (so each step is coalesced across the warp).
template <class I, class F>
__device__ __forceinline__ void for_each_index(I n, F&& f) {
  const I tile = static_cast<I>(block_size) * unroll;
  for (I base = static_cast<I>(blockIdx.x) * tile; base < n; base += static_cast<I>(gridDim.x) * tile) {
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const I i = base + static_cast<I>(u) * block_size + threadIdx.x;
      if (i < n) f(i);
    }
  }
}

/// Contiguous, aligned: each thread handles W-element vectors; the tail [nvec * W, n) is scalar.
template <assign_op Op, class T, int W, class Row, class I>
__global__ void __launch_bounds__(block_size) assign_linear_vec(T* __restrict__ d, Row row, I n) {
  using V = row_value_t<Row>;
  const I nvec = n / W;
  for_each_index(nvec, [&](I v) {
    const index_t j = static_cast<index_t>(v) * W;
    V x[W];
    load_n<W>(row, j, x);
    chunk<T, W>* dp = reinterpret_cast<chunk<T, W>*>(d + j);
    chunk<T, W> out;
    if constexpr (Op != assign_op::set) out = *dp;
#pragma unroll
    for (int k = 0; k < W; ++k) store_element<Op>(out.v[k], x[k], false);
    *dp = out;
  });
  // Tail: fewer than W elements, handled by the first block.
  if (blockIdx.x == 0 && threadIdx.x < n - nvec * W) {
    const index_t j = static_cast<index_t>(nvec) * W + threadIdx.x;
    store_element<Op>(d[j], row.get(j), false);
  }
}

/// Contiguous destination and operands, any alignment.
template <assign_op Op, class T, class Row, class I>
__global__ void __launch_bounds__(block_size) assign_linear(T* __restrict__ d, Row row, I n, bool dconj) {
  for_each_index(n, [&](I i) { store_element<Op>(d[i], row.get(static_cast<index_t>(i)), dconj); });
}

/// Destination shape and strides, passed by value.
template <std::size_t R>
struct dst_layout {
  index_t shape[R];
  index_t stride[R];
};

/// Any layout: unravel the flat index over the destination shape, then evaluate one element.
template <assign_op Op, class T, std::size_t R, class N, class I>
__global__ void __launch_bounds__(block_size) assign_strided(T* d, dst_layout<R> lay, N node, I n, bool dconj) {
  for_each_index(n, [&](I i) {
    index_t idx[R];
    I rem = i;
    index_t off = 0;
#pragma unroll
    for (int k = static_cast<int>(R) - 1; k >= 0; --k) {
      const I e = static_cast<I>(lay.shape[k]);
      idx[k] = static_cast<index_t>(rem % e);
      rem /= e;
      off += idx[k] * lay.stride[k];
    }
    store_element<Op>(d[off], node.row(idx).get(idx[R - 1]), dconj);
  });
}

/// A rank-0 destination: one element.
template <assign_op Op, class T, class N>
__global__ void assign_scalar(T* d, N node, bool dconj) {
  store_element<Op>(*d, node.row(nullptr).get(0), dconj);
}

}  // namespace tl::detail::cuda_kernels
