#pragma once
/// @file assign.cuh
/// @brief Internal: the CUDA evaluator for assignment (nvcc only; included by tl/eval/cpu/assign.hpp
/// under nvcc). `dst = expr` on a CUDA tensor launches exactly one fused kernel (see kernels/assign.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tl/eval/cuda/allocator.cuh"
#include "tl/eval/cuda/kernels/assign.cuh"
#include "tl/eval/cuda/runtime.cuh"
#include "tl/eval/device_slot.hpp"
#include "tl/expr/node.hpp"

namespace tl::detail {

// ---- plain nodes: owning leaves become views (kernel arguments must be trivially copyable) ----
template <class T, class Ext>
tensor_leaf<T, Ext> to_plain(const tensor_leaf<T, Ext>& l) {
  return l;
}
template <class T, class Ext>
tensor_leaf<T, Ext> to_plain(const owning_leaf<T, Ext>& l) {
  return static_cast<const tensor_leaf<T, Ext>&>(l);
}
template <class T, std::size_t R>
scalar_leaf<T, R> to_plain(const scalar_leaf<T, R>& l) {
  return l;
}
template <class Op, class C>
auto to_plain(const unary_node<Op, C>& n) {
  auto c = to_plain(n.c);
  return unary_node<Op, decltype(c)>{{}, n.op, c};
}
template <class Op, class L, class R>
auto to_plain(const binary_node<Op, L, R>& n) {
  auto l = to_plain(n.l);
  auto r = to_plain(n.r);
  return binary_node<Op, decltype(l), decltype(r)>(n.op, l, r);
}
template <class Op, class A, class B, class C>
auto to_plain(const ternary_node<Op, A, B, C>& n) {
  auto a = to_plain(n.a);
  auto b = to_plain(n.b);
  auto c = to_plain(n.c);
  return ternary_node<Op, decltype(a), decltype(b), decltype(c)>(n.op, a, b, c);
}

/// Grid size for n elements handled `per_thread` at a time by a grid-stride kernel.
inline unsigned cuda_grid(index_t n, int per_thread, int dev) {
  const index_t per_block = static_cast<index_t>(cuda_kernels::block_size) * cuda_kernels::unroll * per_thread;
  const index_t want = (n + per_block - 1) / per_block;
  const index_t cap = static_cast<index_t>(tl::cuda::detail::sm_count(dev)) * 16;
  return static_cast<unsigned>(std::max<index_t>(1, std::min(want, cap)));
}

template <assign_op Op, class T, std::size_t R, class N>
void cuda_assign_launch(T* d, const shape_t<R>& shape, const shape_t<R>& strides, bool dconj, const N& node_in,
                        int dev) {
  namespace k = cuda_kernels;
  const auto node = to_plain(node_in);
  using P = decltype(node);
  static_assert(std::is_trivially_copyable_v<P>, "tl: internal: a CUDA kernel argument must be trivially copyable");
  static_assert(sizeof(P) <= 4000,
                "tl: this expression is too large to pass to one CUDA kernel (over 4 KB of operands); split it "
                "into two assignments");
  tl::cuda::detail::require_device(dev, "assign");
  tl::cuda::device_guard guard(dev);
  const cudaStream_t s = tl::cuda::current_stream();
  index_t n = 1;
  for (auto x : shape) n *= x;
  if (n == 0) return;
  const bool small = n <= static_cast<index_t>(std::numeric_limits<std::uint32_t>::max() / 2);
  if constexpr (R == 0) {
    k::assign_scalar<Op><<<1, 1, 0, s>>>(d, node, dconj);
  } else {
    bool dst_contig = true;
    index_t expect = 1;
    for (std::size_t i = R; i-- > 0;) {
      if (shape[i] != 1 && strides[i] != expect) dst_contig = false;
      expect *= shape[i];
    }
    if (dst_contig && node.linear_ok()) {
      const auto row = node.linear();
      constexpr bool vec_type = std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && (16 % sizeof(T) == 0);
      bool aligned = reinterpret_cast<std::uintptr_t>(d) % 16 == 0;
      node.for_each_leaf([&](const leaf_span& sp) { aligned = aligned && reinterpret_cast<std::uintptr_t>(sp.data) % 16 == 0; });
      if constexpr (vec_type) {
        if (aligned && !dconj) {
          constexpr int W = static_cast<int>(16 / sizeof(T));
          const unsigned grid = cuda_grid(n, W, dev);
          if (small) k::assign_linear_vec<Op, T, W><<<grid, k::block_size, 0, s>>>(d, row, static_cast<std::uint32_t>(n));
          else k::assign_linear_vec<Op, T, W><<<grid, k::block_size, 0, s>>>(d, row, n);
          TL_CUDA_CHECK(cudaGetLastError(), "assign");
          return;
        }
      }
      const unsigned grid = cuda_grid(n, 1, dev);
      if (small) k::assign_linear<Op><<<grid, k::block_size, 0, s>>>(d, row, static_cast<std::uint32_t>(n), dconj);
      else k::assign_linear<Op><<<grid, k::block_size, 0, s>>>(d, row, n, dconj);
    } else {
      k::dst_layout<R> lay{};
      for (std::size_t i = 0; i < R; ++i) {
        lay.shape[i] = shape[i];
        lay.stride[i] = strides[i];
      }
      const unsigned grid = cuda_grid(n, 1, dev);
      if (small) k::assign_strided<Op, T, R><<<grid, k::block_size, 0, s>>>(d, lay, node, static_cast<std::uint32_t>(n), dconj);
      else k::assign_strided<Op, T, R><<<grid, k::block_size, 0, s>>>(d, lay, node, n, dconj);
    }
  }
  TL_CUDA_CHECK(cudaGetLastError(), "assign");
}

/// Instantiates the launcher for this node type and fills its slot at static initialization.
template <assign_op Op, class T, std::size_t R, class N>
void register_cuda_assign() {
  fill_device_slot<cuda_assign_key<Op, T, R, N>, cuda_assign_fn<T, R, N>, &cuda_assign_launch<Op, T, R, N>>();
}

}  // namespace tl::detail
