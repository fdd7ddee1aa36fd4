#pragma once
/// @file assign.hpp
/// @brief The CPU evaluator for assignment: one fused pass of an expression into a tensor.
///
/// How an expression becomes a loop:
///  1. the expression is broadcast to the destination's shape (leaves get stride 0 on broadcast dims);
///  2. if the destination and every leaf are contiguous with that shape, one flat loop runs over
///     all elements with xsimd packets (`linear()`), split in fixed chunks over the thread pool;
///  3. otherwise the last dim is the inner loop (`row(outer)`), packets when the destination's inner
///     stride is 1 and every leaf's inner stride is 0 or 1, rows split over the pool;
///  4. if the destination overlaps an operand in any way other than element-for-element (e.g.
///     `a = a.t()`), the expression is first evaluated into a temporary.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tl/core/tensor.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/eval/device_slot.hpp"
#include "tl/expr/functors.hpp"
#include "tl/expr/node.hpp"

namespace tl::detail {

/// Elements per parallel task (a multiple of every packet width).
inline constexpr index_t parallel_chunk = 1 << 15;

/// d (op)= v. Callers never pass d for Op == set (the destination may be uninitialized memory).
template <assign_op Op, class T>
TL_HDI T combine(T d, T v) {
  if constexpr (Op == assign_op::set) return v;
  else if constexpr (Op == assign_op::add) return add_fn{}(d, v);
  else if constexpr (Op == assign_op::sub) return sub_fn{}(d, v);
  else if constexpr (Op == assign_op::mul) return mul_fn{}(d, v);
  else return d / v;
}

/// The inner loop: d[j * ds] (op)= row(j) for j in [lo, hi). With stream (plain assignment of a
/// contiguous span only), whole packets go out with streaming stores once d + j is aligned.
template <assign_op Op, bool Simd, class T, class Row>
TL_INLINE void run_span(T* d, index_t ds, const Row& r, index_t lo, index_t hi, bool dconj, bool stream = false) {
  using V = std::remove_cvref_t<decltype(r.get(0))>;
  if constexpr (Simd && std::is_same_v<V, T> && simd_type_v<T>) {
    if (ds == 1) {
      using B = batch_t<T>;
      constexpr index_t W = static_cast<index_t>(B::size);
      index_t j = lo;
      if constexpr (Op == assign_op::set && has_stream_store<B>) {
        constexpr std::uintptr_t align = sizeof(B);
        if (stream && reinterpret_cast<std::uintptr_t>(d) % sizeof(T) == 0) {
          for (; j < hi && reinterpret_cast<std::uintptr_t>(d + j) % align != 0; ++j) d[j] = r.get(j);
          for (; j + W <= hi; j += W) stream_store(d + j, r.template packet<B>(j));
        }
      }
      for (; j + W <= hi; j += W) {
        B v = r.template packet<B>(j);
        if constexpr (Op == assign_op::add) v = B::load_unaligned(d + j) + v;
        else if constexpr (Op == assign_op::sub) v = B::load_unaligned(d + j) - v;
        else if constexpr (Op == assign_op::mul) v = B::load_unaligned(d + j) * v;
        else if constexpr (Op == assign_op::div) v = B::load_unaligned(d + j) / v;
        v.store_unaligned(d + j);
      }
      for (; j < hi; ++j) {
        if constexpr (Op == assign_op::set) d[j] = r.get(j);
        else d[j] = combine<Op>(d[j], r.get(j));
      }
      return;
    }
  }
  for (index_t j = lo; j < hi; ++j) {
    T& dst = d[j * ds];
    T v = cast_fn<T>{}(r.get(j));
    if constexpr (Op == assign_op::set) {  // never read the destination: it may be uninitialized
      if constexpr (is_complex_v<T>) dst = dconj ? tl::conj(v) : v;
      else dst = v;
      continue;
    }
    if constexpr (is_complex_v<T>) {
      if (dconj) {
        dst = tl::conj(combine<Op>(tl::conj(dst), v));
        continue;
      }
    }
    dst = combine<Op>(dst, v);
  }
}

/// Evaluates a node already broadcast to dst's shape into dst (no alias handling here).
template <assign_op Op, class T, class Ext, class N>
void run_assign(const basic_tensor<T, Ext>& dst, const N& node) {
  constexpr std::size_t R = Ext::rank;
  const index_t total = dst.numel();
  if (total == 0) return;
  T* d = dst.data();
  const bool dconj = dst.is_conj();
  auto& pool = thread_pool::instance();
  // Streaming stores for a plain assignment larger than the cache (packet paths only).
  [[maybe_unused]] const bool stream = Op == assign_op::set && N::simd_ok && simd_type_v<T> &&
                      static_cast<std::size_t>(total) * sizeof(T) >= streaming_store_threshold().load(std::memory_order_relaxed);
  if constexpr (R == 0) {
    run_span<Op, false>(d, 1, node.row(nullptr), 0, 1, dconj);
  } else {
    if (dst.is_contiguous() && node.linear_ok() && total > 0) {
      const auto row = node.linear();
      const index_t ntask = (total + parallel_chunk - 1) / parallel_chunk;
      pool.parallel_for(ntask, [&](index_t t) {
        const index_t lo = t * parallel_chunk, hi = std::min(total, lo + parallel_chunk);
        run_span<Op, N::simd_ok>(d, 1, row, lo, hi, dconj, stream);
        if (stream) stream_fence();
      });
      return;
    }
    const auto& shape = dst.shape();
    const auto& st = dst.strides();
    const index_t inner = shape[R - 1];
    const index_t rows = total / inner;
    const index_t rows_per_task = std::max<index_t>(1, parallel_chunk / std::max<index_t>(inner, 1));
    const index_t ntask = (rows + rows_per_task - 1) / rows_per_task;
    pool.parallel_for(ntask, [&](index_t t) {
      const index_t r0 = t * rows_per_task, r1 = std::min(rows, r0 + rows_per_task);
      std::array<index_t, R> idx{};
      // Unravel r0 over the outer dims.
      index_t rem = r0;
      for (std::size_t k = R - 1; k-- > 0;) {
        idx[k] = rem % shape[k];
        rem /= shape[k];
      }
      for (index_t r = r0; r < r1; ++r) {
        index_t off = 0;
        for (std::size_t k = 0; k + 1 < R; ++k) off += idx[k] * st[k];
        run_span<Op, N::simd_ok>(d + off, st[R - 1], node.row(idx.data()), 0, inner, dconj, stream);
        for (std::size_t k = R - 1; k-- > 0;) {
          if (++idx[k] < shape[k]) break;
          idx[k] = 0;
        }
      }
      if (stream) stream_fence();
    });
  }
}

/// Does writing dst element by element while reading the node risk reading overwritten data?
template <class T, class Ext, class N>
bool needs_temporary(const basic_tensor<T, Ext>& dst, const N& node) {
  constexpr std::size_t R = Ext::rank;
  const char* lo = reinterpret_cast<const char*>(dst.data());
  const char* hi = lo + sizeof(T);
  for (std::size_t d = 0; d < R; ++d) {
    const index_t ext = (dst.shape()[d] - 1) * dst.strides()[d] * static_cast<index_t>(sizeof(T));
    if (ext < 0) lo += ext;
    else hi += ext;
  }
  bool clash = false;
  node.for_each_leaf([&](const leaf_span& s) {
    if (clash || s.lo == s.hi || s.hi <= lo || s.lo >= hi) return;
    // Same element order and type: each element is read before it is written.
    bool same = s.data == dst.data() && s.rank == R && s.elem_size == sizeof(T);
    for (std::size_t d = 0; same && d < R; ++d)
      same = s.shape[d] == dst.shape()[d] && (s.strides[d] == dst.strides()[d] || s.shape[d] == 1);
    clash = !same;
  });
  return clash;
}

/// Key of the CUDA launcher for evaluating node N (already broadcast to the destination's rank R).
template <assign_op Op, class T, std::size_t R, class N>
struct cuda_assign_key {};
template <class T, std::size_t R, class N>
using cuda_assign_fn = void (*)(T* d, const shape_t<R>& shape, const shape_t<R>& strides, bool dconj, const N& node,
                                int dev);
}  // namespace tl::detail

