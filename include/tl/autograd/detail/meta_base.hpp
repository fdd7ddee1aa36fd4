#pragma once
/// @file meta_base.hpp
/// @brief Internal: the part of a tensor's autograd metadata that the tensor itself reads (detail
/// header; the full metadata, with the gradient and hooks, is in graph.hpp).
#include <memory>

namespace tl::detail {

struct graph_node;

struct autograd_meta_base {
  bool requires_grad = false;  // a leaf that wants a gradient
  bool retains_grad = false;   // a non-leaf whose gradient is kept (retain_grad())
  bool is_view = false;        // made by a view of another recorded tensor
  std::shared_ptr<graph_node> grad_fn;
  virtual ~autograd_meta_base() = default;
};

}  // namespace tl::detail
