#pragma once
/// @file node.hpp
/// @brief Expression nodes: tensor and scalar leaves, unary, binary and ternary nodes.
///
/// A node is a small value holding its children by value, so `auto e = tl::sin(a + b);` never
/// dangles (leaves made from named tensors view them; leaves made from temporaries keep the
/// storage alive). Every node offers:
///  - `value_type`, `extents_type`, `rank`, `shape()`;
///  - `bcast(shape)`: the same expression broadcast to a (larger) shape, pushed down to the leaves
///    (a broadcast leaf simply gets stride 0), so every leaf of the result has the output's shape;
///  - `permute(perm)`: dims reordered, again by reordering leaf strides;
///  - `linear_ok()` / `linear()`: when every leaf is contiguous with the node's shape, a "row"
///    accessor over the flat index; `row(outer)`: a row accessor over the last dim at an outer index;
///  - `simd_ok`: whether row accessors offer xsimd packets (`packet<B>(j)`) besides `get(j)`.
/// Evaluators (tl/eval) turn these into loops; nodes contain no backend logic.
#include <array>
#include <memory>
#include <type_traits>
#include <utility>

#include "tl/core/simd.hpp"

#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"
#include "tl/core/error.hpp"
#include "tl/core/expression.hpp"
#include "tl/core/extents.hpp"
#include "tl/core/tensor.hpp"

namespace tl::detail {

using simd_arch = xsimd::default_arch;
template <class T>
using batch_t = xsimd::batch<T, simd_arch>;

/// Types with an xsimd batch on this build.
template <class T>
inline constexpr bool simd_type_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

/// A leaf's memory footprint, for alias analysis.
struct leaf_span {
  const char* lo;
  const char* hi;  // one past the last byte
  const void* data;
  const index_t* strides;
  const index_t* shape;
  std::size_t rank;
  std::size_t elem_size;
  tl::device dev;
};

// ---------------------------------------------------------------------------------------------
// Row accessors (what evaluators loop over).

/// A contiguous run of elements.
template <class T>
struct contig_row {
  const T* p;
  bool conj;
  TL_HDI T get(index_t j) const { return conj_if(p[j], conj); }
  template <class B>
  TL_INLINE B packet(index_t j) const {
    return B::load_unaligned(p + j);
  }
};

/// A strided run (stride 0 is a broadcast element).
template <class T>
struct strided_row {
  const T* p;
  index_t s;
  bool conj;
  TL_HDI T get(index_t j) const { return conj_if(p[j * s], conj); }
  template <class B>
  TL_INLINE B packet(index_t j) const {
    if (s == 1) return B::load_unaligned(p + j);
    if (s == 0) return B(*p);
    alignas(64) T tmp[B::size];
    for (std::size_t k = 0; k < B::size; ++k) tmp[k] = p[(j + static_cast<index_t>(k)) * s];
    return B::load_aligned(tmp);
  }
};

template <class T>
struct scalar_row {
  T v;
  TL_HDI T get(index_t) const { return v; }
  template <class B>
  TL_INLINE B packet(index_t) const {
    return B(v);
  }
};

template <class Op, class In, class C>
struct unary_row {
  Op op;
  C c;
  TL_HDI auto get(index_t j) const { return op(static_cast<In>(c.get(j))); }
  template <class B>
  TL_INLINE auto packet(index_t j) const {
    return op.packet(c.template packet<B>(j));
  }
};

template <class Op, class In, class L, class R>
struct binary_row {
  Op op;
  L l;
  R r;
  TL_HDI auto get(index_t j) const { return op(static_cast<In>(l.get(j)), static_cast<In>(r.get(j))); }
  template <class B>
  TL_INLINE auto packet(index_t j) const {
    return op.packet(l.template packet<B>(j), r.template packet<B>(j));
  }
};

template <class Op, class A, class B_, class C>
struct ternary_row {
  Op op;
  A a;
  B_ b;
  C c;
  TL_HDI auto get(index_t j) const { return op(a.get(j), b.get(j), c.get(j)); }
  template <class B>
  TL_INLINE auto packet(index_t j) const {
    return op.packet(a.template packet<B>(j), b.template packet<B>(j), c.template packet<B>(j));
  }
};

// ---------------------------------------------------------------------------------------------
// Full nodes.

/// Shared element access `e(i, j, ...)` for nodes (evaluates one element through a row accessor).
template <class Derived, std::size_t R>
struct node_base {
  template <class... I>
    requires(sizeof...(I) == R && (std::is_integral_v<I> && ...))
  auto operator()(I... idx) const {
    const auto& self = static_cast<const Derived&>(*this);
    const std::array<index_t, R> ix{static_cast<index_t>(idx)...};
    const auto s = self.shape();
    for (std::size_t d = 0; d < R; ++d)
      if (ix[d] < 0 || ix[d] >= s[d])
        throw index_error(cat_str("tl::expression: index ", ix[d], " is out of range for dim ", d, " of extent ",
                                  s[d], " (shape ", shape_str(s), ")"));
    const auto full = self.bcast(s);  // leaves at full rank, so rows index every operand correctly
    if constexpr (R == 0) return full.row(nullptr).get(0);
    else return full.row(ix.data()).get(ix[R - 1]);
  }
};

/// A view of tensor elements (non-owning: made from a named tensor, which must outlive the expression).
template <class T, class Ext>
struct tensor_leaf : node_base<tensor_leaf<T, Ext>, Ext::rank> {
  using value_type = T;
  using extents_type = Ext;
  static constexpr std::size_t rank = Ext::rank;
  static constexpr bool simd_ok = simd_type_v<T>;
  static constexpr bool is_scalar = false;

