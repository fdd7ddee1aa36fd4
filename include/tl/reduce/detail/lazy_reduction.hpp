#pragma once
/// @file lazy_reduction.hpp
/// @brief Internal: reductions with tl::keepdim as expression nodes (detail header).
///
/// `tl::sum(x, -1, tl::keepdim)` (likewise mean, prod, amax, amin, argmax, argmin, all_of, any_of,
/// count_nonzero) is a `keepdim_reduction`: a node of x's rank whose reduced dims have extent 1,
/// computed, like any expression, each time it is consumed (from its input's values then).
///  - Every consumer but the CPU assignment evaluator gets it through `to_node`, which calls
///    `resolved()`: the reduction kernel runs and the node becomes a leaf over the result.
///  - When autograd records the reduction, the node holds the recorded result instead (the graph
///    needs exactly those values), and consumers read that.
///  - The CPU assignment evaluator calls `bcast_rows(dst_shape)`. When only the last dim is reduced,
///    each destination row takes exactly one output, and an input row fits in cache, it gets a
///    `fused_reduction_leaf`, which reduces input row i right before destination row i is
///    evaluated: `y = x - tl::mean(x, -1, tl::keepdim)` reads x from memory once. A row is reduced
///    with the kernel's blocking, so the values are bit-identical to the eager result.
#include <array>
#include <cstdint>
#include <memory>
#include <utility>

#include "tl/core/tensor.hpp"
#include "tl/expr/node.hpp"
#include "tl/reduce/detail/kernel.hpp"
#include "tl/reduce/detail/run.hpp"

namespace tl::detail {

/// Longest input row (elements) whose reduction the assignment evaluator fuses into its rows.
inline constexpr index_t fused_row_max = index_t{1} << 16;

/// The row of a fused_reduction_leaf: its outputs along the destination row and, while the
/// evaluator walks the row, one prefetch per packet of the next input row of up to two contiguous
/// input tensors, so that the next reduction's reads overlap this row's writes.
template <class T>
struct fused_row {
  strided_row<T> r;
  const char* pf[2];
  index_t es[2];  // bytes per element of each prefetched input
  TL_HDI T get(index_t j) const { return r.get(j); }
  template <class B>
  TL_INLINE B packet(index_t j) const {
#if !defined(__CUDA_ARCH__)
    if (pf[0]) __builtin_prefetch(pf[0] + j * es[0]);
    if (pf[1]) __builtin_prefetch(pf[1] + j * es[1]);
#endif
    return r.template packet<B>(j);
  }
};

/// A keepdim reduction's outputs, broadcast to an assignment's destination; when `fused`, output i
/// is computed from input row i when the evaluator asks for destination row i.
template <class Out, class Red, class Fin, class In, std::size_t R2>
struct fused_reduction_leaf : node_base<fused_reduction_leaf<Out, Red, Fin, In, R2>, R2> {
  using value_type = Out;
  using extents_type = dextents<R2>;
  static constexpr std::size_t rank = R2;
  static constexpr bool simd_ok = simd_type_v<Out>;
  static constexpr bool is_scalar = false;

  owning_leaf<Out, dextents<R2>> buf;  // outputs in keepdim layout, broadcast to the destination
  In in;                               // the input at full rank; its last dim is reduced
  Red red;
  Fin fin;
  bool fused = false;
  // Input tensors read along contiguous rows of the destination's length: their data and strides
  // in bytes, for prefetching the next row.
  int nprefetch = 0;
  std::uintptr_t pf_data[2]{};
  std::array<index_t, In::rank> pf_stride[2]{};

  shape_t<R2> shape() const { return buf.shape(); }
  bool linear_ok() const { return !fused && buf.linear_ok(); }
  TL_HD contig_row<Out> linear() const { return buf.linear(); }
  TL_HD fused_row<Out> row(const index_t* o) const {
    fused_row<Out> r{buf.row(o), {nullptr, nullptr}, {0, 0}};
#if !defined(__CUDA_ARCH__)
    if (fused) {
      fill(o, r.r.p);
      constexpr std::size_t R = In::rank;
      if constexpr (R >= 2) {
        for (int k = 0; k < nprefetch; ++k) {
          // The next row (past the end after the last row: prefetching it is harmless).
          std::uintptr_t q = pf_data[k] + static_cast<std::uintptr_t>(pf_stride[k][R - 2]);
          for (std::size_t d = 0; d + 1 < R; ++d) q += static_cast<std::uintptr_t>(o[R2 - R + d] * pf_stride[k][d]);
          r.pf[k] = reinterpret_cast<const char*>(q);
          r.es[k] = pf_stride[k][R - 1];
        }
      }
    }
#endif
    return r;
  }
  /// Notes up to two input tensors whose rows are contiguous and as long as the destination's.
  void find_prefetch(index_t dst_row) {
    constexpr std::size_t R = In::rank;
    if constexpr (R >= 2) {
      in.for_each_leaf([&](const leaf_span& l) {
        if (nprefetch == 2 || l.rank != R || l.shape[R - 1] != dst_row || l.strides[R - 1] != 1) return;
        pf_data[nprefetch] = reinterpret_cast<std::uintptr_t>(l.data);
        for (std::size_t d = 0; d < R; ++d)
          pf_stride[nprefetch][d] = l.strides[d] * static_cast<index_t>(l.elem_size);
        ++nprefetch;
      });
    } else {
      (void)dst_row;
    }
  }
  /// Output `slot` from input row o (o holds the destination's outer indices).
  void fill(const index_t* o, const Out* slot) const {
    constexpr std::size_t R = In::rank;
    const index_t L = in.shape()[R - 1];
    const auto acc = reduce_one_row<reduce_simd_v<Red, In>>(red, in.row(o + (R2 - R)), L);
    *const_cast<Out*>(slot) = fin.finish(acc, static_cast<index_t>(slot - buf.p));
  }
  template <class F>
  void for_each_leaf(F&& f) const {
    buf.for_each_leaf(f);
    if (fused) in.for_each_leaf(f);
  }
};

/// A reduction with tl::keepdim: an expression of the input's rank, computed when first needed.
template <class Out, class Red, class Fin, class N>
struct keepdim_reduction : node_base<keepdim_reduction<Out, Red, Fin, N>, N::rank> {
  using value_type = Out;
  static constexpr std::size_t rank = N::rank;
  using extents_type = dextents<rank>;
  static constexpr bool simd_ok = simd_type_v<Out>;
  static constexpr bool is_scalar = false;
  static constexpr bool deferred = true;

