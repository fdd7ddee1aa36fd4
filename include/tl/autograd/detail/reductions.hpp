#pragma once
/// @file reductions.hpp
/// @brief Internal: gradients of reductions, scans and softmax (detail header).
///
/// A reduction over an expression that requires grad first materializes the expression (one
/// recorded node), then reduces it and records the reduction. Backward formulas are written with
/// recorded operations (sum_to, views, materialized expressions), so create_graph works; where a
/// formula reads the forward result, it is recomputed with recorded operations under create_graph.
///
/// prod and cumprod are differentiable any number of times. Their first-order gradients divide by
/// the input where it has no zeros and take exact non-recorded paths where it has. Under
/// create_graph an input with zeros gets exact recorded formulas without division: prod's gradient
/// is the product of the other elements of the slice (exclusive cumprods from the left and from the
/// right), cumprod's sums g_j conj(prod_{i <= j, i != k} x_i) over j >= k with one cumprod over an
/// n x n matrix per slice (O(n^2) per slice of n elements, as torch's loop).
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tl/autograd/detail/expr_node.hpp"
#include "tl/autograd/detail/views.hpp"
#include "tl/ops/cat.hpp"
#include "tl/reduce/cumulative.hpp"
#include "tl/reduce/detail/reducers.hpp"
#include "tl/reduce/detail/run.hpp"
#include "tl/reduce/logical.hpp"
#include "tl/reduce/min_max.hpp"
#include "tl/reduce/prod.hpp"

namespace tl::detail {

/// |x|^2 as an expression (real for complex x).
template <class X>
auto abs_sq(const X& x) {
  if constexpr (is_complex_v<vt<X>>) return tl::real(x * tl::conj(x));
  else return x * x;
}
/// sgn(x): sign for reals, x / |x| (0 at 0) for complex.
template <class X>
auto sgn(const X& x) {
  if constexpr (is_complex_v<vt<X>>) return tl::where(x == 0, 0, x / tl::abs(x));
  else return tl::sign(x);
}

/// The keepdim shape of a reduction and its element count.
template <std::size_t R>
struct keep_info {
  shape_t<R> keep{};
  index_t n = 1;
};
template <std::size_t R, class... A>
keep_info<R> keep_of(const shape_t<R>& s, const A&... args) {
  const auto plan = make_plan<R>("autograd", s, args...);
  return {keep_shape(s, plan.mask), plan.n};
}

/// A tensor's dims in two groups, the `last` ones moved to the end (in order): the tensor as a
/// [rows, n] matrix with one slice over the `last` dims per row, and back, through recorded views
/// (permute, reshape), so formulas written on the matrix stay differentiable.
template <std::size_t R>
struct row_layout {
  std::array<index_t, R> perm{}, inv{};
  shape_t<R> moved{};  // the shape after the permutation
  index_t rows = 1, n = 1;

  row_layout(const shape_t<R>& s, const std::array<bool, R>& last) {
    std::size_t o = 0;
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t d = 0; d < R; ++d)
        if (last[d] == (pass == 1)) {
          perm[o] = static_cast<index_t>(d);
          inv[d] = static_cast<index_t>(o);
          moved[o++] = s[d];
          (last[d] ? n : rows) *= s[d];
        }
  }
  template <class V>
  tensor<V, 2> to_rows(const tensor<V, R>& t) const {
    return t.permute(perm).reshape(shape_t<2>{rows, n});
  }
  template <class V>
  tensor<V, R> from_rows(const tensor<V, 2>& t) const {
    return t.reshape(moved).permute(inv);
  }
};

/// prod_{i < k} t_i along dim 1 of a [rows, n] matrix (n >= 1), recorded: the cumprod of a one
/// followed by the first n - 1 elements (no division, so exact with zeros).
template <class V>
tensor<V, 2> exclusive_cumprod(const tensor<V, 2>& t) {
  const tensor<V, 2> one = ones<V>(shape_t<2>{t.shape()[0], 1}, t.device());
  return tl::cumprod(tl::cat({one, t.narrow(1, 0, t.shape()[1] - 1)}, 1), 1);
}