  const T* p = nullptr;
  shape_t<rank> m_shape{}, m_stride{};
  bool conj = false;
  tl::device dev{};
  // Autograd: the source tensor (a basic_tensor<T, Ext>) and whether it requires grad. Set only on
  // leaves built from tensors by to_node; broadcast/permuted copies made by evaluators drop them.
  const void* src = nullptr;
  bool rg = false;

  shape_t<rank> shape() const { return m_shape; }

  template <std::size_t R2>
  tensor_leaf<T, dextents<R2>> bcast(const shape_t<R2>& s) const {
    static_assert(R2 >= rank);
    tensor_leaf<T, dextents<R2>> r;
    r.p = p;
    r.conj = conj;
    r.dev = dev;
    r.m_shape = s;
    for (std::size_t k = 0; k < R2; ++k) {
      const std::ptrdiff_t src = static_cast<std::ptrdiff_t>(k) - static_cast<std::ptrdiff_t>(R2 - rank);
      r.m_stride[k] = (src < 0 || m_shape[src] != s[k]) ? 0 : m_stride[src];
    }
    return r;
  }
  tensor_leaf<T, dextents<rank>> permute(const std::array<std::size_t, rank>& perm) const {
    tensor_leaf<T, dextents<rank>> r;
    r.p = p;
    r.conj = conj;
    r.dev = dev;
    for (std::size_t k = 0; k < rank; ++k) {
      r.m_shape[k] = m_shape[perm[k]];
      r.m_stride[k] = m_stride[perm[k]];
    }
    return r;
  }
  bool linear_ok() const {
    index_t expect = 1;
    for (std::size_t i = rank; i-- > 0;) {
      if (m_shape[i] != 1 && m_stride[i] != expect) return false;
      expect *= m_shape[i];
    }
    return true;
  }
  TL_HD contig_row<T> linear() const { return {p, conj}; }
  TL_HD strided_row<T> row(const index_t* outer) const {
    if constexpr (rank == 0) {
      return {p, 0, conj};
    } else {
      index_t off = 0;
      for (std::size_t d = 0; d + 1 < rank; ++d) off += outer[d] * m_stride[d];
      return {p + off, m_stride[rank - 1], conj};
    }
  }
  template <class F>
  void for_each_leaf(F&& f) const {
    const char* lo = reinterpret_cast<const char*>(p);
    const char* hi = lo + sizeof(T);
    for (std::size_t d = 0; d < rank; ++d) {
      if (m_shape[d] == 0) {  // no elements: an empty span (still reports the device)
        f(leaf_span{lo, lo, p, m_stride.data(), m_shape.data(), rank, sizeof(T), dev});
        return;
      }
      const index_t ext = (m_shape[d] - 1) * m_stride[d] * static_cast<index_t>(sizeof(T));
      if (ext < 0) lo += ext;
      else hi += ext;
    }
    f(leaf_span{lo, hi, p, m_stride.data(), m_shape.data(), rank, sizeof(T), dev});
  }
};

/// A leaf made from a temporary tensor: keeps its storage alive.
template <class T, class Ext>
struct owning_leaf : tensor_leaf<T, Ext> {
  std::shared_ptr<storage> keep;
  std::shared_ptr<const void> keep_src;  // the source tensor, kept only when it requires grad