  N in;
  Red red;
  Fin fin;
  std::array<bool, rank> mask{};
  shape_t<rank> m_shape{};
  std::shared_ptr<const tensor<Out, rank>> recorded;  // the value autograd recorded, if it did
  bool rg = false;                                    // ... and whether it requires grad

  keepdim_reduction(N n, Red r, Fin f, const std::array<bool, rank>& m)
      : in(std::move(n)), red(r), fin(f), mask(m), m_shape(keep_shape(in.shape(), m)) {}

  shape_t<rank> shape() const { return m_shape; }

  /// The result: the recorded value, else computed now by the reduction kernel.
  tensor<Out, rank> value() const {
    if (recorded) return *recorded;
    tensor<Out, rank> out(m_shape, expression_device(in));
    reduce_into(out, red, in, mask, fin);
    return out;
  }
  /// Fixes the result to t (the value autograd recorded; its graph needs exactly these values).
  void set_value(tensor<Out, rank> t) {
    rg = t.requires_grad();
    recorded = std::make_shared<const tensor<Out, rank>>(std::move(t));
  }
  /// A leaf over the result (keeps it alive, and its autograd history when it has one).
  auto resolved() const { return to_node(value()); }

  /// Whether an assignment of shape s may compute the outputs row by row.
  template <std::size_t R2>
  bool fusable(const shape_t<R2>& s) const {
    if constexpr (rank == 0) {
      return false;
    } else {
      if (recorded || expression_device(in).is_cuda()) return false;
      if (!mask[rank - 1] || in.shape()[rank - 1] > fused_row_max) return false;
      for (std::size_t k = 0; k + 1 < rank; ++k)
        if (mask[k] || m_shape[k] != s[R2 - rank + k]) return false;
      for (std::size_t k = 0; k < R2 - rank; ++k)
        if (s[k] != 1) return false;  // several destination rows would share an output
      return true;
    }
  }
  /// For the CPU assignment evaluator: the node broadcast to s, fused into its rows where possible.
  template <std::size_t R2>
  auto bcast_rows(const shape_t<R2>& s) const {
    using In = decltype(in.bcast(in.shape()));
    fused_reduction_leaf<Out, Red, Fin, In, R2> f{{}, {}, in.bcast(in.shape()), red, fin, false};
    if (fusable(s)) {
      f.buf = to_node(tensor<Out, rank>(m_shape)).bcast(s);
      f.fused = true;
      f.find_prefetch(s[R2 - 1]);
    } else {
      f.buf = resolved().bcast(s);
    }
    return f;
  }

  // The generic node interface works on the computed result; both return leaves that own it. There
  // is no row() / linear(): a deferred node is always resolved (or fused) before evaluation.
  template <std::size_t R2>
  auto bcast(const shape_t<R2>& s) const {
    return resolved().bcast(s);
  }
  auto permute(const std::array<std::size_t, rank>& p) const { return resolved().permute(p); }
  template <class F>
  void for_each_leaf(F&& f) const {
    in.for_each_leaf(f);
  }
};

template <class Out, class Red, class Fin, class N>
struct is_node<keepdim_reduction<Out, Red, Fin, N>> : std::true_type {};

template <class Out, class Red, class Fin, class N>
bool any_requires_grad(const keepdim_reduction<Out, Red, Fin, N>& k) {
  return k.rg;
}

/// What a reduction of `node` returns: a new tensor, or with tl::keepdim a keepdim_reduction.
/// `recorded` is the result autograd computed, if it recorded the reduction.
template <class Out, bool Keep, class Red, class N, class Fin, std::size_t R, std::size_t RO>
auto reduction_result(const Red& red, N node, const reduce_plan<R, RO>& plan, Fin fin,
                      const tensor<Out, RO>* recorded = nullptr) {
  if constexpr (Keep) {
    static_assert(RO == R && is_finalizer_v<Fin>);
    keepdim_reduction<Out, Red, Fin, N> k(std::move(node), red, fin, plan.mask);
    if (recorded) k.set_value(*recorded);
    return k;
  } else {
    if (recorded) return *recorded;
    return reduce_into_tensor<Out>(red, node, plan, fin);
  }
}

/// Whether reduction arguments A... end with tl::keepdim.
template <std::size_t R, class... A>
inline constexpr bool keeps_dims_v = reduce_args<R, std::remove_cvref_t<A>...>::keep;

/// Parses dim arguments, then reduces an expression (see reduction_result).
template <class Out, class Red, class E, class Fin, class... A>
auto reduce_with(const char* op, const Red& red, E&& e, Fin fin, const reduce_out_t<Out, E, A...>* recorded,
                 const A&... args) {
  auto node = to_node(std::forward<E>(e));
  const auto plan = make_plan<decltype(node)::rank>(op, node.shape(), args...);
  return reduction_result<Out, keeps_dims_v<rank_of<E>, A...>>(red, std::move(node), plan, fin, recorded);
}

}  // namespace tl::detail