/// The gradient of prod over the dims `last` (of x's shape): prod_{k != i} x_k over the slice of
/// x_i, recorded; its derivative is prod_{k != i, j} x_k (0 for j == i), zeros or not.
template <class V, std::size_t R>
tensor<V, R> prod_others_recorded(const tensor<V, R>& x, const std::array<bool, R>& last) {
  const row_layout<R> lay(x.shape(), last);
  const tensor<V, 2> x2 = lay.to_rows(x);
  const tensor<V, 2> left = exclusive_cumprod(x2);
  const tensor<V, 2> right = exclusive_cumprod(tensor<V, 2>(x2.flip(1))).flip(1);
  return lay.from_rows(materialize(left * right));
}

/// cumprod's vector-Jacobian product on [rows, n] matrices, recorded (exact with zeros):
/// grad_k = conj(prod_{i < k} x_i) sum_{j >= k} g_j conj(prod_{k < i <= j} x_i). The inner
/// products are one cumprod along j of A[r, k, j] = (j > k ? x[r, j] : 1), viewed as rows * n rows.
template <class V>
tensor<V, 2> cumprod_vjp_recorded(const tensor<V, 2>& x2, const tensor<V, 2>& g2) {
  const index_t rows = x2.shape()[0], n = x2.shape()[1];
  const tensor<std::int64_t, 1> pos = arange<std::int64_t>(0, n, 1, x2.device());
  const tensor<std::int64_t, 3> k = pos.reshape(shape_t<3>{1, n, 1});
  const tensor<std::int64_t, 3> j = pos.reshape(shape_t<3>{1, 1, n});
  const tensor<V, 3> a = materialize(tl::where(j > k, x2.unsqueeze(1), 1));
  const tensor<V, 3> c = tl::cumprod(a.reshape(shape_t<2>{rows * n, n}), 1).reshape(shape_t<3>{rows, n, n});
  const tensor<V, 3> s = sum_to(tl::where(j >= k, g2.unsqueeze(1) * cj(c), 0), shape_t<3>{rows, n, 1});
  return materialize(cj(exclusive_cumprod(x2)) * s.reshape(shape_t<2>{rows, n}));
}

