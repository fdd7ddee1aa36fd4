#pragma once
/// @file function.hpp
/// @brief Internal: graph nodes for operations other than fused elementwise expressions (views,
/// reductions, matmul, ...): a node whose backward is a function of the output gradient, the saved
/// inputs and (optionally) the saved result (detail header).
///
/// Backward functions are written with tl's own (recorded) operations, so with create_graph the
/// backward pass is itself recorded and higher derivatives work.
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "tl/autograd/detail/graph.hpp"
#include "tl/expr/node.hpp"

namespace tl::detail {

/// The dynamic-extents tensor type of a tensor or expression type.
template <class X>
using dyn_tensor_t = tensor<typename std::remove_cvref_t<X>::value_type, std::remove_cvref_t<X>::rank>;

/// Evaluates an expression into a new tensor without recording anything.
template <class E>
dyn_tensor_t<E> eval_plain(const E& e) {
  if constexpr (is_tensor_v<E>) {
    return dyn_tensor_t<E>(e);
  } else {
    dyn_tensor_t<E> out(e.shape(), expression_device(e));
    eval_into<assign_op::set>(out, e);
    return out;
  }
}

/// Evaluates an expression made by autograd itself (an adjoint); when it must be recorded
/// (create_graph) it is recorded op by op, so that the set of node types stays finite.
template <class E>
dyn_tensor_t<E> materialize(const E& e);

/// Evaluates a user's expression into a tensor, recorded as one fused node when it requires grad.
template <class E>
dyn_tensor_t<E> materialize_forward(const E& e) {
  return dyn_tensor_t<E>(e);
}

template <class Out, class... In>
struct fn_node final : typed_node<typename Out::value_type, Out::rank> {
  static constexpr std::size_t n_in = sizeof...(In);
  using inputs_t = std::tuple<In...>;
  using grads_t = std::tuple<In...>;
  /// bw(g, inputs, result, need): the input gradients (undefined tensors where none flows).
  using backward_fn = std::function<grads_t(const Out& g, const inputs_t& in, const Out& result,
                                            const std::array<bool, n_in>& need)>;
  /// Optional batched rule for the vectorized backward: bbw(gb, inputs, result, need), the gradients
  /// of every cotangent (leading dim) from gb = [batch] ++ the output's shape; contiguous results; it
  /// must not record anything. A rule that returns nullopt declines: the plain rule then runs once
  /// per cotangent, as for a node without one.
  using batched_grads_t = std::tuple<tensor<typename In::value_type, In::rank + 1>...>;
  using batched_fn = std::function<std::optional<batched_grads_t>(
      const tensor<typename Out::value_type, Out::rank + 1>& gb, const inputs_t& in, const Out& result,
      const std::array<bool, n_in>& need)>;

  const char* m_name;
  std::tuple<saved_tensor<In>...> saved;
  std::tuple<std::shared_ptr<autograd_meta<typename In::value_type, In::rank>>...> edges;
  std::array<bool, n_in> need{};
  std::array<bool, n_in> reads{};  // the backward reads these inputs' values (version-checked)
  saved_tensor<Out> result;
  bool has_result = false;
  backward_fn bw;
  batched_fn bbw;

  const char* name() const override { return m_name; }
  void collect_next(std::vector<graph_node*>& out) const override {
    std::apply(
        [&](const auto&... e) {
          ((e && e->grad_fn ? out.push_back(e->grad_fn.get()) : void()), ...);
        },
        edges);
  }
  void release_saved() override {
    std::apply([](auto&... s) { ((s = std::remove_cvref_t<decltype(s)>{}), ...); }, saved);
    result = saved_tensor<Out>{};
    bw = nullptr;
    bbw = nullptr;
  }
  void apply(const Out& g, engine_ctx& ctx) override {
    inputs_t in = unpack(std::index_sequence_for<In...>{});
    grads_t grads = bw(g, in, saved_result(), need);
    send(grads, ctx, std::index_sequence_for<In...>{});
  }
  void apply_batched(const tensor<typename Out::value_type, Out::rank + 1>& gb, engine_ctx& ctx) override {
    if (!bbw) {
      typed_node<typename Out::value_type, Out::rank>::apply_batched(gb, ctx);
      return;
    }
    inputs_t in = unpack(std::index_sequence_for<In...>{});
    std::optional<batched_grads_t> grads = bbw(gb, in, saved_result(), need);
    if (!grads) {
      typed_node<typename Out::value_type, Out::rank>::apply_batched(gb, ctx);
      return;
    }
    send_batched(*grads, ctx, std::index_sequence_for<In...>{});
  }

