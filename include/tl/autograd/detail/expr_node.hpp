#pragma once
/// @file expr_node.hpp
/// @brief Internal: the graph node of a fused elementwise expression (detail header).
///
/// Assigning an expression whose operands require grad records ONE node. It keeps the expression
/// (relinked to read the node's own copies of the operand tensors) and derives, at compile time,
/// one adjoint expression per operand (adjoint.hpp). Backward evaluates each adjoint in one fused
/// pass, summed over broadcast dims where the operand was broadcast.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "tl/autograd/detail/adjoint.hpp"
#include "tl/autograd/detail/function.hpp"
#include "tl/autograd/detail/packet_tape.hpp"
#include "tl/autograd/detail/views.hpp"

namespace tl::detail {

template <class N>
struct expr_describe {
  static void put(std::string& s) { s += "t"; }
  static constexpr int ops = 0;
};
template <class T, std::size_t R>
struct expr_describe<scalar_leaf<T, R>> {
  static void put(std::string& s) { s += "s"; }
  static constexpr int ops = 0;
};
template <class O, class C>
struct expr_describe<unary_node<O, C>> {
  static void put(std::string& s) {
    s += O::name;
    s += "(";
    expr_describe<C>::put(s);
    s += ")";
  }
  static constexpr int ops = 1 + expr_describe<C>::ops;
};
template <class O, class L, class R>
struct expr_describe<binary_node<O, L, R>> {
  static void put(std::string& s) {
    s += O::name;
    s += "(";
    expr_describe<L>::put(s);
    s += ", ";
    expr_describe<R>::put(s);
    s += ")";
  }
  static constexpr int ops = 1 + expr_describe<L>::ops + expr_describe<R>::ops;
};
template <class O, class A, class B, class C>
struct expr_describe<ternary_node<O, A, B, C>> {
  static void put(std::string& s) {
    s += O::name;
    s += "(";
    expr_describe<A>::put(s);
    s += ", ";
    expr_describe<B>::put(s);
    s += ", ";
    expr_describe<C>::put(s);
    s += ")";
  }
  static constexpr int ops = 1 + expr_describe<A>::ops + expr_describe<B>::ops + expr_describe<C>::ops;
};
template <class T, class E>
struct expr_describe<owning_leaf<T, E>> : expr_describe<tensor_leaf<T, E>> {};

template <class O>
std::string op_title() {
  std::string n = O::name;
  if (!n.empty() && n[0] >= 'a' && n[0] <= 'z') n[0] = static_cast<char>(n[0] - 'a' + 'A');
  return n;
}
template <class N>
struct root_op {
  static std::string title() { return "Copy"; }
};
template <class O, class C>
struct root_op<unary_node<O, C>> {
  static std::string title() { return op_title<O>(); }
};
template <class O, class L, class R>
struct root_op<binary_node<O, L, R>> {
  static std::string title() { return op_title<O>(); }
};
template <class O, class A, class B, class C>
struct root_op<ternary_node<O, A, B, C>> {
  static std::string title() { return op_title<O>(); }
};

/// "MulBackward" for one op; "FusedBackward[add(mul(t, t), sin(t))]" for a fused chain.
template <class N>
const char* expr_node_name() {
  static const std::string name = [] {
    if constexpr (expr_describe<N>::ops <= 1) {
      return root_op<N>::title() + "Backward";
    } else {
      std::string s = "FusedBackward[";
      expr_describe<N>::put(s);
      return s + "]";
    }
  }();
  return name.c_str();
}

template <class Tuple>
struct leaf_edges;
template <class... L>
struct leaf_edges<std::tuple<L...>> {
  using type = std::tuple<std::shared_ptr<autograd_meta<typename L::value_type, L::rank>>...>;
};

template <class N>
using leaf_tuple_t = decltype(leaf_tensors(std::declval<const N&>()));

/// The gradient for a leaf of dtype T and shape s from adjoint expression a.
template <class T, std::size_t RL, class A>
tensor<T, RL> leaf_gradient(const A& a, const shape_t<RL>& s) {
  if constexpr (std::is_same_v<vt<A>, T>) return sum_to(a, s);
  else return sum_to(tl::astype<T>(a), s);
}

/// The gradients of every cotangent for a leaf of dtype T and shape s (rank RL) of a fused
/// expression of dtype V: gb ([batch] ++ the expression's shape) times the local derivative d (the
/// adjoint for a gradient of ones, of dtype W; 0 where a rule selects no gradient), cast to T and
/// summed over the dims where the leaf was broadcast (d null: the adjoint is the gradient itself).
/// Adjoints are real-linear in the gradient g, and complex ones not complex-linear (conj, abs, real,
/// ...), so a complex expression gives two: d for g = 1 and di for g = i, and a cotangent's
/// gradient is re(g) d + im(g) di. The product runs on flat views ([batch, n] times [n]), so its
/// code is shared by every expression and rank; nothing here records (see flat_view in graph.hpp).
template <class T, class V, class W, std::size_t R, std::size_t RL>
tensor<T, RL + 1> batched_leaf_gradient(const tensor<V, R + 1>& gb, const tensor<W, R>* d, const shape_t<RL>& s,
                                        const tensor<W, R>* di = nullptr) {
  const index_t batch = gb.shape()[0];
  shape_t<R> os{};
  index_t n = 1;
  for (std::size_t k = 0; k < R; ++k) n *= (os[k] = gb.shape()[k + 1]);
  const tensor<T, R + 1> p = [&]() -> tensor<T, R + 1> {
    if constexpr (std::is_same_v<T, V>)
      if (!d) return gb;
    const tensor<V, 1> gf = flat_view(gb);
    const tensor<V, 2> g2(gf.storage_handle(), gf.data(), shape_t<2>{batch, n}, shape_t<2>{n, 1}, gf.is_conj());
    const auto d1 = to_node(flat_view(*d));
    using P = promote_t<V, W>;
    tensor<T, 2> out(shape_t<2>{batch, n}, gb.device());
    auto put = [&](const auto& e) {
      if constexpr (std::is_same_v<vt<decltype(e)>, T>) eval_into<assign_op::set>(out, e);
      else eval_into<assign_op::set>(out, tl::astype<T>(e));
    };
    if constexpr (is_complex_v<V>) {
      const auto d2 = to_node(flat_view(*di));
      const auto g = to_node(g2);
      put(tl::where(d1 == W(0), P(0), tl::real(g) * d1) + tl::where(d2 == W(0), P(0), tl::imag(g) * d2));
    } else {
      put(tl::where(d1 == W(0), P(0), to_node(g2) * d1));
    }
    const auto ps = batched_shape(batch, os);
    return tensor<T, R + 1>(out.storage_handle(), out.data(), ps, contiguous_strides(ps));
  }();
  if constexpr (RL == R) {
    if (os == s) return p;
  }
  // a broadcast leaf: each cotangent's product summed to the leaf's shape
  tensor<T, RL + 1> out(batched_shape(batch, s), gb.device());
  for (index_t b = 0; b < batch; ++b)
    raw_write(batch_slice<T, RL>(out, b), sum_to_tensor<T, R, RL>(batch_slice<T, R>(p, b), s), false);
  return out;
}

template <class N>
struct expr_node final : typed_node<typename N::value_type, N::rank> {
  using V = typename N::value_type;
  static constexpr std::size_t R = N::rank;
  using saved_t = leaf_tuple_t<N>;
  static constexpr std::size_t n_leaves = std::tuple_size_v<saved_t>;
  struct getter {
    const saved_t* s;
    template <std::size_t K>
    const auto& operator()(std::integral_constant<std::size_t, K>) const {
      return std::get<K>(*s);
    }
  };
  using relinked_t = decltype(relink<0>(std::declval<const N&>(), std::declval<getter>()));

