#pragma once
/// @file packet_tape.hpp
/// @brief Internal: reverse mode inside one fused loop, packet by packet (detail header).
///
/// For an elementwise expression whose nodes all compute in one real floating type, the backward
/// runs one loop over the elements. At each packet (xsimd batch, or one element in the tail) it
///  1. evaluates the expression's row accessors bottom-up, keeping every node's value in a local
///     state object (the tape of that packet: one value per node, in registers);
///  2. walks the tree top-down from the output gradient: each node's derivative rule (the same
///     rules as the lazy adjoints, adjoint.hpp) is built on `reg_leaf`s that read the stored
///     values of the node's children and the incoming gradient, giving each child's gradient;
///  3. stores (or adds, for a tensor used at several places) the gradient reaching each leaf.
/// Every node is computed once and every rule once per element, where the lazy adjoints of a deep
/// chain recompute the forward prefix at every level, for every leaf.
#include <array>
#include <cstddef>
#include <type_traits>

#include "tl/autograd/detail/adjoint.hpp"
#include "tl/eval/cpu/assign.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/expr/node.hpp"

namespace tl::detail {

/// Where the gradient of leaf k goes: `d == nullptr` discards it; `add` adds it to what is there
/// (a leaf tensor used at several places: the first place reached stores, the later ones add).
template <class T>
struct multi_target {
  T* d = nullptr;
  bool add = false;
};

template <class T>
struct reg_row {
  const T* p;
  TL_HDI T get(index_t) const { return *p; }
  template <class B>
  TL_INLINE B packet(index_t) const {
    return B::load_unaligned(p);
  }
};

/// A leaf reading the current value of a tape node (one element, or one packet) from the packet's
/// local state. Rules are built on these per packet: the state's address never leaves the loop
/// body, so the compiler keeps the values in registers and the leaves' addresses are constant
/// offsets. (Leaves holding the values themselves measured 2.3x slower: every rule node copied its
/// 64-byte operands. The pointer is a T*, not a batch*: row types holding a vector type cannot
/// appear in the host-device accessors nvcc checks.)
template <class T, std::size_t R = 1>
struct reg_leaf : node_base<reg_leaf<T, R>, R> {
  using value_type = T;
  using extents_type = dextents<R>;
  static constexpr std::size_t rank = R;
  static constexpr bool simd_ok = simd_type_v<T>;
  static constexpr bool is_scalar = false;
  const T* p = nullptr;

