#pragma once
/// @file packet_tape.hpp
/// @brief Internal: reverse mode inside one fused loop, packet by packet (detail header).
///
/// For an elementwise expression whose nodes all compute in one real floating type, the backward
/// runs one loop over the elements. At each packet (xsimd batch, or one element in the tail) it
///  1. evaluates the expression's row accessors bottom-up, keeping every node's value in a small
///     buffer (the tape of that packet: one value per node, in registers or L1);
///  2. walks the tree top-down from the output gradient: each node's derivative rule (the same
///     rules as the lazy adjoints, adjoint.hpp) is evaluated on `reg_leaf`s that read the stored
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

/// A leaf reading the current value (one element or one packet) from a buffer of the tape.
template <class T, std::size_t R>
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
};

template <class T>
inline constexpr std::size_t tape_width = [] {
  if constexpr (simd_type_v<T>) return batch_t<T>::size;
  else return std::size_t{1};
}();

/// The row accessor of a rule's result (an expression over reg_leafs), built once per tape: the
/// reg_leafs point at the tape's buffers, so each packet only evaluates it.
template <class E>
using rule_row_t = decltype(to_node(std::declval<const E&>()).linear());
template <class E>
auto rule_row(const E& e) {
  return to_node(e).linear();
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

/// The tape of one row accessor tree: for each node its value `v` and the gradient `g` reaching it,
/// one element or one packet. `ok` says whether the path applies (every node of type T, every
/// rule's result of type T). `make_rules` builds the rules' row accessors, reading the buffers of
/// this tape (call it once, on the tape in its final place), `fwd` fills the values, `bwd`
/// propagates `g` down to the leaves.
///
/// The rules live in a separate object: the tape's buffers are in memory (the rules point at them),
/// and the vector stores into them may alias anything, so rules stored beside them would have
/// their pointers reloaded after every store. Held apart, fewer of them are reloaded: the backward
/// of bench/autograd's `chain` went from 5.26 to 5.01-5.06 ms and of `chain1` from 7.82 to
/// 6.65-6.68 ms (1M floats, Zen 4).
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
  alignas(64) T v[tape_width<T>];
  alignas(64) T g[tape_width<T>];
  struct rules {};
  rules make_rules(const Row&) const { return {}; }
  template <bool P>
  TL_INLINE void fwd(const Row& r, index_t j) {
    lane<T, P>::store(v, lane<T, P>::read(r, j));
  }
  template <std::size_t K, bool P>
  TL_INLINE void bwd(const Row&, const rules&, const multi_target<T>* to, index_t j) const {
    const auto& t = to[K];
    if (!t.d) return;
    auto x = lane<T, P>::load(g);
    if (t.add) x = lane<T, P>::load(t.d + j) + x;
    lane<T, P>::store(t.d + j, x);
  }
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
  alignas(64) T v[tape_width<T>];
  alignas(64) T g[tape_width<T>];
  struct rules {};
  rules make_rules(const scalar_row<T>&) const { return {}; }
  template <bool P>
  TL_INLINE void fwd(const scalar_row<T>& r, index_t j) {
    lane<T, P>::store(v, lane<T, P>::read(r, j));
  }
  template <std::size_t K, bool P>
  TL_INLINE void bwd(const scalar_row<T>&, const rules&, const multi_target<T>*, index_t) const {}
};

template <class T, class E>
inline constexpr bool rule_ok = [] {
  if constexpr (is_no_adjoint_v<E>) return true;
  else return std::is_same_v<vt<E>, T> && node_t<const E&>::simd_ok;
}();