  template <std::size_t R2>
  owning_leaf<T, dextents<R2>> bcast(const shape_t<R2>& s) const {
    owning_leaf<T, dextents<R2>> r;
    static_cast<tensor_leaf<T, dextents<R2>>&>(r) = tensor_leaf<T, Ext>::bcast(s);
    r.keep = keep;
    return r;
  }
  owning_leaf<T, dextents<Ext::rank>> permute(const std::array<std::size_t, Ext::rank>& perm) const {
    owning_leaf<T, dextents<Ext::rank>> r;
    static_cast<tensor_leaf<T, dextents<Ext::rank>>&>(r) = tensor_leaf<T, Ext>::permute(perm);
    r.keep = keep;
    return r;
  }
  using node_base<tensor_leaf<T, Ext>, Ext::rank>::operator();
};

/// A scalar operand; "weak" in type promotion (torch's rule for Python scalars).
template <class T, std::size_t R = 0>
struct scalar_leaf : node_base<scalar_leaf<T, R>, R> {
  using value_type = T;
  using extents_type = dextents<R>;
  static constexpr std::size_t rank = R;
  static constexpr bool simd_ok = simd_type_v<T>;
  static constexpr bool is_scalar = true;
  T v{};

  shape_t<R> shape() const {
    shape_t<R> s;
    s.fill(1);
    return s;
  }
  template <std::size_t R2>
  scalar_leaf<T, R2> bcast(const shape_t<R2>&) const {
    return {{}, v};
  }
  scalar_leaf permute(const std::array<std::size_t, R>&) const { return *this; }
  bool linear_ok() const { return true; }
  TL_HD scalar_row<T> linear() const { return {v}; }
  TL_HD scalar_row<T> row(const index_t*) const { return {v}; }
  template <class F>
  void for_each_leaf(F&&) const {}
};

template <class T>
struct is_scalar_node : std::bool_constant<T::is_scalar> {};

/// Promoted operand type of two children, honouring weak scalars.
template <class L, class R>
struct operand_promote {
  using LT = typename L::value_type;
  using RT = typename R::value_type;
  using type = std::conditional_t<
      L::is_scalar && !R::is_scalar, scalar_promote_t<RT, LT>,
      std::conditional_t<R::is_scalar && !L::is_scalar, scalar_promote_t<LT, RT>, promote_t<LT, RT>>>;
};

template <index_t A, index_t B, std::size_t Dim>
struct cannot_broadcast_static_extents {
  static_assert(A == B,
                "tl: cannot broadcast two different static extents (neither is 1); the extents and the dim "
                "(counted from the right) are the template arguments of this struct");
  static constexpr bool value = true;
};

template <class A, class B, std::size_t... D>
constexpr bool check_static_broadcast(std::index_sequence<D...>) {
  return (cannot_broadcast_static_extents<
              (static_from_right<A>(D) == dyn || static_from_right<B>(D) == dyn || static_from_right<A>(D) == 1 ||
                       static_from_right<B>(D) == 1
                   ? 1
                   : static_from_right<A>(D)),
              (static_from_right<A>(D) == dyn || static_from_right<B>(D) == dyn || static_from_right<A>(D) == 1 ||
                       static_from_right<B>(D) == 1
                   ? 1
                   : static_from_right<B>(D)),
              D>::value &&
          ...);
}

/// Throws the shape_error of broadcast_shapes (out of line: the check itself stays small enough to
/// inline, and folds away where the shapes are known).
template <std::size_t RA, std::size_t RB>
[[noreturn, gnu::noinline, gnu::cold]] void broadcast_error(const char* op, const shape_t<RA>& a, const shape_t<RB>& b,
                                                             index_t x, index_t y, std::size_t dim) {
  throw shape_error(cat_str("tl::", op, ": shapes ", shape_str(a), " and ", shape_str(b),
                            " cannot be broadcast together (extent ", x, " vs ", y, " at dim ", dim, ")"));
}

/// Broadcast shape of two runtime shapes; throws shape_error naming the op and both shapes.
template <std::size_t RA, std::size_t RB>
TL_INLINE auto broadcast_shapes(const char* op, const shape_t<RA>& a, const shape_t<RB>& b) {
  constexpr std::size_t R = RA > RB ? RA : RB;
  shape_t<R> out{};
  for (std::size_t d = 0; d < R; ++d) {
    const index_t x = d < RA ? a[RA - 1 - d] : 1;
    const index_t y = d < RB ? b[RB - 1 - d] : 1;
    if (x != y && x != 1 && y != 1) [[unlikely]]
      broadcast_error(op, a, b, x, y, R - 1 - d);
    out[R - 1 - d] = (x == 1) ? y : x;
  }
  return out;
}

template <class Op, class C>
struct unary_node : node_base<unary_node<Op, C>, C::rank> {
  using in_type = typename Op::template input<typename C::value_type>;
  using value_type = typename Op::template result<in_type>;
  using extents_type = typename C::extents_type;
  static constexpr std::size_t rank = C::rank;
  static constexpr bool is_scalar = false;
  static constexpr bool simd_ok =
      C::simd_ok && std::is_same_v<in_type, typename C::value_type> && Op::template simd<in_type>;
  Op op;
  C c;