  shape_t<R> shape() const {
    shape_t<R> s;
    s.fill(1);
    return s;
  }
  template <std::size_t R2>
  reg_leaf<T, R2> bcast(const shape_t<R2>&) const {
    return {{}, p};
  }
  reg_leaf permute(const std::array<std::size_t, R>&) const { return *this; }
  bool linear_ok() const { return true; }
  // Host and device like every node's accessors (the nodes above them are): the tape runs on the
  // host only, but nvcc checks the calls of every instantiated host-device function.
  TL_HDI reg_row<T> linear() const { return {p}; }
  TL_HDI reg_row<T> row(const index_t*) const { return {p}; }
  template <class F>
  void for_each_leaf(F&&) const {}
};
template <class T, std::size_t R>
struct is_node<reg_leaf<T, R>> : std::true_type {};
template <class T, std::size_t R>
bool any_requires_grad(const reg_leaf<T, R>&) {
  return false;
}

/// Loads and stores of one element (P = false) or one packet (P = true) of T.
template <class T, bool P>
struct lane {
  using B = batch_t<T>;
  using type = std::conditional_t<P, B, T>;
  static TL_INLINE type load(const T* p) {
    if constexpr (P) return B::load_unaligned(p);
    else return *p;
  }
  static TL_INLINE void store(T* p, const type& v) {
    if constexpr (P) v.store_unaligned(p);
    else *p = v;
  }
  template <class Row>
  static TL_INLINE type read(const Row& r, index_t j) {
    if constexpr (P) return static_cast<B>(r.template packet<B>(j));
    else return static_cast<T>(r.get(j));
  }
  /// The value of a rule (an expression over reg_leafs) at the current element or packet.
  template <class E>
  static TL_INLINE type eval(const E& e) {
    return read(to_node(e).linear(), 0);
  }
};

/// A tape value (one element or one packet) as a leaf of rule expressions.
template <class T, class V>
TL_INLINE reg_leaf<T> rv(const V& v) {
  return {{}, reinterpret_cast<const T*>(&v)};
}

/// `reached[k]`: whether any gradient flows to leaf k of a tape (its bwd runs at every packet, and
/// leaves are reached in increasing k). Built from the children's masks.
template <bool Flows, std::size_t N>
constexpr std::array<bool, N> reached_if(const std::array<bool, N>& m) {
  std::array<bool, N> r{};
  for (std::size_t k = 0; k < N; ++k) r[k] = Flows && m[k];
  return r;
}
template <std::size_t A, std::size_t B>
constexpr std::array<bool, A + B> reached_concat(const std::array<bool, A>& a, const std::array<bool, B>& b) {
  std::array<bool, A + B> r{};
  for (std::size_t k = 0; k < A; ++k) r[k] = a[k];
  for (std::size_t k = 0; k < B; ++k) r[A + k] = b[k];
  return r;
}

/// The tape of one row accessor tree. `ok` says whether the path applies (every node of type T,
/// every rule's result of type T). `state<P>` holds, for each node, its value `v` and the gradient
/// `g` reaching it (one element, P = false, or one packet): `fwd` fills the values, `bwd`
/// propagates `g` down to the leaves, evaluating each node's derivative rule (the same rules as the
/// lazy adjoints, adjoint.hpp) on reg_leafs of the stored values.
///
/// The state is a local of the loop body and the rules are built per packet on it (building a rule
/// folds away: its broadcast shapes are constants), so the compiler keeps the values in registers.
/// An earlier form kept the values in buffers that rules prepared once per span pointed at: the
/// vector stores of the gradients may alias anything, so the values and the rules' pointers were
/// reloaded after every store, and the backward of bench/autograd's chain took 2.65x its forward
/// against 1.6x now (1M floats, Zen 4).
template <class T, class Row>
struct row_tape {
  static constexpr bool ok = false;
  static constexpr std::size_t leaves = 0;
  static constexpr std::array<bool, 0> reached{};
};

template <class T, class Row>
struct leaf_tape {
  static constexpr bool ok = std::is_same_v<std::remove_cvref_t<decltype(std::declval<const Row&>().get(0))>, T>;
  static constexpr std::size_t leaves = 1;
  static constexpr std::array<bool, 1> reached{true};
  template <bool P>
  struct state {
    using V = typename lane<T, P>::type;
    V v, g;
    TL_INLINE void fwd(const Row& r, index_t j) { v = lane<T, P>::read(r, j); }
    template <std::size_t K>
    TL_INLINE void bwd(const Row&, const multi_target<T>* to, index_t j) const {
      const auto& t = to[K];
      if (!t.d) return;
      V x = g;
      if (t.add) x = lane<T, P>::load(t.d + j) + x;
      lane<T, P>::store(t.d + j, x);
    }
  };
};
template <class T>
struct row_tape<T, contig_row<T>> : leaf_tape<T, contig_row<T>> {};
template <class T>
struct row_tape<T, strided_row<T>> : leaf_tape<T, strided_row<T>> {};

template <class T>
struct row_tape<T, scalar_row<T>> {
  static constexpr bool ok = true;
  static constexpr std::size_t leaves = 0;
  static constexpr std::array<bool, 0> reached{};
  template <bool P>
  struct state {
    using V = typename lane<T, P>::type;
    V v, g;
    TL_INLINE void fwd(const scalar_row<T>& r, index_t j) { v = lane<T, P>::read(r, j); }
    template <std::size_t K>
    TL_INLINE void bwd(const scalar_row<T>&, const multi_target<T>*, index_t) const {}
  };
};

template <class T, class E>
inline constexpr bool rule_ok = [] {
  if constexpr (is_no_adjoint_v<E>) return true;
  else return std::is_same_v<vt<E>, T> && node_t<const E&>::simd_ok;
}();

/// Rules that read the node's own value y (kept on the tape) instead of recomputing it from the
/// child: d exp = y, d tanh = 1 - y^2, d sigmoid = y (1 - y), d sqrt = 1 / (2 y), d expm1 = y + 1.
/// The tape only runs real types, so no conjugation is needed.
template <class Op>
struct unary_out_rule {
  static constexpr bool has = false;
};
#define TL_UNARY_OUT_RULE(FN, EXPR)     \
  template <>                           \
  struct unary_out_rule<FN> {           \
    static constexpr bool has = true;   \
    template <class Y, class G>         \
    static auto d(const Y& y, const G& g) { \
      return EXPR;                      \
    }                                   \
  };
TL_UNARY_OUT_RULE(exp_fn, g* y)
TL_UNARY_OUT_RULE(tanh_fn, g*(1 - y * y))
TL_UNARY_OUT_RULE(sigmoid_fn, g*(y * (1 - y)))
TL_UNARY_OUT_RULE(sqrt_fn, g / (y * 2))
TL_UNARY_OUT_RULE(expm1_fn, g*(y + 1))
#undef TL_UNARY_OUT_RULE

template <class T, class Op, class In, class C>
struct row_tape<T, unary_row<Op, In, C>> {
  using child = row_tape<T, C>;
  /// The rule as an expression over the child's value c, the node's value y and its gradient g.
  template <class V>
  static auto rule(const Op& op, const V& c, const V& y, const V& g) {
    if constexpr (unary_out_rule<Op>::has) return (void)op, (void)c, unary_out_rule<Op>::d(rv<T>(y), rv<T>(g));
    else return (void)y, unary_rule<Op>::d(op, rv<T>(c), rv<T>(g));
  }
  using rule_t = decltype(rule(std::declval<const Op&>(), std::declval<const T&>(), std::declval<const T&>(), std::declval<const T&>()));
  static constexpr bool ok = child::ok && std::is_same_v<In, T> && rule_ok<T, rule_t>;
  static constexpr bool flows = !is_no_adjoint_v<rule_t> && child::leaves > 0;
  static constexpr std::size_t leaves = child::leaves;
  static constexpr auto reached = reached_if<flows>(child::reached);
  template <bool P>
  struct state {
    using V = typename lane<T, P>::type;
    V v, g;
    typename child::template state<P> c;
    TL_INLINE void fwd(const unary_row<Op, In, C>& r, index_t j) {
      c.fwd(r.c, j);
      if constexpr (P) v = r.op.packet(c.v);
      else v = r.op(c.v);
    }
    template <std::size_t K>
    TL_INLINE void bwd(const unary_row<Op, In, C>& r, const multi_target<T>* to, index_t j) {
      if constexpr (flows) {
        c.g = lane<T, P>::eval(rule(r.op, c.v, v, g));
        c.template bwd<K>(r.c, to, j);
      }
    }
  };
};

template <class T, class Op, class In, class L, class R>
struct row_tape<T, binary_row<Op, In, L, R>> {
  using left = row_tape<T, L>;
  using right = row_tape<T, R>;
  using reg = reg_leaf<T>;
  using dl_t = decltype(binary_rule<Op>::dl(std::declval<const Op&>(), std::declval<reg>(), std::declval<reg>(),
                                            std::declval<reg>()));
  using dr_t = decltype(binary_rule<Op>::dr(std::declval<const Op&>(), std::declval<reg>(), std::declval<reg>(),
                                            std::declval<reg>()));
  static constexpr bool ok =
      left::ok && right::ok && std::is_same_v<In, T> && rule_ok<T, dl_t> && rule_ok<T, dr_t>;
  static constexpr bool flows_l = !is_no_adjoint_v<dl_t> && left::leaves > 0;
  static constexpr bool flows_r = !is_no_adjoint_v<dr_t> && right::leaves > 0;
  static constexpr std::size_t leaves = left::leaves + right::leaves;
  static constexpr auto reached = reached_concat(reached_if<flows_l>(left::reached), reached_if<flows_r>(right::reached));
  template <bool P>
  struct state {
    using V = typename lane<T, P>::type;
    V v, g;
    typename left::template state<P> l;
    typename right::template state<P> rt;
    TL_INLINE void fwd(const binary_row<Op, In, L, R>& r, index_t j) {
      l.fwd(r.l, j);
      rt.fwd(r.r, j);
      if constexpr (P) v = r.op.packet(l.v, rt.v);
      else v = r.op(l.v, rt.v);
    }
    template <std::size_t K>
    TL_INLINE void bwd(const binary_row<Op, In, L, R>& r, const multi_target<T>* to, index_t j) {
      if constexpr (flows_l) l.g = lane<T, P>::eval(binary_rule<Op>::dl(r.op, rv<T>(l.v), rv<T>(rt.v), rv<T>(g)));
      if constexpr (flows_r) rt.g = lane<T, P>::eval(binary_rule<Op>::dr(r.op, rv<T>(l.v), rv<T>(rt.v), rv<T>(g)));
      if constexpr (flows_l) l.template bwd<K>(r.l, to, j);
      if constexpr (flows_r) rt.template bwd<K + left::leaves>(r.r, to, j);
    }
  };
};

/// Gradients of every leaf of the row tree `Row` into `to` (indexed by leaf position) over
/// [off + lo, off + hi), with `grow` the row accessor of the output gradient.
/// Flattened: the rules are built per packet, and a rule call left out of line would take the
/// state's address, sending every value through memory.
template <class T, class Row, class GRow>
TL_FLATTEN void tape_span(const Row& row, const GRow& grow, const multi_target<T>* to, index_t off, index_t lo,
                          index_t hi) {
  using tape = row_tape<T, Row>;
  index_t j = lo;
  if constexpr (simd_type_v<T>) {
    constexpr index_t W = static_cast<index_t>(batch_t<T>::size);
    for (; j + W <= hi; j += W) {
      typename tape::template state<true> tp;
      tp.fwd(row, j);
      tp.g = lane<T, true>::read(grow, j);
      tp.template bwd<0>(row, to, off + j);
    }
  }
  for (; j < hi; ++j) {
    typename tape::template state<false> tp;
    tp.fwd(row, j);
    tp.g = static_cast<T>(grow.get(j));
    tp.template bwd<0>(row, to, off + j);
  }
}

template <class N>
using linear_row_t = decltype(std::declval<const N&>().linear());
template <class N>
using outer_row_t = decltype(std::declval<const N&>().row(nullptr));

/// Whether the packet tape applies to node N (already broadcast) in floating type T.
template <class T, class N>
inline constexpr bool tape_ok_v = [] {
  if constexpr (!(std::is_floating_point_v<T> && simd_type_v<T> && N::simd_ok)) return false;
  else return row_tape<T, linear_row_t<N>>::ok && row_tape<T, outer_row_t<N>>::ok;
}();

/// Runs the packet tape of `node` (broadcast to `shape`) with output gradient `gnode` (the same).
template <class T, std::size_t R, class N, class GN>
void run_packet_tape(const shape_t<R>& shape, const multi_target<T>* to, const N& node, const GN& gnode) {
  index_t total = 1;
  for (std::size_t d = 0; d < R; ++d) total *= shape[d];
  if (total == 0) return;
  auto& pool = thread_pool::instance();
  auto linear = [&](const auto& grow) {
    const auto row = node.linear();
    const index_t ntask = (total + parallel_chunk - 1) / parallel_chunk;
    pool.parallel_for(ntask, [&](index_t t) {
      const index_t lo = t * parallel_chunk, hi = std::min(total, lo + parallel_chunk);
      tape_span<T>(row, grow, to, 0, lo, hi);
    });
  };
  if (node.linear_ok() && gnode.linear_ok()) {
    linear(gnode.linear());
    return;
  }
  // The gradient of a sum is one value broadcast over the whole shape: the operands still run flat.
  if constexpr (std::is_same_v<GN, tensor_leaf<T, dextents<R>>>) {
    bool uniform = node.linear_ok() && !gnode.conj;
    for (std::size_t d = 0; d < R; ++d) uniform = uniform && gnode.m_stride[d] == 0;
    if (uniform) {
      linear(scalar_row<T>{*gnode.p});
      return;
    }
  }
  const index_t inner = shape[R - 1];
  const index_t nrows = total / inner;
  const index_t per_row = (inner + parallel_chunk - 1) / parallel_chunk;
  pool.parallel_for(nrows * per_row, [&](index_t t) {
    const index_t r = t / per_row, c = t - r * per_row;
    std::array<index_t, R> idx{};
    index_t rem = r;
    for (std::size_t k = R - 1; k-- > 0;) {
      idx[k] = rem % shape[k];
      rem /= shape[k];
    }
    const index_t lo = c * parallel_chunk, hi = std::min(inner, lo + parallel_chunk);
    tape_span<T>(node.row(idx.data()), gnode.row(idx.data()), to, r * inner, lo, hi);
  });
}

}  // namespace tl::detail
