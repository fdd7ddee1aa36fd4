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
#include "tl/core/creation.hpp"
#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/expr/node.hpp"

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
  /// Vectorized backward (jacobian / hessian with vectorize): when > 0, every gradient carries a
  /// leading dim of `batch` cotangents, and captured gradients are tensor<T, R + 1>.
  index_t batch = 0;
  /// A node without a batched rule runs once per cotangent; the plain gradients it delivers then
  /// belong to this slot of the batch.
  index_t slot = -1;
};

/// [b] ++ s.
template <std::size_t R>
shape_t<R + 1> batched_shape(index_t b, const shape_t<R>& s) {
  shape_t<R + 1> r{};
  r[0] = b;
  for (std::size_t d = 0; d < R; ++d) r[d + 1] = s[d];
  return r;
}

// The vectorized backward's own tensor work goes through these, which never record and work on
// flat views. Recording code instantiated for rank R + 1 would bring its own batched paths for
// rank R + 2, and so on; and evaluators instantiated for every rank R + 1 would cost compile time.
// Every batched gradient is contiguous ([batch] ++ shape, row-major), so flat views suffice.

/// x as a flat rank-1 view (x contiguous).
template <class T, class Ext>
tensor<T, 1> flat_view(const basic_tensor<T, Ext>& x) {
  if (!x.is_contiguous())
    throw error(cat_str("tl::autograd: internal error: a batched gradient of shape ", shape_str(x.shape()),
                        " is not contiguous"));
  return tensor<T, 1>(x.storage_handle(), const_cast<T*>(x.data()), shape_t<1>{x.numel()}, shape_t<1>{1},
                      x.is_conj());
}
/// A new tensor with x's values (x contiguous).
template <class T, class Ext>
basic_tensor<T, Ext> raw_copy(const basic_tensor<T, Ext>& x) {
  basic_tensor<T, Ext> out(x.shape(), x.device());
  eval_into<assign_op::set>(flat_view(out), flat_view(x));
  return out;
}
/// A new tensor of zeros.
template <class T, std::size_t R>
tensor<T, R> raw_zeros(const shape_t<R>& s, tl::device d) {
  tensor<T, R> out(s, d);
  eval_into<assign_op::set>(flat_view(out), scalar_leaf<T>{{}, T{}});
  return out;
}
/// dst += g (both contiguous, the same shape): batched gradients.
template <class T, class Ext>
void raw_add_flat(const basic_tensor<T, Ext>& dst, const basic_tensor<T, Ext>& g) {
  eval_into<assign_op::add>(flat_view(dst), flat_view(g));
}
/// dst += g or dst = g (dst contiguous; g of the same shape, any layout): single cotangents.
template <class T, class Ext>
void raw_write(const basic_tensor<T, Ext>& dst, const basic_tensor<T, Ext>& g, bool add) {
  const basic_tensor<T, Ext> gc = g.is_contiguous() ? g : basic_tensor<T, Ext>(g.contiguous());
  if (add) eval_into<assign_op::add>(flat_view(dst), flat_view(gc));
  else eval_into<assign_op::set>(flat_view(dst), flat_view(gc));
}
/// Cotangent b of a batched gradient: a view of gb without its leading dim.
template <class T, std::size_t R>
tensor<T, R> batch_slice(const tensor<T, R + 1>& gb, index_t b) {
  shape_t<R> s{}, st{};
  for (std::size_t d = 0; d < R; ++d) {
    s[d] = gb.shape()[d + 1];
    st[d] = gb.strides()[d + 1];
  }
  return tensor<T, R>(gb.storage_handle(), gb.data() + b * gb.strides()[0], s, st, gb.is_conj());
}
/// A batched gradient [m] ++ shape written block by block: write(block b, cotangent b of gb) for each
/// of gb's m cotangents, into blocks that start at zero (Zero) or uninitialized (write sets every
/// element). Only rank-R kernels run: a rule's batched form reuses its plain kernels on each block
/// (evaluators for rank R + 1 would be instantiated for every rank and dtype of the op), and still
/// saves the plain rule's allocation and the accumulation of its result per cotangent.
template <class T, std::size_t R, class Vt, std::size_t RO, class W>
tensor<T, R + 1> blockwise_batched(const tensor<Vt, RO + 1>& gb, const shape_t<R>& shape, tl::device dev, bool zero,
                                   const W& write) {
  no_grad guard;
  const index_t m = gb.shape()[0], block = numel(shape);
  tensor<T, R + 1> out = zero ? raw_zeros<T, R + 1>(batched_shape(m, shape), dev) : tensor<T, R + 1>(batched_shape(m, shape), dev);
  for (index_t b = 0; b < m && block > 0; ++b)
    write(tensor<T, R>(out.storage_handle(), out.data() + b * block, shape, contiguous_strides(shape)),
          batch_slice<Vt, RO>(gb, b));
  return out;
}

/// Runs tensor hooks on each cotangent of a batched gradient (hooks take one gradient at a time).
template <class T, std::size_t R, class Hooks>
tensor<T, R + 1> hooks_batched(tensor<T, R + 1> gb, const Hooks& hooks) {
  if (hooks.empty()) return gb;
  no_grad guard;
  gb = raw_copy(gb);
  for (index_t b = 0; b < gb.shape()[0]; ++b) {
    const tensor<T, R> s = batch_slice<T, R>(gb, b);
    tensor<T, R> r = raw_copy(s);
    for (auto& h : hooks) r = h(r);
    raw_write(s, r, false);
  }
  return gb;
}

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