template <red_kind kind, class V, std::size_t R>
tensor<V, R> reduction_backward(const tensor<V, R>& g_keep, const tensor<V, R>& x,
                                const tensor<V, R>& y_keep, const keep_info<R>& ki, const grad_info& info) {
  using Rt = real_t<V>;
  const auto xs = x.shape();
  const auto& gk = g_keep;
  const Rt n = static_cast<Rt>(ki.n);
  const bool higher = is_grad_enabled();  // create_graph: recompute what is read from the forward
  const tensor<V, R> xd = x.detach();
  (void)n;
  (void)xd;
  (void)higher;
  (void)info;
  if constexpr (kind == red_kind::sum) {
    return gk.expand(xs);
  } else if constexpr (kind == red_kind::mean) {
    return materialize(gk.expand(xs) / n);
  } else if constexpr (kind == red_kind::prod) {
      if (higher && x.requires_grad()) {
        // create_graph: recorded formulas, so that the gradient's own derivative is exact
        if (x.numel() == 0) return zeros<V>(xs, x.device());
        std::array<bool, R> red{};
        for (std::size_t d = 0; d < R; ++d) red[d] = ki.keep[d] == 1 && xs[d] != 1;
        if (tl::any_of(xd == 0).item()) return materialize(gk * cj(prod_others_recorded(x, red)));
        const row_layout<R> lay(xs, red);
        const tensor<V, R> yk = tl::prod(lay.to_rows(x), 1).reshape(ki.keep);
        return materialize(gk * cj(yk / x));
      }
      const auto zeros = sum_to(tl::astype<Rt>(xd == 0), ki.keep);
      tensor<V, R> nz(ki.keep);
      {
        // product of the nonzero elements of each reduced slice
        auto node = to_node(tl::where(xd == 0, 1, xd));
        reduce_plan<R, R> plan;
        for (std::size_t d = 0; d < R; ++d) {
          plan.mask[d] = ki.keep[d] == 1 && xs[d] != 1;
          plan.out_shape[d] = ki.keep[d];
        }
        plan.n = ki.n;
        nz = reduce_into_tensor<V>(prod_reducer<V>{}, node, plan, fin_acc<V>{});
      }
      return materialize(tl::where(xd == 0, tl::where(zeros == 1, gk * cj(nz), 0), gk * cj(y_keep / xd)));
  } else if constexpr (kind == red_kind::extreme) {
      const auto cnt = sum_to(tl::astype<V>(xd == y_keep), ki.keep);
      return materialize(tl::where(xd == y_keep, gk / cnt, 0));
  } else if constexpr (kind == red_kind::var || kind == red_kind::std_) {
      const tensor<V, R> mk = materialize(sum_to(x, ki.keep) / n);
      const Rt div = static_cast<Rt>(std::max(0.0, static_cast<double>(ki.n) - info.corr));
      if constexpr (kind == red_kind::var) {
        return materialize(gk * (x - mk) * (Rt(2) / div));
      } else {
        const tensor<V, R> sd =
            higher ? materialize(tl::astype<V>(tl::sqrt(sum_to(abs_sq(x - mk), ki.keep) / div))) : y_keep;
        return materialize(gk * (x - mk) / (sd * div));
      }
  } else if constexpr (kind == red_kind::norm) {
      const double p = info.p;
      if (p == 0) return zeros<V>(xs, x.device());
      if (p == 1) return materialize(gk * sgn(x));
      if (std::isinf(p)) {
        const auto ax = tl::abs(xd);
        const auto cnt = sum_to(tl::astype<V>(ax == y_keep), ki.keep);
        return materialize(tl::where(ax == y_keep, gk * sgn(x) / cnt, 0));
      }
      if (p == 2) {
        const tensor<V, R> nk = higher ? materialize(tl::astype<V>(tl::sqrt(sum_to(abs_sq(x), ki.keep)))) : y_keep;
        return materialize(tl::where(nk == 0, 0, gk * x / nk));
      }
      const tensor<V, R> nk =
          higher ? materialize(tl::astype<V>(tl::pow(sum_to(tl::pow(tl::abs(x), p), ki.keep), 1.0 / p))) : y_keep;
      return materialize(
          tl::where((nk == 0) || (x == 0), 0, gk * x * tl::pow(tl::abs(x), p - 2) / tl::pow(nk, p - 1)));
  } else {
    static_assert(kind == red_kind::logsumexp);
      tensor<V, R> lk = y_keep;
      if (higher) {
        const auto m = materialize(tl::where(tl::isinf(y_keep), 0, y_keep));  // a constant shift
        lk = materialize(tl::log(sum_to(tl::exp(x - m), ki.keep)) + m);
      }
      return materialize(gk * tl::exp(x - lk));
  }
}

