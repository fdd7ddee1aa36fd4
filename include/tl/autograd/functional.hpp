#pragma once
/// @file functional.hpp
/// @brief torch.autograd.grad and torch.autograd.functional: grad, vjp, jvp, jacobian, hessian,
/// hvp, vhp, for functions of one tensor.
///
/// @code
/// auto x = tl::randn<double>(5).requires_grad_();
/// auto [gx] = tl::autograd::grad(tl::eval(tl::sum(tl::sin(x))), std::tie(x));   // cos(x)
/// auto H = tl::autograd::hessian([](const auto& v) { return tl::eval(tl::sum(v * v * v)); }, x);
/// @endcode
/// jvp, hessian, hvp and vhp differentiate a recorded backward pass: they need TL_AUTOGRAD=2.
#include <memory>
#include <tuple>
#include <vector>
#include <unordered_map>
#include <utility>

#include "tl/autograd/tensor_autograd.hpp"

namespace tl::autograd {

/// @brief Options of tl::autograd::grad (torch.autograd.grad's keyword arguments).
struct grad_options {
  bool retain_graph = false;  ///< keep the graph for another backward (implied by create_graph)
  bool create_graph = false;  ///< record the backward pass, for higher derivatives (TL_AUTOGRAD=2)
  bool allow_unused = false;  ///< an input the output does not depend on gets an undefined tensor
};

namespace detail {
using capture_map = std::unordered_map<const tl::detail::autograd_meta_base*, std::shared_ptr<void>>;

/// Runs the graph from y with the gradients of the tensors in ctx.capture captured: a root with a
/// grad_fn gets its gradient from `feed(node)`, a root that is a leaf from `at_leaf(meta)`.
template <class Y, class Feed, class Leaf>
void run_from(const Y& y, tl::detail::engine_ctx& ctx, Feed&& feed, Leaf&& at_leaf) {
  using namespace tl::detail;
  const auto& m = y.autograd_meta_handle();
  if (m->grad_fn) {
    feed(*static_cast<typed_node<typename Y::value_type, Y::rank>*>(m->grad_fn.get()));
    run_graph(m->grad_fn.get(), ctx);
  } else {
    at_leaf(m);
  }
}
/// The gradient captured for x (of type G), or null when none reached it.
template <class G, class X>
std::shared_ptr<G> captured(capture_map& cap, const X& x) {
  return std::static_pointer_cast<G>(cap[x.autograd_meta_handle().get()]);
}

template <class Y, class... X, std::size_t... K>
std::tuple<tl::detail::dyn_tensor_t<X>...> grad_impl(const Y& y, const tl::detail::dyn_tensor_t<Y>& gy,
                                                     const std::tuple<const X&...>& xs, const grad_options& o,
                                                     std::index_sequence<K...>) {
  using namespace tl::detail;
  if (!y.requires_grad())
    throw autograd_error(cat_str("tl::autograd::grad: the output (shape ", shape_str(y.shape()),
                                 ") does not require grad and has no grad_fn"));
  if (gy.shape() != y.shape())
    throw shape_error(cat_str("tl::autograd::grad: grad_output of shape ", shape_str(gy.shape()),
                              " does not match the output's shape ", shape_str(y.shape())));
  capture_map cap;
  auto want = [&](const auto& x, std::size_t k) {
    if (!x.requires_grad())
      throw autograd_error(cat_str("tl::autograd::grad: input ", k, " (shape ", shape_str(x.shape()),
                                   ") does not require grad"));
    cap[x.autograd_meta_handle().get()] = nullptr;
  };
  (want(std::get<K>(xs), K), ...);
  engine_ctx ctx;
  ctx.retain_graph = o.retain_graph || o.create_graph;
  ctx.create_graph = o.create_graph;
  ctx.capture = &cap;
  run_from(
      y, ctx, [&](auto& node) { node.receive(gy); },
      [&](const auto& m) {
        set_grad_enabled mode(o.create_graph);
        deliver(m, gy, ctx);
      });
  auto take = [&](const auto& x, std::size_t k) {
    using G = dyn_tensor_t<std::remove_cvref_t<decltype(x)>>;
    if (const auto g = captured<G>(cap, x)) return *g;
    if (!o.allow_unused)
      throw autograd_error(cat_str("tl::autograd::grad: input ", k, " (shape ", shape_str(x.shape()),
                                   ") was not used to compute the output; pass allow_unused = true if this is "
                                   "expected"));
    return undefined_tensor<typename G::value_type, G::rank>();
  };
  return std::tuple<dyn_tensor_t<X>...>{take(std::get<K>(xs), K)...};
}
}  // namespace detail

/// @brief Gradients of `output` with respect to `inputs` (a std::tie of tensors), with
/// `grad_output` as the output's gradient (torch.autograd.grad). Nothing is accumulated into .grad().
template <class Y, class... X>
std::tuple<tl::detail::dyn_tensor_t<X>...> grad(const Y& output, const std::tuple<X&...>& inputs,
                                                const tl::detail::dyn_tensor_t<Y>& grad_output,
                                                const grad_options& o = {}) {
  const std::tuple<const X&...> xs = std::apply([](const X&... x) { return std::tuple<const X&...>(x...); }, inputs);
  return detail::grad_impl(output, grad_output, xs, o, std::index_sequence_for<X...>{});
}
/// @brief Gradients of a one-element `output` with respect to `inputs`.
template <class Y, class... X>
std::tuple<tl::detail::dyn_tensor_t<X>...> grad(const Y& output, const std::tuple<X&...>& inputs,
                                                const grad_options& o = {}) {
  if (output.numel() != 1)
    throw autograd_error(tl::detail::cat_str("tl::autograd::grad: the output has shape ",
                                             tl::detail::shape_str(output.shape()),
                                             "; a grad_output is needed for outputs with more than one element"));
  return grad(output, inputs, full<typename Y::value_type>(output.shape(), typename Y::value_type(1), output.device()),
              o);
}

namespace detail {
template <class F, class X>
auto call_eval(F& f, const X& x) {
  return tl::eval(f(x));
}
template <class X>
X fresh_input(const X& x) {
  X c = [&] {
    no_grad g;
    return X(x.clone());
  }();
  c.requires_grad_();
  return c;
}
/// Writes g (shape of x) into row `row` of the [m, n] matrix view of J.
template <class J, class G>
void put_row(J& jm, index_t row, const G& g, index_t n) {
  no_grad guard;
  if (!g.defined()) {
    jm.select(0, row) = 0;
    return;
  }
  jm.select(0, row) = g.contiguous().reshape(n);
}
/// Vectorized backward: the gradients with respect to each of xs for a batch of output gradients
/// (gyb: [batch] ++ y's shape), each as one tensor [batch] ++ its shape, from ONE run of the graph in
/// which every gradient carries the batch dim; null where an input is not reached.
template <class Y, class... X>
std::tuple<std::shared_ptr<tensor<typename X::value_type, X::rank + 1>>...> grad_batched_all(
    const Y& y, const tensor<typename Y::value_type, Y::rank + 1>& gyb, bool retain_graph, const X&... xs) {
  using namespace tl::detail;
  capture_map cap;
  ((cap[xs.autograd_meta_handle().get()] = nullptr), ...);
  engine_ctx ctx;
  ctx.retain_graph = retain_graph;
  ctx.capture = &cap;
  ctx.batch = gyb.shape()[0];
  run_from(
      y, ctx, [&](auto& node) { node.receive_batched(gyb); },
      [&](const auto& m) {
        no_grad guard;
        deliver_batched(m, gyb, ctx);
      });
  return {captured<tensor<typename X::value_type, X::rank + 1>>(cap, xs)...};
}
/// The same for one input x, the graph retained: undefined when x is not reached.
template <class Y, class X>
tensor<typename X::value_type, X::rank + 1> grad_batched(const Y& y, const tensor<typename Y::value_type, Y::rank + 1>& gyb,
                                                         const X& x) {
  if (const auto g = std::get<0>(grad_batched_all(y, gyb, true, x))) return *g;
  return tl::detail::undefined_tensor<typename X::value_type, X::rank + 1>();
}
/// Cotangent i of the outputs, one-hot, in the shape of y: `buf` (flat, y's size) overwritten in
/// place, or a fresh tensor when `fresh` (a recorded backward may keep it).
template <class Y, class B>
tl::detail::dyn_tensor_t<Y> one_hot(const Y& y, B& buf, index_t i, bool fresh) {
  no_grad ng;
  if (fresh) buf = zeros<typename Y::value_type>(shape_t<1>{y.numel()}, y.device());
  else buf = 0;
  buf(i) = 1;
  return tl::detail::dyn_tensor_t<Y>(buf.reshape(y.shape()));
}
/// The identity as m cotangents of shape s: [m] ++ s, cotangent i one-hot at flat index i.
template <class T, std::size_t R>
tensor<T, R + 1> unit_cotangents(const shape_t<R>& s, index_t m, tl::device dev) {
  return eye<T>(m, m, dev).reshape(tl::detail::batched_shape(m, s));
}
/// Writes the batched gradients gb ([m] ++ x's shape) into the [m, n] matrix view of J.
template <class J, class GB>
void put_rows(J& jm, const GB& gb, index_t m, index_t n) {
  no_grad guard;
  if (!gb.defined()) return;  // J stays zero
  jm.copy_(gb.reshape(m, n));
}
template <class Y, class X, std::size_t RJ>
tensor<typename X::value_type, RJ> jac_shape_tensor(const Y& y, const X& x) {
  shape_t<RJ> s{};
  for (std::size_t i = 0; i < Y::rank; ++i) s[i] = y.shape()[i];
  for (std::size_t i = 0; i < X::rank; ++i) s[Y::rank + i] = x.shape()[i];
  return zeros<typename X::value_type>(s, x.device());
}
}  // namespace detail

/// @brief Gradients for a batch of output gradients at once (torch.autograd.grad with
/// is_grads_batched=True): `grad_outputs` has a leading batch dim ([B] ++ the output's shape), and
/// so has each input's gradient ([B] ++ its shape); row b is what grad gives for grad_outputs[b].
/// One backward pass carries the whole batch (ops without a batched rule run their rule once per
/// row inside it, as torch's vmap falls back to a loop). Options as grad's, except create_graph
/// (the batched pass records nothing: autograd_error). Nothing is accumulated into .grad().
template <class Y, class... X>
std::tuple<tensor<typename X::value_type, X::rank + 1>...> grad_batched(
    const Y& output, const std::tuple<X&...>& inputs, const tensor<typename Y::value_type, Y::rank + 1>& grad_outputs,
    const grad_options& o = {}) {
  using namespace tl::detail;
  if (o.create_graph)
    throw autograd_error("tl::autograd::grad_batched: create_graph is not supported with a batch of grad_outputs "
                         "(the batched backward records nothing); call grad per row instead");
  if (!output.requires_grad())
    throw autograd_error(cat_str("tl::autograd::grad_batched: the output (shape ", shape_str(output.shape()),
                                 ") does not require grad and has no grad_fn"));
  const auto& gs = grad_outputs.shape();
  bool same = true;
  for (std::size_t d = 0; d < Y::rank; ++d) same = same && gs[d + 1] == output.shape()[d];
  if (!same)
    throw shape_error(cat_str("tl::autograd::grad_batched: grad_outputs of shape ", shape_str(gs),
                              " is not a batch of the output's shape ", shape_str(output.shape()),
                              " (expected [B] followed by it)"));
  return std::apply(
      [&](const X&... x) {
        std::size_t k = 0;
        const auto check = [&](const auto& xi) {
          if (!xi.requires_grad())
            throw autograd_error(cat_str("tl::autograd::grad_batched: input ", k, " (shape ", shape_str(xi.shape()),
                                         ") does not require grad"));
          ++k;
        };
        (check(x), ...);
        const index_t b = gs[0];
        if (b == 0)  // an empty batch: empty gradients, the graph untouched
          return std::tuple<tensor<typename X::value_type, X::rank + 1>...>{
              zeros<typename X::value_type>(batched_shape(0, x.shape()), x.device())...};
        const auto got = detail::grad_batched_all(output, grad_outputs, o.retain_graph, x...);
        k = 0;
        const auto take = [&](const auto& g, const auto& xi) {
          using G = std::remove_cvref_t<decltype(*g)>;
          const std::size_t i = k++;
          if (g) return *g;
          if (!o.allow_unused)
            throw autograd_error(cat_str("tl::autograd::grad_batched: input ", i, " (shape ", shape_str(xi.shape()),
                                         ") was not used to compute the output; pass allow_unused = true if this "
                                         "is expected"));
          return undefined_tensor<typename G::value_type, G::rank>();
        };
        return std::apply([&](const auto&... g) { return std::tuple<tensor<typename X::value_type, X::rank + 1>...>{take(g, x)...}; },
                          got);
      },
      inputs);
}

/// @brief (f(x), v^T J): the vector-Jacobian product (torch.autograd.functional.vjp).
template <class F, class X>
auto vjp(F&& f, const X& x, const tl::detail::dyn_tensor_t<decltype(tl::eval(f(x)))>& v, bool create_graph = false) {
  const auto xi = detail::fresh_input(tl::detail::dyn_tensor_t<X>(x.detach()));
  const auto y = detail::call_eval(f, xi);
  auto [g] = grad(y, std::tie(xi), v, {create_graph, create_graph, true});
  if (!g.defined()) g = zeros<typename X::value_type>(x.shape(), x.device());
  return std::make_pair(y.detach(), g);
}

/// @brief (f(x), J v): the Jacobian-vector product (torch.autograd.functional.jvp), computed with
/// the double-backward trick (needs TL_AUTOGRAD=2).
template <class F, class X>
auto jvp(F&& f, const X& x, const tl::detail::dyn_tensor_t<X>& v) {
  const auto xi = detail::fresh_input(tl::detail::dyn_tensor_t<X>(x.detach()));
  const auto y = detail::call_eval(f, xi);
  using YT = std::remove_cvref_t<decltype(y)>;
  auto u = zeros<typename YT::value_type>(y.shape(), y.device());
  u.requires_grad_();
  auto [g] = grad(y, std::tie(xi), u, {true, true, true});  // g = J^T u, linear in u
  if (!g.defined() || !g.requires_grad()) return std::make_pair(y.detach(), zeros_like(y.detach()));
  auto [jv] = grad(g, std::tie(u), v, {false, false, true});
  if (!jv.defined()) jv = zeros_like(y.detach());
  return std::make_pair(y.detach(), jv);
}

/// @brief Options of tl::autograd::jacobian and hessian (torch.autograd.functional's keywords).
struct jacobian_options {
  /// jacobian: record the backward passes, so that the result is differentiable with respect to x
  /// (TL_AUTOGRAD=2; computed row by row)
  bool create_graph = false;
  /// One backward pass for all rows: every gradient in the graph carries a leading dim of cotangents
  /// (torch's vectorize=True). Nodes without a batched rule run once per row inside that pass.
  bool vectorize = false;
};

/// @brief The Jacobian of f at x, shape f(x).shape() ++ x.shape() (torch.autograd.functional.jacobian):
/// one backward pass per output element through one recorded graph, or with `vectorize` one
/// backward pass carrying every output element's cotangent at once.
template <class F, class X>
auto jacobian(F&& f, const X& x, const jacobian_options& o) {
  using XT = tl::detail::dyn_tensor_t<X>;
  // With create_graph, an x that requires grad is used as it is, so that the Jacobian is
  // differentiable with respect to x (as torch's); otherwise a detached copy is differentiated.
  const XT xi = o.create_graph && x.requires_grad() ? XT(x) : detail::fresh_input(XT(x.detach()));
  const auto y = detail::call_eval(f, xi);
  using YT = std::remove_cvref_t<decltype(y)>;
  constexpr std::size_t RJ = YT::rank + XT::rank;
  auto jac = detail::jac_shape_tensor<YT, XT, RJ>(y, xi);
  const index_t m = y.numel(), n = xi.numel();
  if (m == 0 || n == 0) return jac;
  auto jm = jac.reshape(m, n);
  if (!y.requires_grad()) return jac;  // f does not depend on x
  if (o.vectorize && !o.create_graph) {
    const auto E = detail::unit_cotangents<typename YT::value_type>(y.shape(), m, y.device());
    detail::put_rows(jm, detail::grad_batched(y, E, xi), m, n);
    return jac;
  }
  // Row by row. With create_graph the rows are stacked with recorded operations, so that the
  // result is differentiable; otherwise each is written into J.
  std::vector<XT> rows;
  auto e = zeros<typename YT::value_type>(shape_t<1>{m}, y.device());
  for (index_t i = 0; i < m; ++i) {
    auto [g] = grad(y, std::tie(xi), detail::one_hot(y, e, i, o.create_graph), {true, o.create_graph, true});
    if (!o.create_graph) detail::put_row(jm, i, g, n);
    else rows.push_back(g.defined() ? g : XT(zeros<typename XT::value_type>(xi.shape(), xi.device())));
  }
  if (o.create_graph) return tensor<typename XT::value_type, RJ>(tl::stack(rows, 0).reshape(jac.shape()));
  return jac;
}

/// @brief The Jacobian of f at x (one backward pass per output element).
template <class F, class X>
auto jacobian(F&& f, const X& x, bool create_graph = false) {
  return jacobian(std::forward<F>(f), x, jacobian_options{create_graph, false});
}

/// @brief The Hessian of a scalar function f at x, shape x.shape() ++ x.shape()
/// (torch.autograd.functional.hessian; needs TL_AUTOGRAD=2): one backward pass per row through the
/// recorded gradient, or one vectorized pass for all rows with `o.vectorize` (`o.create_graph` is not
/// used here).
template <class F, class X>
auto hessian(F&& f, const X& x, const jacobian_options& o = {}) {
  using XT = tl::detail::dyn_tensor_t<X>;
  const auto xi = detail::fresh_input(XT(x.detach()));
  const auto y = detail::call_eval(f, xi);
  if (y.numel() != 1)
    throw autograd_error(tl::detail::cat_str("tl::autograd::hessian: f must return one element, not shape ",
                                             tl::detail::shape_str(y.shape())));
  constexpr std::size_t RH = 2 * XT::rank;
  auto hes = detail::jac_shape_tensor<XT, XT, RH>(xi, xi);
  const index_t n = xi.numel();
  if (n == 0 || !y.requires_grad()) return hes;
  auto [g] = grad(y, std::tie(xi), {true, true, true});
  if (!g.defined() || !g.requires_grad()) return hes;  // f is linear in x
  auto hm = hes.reshape(n, n);
  if (o.vectorize) {
    const auto E = detail::unit_cotangents<typename XT::value_type>(xi.shape(), n, xi.device());
    detail::put_rows(hm, detail::grad_batched(g, E, xi), n, n);
    return hes;
  }
  auto e = zeros<typename XT::value_type>(shape_t<1>{n}, xi.device());
  for (index_t i = 0; i < n; ++i) {
    auto [h] = grad(g, std::tie(xi), detail::one_hot(xi, e, i, false), {true, false, true});
    detail::put_row(hm, i, h, n);
  }
  return hes;
}

/// @brief (f(x), v^T H) for a scalar function f (torch.autograd.functional.vhp; TL_AUTOGRAD=2).
template <class F, class X>
auto vhp(F&& f, const X& x, const tl::detail::dyn_tensor_t<X>& v) {
  using XT = tl::detail::dyn_tensor_t<X>;
  const auto xi = detail::fresh_input(XT(x.detach()));
  const auto y = detail::call_eval(f, xi);
  if (y.numel() != 1)
    throw autograd_error(tl::detail::cat_str("tl::autograd::vhp: f must return one element, not shape ",
                                             tl::detail::shape_str(y.shape())));
  auto [g] = grad(y, std::tie(xi), {true, true, true});
  if (!g.defined() || !g.requires_grad()) return std::make_pair(y.detach(), zeros_like(XT(x)));
  auto [r] = grad(g, std::tie(xi), v, {false, false, true});
  if (!r.defined()) r = zeros_like(XT(x));
  return std::make_pair(y.detach(), r);
}

/// @brief (f(x), H v) for a scalar function f (torch.autograd.functional.hvp; TL_AUTOGRAD=2). The
/// Hessian of a real function is symmetric, so this is v^T H computed with one double backward.
template <class F, class X>
auto hvp(F&& f, const X& x, const tl::detail::dyn_tensor_t<X>& v) {
  return vhp(std::forward<F>(f), x, v);
}

}  // namespace tl::autograd
