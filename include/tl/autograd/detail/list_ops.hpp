#pragma once
/// @file list_ops.hpp
/// @brief Internal: the gradient of cat (and so of stack, which concatenates unsqueezed views)
/// (detail header). split and chunk return views, which carry their own gradients.
#include <memory>
#include <vector>

#include "tl/autograd/detail/function.hpp"
#include "tl/ops/cat.hpp"

namespace tl::detail {

template <class T, std::size_t R>
struct cat_node final : typed_node<T, R> {
  std::vector<std::shared_ptr<autograd_meta<T, R>>> edges;
  std::vector<index_t> offsets, lengths;
  std::size_t dim = 0;

  const char* name() const override { return "CatBackward"; }
  void collect_next(std::vector<graph_node*>& out) const override {
    for (const auto& e : edges)
      if (e && e->grad_fn) out.push_back(e->grad_fn.get());
  }
  void release_saved() override {}  // nothing saved: the gradient is a slice of g
  void apply(const tensor<T, R>& g, engine_ctx& ctx) override {
    for (std::size_t i = 0; i < edges.size(); ++i)
      if (edges[i]) deliver(edges[i], tensor<T, R>(g.narrow(static_cast<index_t>(dim), offsets[i], lengths[i])), ctx);
  }
  /// Vectorized backward: every cotangent's slice of each input at once (dim + 1 of gb), each copied
  /// into a contiguous [batch] ++ input shape tensor.
  void apply_batched(const tensor<T, R + 1>& gb, engine_ctx& ctx) override {
    for (std::size_t i = 0; i < edges.size(); ++i) {
      if (!edges[i]) continue;
      shape_t<R + 1> s = gb.shape();
      s[dim + 1] = lengths[i];
      const tensor<T, R + 1> part(gb.storage_handle(), const_cast<T*>(gb.data()) + offsets[i] * gb.strides()[dim + 1], s,
                                  gb.strides(), gb.is_conj());
      tensor<T, R + 1> out(s, gb.device());
      eval_into<assign_op::set>(out, part);
      deliver_batched(edges[i], std::move(out), ctx);
    }
  }
};

template <class T, class Ext>
void record_cat(tensor<T, Ext::rank>& out, const basic_tensor<T, Ext>* ts, std::size_t count, std::size_t d) {
  constexpr std::size_t R = Ext::rank;
  auto n = std::make_shared<cat_node<T, R>>();
  n->dim = d;
  index_t off = 0;
  for (std::size_t i = 0; i < count; ++i) {
    n->edges.push_back(ts[i].requires_grad() ? ts[i].autograd_meta_handle() : nullptr);
    n->offsets.push_back(off);
    n->lengths.push_back(ts[i].shape()[d]);
    off += ts[i].shape()[d];
  }
  attach_node(out, std::static_pointer_cast<typed_node<T, R>>(n));
}

}  // namespace tl::detail
