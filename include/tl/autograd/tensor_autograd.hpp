#pragma once
/// @file tensor_autograd.hpp
/// @brief The autograd members of tl::basic_tensor: requires_grad_, grad, backward, detach, hooks,
/// and in-place updates of tensors that take part in autograd.
///
/// @code
/// auto w = tl::randn<double>(3).requires_grad_();
/// auto loss = tl::sum(tl::square(w * x - y));
/// loss.backward();
/// w.grad();        // d loss / d w
/// @endcode
#include <string>
#include <type_traits>
#include <utility>

#include "tl/autograd/detail/expr_node.hpp"
#include "tl/autograd/detail/graph.hpp"
#include "tl/core/creation.hpp"

namespace tl {

template <class T, class Ext>
const basic_tensor<T, Ext>& basic_tensor<T, Ext>::requires_grad_(bool on) const {
  static_assert(detail::differentiable_v<T>,
                "tl: only floating point and complex tensors can require gradients (as in torch); cast with "
                "tl::astype<float>(...) first");
  if (m_meta && m_meta->grad_fn) {
    if (!on)
      throw autograd_error(detail::cat_str(
          "tl::requires_grad_: only leaf tensors can change requires_grad; this tensor (shape ", detail::shape_str(m_shape),
          ") was made by ", m_meta->grad_fn->name(), "; use detach() for a copy outside the graph"));
    return *this;
  }
  if constexpr (!TL_AUTOGRAD) {
    if (on)
      throw autograd_error(
          "tl::requires_grad_: autograd is not compiled into this program: define TL_AUTOGRAD=1 (or 2 for "
          "higher-order gradients) in every translation unit, e.g. with CMake -DTL_AUTOGRAD=1");
  }
  if (on && is_inference())
    throw autograd_error(detail::cat_str("tl::requires_grad_: the tensor of shape ", detail::shape_str(m_shape),
                                         " was created in tl::inference_mode and cannot require grad; clone() it "
                                         "outside inference mode first"));
  if (!m_meta) {
    if (!on) return *this;
    m_meta = std::make_shared<detail::autograd_meta<T, rank>>();
  }
  m_meta->requires_grad = on;
  return *this;
}

template <class T, class Ext>
auto basic_tensor<T, Ext>::grad() const -> tensor<T, rank> {
  if (!m_meta) return detail::undefined_tensor<T, rank>();
  return autograd_meta_handle()->grad;
}

template <class T, class Ext>
void basic_tensor<T, Ext>::set_grad(const tensor<T, rank>& g) const {
  if (g.defined() && g.shape() != m_shape)
    throw shape_error(detail::cat_str("tl::set_grad: a gradient of shape ", detail::shape_str(g.shape()),
                                      " does not match the tensor's shape ", detail::shape_str(m_shape)));
  if (!m_meta) m_meta = std::make_shared<detail::autograd_meta<T, rank>>();
  autograd_meta_handle()->grad = g;
}

template <class T, class Ext>
void basic_tensor<T, Ext>::zero_grad(bool set_to_none) const {
  const auto m = autograd_meta_handle();
  if (!m || !m->grad.defined()) return;
  if (set_to_none) m->grad = detail::undefined_tensor<T, rank>();
  else m->grad = zeros<T>(m_shape, device());
}

template <class T, class Ext>
void basic_tensor<T, Ext>::backward(bool retain_graph, bool create_graph) const {
  if (numel() != 1)
    throw autograd_error(detail::cat_str("tl::backward: a gradient can be created implicitly only for a one-element "
                                         "tensor; this one has shape ",
                                         detail::shape_str(m_shape), ": pass backward(gradient)"));
  backward(full<T>(m_shape, T(1), device()), retain_graph, create_graph);
}

template <class T, class Ext>
void basic_tensor<T, Ext>::backward(const tensor<T, rank>& gradient, bool retain_graph, bool create_graph) const {
  if (!requires_grad())
    throw autograd_error(detail::cat_str(
        "tl::backward: the tensor of shape ", detail::shape_str(m_shape),
        " does not require grad and has no grad_fn: no operand of the operations that made it requires grad "
        "(mark the inputs with requires_grad_()), or it was computed under tl::no_grad"));
  if (gradient.shape() != m_shape)
    throw shape_error(detail::cat_str("tl::backward: the gradient's shape ", detail::shape_str(gradient.shape()),
                                      " differs from the tensor's shape ", detail::shape_str(m_shape)));
  detail::engine_ctx ctx;
  ctx.retain_graph = retain_graph || create_graph;
  ctx.create_graph = create_graph;
  if (m_meta->grad_fn) {
    static_cast<detail::typed_node<T, rank>*>(m_meta->grad_fn.get())->receive(gradient);
    detail::run_graph(m_meta->grad_fn.get(), ctx);
  } else {
    set_grad_enabled mode(create_graph);
    detail::deliver(autograd_meta_handle(), gradient, ctx);
  }
}

template <class T, class Ext>
basic_tensor<T, Ext> basic_tensor<T, Ext>::detach() const {
  return basic_tensor(m_storage, m_data, m_shape, m_stride, m_conj);
}

template <class T, class Ext>
std::string basic_tensor<T, Ext>::grad_fn_name() const {
  return m_meta && m_meta->grad_fn ? m_meta->grad_fn->name() : "";
}

template <class T, class Ext>
void basic_tensor<T, Ext>::retain_grad() const {
  if (!requires_grad())
    throw autograd_error(detail::cat_str("tl::retain_grad: the tensor of shape ", detail::shape_str(m_shape),
                                         " does not require grad"));
  if (m_meta->grad_fn) m_meta->retains_grad = true;
}

template <class T, class Ext>
template <class F>
void basic_tensor<T, Ext>::register_hook(F&& f) const {
  using G = tensor<T, rank>;
  if (!requires_grad())
    throw autograd_error(detail::cat_str("tl::register_hook: cannot register a hook on a tensor (shape ",
                                         detail::shape_str(m_shape), ") that does not require grad"));
  if constexpr (std::is_void_v<std::invoke_result_t<F&, const G&>>) {
    autograd_meta_handle()->hooks.emplace_back([f = std::forward<F>(f)](const G& g) mutable {
      f(g);
      return g;
    });
  } else {
    static_assert(std::is_convertible_v<std::invoke_result_t<F&, const G&>, G>,
                  "tl: a gradient hook must return nothing or a tensor of the same dtype and rank");
    autograd_meta_handle()->hooks.emplace_back([f = std::forward<F>(f)](const G& g) mutable { return G(f(g)); });
  }
}

namespace detail {

template <assign_op Op, class T, class Ext, class E>
bool inplace_autograd_expr(const basic_tensor<T, Ext>& dst, const E& e);

/// `dst op= e` while autograd records: computed out of place (recorded), written into dst's
/// memory, and dst gets the new history. Leaves that require grad and views are rejected.
template <assign_op Op, class T, class Ext, class E>
bool inplace_autograd(const basic_tensor<T, Ext>& dst, const E& e) {
  if constexpr (!expression<E>) {
    return inplace_autograd<Op>(dst, to_node(e));  // a scalar operand
  } else {
    return inplace_autograd_expr<Op>(dst, e);
  }
}

template <assign_op Op, class T, class Ext, class E>
bool inplace_autograd_expr(const basic_tensor<T, Ext>& dst, const E& e) {
  const bool dst_rg = dst.requires_grad();
  if (!dst_rg && !must_record(e)) return false;
  if (!is_grad_enabled()) return false;
  constexpr std::size_t R = Ext::rank;
  if (dst_rg && dst.is_leaf())
    throw autograd_error(cat_str("tl::autograd: a leaf tensor that requires grad (shape ", shape_str(dst.shape()),
                                 ") is used in an in-place operation; update it inside a tl::no_grad scope (as an "
                                 "optimizer step does) or work on a clone()"));
  const auto& st = dst.storage_handle();
  const bool whole = st && dst.data() == st->ptr && dst.is_contiguous() && !dst.is_conj() &&
                     static_cast<std::size_t>(dst.numel()) * sizeof(T) == st->nbytes;
  const bool view = dst.autograd_meta_handle() && dst.autograd_meta_handle()->is_view;
  if (!whole || view)
    throw autograd_error(cat_str("tl::autograd: an in-place write into a view (shape ", shape_str(dst.shape()),
                                 ") while autograd is recording is not supported; build the result out of place "
                                 "(tl::where, tl::cat, ...) or write under tl::no_grad"));
  if constexpr (!differentiable_v<T>) {
    return false;
  } else {
    using D = tensor<T, R>;
    D r = [&]() -> D {
      if constexpr (Op == assign_op::set) {
        using ED = std::remove_cvref_t<E>;
        if constexpr (ED::rank == R) {
          if (e.shape() == dst.shape()) return D(tl::astype<T>(e));
        }
        tensor<T, ED::rank> x(tl::astype<T>(e));
        return x.expand(dst.shape()).contiguous();
      } else {
        const D old = dst.clone();  // the history of dst's old values, safe from the write below
        if constexpr (Op == assign_op::add) return D(tl::astype<T>(old + e));
        else if constexpr (Op == assign_op::sub) return D(tl::astype<T>(old - e));
        else if constexpr (Op == assign_op::mul) return D(tl::astype<T>(old * e));
        else return D(tl::astype<T>(old / e));
      }
    }();
    ++st->version;
    eval_into<assign_op::set>(dst, r);
    dst.set_autograd_meta(r.autograd_meta_handle());
    return true;
  }
}

}  // namespace detail
}  // namespace tl