  shape_t<rank> shape() const { return c.shape(); }
  template <std::size_t R2>
  auto bcast(const shape_t<R2>& s) const {
    using C2 = decltype(c.bcast(s));
    return unary_node<Op, C2>{{}, op, c.bcast(s)};
  }
  auto permute(const std::array<std::size_t, rank>& p) const {
    using C2 = decltype(c.permute(p));
    return unary_node<Op, C2>{{}, op, c.permute(p)};
  }
  /// The same operation over f(child) (tree transforms: see resolve).
  template <class F>
  auto map_children(F&& f) const {
    using C2 = decltype(f(c));
    return unary_node<Op, C2>{{}, op, f(c)};
  }
  bool linear_ok() const { return c.linear_ok(); }
  TL_HD auto linear() const { return unary_row<Op, in_type, decltype(c.linear())>{op, c.linear()}; }
  TL_HD auto row(const index_t* o) const { return unary_row<Op, in_type, decltype(c.row(o))>{op, c.row(o)}; }
  template <class F>
  void for_each_leaf(F&& f) const {
    c.for_each_leaf(f);
  }
};

template <class Op, class L, class R>
struct binary_node : node_base<binary_node<Op, L, R>, (L::rank > R::rank ? L::rank : R::rank)> {
  using common_type = typename operand_promote<L, R>::type;
  using in_type = typename Op::template input<common_type>;
  using value_type = typename Op::template result<in_type>;
  using extents_type = typename broadcast_extents<typename L::extents_type, typename R::extents_type>::type;
  static constexpr std::size_t rank = extents_type::rank;
  static constexpr bool is_scalar = false;
  static constexpr bool simd_ok = L::simd_ok && R::simd_ok && std::is_same_v<in_type, typename L::value_type> &&
                                  std::is_same_v<in_type, typename R::value_type> && Op::template simd<in_type>;
  static_assert(check_static_broadcast<typename L::extents_type, typename R::extents_type>(
      std::make_index_sequence<rank>{}));
  Op op;
  L l;
  R r;
  shape_t<rank> m_shape;