template <red_kind K, class Out, class F, class E, class... A>
Out record_reduction(F fwd, const E& e, grad_info info, const A&... args) {
  using V = value_of<E>;
  constexpr std::size_t R = rank_of<E>;
  const tensor<V, R> x = materialize_forward(e);
  Out y = [&]() -> Out {
    no_grad guard;
    return fwd(x);
  }();
  using Y = Out;
  const keep_info<R> ki = keep_of<R>(x.shape(), args...);
  static constexpr const char* names[] = {"SumBackward",  "MeanBackward", "ProdBackward",      "MaxBackward",
                                          "VarBackward",  "StdBackward",  "NormBackward",      "LogsumexpBackward"};
  auto bw = [ki, info](const dyn_tensor_t<Y>& g, const std::tuple<tensor<V, R>>& in, const dyn_tensor_t<Y>& res,
                       const auto&) {
    using GV = typename Y::value_type;
    const auto& x = std::get<0>(in);
    const tensor<GV, R> gk = g.reshape(ki.keep);
    const tensor<GV, R> yk = res.defined() ? tensor<GV, R>(res.reshape(ki.keep)) : undefined_tensor<GV, R>();
    if constexpr (std::is_same_v<GV, V>) {
      return std::make_tuple(reduction_backward<K, V>(gk, x, yk, ki, info));
    } else {
      // real-valued reductions of complex input (norm, var, std): the gradient is complex
      const tensor<V, R> gkc = materialize(tl::astype<V>(gk));
      const tensor<V, R> ykc = yk.defined() ? materialize(tl::astype<V>(yk)) : undefined_tensor<V, R>();
      return std::make_tuple(reduction_backward<K, V>(gkc, x, ykc, ki, info));
    }
  };
  const bool keep = K == red_kind::prod || K == red_kind::extreme || K == red_kind::std_ || K == red_kind::norm ||
                    K == red_kind::logsumexp;
  const bool reads = K != red_kind::sum && K != red_kind::mean;
  if constexpr ((K == red_kind::sum || K == red_kind::mean) && std::is_same_v<typename Y::value_type, V>) {
    // Vectorized backward: every cotangent's gradient broadcast back over the reduced dims at once.
    const shape_t<R> xs = x.shape();
    auto bbw = [ki, xs](const tensor<V, Y::rank + 1>& gb, const auto&, const auto&, const auto&) {
      const index_t batch = gb.shape()[0];
      const tensor<V, 1> gf = flat_view(gb);
      const auto kb = batched_shape(batch, ki.keep);
      const tensor<V, R + 1> gk(gf.storage_handle(), gf.data(), kb, contiguous_strides(kb), gf.is_conj());
      tensor<V, R + 1> out(batched_shape(batch, xs), gb.device());
      if constexpr (K == red_kind::mean) eval_into<assign_op::set>(out, to_node(gk) / static_cast<real_t<V>>(ki.n));
      else eval_into<assign_op::set>(out, gk);
      return std::make_tuple(out);
    };
    record_fn_batched(names[static_cast<int>(K)], y, std::move(bw), std::move(bbw), std::array<bool, 1>{reads}, keep,
                      x);
  } else if constexpr (std::is_same_v<typename Y::value_type, V> || is_complex_v<V>) {
    // Vectorized backward of prod, amax / amin, var, std, norm and logsumexp: each rule is the output
    // gradient, broadcast over the reduced dims, times a local factor (linear in the gradient), so
    // the factor comes once from the plain rule for a gradient of ones; the cotangents, broadcast
    // one by one (rank-R kernels), are multiplied by it in one flat pass shared with the fused
    // nodes (0 where the factor is exactly 0, as there). The real-valued reductions of complex input
    // (norm, var, std) take a real gradient: the complex factor times it.
    using GV = typename Y::value_type;
    const shape_t<R> xs = x.shape();
    auto bbw = [ki, info, xs](const tensor<GV, Y::rank + 1>& gb, const std::tuple<tensor<V, R>>& in,
                              const dyn_tensor_t<Y>& res, const auto&) {
      no_grad guard;
      const auto& x = std::get<0>(in);
      const tensor<V, R> yk = [&] {
        if (!res.defined()) return undefined_tensor<V, R>();
        if constexpr (std::is_same_v<GV, V>) return tensor<V, R>(res.reshape(ki.keep));
        else return tensor<V, R>(materialize(tl::astype<V>(res.reshape(ki.keep))));
      }();
      const tensor<V, R> factor = reduction_backward<K, V>(ones<V>(ki.keep, x.device()), x, yk, ki, info);
      const index_t batch = gb.shape()[0];
      const tensor<GV, 1> gf = flat_view(gb);
      const auto kb = batched_shape(batch, ki.keep);
      const tensor<GV, R + 1> gk(gf.storage_handle(), gf.data(), kb, contiguous_strides(kb), gf.is_conj());
      tensor<GV, R + 1> ge(batched_shape(batch, xs), gb.device());
      for (index_t b = 0; b < batch; ++b)
        raw_write(batch_slice<GV, R>(ge, b), tensor<GV, R>(batch_slice<GV, R>(gk, b).expand(xs)), false);
      return std::make_tuple(batched_leaf_gradient<V, GV, V, R, R>(ge, &factor, xs));
    };
    record_fn_batched(names[static_cast<int>(K)], y, std::move(bw), std::move(bbw), std::array<bool, 1>{reads}, keep,
                      x);
  } else {
    record_fn(names[static_cast<int>(K)], y, std::move(bw), std::array<bool, 1>{reads}, keep, x);
  }
  return y;
}