#if defined(__CUDACC__)
#include "tl/eval/cuda/assign.cuh"
#endif

namespace tl::detail {

/// Runs the evaluator of dst's device.
template <assign_op Op, class T, class Ext, class N>
void run_assign_on_device(const basic_tensor<T, Ext>& dst, const N& node) {
  if (dst.is_cuda()) {
    constexpr std::size_t R = Ext::rank;
#if defined(__CUDACC__)
    register_cuda_assign<Op, T, R, N>();
#endif
    const auto fn = require_device_slot<cuda_assign_key<Op, T, R, N>, cuda_assign_fn<T, R, N>>("assign");
    fn(dst.data(), dst.shape(), dst.strides(), dst.is_conj(), node, dst.device().index());
  } else {
    run_assign<Op>(dst, node);
  }
}

template <assign_op Op, bool HostOnly, class T, class Ext, class N>
void run_assign_in(const basic_tensor<T, Ext>& dst, const N& node) {
  if constexpr (HostOnly) run_assign<Op>(dst, node);
  else run_assign_on_device<Op>(dst, node);
}

/// Evaluates a node broadcast to dst's shape into dst, through a temporary when they overlap.
/// HostOnly: dst is on the host and the node may hold host-only parts (fused reductions).
template <assign_op Op, bool HostOnly, class T, class Ext, class N>
void assign_broadcast(const basic_tensor<T, Ext>& dst, const N& bnode) {
  if (needs_temporary(dst, bnode)) {
    tensor<typename N::value_type, Ext::rank> tmp(dst.shape(), dst.device());
    run_assign_in<assign_op::set, HostOnly>(tmp, bnode);
    run_assign_in<Op, HostOnly>(dst, to_node(tmp).bcast(dst.shape()));
    return;
  }
  run_assign_in<Op, HostOnly>(dst, bnode);
}

template <assign_op Op, class T, class Ext, class E>
void eval_into(const basic_tensor<T, Ext>& dst, const E& e) {
  constexpr std::size_t R = Ext::rank;
  auto node = operand_node(e);
  using N = decltype(node);
  using V = typename N::value_type;
  static_assert(N::rank <= R, "tl: cannot assign an expression of higher rank than the destination tensor");
  if constexpr (Op != assign_op::set) {
    static_assert(category<promote_t<T, V>>() <= category<T>(),
                  "tl: an in-place update cannot change the tensor's dtype to a higher category (e.g. int += "
                  "float); cast the tensor first with tl::astype");
    static_assert(!(Op == assign_op::div && category<T>() < 2),
                  "tl: in-place true division of an integer tensor is not possible (the result is floating)");
    static_assert(!std::is_same_v<T, bool> || Op == assign_op::add || Op == assign_op::mul,
                  "tl: only += and *= (logical or / and) are defined for bool tensors");
  }
  const auto es = node.shape();
  bool fits = true;
  for (std::size_t k = 0; k < N::rank; ++k) {
    const index_t x = es[N::rank - 1 - k], y = dst.shape()[R - 1 - k];
    fits = fits && (x == y || x == 1);
  }
  if (!fits)
    throw shape_error(cat_str("tl::assign: an expression of shape ", shape_str(es),
                              " cannot be written into a tensor of shape ", shape_str(dst.shape())));
  check_same_device("assign", dst.device(), expression_device(node, dst.device()));
  if (dst.numel() == 0) return;
  // Keepdim reductions inside the expression compute each row's output just before the row is
  // evaluated (one pass over their input); a reduction alone is computed by the reduction kernel.
  if constexpr (has_deferred_v<N> && !requires { requires N::deferred; }) {
    if (!dst.is_cuda()) {
      assign_broadcast<Op, true>(dst, bcast_rows(node, dst.shape()));
      return;
    }
  }
  assign_broadcast<Op, false>(dst, resolve(node).bcast(dst.shape()));
}

}  // namespace tl::detail