/// The prepared row accessor of a rule (nothing when no gradient flows through it).
template <bool Flows, class E>
struct rule_slot {};
template <class E>
struct rule_slot<true, E> {
  rule_row_t<E> row;
};

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
  using reg = reg_leaf<T, 1>;
  static auto rule(const Op& op, const T* c, const T* y, const T* g) {
    if constexpr (unary_out_rule<Op>::has) return (void)op, (void)c, unary_out_rule<Op>::d(reg{{}, y}, reg{{}, g});
    else return (void)y, unary_rule<Op>::d(op, reg{{}, c}, reg{{}, g});
  }
  using rule_t = decltype(rule(std::declval<const Op&>(), nullptr, nullptr, nullptr));
  static constexpr bool ok = child::ok && std::is_same_v<In, T> && rule_ok<T, rule_t>;
  static constexpr bool flows = !is_no_adjoint_v<rule_t> && child::leaves > 0;
  static constexpr std::size_t leaves = child::leaves;
  static constexpr auto reached = reached_if<flows>(child::reached);
  alignas(64) T v[tape_width<T>];
  alignas(64) T g[tape_width<T>];
  child c;
  struct rules {
    typename child::rules c;
    [[no_unique_address]] rule_slot<flows, rule_t> r;
  };
  rules make_rules(const unary_row<Op, In, C>& r) const {
    if constexpr (flows) return {c.make_rules(r.c), {rule_row(rule(r.op, c.v, v, g))}};
    else return {c.make_rules(r.c), {}};
  }
  template <bool P>
  TL_INLINE void fwd(const unary_row<Op, In, C>& r, index_t j) {
    c.template fwd<P>(r.c, j);
    if constexpr (P) lane<T, P>::store(v, r.op.packet(lane<T, P>::load(c.v)));
    else v[0] = r.op(c.v[0]);
  }
  template <std::size_t K, bool P>
  TL_INLINE void bwd(const unary_row<Op, In, C>& r, const rules& ru, const multi_target<T>* to, index_t j) {
    if constexpr (flows) {
      lane<T, P>::store(c.g, lane<T, P>::read(ru.r.row, 0));
      c.template bwd<K, P>(r.c, ru.c, to, j);
    }
  }
};

template <class T, class Op, class In, class L, class R>
struct row_tape<T, binary_row<Op, In, L, R>> {
  using left = row_tape<T, L>;
  using right = row_tape<T, R>;
  using reg = reg_leaf<T, 1>;
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
  alignas(64) T v[tape_width<T>];
  alignas(64) T g[tape_width<T>];
  left l;
  right rt;
  struct rules {
    typename left::rules l;
    typename right::rules r;
    [[no_unique_address]] rule_slot<flows_l, dl_t> dl;
    [[no_unique_address]] rule_slot<flows_r, dr_t> dr;
  };
  rules make_rules(const binary_row<Op, In, L, R>& r) const {
    const reg a{{}, l.v}, b{{}, rt.v}, gr{{}, g};
    auto dl = [&] {
      if constexpr (flows_l) return rule_slot<true, dl_t>{rule_row(binary_rule<Op>::dl(r.op, a, b, gr))};
      else return rule_slot<false, dl_t>{};
    };
    auto dr = [&] {
      if constexpr (flows_r) return rule_slot<true, dr_t>{rule_row(binary_rule<Op>::dr(r.op, a, b, gr))};
      else return rule_slot<false, dr_t>{};
    };
    return {l.make_rules(r.l), rt.make_rules(r.r), dl(), dr()};
  }
  template <bool P>
  TL_INLINE void fwd(const binary_row<Op, In, L, R>& r, index_t j) {
    l.template fwd<P>(r.l, j);
    rt.template fwd<P>(r.r, j);
    if constexpr (P) lane<T, P>::store(v, r.op.packet(lane<T, P>::load(l.v), lane<T, P>::load(rt.v)));
    else v[0] = r.op(l.v[0], rt.v[0]);
  }
  template <std::size_t K, bool P>
  TL_INLINE void bwd(const binary_row<Op, In, L, R>& r, const rules& ru, const multi_target<T>* to, index_t j) {
    // Both rules read g before either child's gradient is written (they are separate buffers).
    if constexpr (flows_l) lane<T, P>::store(l.g, lane<T, P>::read(ru.dl.row, 0));
    if constexpr (flows_r) lane<T, P>::store(rt.g, lane<T, P>::read(ru.dr.row, 0));
    if constexpr (flows_l) l.template bwd<K, P>(r.l, ru.l, to, j);
    if constexpr (flows_r) rt.template bwd<K + left::leaves, P>(r.r, ru.r, to, j);
  }
};

/// Gradients of every leaf of the row tree `Row` into `to` (indexed by leaf position) over
/// [off + lo, off + hi), with `grow` the row accessor of the output gradient.
template <class T, class Row, class GRow>
void tape_span(const Row& row, const GRow& grow, const multi_target<T>* to, index_t off, index_t lo, index_t hi) {
  row_tape<T, Row> tp;
  const auto ru = tp.make_rules(row);
  index_t j = lo;
  if constexpr (simd_type_v<T>) {
    constexpr index_t W = static_cast<index_t>(batch_t<T>::size);
    for (; j + W <= hi; j += W) {
      tp.template fwd<true>(row, j);
      lane<T, true>::store(tp.g, lane<T, true>::read(grow, j));
      tp.template bwd<0, true>(row, ru, to, off + j);
    }
  }
  for (; j < hi; ++j) {
    tp.template fwd<false>(row, j);
    tp.g[0] = static_cast<T>(grow.get(j));
    tp.template bwd<0, false>(row, ru, to, off + j);
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