/// Vectorized backward: captures a batch of gradients gb ([batch] ++ shape) for m, in a buffer of
/// its own (capture_slot may later add single cotangents into it).
template <class T, std::size_t R>
void capture_batched(const autograd_meta_base* m, const tensor<T, R + 1>& gb, engine_ctx& ctx) {
  auto it = ctx.capture->find(m);
  if (it == ctx.capture->end()) return;
  using GB = tensor<T, R + 1>;
  if (!it->second) it->second = std::make_shared<GB>(raw_copy(gb));
  else raw_add_flat(*std::static_pointer_cast<GB>(it->second), gb);
}

/// Vectorized backward: adds the gradient of cotangent ctx.slot into the batched capture of m.
template <class T, std::size_t R>
void capture_slot(const autograd_meta_base* m, const tensor<T, R>& g, engine_ctx& ctx) {
  auto it = ctx.capture->find(m);
  if (it == ctx.capture->end()) return;
  using GB = tensor<T, R + 1>;
  if (!it->second) it->second = std::make_shared<GB>(raw_zeros<T>(batched_shape(ctx.batch, g.shape()), g.device()));
  raw_write(batch_slice<T, R>(*std::static_pointer_cast<GB>(it->second), ctx.slot), g, true);
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
  /// Vectorized backward: the output's gradients for every cotangent, shape [batch] ++ output shape.
  std::optional<tensor<T, R + 1>> pending_b;
  bool pending_b_owned = false;  // pending_b is this node's own buffer (slots may be added in place)
  std::weak_ptr<autograd_meta<T, R>> out_meta;

  void receive(tensor<T, R> g) {
    if (!pending) pending = std::move(g);
    else pending = tensor<T, R>(*pending + g);
  }
  void receive_batched(tensor<T, R + 1> gb) {
    if (!pending_b) {
      pending_b = std::move(gb);
      pending_b_owned = false;
    } else {
      if (!pending_b_owned) pending_b = raw_copy(*pending_b);
      raw_add_flat(*pending_b, gb);
      pending_b_owned = true;
    }
  }
  /// The gradient of cotangent `b` alone (from a node that runs cotangent by cotangent).
  void receive_slot(index_t b, index_t batch, const tensor<T, R>& g) {
    if (!pending_b) {
      pending_b = raw_zeros<T>(batched_shape(batch, g.shape()), g.device());
    } else if (!pending_b_owned) {
      pending_b = raw_copy(*pending_b);
    }
    pending_b_owned = true;
    raw_write(batch_slice<T, R>(*pending_b, b), g, true);
  }
  bool ready() const final { return pending.has_value() || pending_b.has_value(); }
  void clear_pending() final {
    pending.reset();
    pending_b.reset();
  }
  void run(engine_ctx& ctx) final {
    if (released) throw autograd_error(freed_graph_message(name()));
    if (ctx.batch > 0) {
      run_batched(ctx);
      return;
    }
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
  /// The same for a batch of output gradients (leading dim). Nodes without a batched rule run
  /// apply() once per cotangent (as torch's vmap falls back to a loop for ops without a batching rule).
  virtual void apply_batched(const tensor<T, R + 1>& gb, engine_ctx& ctx) {
    struct reset_slot {
      engine_ctx& c;
      ~reset_slot() { c.slot = -1; }
    } reset{ctx};
    for (index_t b = 0; b < ctx.batch; ++b) {
      ctx.slot = b;
      apply(batch_slice<T, R>(gb, b), ctx);
    }
  }

 private:
  void run_batched(engine_ctx& ctx) {
    if (!pending_b) {  // cannot happen: every delivery of a vectorized backward is batched
      pending.reset();
      return;
    }
    tensor<T, R + 1> gb = std::move(*pending_b);
    pending_b.reset();
    if (auto m = out_meta.lock()) {
      gb = hooks_batched<T, R>(std::move(gb), m->hooks);
      if (ctx.capture) capture_batched<T, R>(m.get(), gb, ctx);
    }
    apply_batched(gb, ctx);
  }
};

/// Sends gradient g to the tensor with metadata m (an edge of the graph).
template <class T, std::size_t R>
void deliver(const std::shared_ptr<autograd_meta<T, R>>& m, tensor<T, R> g, engine_ctx& ctx) {
  if (!m || !g.defined()) return;
  if (ctx.batch > 0) {  // vectorized backward, a node running cotangent by cotangent: slot ctx.slot
    if (ctx.slot < 0) throw error("tl::autograd: internal error: a plain gradient in a vectorized backward");
    if (m->grad_fn) {
      static_cast<typed_node<T, R>*>(m->grad_fn.get())->receive_slot(ctx.slot, ctx.batch, g);
      return;
    }
    if (!m->requires_grad) return;
    for (auto& h : m->hooks) g = h(g);
    if (ctx.capture) capture_slot<T, R>(m.get(), g, ctx);
    return;
  }
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

/// Sends a batch of gradients gb ([batch] ++ m's shape) to the tensor with metadata m.
template <class T, std::size_t R>
void deliver_batched(const std::shared_ptr<autograd_meta<T, R>>& m, tensor<T, R + 1> gb, engine_ctx& ctx) {
  if (!m || !gb.defined()) return;
  if (m->grad_fn) {
    static_cast<typed_node<T, R>*>(m->grad_fn.get())->receive_batched(std::move(gb));
    return;
  }
  if (!m->requires_grad) return;
  gb = hooks_batched<T, R>(std::move(gb), m->hooks);
  if (ctx.capture) capture_batched<T, R>(m.get(), gb, ctx);
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