  saved_t saved;
  std::array<std::uint64_t, n_leaves> versions{};
  typename leaf_edges<saved_t>::type edges;
  std::optional<relinked_t> expr;

  explicit expr_node(saved_t s) : saved(std::move(s)) {}

  const char* name() const override { return expr_node_name<N>(); }
  void collect_next(std::vector<graph_node*>& out) const override {
    std::apply([&](const auto&... e) { ((e && e->grad_fn ? out.push_back(e->grad_fn.get()) : void()), ...); },
               edges);
  }
  void release_saved() override {
    expr.reset();
    saved = std::apply([](const auto&... t) { return saved_t{released_copy(t)...}; }, saved);
  }
  void apply(const tensor<V, R>& g, engine_ctx& ctx) override {
    if constexpr (reads_values<N>::value) check_versions(std::make_index_sequence<n_leaves>{});
    const auto G = to_node(g);
    if constexpr (R > 0 && tape_ok_v<V, bcast_t>) {
      if (!ctx.create_graph && !g.is_cuda()) {
        send_tape(g, G, ctx, std::make_index_sequence<n_leaves>{});
        return;
      }
    }
    send_all(g, G, ctx, std::make_index_sequence<n_leaves>{});
  }
  /// Vectorized backward. A real fused expression's adjoints are its output gradient times local
  /// derivatives (every real rule is g times a factor, or g where a condition holds), so each leaf's
  /// gradients for all cotangents are gb times that leaf's adjoint for a gradient of ones: the
  /// adjoint expressions evaluated once, by the same code as the plain backward, and one batched
  /// product per leaf. A complex expression's adjoints are real-linear in g: they are evaluated for
  /// g = 1 and g = i (batched_leaf_gradient). A leaf of another dtype (a complex leaf of a real
  /// expression such as abs(z), a float leaf of a double one) gets the product cast to its dtype,
  /// as the plain backward casts its adjoint.
  void apply_batched(const tensor<V, R + 1>& gb, engine_ctx& ctx) override {
    if constexpr (reads_values<N>::value) check_versions(std::make_index_sequence<n_leaves>{});
    shape_t<R> shape{};
    for (std::size_t d = 0; d < R; ++d) shape[d] = gb.shape()[d + 1];
    const tensor<V, R> one = full<V>(shape, V(1), gb.device());
    if constexpr (is_complex_v<V>) {
      const tensor<V, R> unit_i = full<V>(shape, V(0, 1), gb.device());
      send_batched_all(gb, to_node(one), to_node(unit_i), ctx, std::make_index_sequence<n_leaves>{});
    } else {
      const auto G = to_node(one);
      send_batched_all(gb, G, G, ctx, std::make_index_sequence<n_leaves>{});
    }
  }