/// max(x, dim) / min(x, dim): the gradient goes to the selected position only (torch).
template <class VI, class F, class E, class D, class... K>
VI record_values_indices(F fwd, const E& e, D dim, const K&... keep) {
  using V = value_of<E>;
  constexpr std::size_t R = rank_of<E>;
  const tensor<V, R> x = materialize_forward(e);
  VI r = [&] {
    no_grad guard;
    return fwd(x);
  }();
  const keep_info<R> ki = keep_of<R>(x.shape(), dim, keep...);
  const std::size_t d = wrap_dim("max", static_cast<index_t>(dim), R);
  const auto idx = r.indices;
  // the gradient is g at the selected position along d, 0 elsewhere: where(pos == index, g, 0)
  shape_t<R> ps;
  ps.fill(1);
  ps[d] = x.shape()[d];
  const tensor<std::int64_t, R> pos = arange<std::int64_t>(0, x.shape()[d]).reshape(ps);
  const tensor<std::int64_t, R> ik = idx.reshape(ki.keep);
  auto bw = [ki, pos, ik](const auto& g, const auto&, const auto&, const auto&) {
    return std::make_tuple(materialize(tl::where(pos == ik, g.reshape(ki.keep), 0)));
  };
  // vectorized backward: the same expression written into each cotangent's block
  using VR = std::remove_cvref_t<decltype(std::declval<VI&>().values)>;
  auto bbw = [ki, pos, ik, xs = x.shape(), dev = x.device()](const tensor<V, VR::rank + 1>& gb, const auto&, const auto&,
                                                             const auto&) {
    return std::make_tuple(blockwise_batched<V, R, V, VR::rank>(gb, xs, dev, false, [&](const tensor<V, R>& block, const VR& g) {
      block.copy_(tl::where(pos == ik, g.reshape(ki.keep), 0));
    }));
  };
  record_fn_batched("MaxBackward", r.values, std::move(bw), std::move(bbw), std::array<bool, 1>{false}, false, x);
  return r;
}

/// [batch] ++ t's shape, every cotangent reading t (stride 0 along the batch dim).
template <class V, std::size_t R>
tensor<V, R + 1> batch_broadcast(const tensor<V, R>& t, index_t batch) {
  shape_t<R + 1> st{};
  for (std::size_t k = 0; k < R; ++k) st[k + 1] = t.strides()[k];
  return tensor<V, R + 1>(t.storage_handle(), const_cast<V*>(t.data()), batched_shape(batch, t.shape()), st,
                          t.is_conj());
}

/// t reversed along dim d (a view: negative stride).
template <class V, std::size_t R>
tensor<V, R> reversed_view(const tensor<V, R>& t, std::size_t d) {
  shape_t<R> st = t.strides();
  const index_t n = t.shape()[d];
  st[d] = -st[d];
  return tensor<V, R>(t.storage_handle(), const_cast<V*>(t.data()) + (n > 1 ? (n - 1) * t.strides()[d] : 0),
                      t.shape(), st, t.is_conj());
}

/// The adjoint of cumsum along d: sums from each position to the end, into a new contiguous tensor.
/// Never records (the vectorized backward's rules below run on [batch] ++ shape tensors).
template <class V, std::size_t R>
tensor<V, R> reverse_cumsum(const tensor<V, R>& g, std::size_t d) {
  const tensor<V, R> c = scan_impl<false>("cumsum", reversed_view<V, R>(g, d), static_cast<index_t>(d));
  tensor<V, R> out(g.shape(), g.device());
  eval_into<assign_op::set>(out, reversed_view<V, R>(c, d));
  return out;
}

/// cumprod's vector-Jacobian product along one slice of n elements with zeros, exact and O(n)
/// (torch's rule): with z the first zero, grad_k = (sum_{k <= j < z} g_j conj(y_j)) / conj(x_k) for
/// k < z (those x_k are nonzero), grad_z = sum_{j >= z} g_j conj(prod_{i <= j, i != z} x_i), and 0
/// beyond z (each product there holds x_z). x, g and out step by their own strides.
template <class V>
void cumprod_vjp_slice(const V* x, index_t xs, const V* g, index_t gs, V* out, index_t os, index_t n) {
  index_t z = 0;
  while (z < n && !(x[z * xs] == V(0))) ++z;
  V pre(1);  // y_{z-1}
  for (index_t j = 0; j < z; ++j) {
    pre = pre * x[j * xs];
    out[j * os] = g[j * gs] * conj_of(pre);  // g_j conj(y_j), summed from the end below
  }
  V acc(0);
  for (index_t k = z; k-- > 0;) {
    acc = acc + out[k * os];
    out[k * os] = acc / conj_of(x[k * xs]);
  }
  if (z == n) return;
  V run = pre, sum = g[z * gs] * conj_of(run);
  for (index_t j = z + 1; j < n; ++j) {
    run = run * x[j * xs];
    sum = sum + g[j * gs] * conj_of(run);
    out[j * os] = V(0);
  }
  out[z * os] = sum;
}