  binary_node(Op o, L a, R b) : op(o), l(std::move(a)), r(std::move(b)) {
    m_shape = broadcast_shapes(Op::name, l.shape(), r.shape());
  }
  shape_t<rank> shape() const { return m_shape; }
  template <std::size_t R2>
  auto bcast(const shape_t<R2>& s) const {
    using L2 = decltype(l.bcast(s));
    using R2_ = decltype(r.bcast(s));
    return binary_node<Op, L2, R2_>(op, l.bcast(s), r.bcast(s));
  }
  auto permute(const std::array<std::size_t, rank>& p) const {
    // Children have been broadcast to full rank before any permute (evaluators do so).
    return binary_node<Op, decltype(l.permute(p)), decltype(r.permute(p))>(op, l.permute(p), r.permute(p));
  }
  template <class F>
  auto map_children(F&& f) const {
    return binary_node<Op, decltype(f(l)), decltype(f(r))>(op, f(l), f(r));
  }
  bool linear_ok() const { return l.linear_ok() && r.linear_ok(); }
  TL_HD auto linear() const {
    return binary_row<Op, in_type, decltype(l.linear()), decltype(r.linear())>{op, l.linear(), r.linear()};
  }
  TL_HD auto row(const index_t* o) const {
    return binary_row<Op, in_type, decltype(l.row(o)), decltype(r.row(o))>{op, l.row(o), r.row(o)};
  }
  template <class F>
  void for_each_leaf(F&& f) const {
    l.for_each_leaf(f);
    r.for_each_leaf(f);
  }
};

template <class Op, class A, class B, class C>
struct ternary_node : node_base<ternary_node<Op, A, B, C>,
                                broadcast_extents<typename broadcast_extents<typename A::extents_type,
                                                                             typename B::extents_type>::type,
                                                  typename C::extents_type>::type::rank> {
  using value_type = typename Op::template result<A, B, C>;
  using extents_type =
      typename broadcast_extents<typename broadcast_extents<typename A::extents_type, typename B::extents_type>::type,
                                 typename C::extents_type>::type;
  static constexpr std::size_t rank = extents_type::rank;
  static constexpr bool is_scalar = false;
  static constexpr bool simd_ok = A::simd_ok && B::simd_ok && C::simd_ok && Op::template simd<A, B, C>;
  static_assert(check_static_broadcast<typename A::extents_type, typename B::extents_type>(
                    std::make_index_sequence<broadcast_extents<typename A::extents_type,
                                                               typename B::extents_type>::rank>{}) &&
                check_static_broadcast<typename broadcast_extents<typename A::extents_type,
                                                                  typename B::extents_type>::type,
                                       typename C::extents_type>(std::make_index_sequence<rank>{}));
  Op op;
  A a;
  B b;
  C c;
  shape_t<rank> m_shape;

  ternary_node(Op o, A x, B y, C z) : op(o), a(std::move(x)), b(std::move(y)), c(std::move(z)) {
    m_shape = broadcast_shapes(Op::name, broadcast_shapes(Op::name, a.shape(), b.shape()), c.shape());
  }
  shape_t<rank> shape() const { return m_shape; }
  template <std::size_t R2>
  auto bcast(const shape_t<R2>& s) const {
    return ternary_node<Op, decltype(a.bcast(s)), decltype(b.bcast(s)), decltype(c.bcast(s))>(op, a.bcast(s),
                                                                                               b.bcast(s), c.bcast(s));
  }
  auto permute(const std::array<std::size_t, rank>& p) const {
    return ternary_node<Op, decltype(a.permute(p)), decltype(b.permute(p)), decltype(c.permute(p))>(
        op, a.permute(p), b.permute(p), c.permute(p));
  }
  template <class F>
  auto map_children(F&& f) const {
    return ternary_node<Op, decltype(f(a)), decltype(f(b)), decltype(f(c))>(op, f(a), f(b), f(c));
  }
  bool linear_ok() const { return a.linear_ok() && b.linear_ok() && c.linear_ok(); }
  TL_HD auto linear() const {
    return ternary_row<Op, decltype(a.linear()), decltype(b.linear()), decltype(c.linear())>{op, a.linear(),
                                                                                            b.linear(), c.linear()};
  }
  TL_HD auto row(const index_t* o) const {
    return ternary_row<Op, decltype(a.row(o)), decltype(b.row(o)), decltype(c.row(o))>{op, a.row(o), b.row(o),
                                                                                        c.row(o)};
  }
  template <class F>
  void for_each_leaf(F&& f) const {
    a.for_each_leaf(f);
    b.for_each_leaf(f);
    c.for_each_leaf(f);
  }
};

// ---------------------------------------------------------------------------------------------
// Conversion of operands to nodes.

template <class T>
struct is_node : std::false_type {};
template <class T, class E>
struct is_node<tensor_leaf<T, E>> : std::true_type {};
template <class T, class E>
struct is_node<owning_leaf<T, E>> : std::true_type {};
template <class T, std::size_t R>
struct is_node<scalar_leaf<T, R>> : std::true_type {};
template <class O, class C>
struct is_node<unary_node<O, C>> : std::true_type {};
template <class O, class L, class R>
struct is_node<binary_node<O, L, R>> : std::true_type {};
template <class O, class A, class B, class C>
struct is_node<ternary_node<O, A, B, C>> : std::true_type {};

// ---- Nodes computed on first use ------------------------------------------------------------
// A keepdim reduction (tl/reduce/detail/lazy_reduction.hpp) is a node whose values are computed
// when an evaluator first needs them. Consumers see it through `resolve`, which replaces it by a
// leaf over its computed values; the CPU assignment evaluator instead asks it, through
// `bcast_rows`, to compute each row's value just before that row is evaluated (the row then is
// still in cache). Such a node declares `static constexpr bool deferred = true`.

template <class N>
struct has_deferred : std::bool_constant<requires { requires N::deferred; }> {};
template <class O, class C>
struct has_deferred<unary_node<O, C>> : has_deferred<C> {};
template <class O, class L, class R>
struct has_deferred<binary_node<O, L, R>> : std::bool_constant<has_deferred<L>::value || has_deferred<R>::value> {};
template <class O, class A, class B, class C>
struct has_deferred<ternary_node<O, A, B, C>>
    : std::bool_constant<has_deferred<A>::value || has_deferred<B>::value || has_deferred<C>::value> {};
/// Whether a node has a deferred node anywhere in its tree.
template <class N>
inline constexpr bool has_deferred_v = has_deferred<std::remove_cvref_t<N>>::value;

/// The node with every deferred node replaced by a leaf over its (now computed) values.
template <class N>
auto resolve(const N& n) {
  if constexpr (!has_deferred_v<N>) return n;
  else if constexpr (requires { requires N::deferred; }) return n.resolved();
  else return n.map_children([](const auto& c) { return resolve(c); });
}

/// `n.bcast(s)`, except that deferred nodes may fuse their work into the rows of the CPU evaluator.
template <class N, std::size_t R2>
auto bcast_rows(const N& n, const shape_t<R2>& s) {
  if constexpr (!has_deferred_v<N>) return n.bcast(s);
  else if constexpr (requires { requires N::deferred; }) return n.bcast_rows(s);
  else return n.map_children([&](const auto& c) { return bcast_rows(c, s); });
}

/// Turns an operand into a node, keeping deferred nodes deferred (used to build expressions).
template <class E>
auto operand_node(E&& e);

/// Turns an operand (tensor, node or scalar) into a node ready for evaluation: deferred nodes are
/// resolved (computed).
template <class E>
auto to_node(E&& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (is_node<D>::value && has_deferred_v<D>) return resolve(e);
  else return operand_node(std::forward<E>(e));
}

template <class E>
auto operand_node(E&& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (is_tensor_v<D>) {
    using T = typename D::value_type;
    using Ext = typename D::extents_type;
    if constexpr (std::is_rvalue_reference_v<E&&>) {
      owning_leaf<T, Ext> l;
      l.p = e.data();
      l.m_shape = e.shape();
      l.m_stride = e.strides();
      l.conj = e.is_conj();
      l.dev = e.device();
      l.keep = e.storage_handle();
      if (e.requires_grad()) {
        auto h = std::make_shared<const D>(e);
        l.src = h.get();
        l.rg = true;
        l.keep_src = std::move(h);
      }
      return l;
    } else {
      tensor_leaf<T, Ext> l;
      l.p = e.data();
      l.m_shape = e.shape();
      l.m_stride = e.strides();
      l.conj = e.is_conj();
      l.dev = e.device();
      l.src = &e;
      l.rg = e.requires_grad();
      return l;
    }
  } else if constexpr (is_node<D>::value) {
    return D(std::forward<E>(e));
  } else {
    static_assert(scalar<D>, "tl: operand is neither a tensor, an expression nor a scalar");
    using S = scalar_dtype_t<D>;
    return scalar_leaf<S>{{}, static_cast<S>(e)};
  }
}

template <class E>
using node_t = decltype(to_node(std::declval<E>()));
template <class E>
using operand_node_t = decltype(operand_node(std::declval<E>()));

/// A scalar operand beside a tensor operand takes the dtype the pair computes in (the weak scalar
/// rule gives that dtype anyway); converting it once here keeps `x * 2` on the SIMD path.
template <class N, class Other>
auto weak_scalar_as(N&& n) {
  using D = std::remove_cvref_t<N>;
  if constexpr (D::is_scalar && !Other::is_scalar && D::rank == 0) {
    using C = typename operand_promote<D, Other>::type;
    if constexpr (std::is_same_v<C, typename D::value_type>) return D(std::forward<N>(n));
    else if constexpr (is_complex_v<C> && is_complex_v<typename D::value_type>)
      return scalar_leaf<C>{{}, C(static_cast<real_t<C>>(n.v.re), static_cast<real_t<C>>(n.v.im))};
    else if constexpr (is_complex_v<C>) return scalar_leaf<C>{{}, C(static_cast<real_t<C>>(n.v))};
    else return scalar_leaf<C>{{}, static_cast<C>(n.v)};
  } else {
    return D(std::forward<N>(n));
  }
}

template <class Op, class A, class B>
auto make_binary(Op op, A&& a, B&& b) {
  auto na0 = operand_node(std::forward<A>(a));
  auto nb0 = operand_node(std::forward<B>(b));
  auto na = weak_scalar_as<decltype(na0)&, decltype(nb0)>(na0);
  auto nb = weak_scalar_as<decltype(nb0)&, decltype(na0)>(nb0);
  return binary_node<Op, decltype(na), decltype(nb)>(op, std::move(na), std::move(nb));
}
template <class Op, class A, class B>
auto make_binary(A&& a, B&& b) {
  return make_binary(Op{}, std::forward<A>(a), std::forward<B>(b));
}
template <class Op, class A>
auto make_unary(Op op, A&& a) {
  auto na = operand_node(std::forward<A>(a));
  return unary_node<Op, decltype(na)>{{}, op, std::move(na)};
}
template <class Op, class A, class B, class C>
auto make_ternary(Op op, A&& a, B&& b, C&& c) {
  auto na = operand_node(std::forward<A>(a));
  auto nb = operand_node(std::forward<B>(b));
  auto nc = operand_node(std::forward<C>(c));
  return ternary_node<Op, decltype(na), decltype(nb), decltype(nc)>(op, std::move(na), std::move(nb), std::move(nc));
}

/// The device of an expression's tensor operands; throws tl::device_error when they differ.
template <class E>
tl::device expression_device(const E& e, tl::device fallback) {
  using D = std::remove_cvref_t<E>;
  if constexpr (is_tensor_v<D>) {
    return e.defined() ? e.device() : fallback;
  } else if constexpr (is_node<D>::value) {
    bool any = false;
    tl::device d = fallback;
    e.for_each_leaf([&](const leaf_span& s) {
      if (!any) {
        d = s.dev;
        any = true;
      } else {
        check_same_device("expression", d, s.dev);
      }
    });
    return d;
  } else {
    return fallback;
  }
}

/// Whether any tensor operand of an expression requires grad.
template <class T, class Ext>
bool any_requires_grad(const tensor_leaf<T, Ext>& l) {
  return l.rg;
}
template <class T, std::size_t R>
bool any_requires_grad(const scalar_leaf<T, R>&) {
  return false;
}
template <class O, class C>
bool any_requires_grad(const unary_node<O, C>& n) {
  return any_requires_grad(n.c);
}
template <class O, class L, class R>
bool any_requires_grad(const binary_node<O, L, R>& n) {
  return any_requires_grad(n.l) || any_requires_grad(n.r);
}
template <class O, class A, class B, class C>
bool any_requires_grad(const ternary_node<O, A, B, C>& n) {
  return any_requires_grad(n.a) || any_requires_grad(n.b) || any_requires_grad(n.c);
}

template <class E>
bool must_record(const E& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (!TL_AUTOGRAD) return (void)e, false;
  else if constexpr (is_tensor_v<D>) return e.requires_grad() && is_grad_enabled();
  else if constexpr (is_node<D>::value) return any_requires_grad(e) && is_grad_enabled();
  else return false;
}

/// Throws tl::device_error when an operand of a host-only op `op` lives on a CUDA device.
template <class E>
void require_host(const char* op, const E& e) {
  const tl::device d = expression_device(e);
  if (d.is_cuda())
    throw device_error(cat_str("tl::", op, ": this operation runs on the host only for now; the operand is on ",
                               d.str(), " (move it with .cpu())"));
}

}  // namespace tl::detail