 private:
  /// G: a gradient of ones; Gi: of i (complex V), else G again.
  template <class GN, std::size_t... K>
  void send_batched_all(const tensor<V, R + 1>& gb, const GN& G, const GN& Gi, engine_ctx& ctx,
                        std::index_sequence<K...>) {
    (send_batched<K>(gb, G, Gi, ctx), ...);
  }
  template <std::size_t K, class GN>
  void send_batched(const tensor<V, R + 1>& gb, const GN& G, [[maybe_unused]] const GN& Gi, engine_ctx& ctx) {
    const auto& m = std::get<K>(edges);
    if (!m) return;
    using L = std::tuple_element_t<K, saved_t>;
    using T = typename L::value_type;
    if constexpr (differentiable_v<T>) {
      auto a = adjoint<K>(*expr, G);
      if constexpr (!is_no_adjoint_v<decltype(a)>) {
        const auto& leaf = std::get<K>(saved);
        using W = vt<decltype(a)>;
        if constexpr (std::is_same_v<decltype(a), GN> && std::is_same_v<T, V>) {
          deliver_batched(m, batched_leaf_gradient<T, V, V, R>(gb, nullptr, leaf.shape()), ctx);
        } else if constexpr (is_complex_v<V>) {
          const tensor<W, R> d = eval_plain(a), di = eval_plain(adjoint<K>(*expr, Gi));
          deliver_batched(m, batched_leaf_gradient<T, V, W, R>(gb, &d, leaf.shape(), &di), ctx);
        } else {
          const tensor<W, R> d = eval_plain(a);
          deliver_batched(m, batched_leaf_gradient<T, V, W, R>(gb, &d, leaf.shape()), ctx);
        }
      }
    }
  }
  template <class X>
  static X released_copy(const X& t) {
    return X(nullptr, nullptr, t.shape(), t.strides());  // keeps the shape, drops the storage
  }
  template <std::size_t... K>
  void check_versions(std::index_sequence<K...>) const {
    (check_version(std::get<K>(saved), versions[K]), ...);
  }
  template <class X>
  void check_version(const X& t, std::uint64_t v) const {
    const auto& st = t.storage_handle();
    if (st && st->version != v)
      throw autograd_error(cat_str("tl::autograd: ", name(), ": a tensor of shape ", shape_str(t.shape()),
                                   " needed for the gradient has been modified by an in-place operation (its "
                                   "storage is at version ", st->version, ", it was saved at version ", v,
                                   "); make the in-place change on a clone() or after backward"));
  }
  using relinked_cref = const relinked_t&;
  using bcast_t = decltype(std::declval<relinked_cref>().bcast(std::declval<const shape_t<R>&>()));