/// cumprod's exact vector-Jacobian product for an input x with zeros, along dim dx of x and dim dg
/// of g (Rg = Rx + 1: g holds a batch of cotangents in front, each using x's slices). Host code
/// (device tensors are staged through the host); never records.
template <class V, std::size_t Rg, std::size_t Rx>
tensor<V, Rg> cumprod_vjp_zeros(const tensor<V, Rg>& g, const tensor<V, Rx>& x, std::size_t dg, std::size_t dx) {
  const tensor<V, Rx> xh = x.contiguous().cpu();  // conjugate views resolved
  const tensor<V, Rg> gh = g.contiguous().cpu();
  tensor<V, Rg> out(g.shape());
  const index_t n = g.shape()[dg];
  const index_t xstep = xh.strides()[dx], gstep = gh.strides()[dg], ostep = out.strides()[dg];
  // every slice of g: its offset in g and out, and the offset of its slice of x
  const index_t slices = n ? g.numel() / n : 0;
  for (index_t sidx = 0; sidx < slices; ++sidx) {
    index_t rem = sidx, goff = 0, ooff = 0, xoff = 0;
    for (std::size_t q = Rg; q-- > 0;) {
      if (q == dg) continue;
      const index_t ext = g.shape()[q], i = rem % ext;
      rem /= ext;
      goff += i * gh.strides()[q];
      ooff += i * out.strides()[q];
      if (q >= Rg - Rx) xoff += i * xh.strides()[q - (Rg - Rx)];  // x's dim (a batch dim has none)
    }
    cumprod_vjp_slice(xh.data() + xoff, xstep, gh.data() + goff, gstep, out.data() + ooff, ostep, n);
  }
  return out.to(g.device());
}

/// Vectorized backward of softmax, log_softmax, cumsum and cumprod (an input without zeros; with
/// zeros: cumprod_vjp_zeros): every
/// cotangent of gb = [batch] ++ shape at once, along dim d + 1, by the same formulas as the plain
/// rules. x: the input, y: the result (softmax, log_softmax, cumprod).
template <dim_kind K, class V, std::size_t R>
tensor<V, R + 1> dim_op_batched(const tensor<V, R + 1>& gb, const tensor<V, R>& x, const tensor<V, R>& y,
                                const shape_t<R>& keep, std::size_t d) {
  const index_t batch = gb.shape()[0];
  if constexpr (K == dim_kind::cumsum) {
    return reverse_cumsum<V, R + 1>(gb, d + 1);
  } else {
    const tensor<V, R + 1> yb = batch_broadcast<V, R>(y, batch);
    tensor<V, R + 1> out(gb.shape(), gb.device());
    if constexpr (K == dim_kind::softmax) {
      tensor<V, R + 1> gy(gb.shape(), gb.device());
      eval_into<assign_op::set>(gy, to_node(gb) * to_node(yb));
      const tensor<V, R + 1> s = sum_to_tensor<V, R + 1, R + 1>(gy, batched_shape(batch, keep));
      eval_into<assign_op::set>(out, to_node(yb) * (to_node(gb) - to_node(s)));
    } else if constexpr (K == dim_kind::log_softmax) {
      const tensor<V, R + 1> s = sum_to_tensor<V, R + 1, R + 1>(gb, batched_shape(batch, keep));
      eval_into<assign_op::set>(out, to_node(gb) - tl::exp(to_node(yb)) * to_node(s));
    } else {  // cumprod: reverse_cumsum(g conj(y)) / conj(x)
      tensor<V, R + 1> gy(gb.shape(), gb.device());
      eval_into<assign_op::set>(gy, to_node(gb) * cj(to_node(yb)));
      const tensor<V, R + 1> rc = reverse_cumsum<V, R + 1>(gy, d + 1);
      eval_into<assign_op::set>(out, to_node(rc) / cj(to_node(batch_broadcast<V, R>(x, batch))));
    }
    return out;
  }
}

