#pragma once
/// @file graph.hpp
/// @brief Internal: autograd metadata, graph nodes, saved tensors and the backward engine (detail header).
///
/// Every tensor taking part in autograd holds an `autograd_meta<T, R>` (shared by its copies, like a
/// torch TensorImpl): the leaf flag `requires_grad`, the accumulated `grad`, hooks, and for results
/// of recorded operations the node that made them (`grad_fn`). A node holds what its backward needs
/// (saved tensors, with the storage version at the time they were saved) and the metadata of its
/// inputs (the graph's edges). Nodes are numbered in creation order, so processing the reachable
/// nodes from the newest to the oldest is a topological order: each node runs once, with the sum
/// of the gradients its output received.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tl/autograd/detail/meta_base.hpp"
#include "tl/autograd/grad_mode.hpp"
#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"

namespace tl::detail {

struct graph_node;

/// Per-thread tape statistics: nodes alive and nodes ever recorded by this thread.
struct tape_counter {
  std::atomic<std::int64_t> live{0};
  std::atomic<std::uint64_t> recorded{0};
};
inline const std::shared_ptr<tape_counter>& thread_tape() {
  thread_local std::shared_ptr<tape_counter> t = std::make_shared<tape_counter>();
  return t;
}
inline std::atomic<std::uint64_t>& node_sequence() {
  static std::atomic<std::uint64_t> s{0};
  return s;
}


template <class T, std::size_t R>
struct autograd_meta : autograd_meta_base {
  tensor<T, R> grad = tensor<T, R>(nullptr, nullptr, shape_t<R>{}, shape_t<R>{});
  std::vector<std::function<tensor<T, R>(const tensor<T, R>&)>> hooks;
};

/// An undefined tensor (no storage): what grad() returns before any backward.
template <class T, std::size_t R>
tensor<T, R> undefined_tensor() {
  return tensor<T, R>(nullptr, nullptr, shape_t<R>{}, shape_t<R>{});
}

/// What backward() / autograd::grad() asked for.
struct engine_ctx {
  bool retain_graph = false;
  bool create_graph = false;
  /// autograd::grad(): gradients of these tensors (by metadata) are captured instead of accumulated.
  std::unordered_map<const autograd_meta_base*, std::shared_ptr<void>>* capture = nullptr;
};

inline std::string freed_graph_message(const char* node) {
  return cat_str("tl::autograd: trying to backward through the graph a second time (", node,
                 "'s saved tensors were freed by the first backward); pass retain_graph = true to the first "
                 "backward() or autograd::grad() call if the graph must be used again");
}

struct graph_node {
  std::uint64_t seq;
  std::uint64_t visit = 0;
  bool released = false;
  std::shared_ptr<tape_counter> tape;

  graph_node() : seq(node_sequence().fetch_add(1, std::memory_order_relaxed)), tape(thread_tape()) {
    tape->live.fetch_add(1, std::memory_order_relaxed);
    tape->recorded.fetch_add(1, std::memory_order_relaxed);
  }
  graph_node(const graph_node&) = delete;
  graph_node& operator=(const graph_node&) = delete;
  virtual ~graph_node() { tape->live.fetch_sub(1, std::memory_order_relaxed); }

  virtual const char* name() const = 0;
  /// Appends the nodes this one sends gradients to.
  virtual void collect_next(std::vector<graph_node*>& out) const = 0;
  virtual bool ready() const = 0;
  virtual void clear_pending() = 0;
  virtual void run(engine_ctx& ctx) = 0;
  /// Frees saved tensors (after a backward without retain_graph).
  virtual void release_saved() = 0;
};

template <class G>
void capture_gradient(const autograd_meta_base* m, const G& g, engine_ctx& ctx) {
  auto it = ctx.capture->find(m);
  if (it == ctx.capture->end()) return;
  if (!it->second) {
    it->second = std::make_shared<G>(g);
  } else {
    auto& acc = *std::static_pointer_cast<G>(it->second);
    acc = G(acc + g);
  }
}

/// Adds g into m.grad (out of place: an earlier grad tensor may be shared).
template <class T, std::size_t R>
void accumulate_grad(autograd_meta<T, R>& m, tensor<T, R> g, const engine_ctx& ctx) {
  if (!m.grad.defined()) {
    if (!ctx.create_graph && (g.storage_handle().use_count() > 1 || !g.is_contiguous() || g.is_conj())) {
      no_grad guard;
      g = g.clone();
    }
    m.grad = std::move(g);
  } else {
    m.grad = tensor<T, R>(m.grad + g);  // one fixed expression type: recording it stays finite
  }
}

/// A node whose output is a tensor<T, R>: receives (and sums) its output's gradients.
template <class T, std::size_t R>
struct typed_node : graph_node {
  std::optional<tensor<T, R>> pending;
  std::weak_ptr<autograd_meta<T, R>> out_meta;