namespace tl {

template <class T, class Ext>
template <detail::assign_op Op, class E>
const basic_tensor<T, Ext>& basic_tensor<T, Ext>::update(const E& e) const {
  if constexpr (TL_AUTOGRAD) {
    if (detail::inplace_autograd<Op>(*this, e)) return *this;
  }
  if (m_storage) ++m_storage->version;
  detail::eval_into<Op>(*this, e);
  return *this;
}

template <class T, class Ext>
template <scalar S>
const basic_tensor<T, Ext>& basic_tensor<T, Ext>::fill_(const S& v) const {
  return update<detail::assign_op::set>(detail::scalar_leaf<T>{{}, detail::cast_fn<T>{}(static_cast<scalar_dtype_t<S>>(v))});
}

template <class T, class Ext>
basic_tensor<T, Ext> basic_tensor<T, Ext>::contiguous_copy() const {
  basic_tensor r(m_shape, device());
  detail::eval_into<detail::assign_op::set>(r, *this);
  return r;
}

template <class T, class Ext>
basic_tensor<T, Ext> basic_tensor<T, Ext>::resolve_conj() const {
  if (!m_conj) return *this;
  return contiguous_copy();
}

/// @brief Evaluates an expression into a new contiguous tensor.
template <expression E>
auto eval(E&& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (is_tensor_v<D>) {
    return e.contiguous();
  } else {
    return tensor<typename D::value_type, D::rank>(e);
  }
}

}  // namespace tl