  template <std::size_t K>
  bool has_shape(const shape_t<R>& shape) const {
    if constexpr (std::tuple_element_t<K, saved_t>::rank != R) return false;
    else return std::get<K>(saved).shape() == shape;
  }
  /// Leaf K takes part in the packet tape when it has the output's dtype, rank and shape.
  template <std::size_t K>
  static constexpr bool tape_leaf() {
    using L = std::tuple_element_t<K, saved_t>;
    return std::is_same_v<typename L::value_type, V> && L::rank == R;
  }
  /// The packet tape (packet_tape.hpp): one pass computing every node once and every rule once per
  /// element, one gradient buffer per distinct tensor: the first place of a tensor that a rule reaches
  /// stores into it, later places add (a tensor that no rule reaches gets zeros). Leaves of another
  /// shape (broadcast, reduced afterwards) or dtype take the per-leaf path.
  template <std::size_t... K>
  void send_tape(const tensor<V, R>& g, const node_t<const tensor<V, R>&>& G, engine_ctx& ctx, std::index_sequence<K...>) {
    const auto& shape = g.shape();
    const std::array<const void*, n_leaves> ids{static_cast<const void*>(std::get<K>(edges).get())...};
    const std::array<bool, n_leaves> ok{(tape_leaf<K>() && has_shape<K>(shape))...};
    std::array<multi_target<V>, n_leaves> to{};
    std::array<tensor<V, R>, n_leaves> buf{};
    std::array<bool, n_leaves> first{};
    constexpr auto reached = row_tape<V, linear_row_t<bcast_t>>::reached;
    static_assert(reached == row_tape<V, outer_row_t<bcast_t>>::reached);
    bool any = false;
    for (std::size_t k = 0; k < n_leaves; ++k) {
      if (!ids[k] || !ok[k]) continue;
      any = true;
      std::size_t f = k;
      for (std::size_t q = 0; q < k; ++q)
        if (ids[q] == ids[k] && ok[q]) {
          f = q;
          break;
        }
      first[k] = f == k;
      bool stored = false;  // an earlier place of the same tensor is reached (and writes first)
      for (std::size_t q = f; q < k; ++q) stored = stored || (ids[q] == ids[k] && ok[q] && reached[q]);
      if (f == k) {
        bool any_reached = false;
        for (std::size_t q = k; q < n_leaves; ++q) any_reached = any_reached || (ids[q] == ids[k] && ok[q] && reached[q]);
        buf[k] = any_reached ? tensor<V, R>(shape) : zeros<V>(shape);
      }
      to[k] = {buf[f].data(), stored};
    }
    if (any) run_packet_tape<V, R>(shape, to.data(), expr->bcast(shape), G.bcast(shape));
    (tape_rest<K>(g, G, ctx, ids[K] && ok[K], first[K], buf[K]), ...);
  }
  template <std::size_t K, class GN>
  void tape_rest(const tensor<V, R>& g, const GN& G, engine_ctx& ctx, bool joined, bool first, tensor<V, R>& b) {
    if (!joined) send<K>(g, G, ctx);
    else if constexpr (tape_leaf<K>())
      if (first) deliver(std::get<K>(edges), std::move(b), ctx);
  }
  template <class GN, std::size_t... K>
  void send_all(const tensor<V, R>& g, const GN& G, engine_ctx& ctx, std::index_sequence<K...>) {
    (send<K>(g, G, ctx), ...);
  }
  template <std::size_t K, class GN>
  void send(const tensor<V, R>& g, const GN& G, engine_ctx& ctx) {
    const auto& m = std::get<K>(edges);
    if (!m) return;
    using L = std::tuple_element_t<K, saved_t>;
    using T = typename L::value_type;
    if constexpr (differentiable_v<T>) {
      auto a = adjoint<K>(*expr, G);
      if constexpr (!is_no_adjoint_v<decltype(a)>) {
        const auto& leaf = std::get<K>(saved);
        if constexpr (std::is_same_v<decltype(a), GN> && std::is_same_v<T, V> && L::rank == R) {
          if (leaf.shape() == g.shape()) {
            deliver(m, g, ctx);  // the adjoint is g itself
            return;
          }
        }
        deliver(m, leaf_gradient<T>(a, leaf.shape()), ctx);
      }
    }
  }
};

template <class T, class Ext, class E>
void record_expression(basic_tensor<T, Ext>& out, const E& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (!differentiable_v<T>) {
    return;  // integer and bool results (comparisons, casts) carry no gradient
  } else if constexpr (is_tensor_v<D> || has_deferred_v<D>) {
    record_expression(out, to_node(e));  // keepdim reductions become leaves over their values
  } else if constexpr (!std::is_same_v<typename D::value_type, T>) {
    record_expression(out, tl::astype<T>(e));  // assignment converts to the tensor's dtype
  } else {
    using node_t = expr_node<D>;
    auto n = std::make_shared<node_t>(leaf_tensors(e));
    std::apply(
        [&](const auto&... t) {
          std::size_t k = 0;
          ((n->versions[k++] = saveable_version(t, n->name())), ...);
        },
        n->saved);
    n->edges = std::apply([](const auto&... t) { return std::make_tuple(edge_of(t)...); }, n->saved);
    n->expr.emplace(relink<0>(e, typename node_t::getter{&n->saved}));
    dyn_tensor_t<basic_tensor<T, Ext>> o(out);
    attach_node(o, std::static_pointer_cast<typed_node<T, Ext::rank>>(n));
    out.set_autograd_meta(o.autograd_meta_handle());
  }
}

template <class T, class Ext, class E>
void eval_and_record(basic_tensor<T, Ext>& out, const E& e) {
  if constexpr (has_deferred_v<E>) {
    // Keepdim reductions are computed once, here; evaluation and graph then see the same values.
    const auto r = resolve(e);
    eval_into<assign_op::set>(out, r);
    record_expression(out, r);
  } else {
    eval_into<assign_op::set>(out, e);
    record_expression(out, e);
  }
}

[[noreturn]] inline void throw_no_higher_order() {
  throw autograd_error(
      "tl::autograd: recording the backward pass (create_graph = true: higher-order gradients, hessian, hvp, "
      "jvp, gradgradcheck) needs TL_AUTOGRAD defined to 2 before including tl (CMake: -DTL_AUTOGRAD=2); it is "
      "off by default because it adds to compile times");
}

/// Evaluates e op by op: every node becomes a tensor, recorded as a single-op expression node.
template <class T, class E>
auto decompose(const tensor_leaf<T, E>& l) {
  return tensor<T, E::rank>(leaf_tensor(l));
}
template <class T, class E>
auto decompose(const owning_leaf<T, E>& l) {
  return tensor<T, E::rank>(leaf_tensor(l));
}
template <class T, std::size_t R>
auto decompose(const scalar_leaf<T, R>& s) {
  return s;
}
template <class N>
auto record_single(const N& single) {
  auto out = eval_plain(single);
  if (must_record(single)) record_expression(out, single);
  return out;
}
template <class O, class C>
auto decompose(const unary_node<O, C>& n) {
  const auto c = decompose(n.c);
  auto nc = to_node(c);
  return record_single(unary_node<O, decltype(nc)>{{}, n.op, nc});
}
template <class O, class L, class R>
auto decompose(const binary_node<O, L, R>& n) {
  const auto l = decompose(n.l);
  const auto r = decompose(n.r);
  auto nl = to_node(l);
  auto nr = to_node(r);
  return record_single(binary_node<O, decltype(nl), decltype(nr)>(n.op, nl, nr));
}
template <class O, class A, class B, class C>
auto decompose(const ternary_node<O, A, B, C>& n) {
  const auto a = decompose(n.a);
  const auto b = decompose(n.b);
  const auto c = decompose(n.c);
  auto na = to_node(a);
  auto nb = to_node(b);
  auto nc = to_node(c);
  return record_single(ternary_node<O, decltype(na), decltype(nb), decltype(nc)>(n.op, na, nb, nc));
}

template <class E>
dyn_tensor_t<E> materialize(const E& e) {
  if constexpr (is_tensor_v<E>) {
    return dyn_tensor_t<E>(e);
  } else if constexpr (has_deferred_v<E>) {
    return materialize(to_node(e));  // keepdim reductions become leaves over their values
  } else {
#if TL_AUTOGRAD >= 2
    if (must_record(e)) return decompose(e);
#else
    if (must_record(e)) throw_no_higher_order();
#endif
    return eval_plain(e);
  }
}

}  // namespace tl::detail