  void receive(tensor<T, R> g) {
    if (!pending) pending = std::move(g);
    else pending = tensor<T, R>(*pending + g);
  }
  bool ready() const final { return pending.has_value(); }
  void clear_pending() final { pending.reset(); }
  void run(engine_ctx& ctx) final {
    if (released) throw autograd_error(freed_graph_message(name()));
    tensor<T, R> g = std::move(*pending);
    pending.reset();
    if (auto m = out_meta.lock()) {
      for (auto& h : m->hooks) g = h(g);
      if (m->retains_grad) accumulate_grad(*m, g, ctx);
      if (ctx.capture) capture_gradient(m.get(), g, ctx);
    }
    apply(g, ctx);
  }
  /// Computes the input gradients from the output gradient and delivers them.
  virtual void apply(const tensor<T, R>& g, engine_ctx& ctx) = 0;
};

/// Sends gradient g to the tensor with metadata m (an edge of the graph).
template <class T, std::size_t R>
void deliver(const std::shared_ptr<autograd_meta<T, R>>& m, tensor<T, R> g, engine_ctx& ctx) {
  if (!m || !g.defined()) return;
  if (m->grad_fn) {
    static_cast<typed_node<T, R>*>(m->grad_fn.get())->receive(std::move(g));
    return;
  }
  if (!m->requires_grad) return;
  for (auto& h : m->hooks) g = h(g);
  if (ctx.capture) {
    capture_gradient(m.get(), g, ctx);
    return;
  }
  accumulate_grad(*m, std::move(g), ctx);
}

inline std::atomic<std::uint64_t>& visit_epoch() {
  static std::atomic<std::uint64_t> e{0};
  return e;
}

/// Runs every node reachable from `root` (which has received its gradient), newest first.
inline void run_graph(graph_node* root, engine_ctx& ctx) {
  std::vector<graph_node*> order, stack{root}, next;
  const std::uint64_t epoch = visit_epoch().fetch_add(1, std::memory_order_relaxed) + 1;
  root->visit = epoch;
  while (!stack.empty()) {
    graph_node* n = stack.back();
    stack.pop_back();
    order.push_back(n);
    next.clear();
    n->collect_next(next);
    for (graph_node* c : next)
      if (c->visit != epoch) {
        c->visit = epoch;
        stack.push_back(c);
      }
  }
  std::sort(order.begin(), order.end(), [](const graph_node* a, const graph_node* b) { return a->seq > b->seq; });
  set_grad_enabled mode(ctx.create_graph);
  try {
    for (graph_node* n : order) {
      if (n->ready()) n->run(ctx);
      if (!ctx.retain_graph) {
        n->release_saved();
        n->released = true;
      }
    }
  } catch (...) {
    for (graph_node* n : order) n->clear_pending();
    throw;
  }
}

// ---- saved tensors ---------------------------------------------------------------------------

/// The storage version of a tensor being saved for backward; inference tensors cannot be saved.
template <class Tensor>
std::uint64_t saveable_version(const Tensor& x, const char* op) {
  const auto& st = x.storage_handle();
  if (!st) return 0;
  if (st->inference)
    throw autograd_error(cat_str("tl::autograd: ", op, ": an inference tensor (created in tl::inference_mode) of shape ",
                                 shape_str(x.shape()),
                                 " cannot be saved for backward; clone() it outside inference mode first"));
  return st->version;
}

/// A tensor saved for backward with the version of its storage at that time.
template <class Tensor>
struct saved_tensor {
  Tensor t;
  std::uint64_t version = 0;

  saved_tensor() : t(nullptr, nullptr, typename Tensor::shape_type{}, typename Tensor::shape_type{}) {}
  explicit saved_tensor(const Tensor& x, const char* op) : t(x), version(saveable_version(x, op)) {}
  /// The tensor, after checking that it was not modified in place since it was saved.
  const Tensor& get(const char* op) const {
    if (const auto& st = t.storage_handle(); st && st->version != version)
      throw autograd_error(cat_str("tl::autograd: ", op, ": a tensor of shape ", shape_str(t.shape()),
                                   " needed for the gradient has been modified by an in-place operation (its "
                                   "storage is at version ", st->version, ", it was saved at version ", version,
                                   "); make the in-place change on a clone() or after backward"));
    return t;
  }
};

/// Makes `out` the result of node `n` (a fresh autograd_meta: out is a new tensor handle).
template <class T, class Ext>
void attach_node(basic_tensor<T, Ext>& out, const std::shared_ptr<typed_node<T, Ext::rank>>& n) {
  auto m = std::make_shared<autograd_meta<T, Ext::rank>>();
  m->grad_fn = n;
  n->out_meta = m;
  out.set_autograd_meta(std::move(m));
}

template <class T>
inline constexpr bool differentiable_v = std::is_floating_point_v<T> || is_complex_v<T>;

}  // namespace tl::detail