template <dim_kind K, class F, class E>
tensor<value_of<E>, rank_of<E>> record_dim_op(F fwd, const E& e, index_t dim) {
  using V = value_of<E>;
  constexpr std::size_t R = rank_of<E>;
  const tensor<V, R> x = materialize_forward(e);
  tensor<V, R> y = [&]() -> tensor<V, R> {
    no_grad guard;
    return fwd(x);
  }();
  const std::size_t d = wrap_dim("autograd", dim, R);
  shape_t<R> keep = x.shape();
  keep[d] = 1;
  static constexpr const char* names[] = {"SoftmaxBackward", "LogSoftmaxBackward", "CumsumBackward",
                                          "CumprodBackward"};
  auto bw = [keep, d](const tensor<V, R>& g, const std::tuple<tensor<V, R>>& in, const tensor<V, R>& res,
                           const auto&) {
    const auto& x = std::get<0>(in);
    const bool higher = is_grad_enabled();
    const index_t di = static_cast<index_t>(d);
    if constexpr (K == dim_kind::softmax || K == dim_kind::log_softmax) {
      tensor<V, R> y = res;
      if (higher) {
        const auto m = materialize(tl::amax(x.detach(), di, tl::keepdim));
        if constexpr (K == dim_kind::softmax) {
          const tensor<V, R> ex = materialize(tl::exp(x - m));
          y = materialize(ex / sum_to(ex, keep));
        } else {
          y = materialize(x - m - tl::log(sum_to(tl::exp(x - m), keep)));
        }
      }
      if constexpr (K == dim_kind::softmax) return std::make_tuple(materialize(y * (g - sum_to(g * y, keep))));
      else return std::make_tuple(materialize(g - tl::exp(y) * sum_to(g, keep)));
    } else if constexpr (K == dim_kind::cumsum) {
      return std::make_tuple(tensor<V, R>(tl::cumsum(g.flip(di), di).flip(di)));
    } else {
      // cumprod: d y_j / d x_k = prod_{i <= j, i != k} x_i. Without zeros this is y_j / x_k.
      const bool has_zero = tl::any_of(x.detach() == 0).item();
      if (!has_zero) {
        const tensor<V, R> y = higher ? tensor<V, R>(tl::cumprod(x, di)) : res;
        const tensor<V, R> rc = tl::cumsum(materialize(g * cj(y)).flip(di), di).flip(di);
        return std::make_tuple(materialize(rc / cj(x)));
      }
      if (higher && (x.requires_grad() || g.requires_grad())) {
        // create_graph: the exact formula with recorded operations, on the slices as rows
        std::array<bool, R> last{};
        last[d] = true;
        const row_layout<R> lay(x.shape(), last);
        return std::make_tuple(lay.from_rows(cumprod_vjp_recorded(lay.to_rows(x), lay.to_rows(g))));
      }
      // Exact, O(n) per slice, when zeros are present.
      no_grad guard;
      return std::make_tuple(cumprod_vjp_zeros<V, R, R>(g, x.detach(), d, d));
    }
  };
  // Vectorized backward: every cotangent at once (cumprod of an input with zeros by the exact rule,
  // each slice of x serving every cotangent).
  auto bbw = [keep, d](const tensor<V, R + 1>& gb, const std::tuple<tensor<V, R>>& in, const tensor<V, R>& res,
                       const std::array<bool, 1>&) -> std::optional<std::tuple<tensor<V, R + 1>>> {
    const auto& x = std::get<0>(in);
    if constexpr (K == dim_kind::cumprod) {
      if (tl::any_of(x.detach() == 0).item()) return std::make_tuple(cumprod_vjp_zeros<V, R + 1, R>(gb, x.detach(), d + 1, d));
    }
    return std::make_tuple(dim_op_batched<K, V, R>(gb, x, res, keep, d));
  };
  const bool reads = K != dim_kind::cumsum;
  record_fn_batched(names[static_cast<int>(K)], y, std::move(bw), std::move(bbw), std::array<bool, 1>{reads},
                    K != dim_kind::cumsum, x);
  return y;
}

}  // namespace tl::detail