 private:
  Out saved_result() const {
    return has_result ? result.get(m_name) : undefined_tensor<typename Out::value_type, Out::rank>();
  }
  template <std::size_t... K>
  inputs_t unpack(std::index_sequence<K...>) const {
    return inputs_t{(reads[K] ? std::get<K>(saved).get(m_name) : std::get<K>(saved).t)...};
  }
  template <std::size_t... K>
  void send(grads_t& grads, engine_ctx& ctx, std::index_sequence<K...>) {
    ((need[K] ? deliver(std::get<K>(edges), std::move(std::get<K>(grads)), ctx) : void()), ...);
  }
  template <std::size_t... K>
  void send_batched(batched_grads_t& grads, engine_ctx& ctx, std::index_sequence<K...>) {
    ((need[K] ? deliver_batched(std::get<K>(edges), std::move(std::get<K>(grads)), ctx) : void()), ...);
  }
};

template <class X>
std::shared_ptr<autograd_meta<typename X::value_type, X::rank>> edge_of(const X& x) {
  if (x.requires_grad()) return x.autograd_meta_handle();
  return nullptr;
}

/// Whether an operation on these tensors must be recorded.
template <class... In>
bool any_input_requires_grad(const In&... in) {
  return is_grad_enabled() && (in.requires_grad() || ...);
}

/// An empty batched rule: the node runs its plain rule once per cotangent in a vectorized backward.
struct no_batched_rule {};

/// record_fn with a batched rule `bbw` (see fn_node::batched_fn) for the vectorized backward.
template <class Out, class F, class BF, class... In>
void record_fn_batched(const char* name, Out& out, F&& bw, BF&& bbw, const std::array<bool, sizeof...(In)>& reads,
                       bool keep_result, const In&... in) {
  using node_t = fn_node<dyn_tensor_t<Out>, dyn_tensor_t<In>...>;
  auto n = std::make_shared<node_t>();
  if constexpr (!std::is_same_v<std::remove_cvref_t<BF>, no_batched_rule>) n->bbw = std::forward<BF>(bbw);
  n->m_name = name;
  n->saved = std::make_tuple(saved_tensor<dyn_tensor_t<In>>(dyn_tensor_t<In>(in), name)...);
  n->edges = std::make_tuple(edge_of(in)...);
  n->need = {in.requires_grad()...};
  n->reads = reads;
  if (keep_result) {
    dyn_tensor_t<Out> r(out.storage_handle(), out.data(), out.shape(), out.strides(), out.is_conj());
    n->result = saved_tensor<dyn_tensor_t<Out>>(r, name);
    n->has_result = true;
  }
  n->bw = std::forward<F>(bw);
  dyn_tensor_t<Out> o(out);
  attach_node(o, std::static_pointer_cast<typed_node<typename Out::value_type, Out::rank>>(n));
  out.set_autograd_meta(o.autograd_meta_handle());
}

/// Records `out = op(in...)`. `reads[k]`: the backward reads input k's values; `keep_result`:
/// the backward reads the result (saved without its history, so no reference cycle).
template <class Out, class F, class... In>
void record_fn(const char* name, Out& out, F&& bw, const std::array<bool, sizeof...(In)>& reads, bool keep_result,
               const In&... in) {
  record_fn_batched(name, out, std::forward<F>(bw), no_batched_rule{}, reads, keep_result, in...);
}

}  // namespace tl::detail
