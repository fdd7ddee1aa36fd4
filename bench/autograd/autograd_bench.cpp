// Autograd: tl's tape (one node per fused assignment, fused adjoint expressions) against LibTorch
// 1.13's eager autograd, single-threaded throughout.
//
//   chain:    loss = sum(tanh(sin(x)*w + exp(-(x*x)) - sigmoid(w)*x)) over 1M floats: exactly 10
//             elementwise ops (sin, *, *, neg, exp, +, sigmoid, *, -, tanh) and a sum; x and w require
//             grad. Forward only, backward only and the whole step (forward, backward, zero_grad).
//   chain1:   a second 10-op chain that reads x and w once each:
//             loss = sum(tanh(cos(log(exp(-sigmoid(sin(x)*w)) + 1) * 0.5))). tl's backward makes one
//             fused pass per leaf occurrence in the expression (4 + 2 in `chain`, 1 + 1 here).
//   per-op:   1000 ops on 1-element tensors, y = y*a; y = y + b (each its own assignment, so each
//             records a node), then y.backward(): the fixed cost per recorded op.
//   mlp:      256-512-10 MLP, tanh hidden layer, log_softmax and the mean negative log-likelihood
//             written as -sum(onehot * log_softmax(logits)) / 64, batch 64, float: forward + backward.
//   hessian:  the 100 x 100 Hessian of f(x) = sum(x^3) + sum(sin(x)) * sum(x) in double:
//             tl::autograd::hessian against LibTorch's gradient with create_graph=true followed by 100
//             backward passes (one per row, grad_outputs = e_i), which is what
//             torch.autograd.functional.hessian does.
//   hessian_prod: the 64 x 64 Hessian of prod(x) in double with one element of x exactly zero, so
//             both libraries differentiate their exact (division-free) gradient of prod: tl's exclusive
//             cumprods against LibTorch's; same protocol as `hessian`.
//   jacobian: the 128 x 128 Jacobian of f(x) = tanh(A x) * x + x^2 in float: tl::autograd::jacobian
//             row by row and with vectorize (one batched backward pass) against LibTorch's loop of
//             one backward per row (torch.autograd.functional.jacobian's default). The Hessians
//             above are also timed with vectorize.
//   jacobian_softmax: the 128 x 128 Jacobian of f(x) = softmax(A x) + cumsum(x) in float, the same
//             three ways: nodes with batched rules of their own (softmax, cumsum) in the vectorized pass.
//   jacobian_views: the [8, 16] x 128 Jacobian of f(x) = p * q + sin(p), p = x.reshape(16, 8).t(),
//             q = x.reshape(16, 8).flip(1).t(), in float, the same three ways: views (reshape,
//             transpose, flip) with their batched rule in the vectorized pass.
//   jacobian_select: the 128 x 128 Jacobian of f(x) = sort(X, 1).values * max(X, 1, keepdim).values
//             + gather(X, 1, I), X = x.reshape(16, 8), in float, the same three ways: max with
//             indices, sort and gather with their batched rules in the vectorized pass.
//   jacobian_bmm: the 128 x 128 Jacobian of f(x) = tanh(X B + A X), X = x.reshape(8, 4, 4), A: [8, 4, 4],
//             B: [4, 4], in float, the same three ways: matmul with batch dims (B broadcast) with its
//             batched rule in the vectorized pass.
//   jacobian_complex: the 128 x 128 Jacobian of f(z) = exp(z) * conj(flip(z)) + z^2 in complex float,
//             the same three ways: a complex fused node (not holomorphic) with its batched rule.
//   jacobian_weight: the 128 x 128 Jacobian of f(w) = tanh(X W), W = w.reshape(16, 8), X: [16, 16], in
//             float, the same three ways: the gradient of matmul's right matrix operand for every
//             cotangent in the vectorized pass.
//   jacobian_scatter: the 128 x 128 Jacobian of f(x) = scatter_add(2 X, 1, I, tanh(X[:, :4])),
//             X = x.reshape(16, 8), I: [16, 4] with repeated columns, in float, the same three ways:
//             scatter_add's gradients of self and of src for every cotangent in the vectorized pass.
//
// Diagnostics beside the cases: the chain's forward under no_grad, the whole chain step with the host
// block cache off, its two gradients written by hand as fused tl expressions, the backward of sum(f(x) * w) for f = sin, tanh, sigmoid, and the five
// matrix products of one MLP step without autograd (tl's kernel against LibTorch's BLAS).
//
// Forward-only and backward-only times are measured with a steady clock around that part alone
// (Google Benchmark's manual time); the rest of the iteration (the other half, freeing the graph,
// clearing the gradients) runs untimed. Every other benchmark reports wall-clock time per iteration.
// Before timing, each benchmark checks its losses and gradients once against a reference computed
// here in double with hand-derived formulas (relative tolerance 1e-4 for float, with an absolute
// floor of 1e-4 for values near 0; 1e-9 for the double Hessians) and stops with SkipWithError when they
// differ.
#define TL_AUTOGRAD 2  // create_graph (hessian) needs level 2

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <tl/tensor.hpp>

#ifdef TL_BENCH_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace {

using clk = std::chrono::steady_clock;

void single_thread() {
  if (tl::get_num_threads() != 1) tl::set_num_threads(1);
#ifdef TL_BENCH_HAVE_TORCH
  static const bool interop = [] {
    try {
      at::set_num_interop_threads(1);  // allowed once, before any inter-op work
    } catch (const std::exception&) {
    }
    return true;
  }();
  (void)interop;
  torch::set_num_threads(1);
#endif
}

void fixed_time(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond);
  b->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}
void real_time(benchmark::internal::Benchmark* b) {
  fixed_time(b);
  b->UseRealTime();
}
void manual_time(benchmark::internal::Benchmark* b) {
  fixed_time(b);
  b->UseManualTime();
}
void real_time_us(benchmark::internal::Benchmark* b) {
  real_time(b);
  b->Unit(benchmark::kMicrosecond);
}

/// A tl tensor's elements in row-major order, as doubles.
template <class X>
  requires tl::is_tensor_v<X>
std::vector<double> flat(const X& t) {
  const tl::tensor<typename X::value_type, X::rank> c = t.contiguous();
  return std::vector<double>(c.data(), c.data() + c.numel());
}

/// Compares got with want element by element: |got - want| <= rtol * max(|want|, floor).
bool close(benchmark::State& state, const char* what, const std::vector<double>& got, const std::vector<double>& want,
           double rtol, double floor = 1.0) {
  if (got.size() != want.size()) {
    state.SkipWithError((std::string(what) + ": size differs from the reference").c_str());
    return false;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double tol = rtol * std::max(std::abs(want[i]), floor);
    if (!(std::abs(got[i] - want[i]) <= tol)) {
      state.SkipWithError((std::string(what) + " differs from the reference at " + std::to_string(i) + ": " +
                           std::to_string(got[i]) + " vs " + std::to_string(want[i]))
                              .c_str());
      return false;
    }
  }
  return true;
}

constexpr double ftol = 1e-4;  // float results against the double reference

#ifdef TL_BENCH_HAVE_TORCH
template <class X>
torch::Tensor to_torch(const X& t) {
  using T = typename X::value_type;
  const tl::tensor<T, X::rank> c = t.contiguous();
  std::vector<std::int64_t> sizes(X::rank);
  for (std::size_t i = 0; i < X::rank; ++i) sizes[i] = c.extent(static_cast<tl::index_t>(i));
  const auto dt = std::is_same_v<T, double> ? torch::kFloat64 : torch::kFloat32;
  return torch::from_blob(const_cast<T*>(c.data()), sizes, dt).clone();
}
std::vector<double> flat(const torch::Tensor& t) {
  const auto c = t.to(torch::kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}
void clear_grad(torch::Tensor& t) { t.mutable_grad() = torch::Tensor(); }
#endif

// ===== (a) 10-op elementwise chain over 1M floats ===============================================

constexpr std::int64_t chain_n = std::int64_t{1} << 20;

struct chain_inputs {
  tl::tensor<float, 1> x, w;
};
const chain_inputs& chain_data() {
  static const chain_inputs in = [] {
    tl::manual_seed(1);
    tl::tensor<float, 1> x = tl::randn<float>(chain_n);
    tl::tensor<float, 1> w = tl::randn<float>(chain_n);
    return chain_inputs{x, w};
  }();
  return in;
}

/// The hand-derived loss and gradients of both chains, in double.
struct chain_ref {
  double loss = 0;
  std::vector<double> gx, gw;
};
double sigm(double v) { return 1.0 / (1.0 + std::exp(-v)); }
const chain_ref& chain_reference(int which) {
  static const chain_ref r[2] = {[] {
                                   const auto x = flat(chain_data().x), w = flat(chain_data().w);
                                   chain_ref c;
                                   c.gx.resize(x.size());
                                   c.gw.resize(x.size());
                                   for (std::size_t i = 0; i < x.size(); ++i) {
                                     const double xi = x[i], wi = w[i], e = std::exp(-xi * xi), s = sigm(wi);
                                     const double u = std::sin(xi) * wi + e - s * xi, t = std::tanh(u);
                                     c.loss += t;
                                     const double du = 1 - t * t;
                                     c.gx[i] = du * (std::cos(xi) * wi - 2 * xi * e - s);
                                     c.gw[i] = du * (std::sin(xi) - s * (1 - s) * xi);
                                   }
                                   return c;
                                 }(),
                                 [] {
                                   const auto x = flat(chain_data().x), w = flat(chain_data().w);
                                   chain_ref c;
                                   c.gx.resize(x.size());
                                   c.gw.resize(x.size());
                                   for (std::size_t i = 0; i < x.size(); ++i) {
                                     const double xi = x[i], wi = w[i];
                                     const double p = std::sin(xi) * wi, s = sigm(p), e = std::exp(-s);
                                     const double l = std::log(e + 1), c5 = 0.5 * l, t = std::tanh(std::cos(c5));
                                     c.loss += t;
                                     // d/dp: tanh' * -sin(c5) * 0.5 / (e + 1) * e * -1 * s (1 - s)
                                     const double dp = (1 - t * t) * -std::sin(c5) * 0.5 / (e + 1) * e * -(s * (1 - s));
                                     c.gx[i] = dp * std::cos(xi) * wi;
                                     c.gw[i] = dp * std::sin(xi);
                                   }
                                   return c;
                                 }()};
  return r[which];
}

template <int Which, class X>
auto tl_chain_loss(const X& x, const X& w) {
  if constexpr (Which == 0) {
    return tl::tensor<float, 0>(tl::sum(tl::tanh(tl::sin(x) * w + tl::exp(-(x * x)) - tl::sigmoid(w) * x)));
  } else {
    return tl::tensor<float, 0>(
        tl::sum(tl::tanh(tl::cos(tl::log(tl::exp(-tl::sigmoid(tl::sin(x) * w)) + 1.0f) * 0.5f))));
  }
}

template <int Which>
bool tl_chain_check(benchmark::State& state, const tl::tensor<float, 1>& x, const tl::tensor<float, 1>& w) {
  const auto& ref = chain_reference(Which);
  const auto loss = tl_chain_loss<Which>(x, w);
  loss.backward();
  const bool ok = close(state, "tl loss", {static_cast<double>(loss.item())}, {ref.loss}, ftol) &&
                  close(state, "tl x.grad", flat(x.grad()), ref.gx, ftol) &&
                  close(state, "tl w.grad", flat(w.grad()), ref.gw, ftol);
  x.zero_grad();
  w.zero_grad();
  return ok;
}

enum class part { forward, backward, total };

template <int Which, part P>
void BM_chain_tl(benchmark::State& state) {
  single_thread();
  const tl::tensor<float, 1> x = chain_data().x.clone(), w = chain_data().w.clone();
  x.requires_grad_();
  w.requires_grad_();
  if (!tl_chain_check<Which>(state, x, w)) return;
  for (auto _ : state) {
    if constexpr (P == part::total) {
      const auto loss = tl_chain_loss<Which>(x, w);
      loss.backward();
      benchmark::DoNotOptimize(x.grad().data());
      x.zero_grad();
      w.zero_grad();
    } else {
      const auto t0 = clk::now();
      const auto loss = tl_chain_loss<Which>(x, w);
      const auto t1 = clk::now();
      if constexpr (P == part::backward) {
        loss.backward();
        benchmark::DoNotOptimize(x.grad().data());
      }
      const auto t2 = clk::now();
      state.SetIterationTime(std::chrono::duration<double>(P == part::forward ? t1 - t0 : t2 - t1).count());
      x.zero_grad();
      w.zero_grad();
    }
  }
  state.SetItemsProcessed(state.iterations() * chain_n);
}
BENCHMARK_TEMPLATE(BM_chain_tl, 0, part::forward)->Name("BM_chain_tl_forward")->Apply(manual_time);
BENCHMARK_TEMPLATE(BM_chain_tl, 0, part::backward)->Name("BM_chain_tl_backward")->Apply(manual_time);
BENCHMARK_TEMPLATE(BM_chain_tl, 0, part::total)->Name("BM_chain_tl_total")->Apply(real_time);
BENCHMARK_TEMPLATE(BM_chain_tl, 1, part::forward)->Name("BM_chain1_tl_forward")->Apply(manual_time);
BENCHMARK_TEMPLATE(BM_chain_tl, 1, part::backward)->Name("BM_chain1_tl_backward")->Apply(manual_time);
BENCHMARK_TEMPLATE(BM_chain_tl, 1, part::total)->Name("BM_chain1_tl_total")->Apply(real_time);

/// The forward expression with nothing recorded (no_grad): one fused pass into the sum, no
/// materialized intermediate. The floor under the recorded forward.
void BM_chain_tl_forward_no_grad(benchmark::State& state) {
  single_thread();
  const auto& [x, w] = chain_data();
  tl::no_grad guard;
  for (auto _ : state) {
    const auto loss = tl_chain_loss<0>(x, w);
    benchmark::DoNotOptimize(loss.item());
  }
  state.SetItemsProcessed(state.iterations() * chain_n);
}
BENCHMARK(BM_chain_tl_forward_no_grad)->Apply(real_time);

/// The whole `chain` step with the host block cache off (tl::set_host_cache_limit(0)): every
/// iteration's 4 MiB forward result and gradients then come from fresh pages.
void BM_chain_tl_total_no_host_cache(benchmark::State& state) {
  single_thread();
  const tl::tensor<float, 1> x = chain_data().x.clone(), w = chain_data().w.clone();
  x.requires_grad_();
  w.requires_grad_();
  const std::size_t limit = tl::host_memory_stats().limit_bytes;
  tl::set_host_cache_limit(0);
  for (auto _ : state) {
    const auto loss = tl_chain_loss<0>(x, w);
    loss.backward();
    benchmark::DoNotOptimize(x.grad().data());
    x.zero_grad();
    w.zero_grad();
  }
  tl::set_host_cache_limit(limit);
  state.SetItemsProcessed(state.iterations() * chain_n);
}
BENCHMARK(BM_chain_tl_total_no_host_cache)->Apply(real_time);

/// Both gradients of `chain` written by hand as two fused tl expressions (no_grad, float literals):
/// what one fused pass per gradient costs with tl's evaluator, a floor for the recorded backward.
void BM_chain_tl_hand_adjoints(benchmark::State& state) {
  single_thread();
  const auto& [x, w] = chain_data();
  tl::no_grad guard;
  tl::tensor<float, 1> gx, gw;
  auto body = [&] {
    auto u = tl::sin(x) * w + tl::exp(-(x * x)) - tl::sigmoid(w) * x;
    gx = (1.0f - tl::square(tl::tanh(u))) * (tl::cos(x) * w - 2.0f * x * tl::exp(-(x * x)) - tl::sigmoid(w));
    gw = (1.0f - tl::square(tl::tanh(u))) * (tl::sin(x) - tl::sigmoid(w) * (1.0f - tl::sigmoid(w)) * x);
  };
  body();
  const auto& ref = chain_reference(0);
  if (!close(state, "hand gx", flat(gx), ref.gx, ftol) || !close(state, "hand gw", flat(gw), ref.gw, ftol)) return;
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(gx.data());
  }
  state.SetItemsProcessed(state.iterations() * chain_n);
}
BENCHMARK(BM_chain_tl_hand_adjoints)->Apply(real_time);

/// Backward only of loss = sum(f(x) * w) for one activation f: isolates the cost of f's derivative rule.
template <int F>
void BM_act_tl_backward(benchmark::State& state) {
  single_thread();
  const tl::tensor<float, 1> x = chain_data().x.clone(), w = chain_data().w.clone();
  x.requires_grad_();
  w.requires_grad_();
  auto loss_of = [&] {
    if constexpr (F == 0) return tl::tensor<float, 0>(tl::sum(tl::sin(x) * w));
    else if constexpr (F == 1) return tl::tensor<float, 0>(tl::sum(tl::tanh(x) * w));
    else return tl::tensor<float, 0>(tl::sum(tl::sigmoid(x) * w));
  };
  for (auto _ : state) {
    const auto loss = loss_of();
    const auto t0 = clk::now();
    loss.backward();
    benchmark::DoNotOptimize(x.grad().data());
    state.SetIterationTime(std::chrono::duration<double>(clk::now() - t0).count());
    x.zero_grad();
    w.zero_grad();
  }
  state.SetItemsProcessed(state.iterations() * chain_n);
}
BENCHMARK_TEMPLATE(BM_act_tl_backward, 0)->Name("BM_act_tl_backward/sin")->Apply(manual_time);
BENCHMARK_TEMPLATE(BM_act_tl_backward, 1)->Name("BM_act_tl_backward/tanh")->Apply(manual_time);
BENCHMARK_TEMPLATE(BM_act_tl_backward, 2)->Name("BM_act_tl_backward/sigmoid")->Apply(manual_time);

#ifdef TL_BENCH_HAVE_TORCH
template <int Which>
torch::Tensor torch_chain_loss(const torch::Tensor& x, const torch::Tensor& w) {
  if constexpr (Which == 0) return torch::tanh(torch::sin(x) * w + torch::exp(-(x * x)) - torch::sigmoid(w) * x).sum();
  else return torch::tanh(torch::cos(torch::log(torch::exp(-torch::sigmoid(torch::sin(x) * w)) + 1.0f) * 0.5f)).sum();
}

template <int Which, part P>
void BM_chain_torch(benchmark::State& state) {
  single_thread();
  auto x = to_torch(chain_data().x).requires_grad_(true);
  auto w = to_torch(chain_data().w).requires_grad_(true);
  {
    const auto& ref = chain_reference(Which);
    const torch::Tensor loss = torch_chain_loss<Which>(x, w);
    loss.backward();
    if (!close(state, "torch loss", {loss.item<double>()}, {ref.loss}, ftol) ||
        !close(state, "torch x.grad", flat(x.grad()), ref.gx, ftol) ||
        !close(state, "torch w.grad", flat(w.grad()), ref.gw, ftol))
      return;
    clear_grad(x);
    clear_grad(w);
  }
  for (auto _ : state) {
    if constexpr (P == part::total) {
      auto loss = torch_chain_loss<Which>(x, w);
      loss.backward();
      benchmark::DoNotOptimize(x.grad().data_ptr());
      clear_grad(x);
      clear_grad(w);
    } else {
      const auto t0 = clk::now();
      auto loss = torch_chain_loss<Which>(x, w);
      const auto t1 = clk::now();
      if constexpr (P == part::backward) {
        loss.backward();
        benchmark::DoNotOptimize(x.grad().data_ptr());
      }
      const auto t2 = clk::now();
      state.SetIterationTime(std::chrono::duration<double>(P == part::forward ? t1 - t0 : t2 - t1).count());
      clear_grad(x);
      clear_grad(w);
    }
  }
  state.SetItemsProcessed(state.iterations() * chain_n);
}
BENCHMARK_TEMPLATE(BM_chain_torch, 0, part::forward)->Name("BM_chain_torch_forward")->Apply(manual_time);
BENCHMARK_TEMPLATE(BM_chain_torch, 0, part::backward)->Name("BM_chain_torch_backward")->Apply(manual_time);
BENCHMARK_TEMPLATE(BM_chain_torch, 0, part::total)->Name("BM_chain_torch_total")->Apply(real_time);
BENCHMARK_TEMPLATE(BM_chain_torch, 1, part::forward)->Name("BM_chain1_torch_forward")->Apply(manual_time);
BENCHMARK_TEMPLATE(BM_chain_torch, 1, part::backward)->Name("BM_chain1_torch_backward")->Apply(manual_time);
BENCHMARK_TEMPLATE(BM_chain_torch, 1, part::total)->Name("BM_chain1_torch_total")->Apply(real_time);
#endif

// ===== (b) per-op overhead: 1000 recorded ops on 1-element tensors ===============================

constexpr int chain_ops = 1000;  // 500 x (y = y * a; y = y + b)
constexpr float op_a = 0.99f, op_b = 0.01f, op_y0 = 0.5f;

/// y_{k+1} = y_k a + b, k < 500: the final y and dy/da, dy/db, by the reverse recurrence in double.
struct ops_ref {
  double y, ga, gb;
};
ops_ref ops_reference() {
  const double a = op_a, b = op_b;
  std::vector<double> ys{op_y0};
  for (int k = 0; k < chain_ops / 2; ++k) ys.push_back(ys.back() * a + b);
  double adj = 1, ga = 0, gb = 0;
  for (int k = chain_ops / 2 - 1; k >= 0; --k) {
    gb += adj;
    ga += adj * ys[k];
    adj *= a;
  }
  return {ys.back(), ga, gb};
}

tl::tensor<float, 1> one(float v) { return tl::full<float>(tl::shape_t<1>{1}, v); }

template <part P>
void BM_ops_tl(benchmark::State& state) {
  single_thread();
  const auto a = one(op_a), b = one(op_b), y0 = one(op_y0);
  a.requires_grad_();
  b.requires_grad_();
  auto forward = [&] {
    tl::tensor<float, 1> y = y0;
    for (int k = 0; k < chain_ops / 2; ++k) {
      y = y * a;
      y = y + b;
    }
    return y;
  };
  {
    const auto ref = ops_reference();
    const auto y = forward();
    y.backward();
    if (!close(state, "tl y", {static_cast<double>(y.item())}, {ref.y}, ftol) ||
        !close(state, "tl a.grad", {static_cast<double>(a.grad().item())}, {ref.ga}, ftol) ||
        !close(state, "tl b.grad", {static_cast<double>(b.grad().item())}, {ref.gb}, ftol))
      return;
    a.zero_grad();
    b.zero_grad();
  }
  for (auto _ : state) {
    if constexpr (P == part::total) {
      const auto y = forward();
      y.backward();
      benchmark::DoNotOptimize(a.grad().data());
      a.zero_grad();
      b.zero_grad();
    } else {
      const auto t0 = clk::now();
      const auto y = forward();
      const auto t1 = clk::now();
      if constexpr (P == part::backward) y.backward();
      const auto t2 = clk::now();
      state.SetIterationTime(std::chrono::duration<double>(P == part::forward ? t1 - t0 : t2 - t1).count());
      a.zero_grad();
      b.zero_grad();
    }
  }
  state.counters["time_per_op"] = benchmark::Counter(static_cast<double>(state.iterations()) * chain_ops,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK_TEMPLATE(BM_ops_tl, part::forward)->Name("BM_ops1000_tl_forward")->Apply(manual_time)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_ops_tl, part::backward)->Name("BM_ops1000_tl_backward")->Apply(manual_time)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_ops_tl, part::total)->Name("BM_ops1000_tl_total")->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
template <part P>
void BM_ops_torch(benchmark::State& state) {
  single_thread();
  auto a = torch::full({1}, op_a).requires_grad_(true);
  auto b = torch::full({1}, op_b).requires_grad_(true);
  const auto y0 = torch::full({1}, op_y0);
  auto forward = [&] {
    torch::Tensor y = y0;
    for (int k = 0; k < chain_ops / 2; ++k) {
      y = y * a;
      y = y + b;
    }
    return y;
  };
  {
    const auto ref = ops_reference();
    const torch::Tensor y = forward();
    y.backward();
    if (!close(state, "torch y", {y.item<double>()}, {ref.y}, ftol) ||
        !close(state, "torch a.grad", {a.grad().item<double>()}, {ref.ga}, ftol) ||
        !close(state, "torch b.grad", {b.grad().item<double>()}, {ref.gb}, ftol))
      return;
    clear_grad(a);
    clear_grad(b);
  }
  for (auto _ : state) {
    if constexpr (P == part::total) {
      auto y = forward();
      y.backward();
      benchmark::DoNotOptimize(a.grad().data_ptr());
      clear_grad(a);
      clear_grad(b);
    } else {
      const auto t0 = clk::now();
      auto y = forward();
      const auto t1 = clk::now();
      if constexpr (P == part::backward) y.backward();
      const auto t2 = clk::now();
      state.SetIterationTime(std::chrono::duration<double>(P == part::forward ? t1 - t0 : t2 - t1).count());
      clear_grad(a);
      clear_grad(b);
    }
  }
  state.counters["time_per_op"] = benchmark::Counter(static_cast<double>(state.iterations()) * chain_ops,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK_TEMPLATE(BM_ops_torch, part::forward)->Name("BM_ops1000_torch_forward")->Apply(manual_time)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_ops_torch, part::backward)->Name("BM_ops1000_torch_backward")->Apply(manual_time)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_ops_torch, part::total)->Name("BM_ops1000_torch_total")->Apply(real_time_us);
#endif

// ===== (c) MLP 256-512-10, batch 64 ==============================================================

constexpr std::int64_t mb = 64, m_in = 256, m_hid = 512, m_out = 10;

struct mlp_inputs {
  tl::tensor<float, 2> x, onehot, w1, w2;
  tl::tensor<float, 1> b1, b2;
};
const mlp_inputs& mlp_data() {
  static const mlp_inputs in = [] {
    tl::manual_seed(2);
    mlp_inputs r;
    r.x = tl::randn<float>(mb, m_in);
    r.w1 = tl::randn<float>(m_in, m_hid) * (1.0f / 16.0f);  // 1/sqrt(256)
    r.b1 = tl::randn<float>(m_hid) * 0.1f;
    r.w2 = tl::randn<float>(m_hid, m_out) * (1.0f / 22.627417f);  // 1/sqrt(512)
    r.b2 = tl::randn<float>(m_out) * 0.1f;
    r.onehot = tl::zeros<float>(tl::shape_t<2>{mb, m_out});
    std::mt19937 gen(3);
    for (std::int64_t i = 0; i < mb; ++i) r.onehot(i, static_cast<tl::index_t>(gen() % m_out)) = 1.0f;
    return r;
  }();
  return in;
}

/// Loss and gradients (w1, b1, w2, b2, row-major) of the MLP in double.
struct mlp_ref {
  double loss = 0;
  std::vector<double> gw1, gb1, gw2, gb2;
};
const mlp_ref& mlp_reference() {
  static const mlp_ref r = [] {
    const auto& d = mlp_data();
    const auto x = flat(d.x), oh = flat(d.onehot), w1 = flat(d.w1), b1 = flat(d.b1), w2 = flat(d.w2),
               b2 = flat(d.b2);
    std::vector<double> h(mb * m_hid), dz(mb * m_out), dh(mb * m_hid);
    mlp_ref o;
    o.gw1.assign(m_in * m_hid, 0);
    o.gb1.assign(m_hid, 0);
    o.gw2.assign(m_hid * m_out, 0);
    o.gb2.assign(m_out, 0);
    for (std::int64_t i = 0; i < mb; ++i) {
      for (std::int64_t j = 0; j < m_hid; ++j) {
        double s = b1[j];
        for (std::int64_t k = 0; k < m_in; ++k) s += x[i * m_in + k] * w1[k * m_hid + j];
        h[i * m_hid + j] = std::tanh(s);
      }
      double z[m_out], mx = -1e300;
      for (std::int64_t c = 0; c < m_out; ++c) {
        double s = b2[c];
        for (std::int64_t j = 0; j < m_hid; ++j) s += h[i * m_hid + j] * w2[j * m_out + c];
        z[c] = s;
        mx = std::max(mx, s);
      }
      double se = 0;
      for (double v : z) se += std::exp(v - mx);
      const double lse = mx + std::log(se);
      for (std::int64_t c = 0; c < m_out; ++c) {
        const double lp = z[c] - lse, y = oh[i * m_out + c];
        o.loss -= y * lp / mb;
        dz[i * m_out + c] = (std::exp(lp) - y) / mb;  // rows of onehot sum to 1
      }
    }
    for (std::int64_t i = 0; i < mb; ++i)
      for (std::int64_t c = 0; c < m_out; ++c) {
        const double g = dz[i * m_out + c];
        o.gb2[c] += g;
        for (std::int64_t j = 0; j < m_hid; ++j) {
          o.gw2[j * m_out + c] += h[i * m_hid + j] * g;
          dh[i * m_hid + j] += w2[j * m_out + c] * g;
        }
      }
    for (std::int64_t i = 0; i < mb; ++i)
      for (std::int64_t j = 0; j < m_hid; ++j) {
        const double hv = h[i * m_hid + j], g = dh[i * m_hid + j] * (1 - hv * hv);
        o.gb1[j] += g;
        for (std::int64_t k = 0; k < m_in; ++k) o.gw1[k * m_hid + j] += x[i * m_in + k] * g;
      }
    return o;
  }();
  return r;
}

void BM_mlp_tl(benchmark::State& state) {
  single_thread();
  const auto& d = mlp_data();
  const tl::tensor<float, 2> w1 = d.w1.clone(), w2 = d.w2.clone();
  const tl::tensor<float, 1> b1 = d.b1.clone(), b2 = d.b2.clone();
  for (const auto* p : {&w1, &w2}) p->requires_grad_();
  for (const auto* p : {&b1, &b2}) p->requires_grad_();
  const auto& x = d.x;
  const auto& onehot = d.onehot;
  auto step = [&] {
    tl::tensor<float, 2> h = tl::tanh(tl::matmul(x, w1) + b1);
    tl::tensor<float, 2> logits = tl::matmul(h, w2) + b2;
    tl::tensor<float, 0> loss = -tl::sum(onehot * tl::log_softmax(logits, 1)) / static_cast<float>(mb);
    loss.backward();
    return loss;
  };
  auto clear = [&] {
    w1.zero_grad();
    w2.zero_grad();
    b1.zero_grad();
    b2.zero_grad();
  };
  {
    const auto& ref = mlp_reference();
    const auto loss = step();
    const bool ok = close(state, "tl loss", {static_cast<double>(loss.item())}, {ref.loss}, ftol) &&
                    close(state, "tl w1.grad", flat(w1.grad()), ref.gw1, ftol, 1e-2) &&
                    close(state, "tl b1.grad", flat(b1.grad()), ref.gb1, ftol, 1e-2) &&
                    close(state, "tl w2.grad", flat(w2.grad()), ref.gw2, ftol, 1e-2) &&
                    close(state, "tl b2.grad", flat(b2.grad()), ref.gb2, ftol, 1e-2);
    clear();
    if (!ok) return;
  }
  for (auto _ : state) {
    const auto loss = step();
    benchmark::DoNotOptimize(w1.grad().data());
    clear();
  }
  state.SetItemsProcessed(state.iterations() * mb);
}
BENCHMARK(BM_mlp_tl)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
/// Idiomatic = false: the same formula as tl; true: addmm and nll_loss, as a LibTorch user writes it.
template <bool Idiomatic>
void BM_mlp_torch(benchmark::State& state) {
  single_thread();
  const auto& d = mlp_data();
  auto w1 = to_torch(d.w1).requires_grad_(true), w2 = to_torch(d.w2).requires_grad_(true);
  auto b1 = to_torch(d.b1).requires_grad_(true), b2 = to_torch(d.b2).requires_grad_(true);
  const auto x = to_torch(d.x), onehot = to_torch(d.onehot);
  const auto labels = onehot.argmax(1);
  auto step = [&] {
    torch::Tensor loss;
    if constexpr (Idiomatic) {
      const auto h = torch::tanh(torch::addmm(b1, x, w1));
      const auto logits = torch::addmm(b2, h, w2);
      loss = torch::nll_loss(torch::log_softmax(logits, 1), labels);
    } else {
      const auto h = torch::tanh(torch::matmul(x, w1) + b1);
      const auto logits = torch::matmul(h, w2) + b2;
      loss = -(onehot * torch::log_softmax(logits, 1)).sum() / static_cast<float>(mb);
    }
    loss.backward();
    return loss;
  };
  auto clear = [&] {
    for (auto* p : {&w1, &w2, &b1, &b2}) clear_grad(*p);
  };
  {
    const auto& ref = mlp_reference();
    const torch::Tensor loss = step();
    const bool ok = close(state, "torch loss", {loss.item<double>()}, {ref.loss}, ftol) &&
                    close(state, "torch w1.grad", flat(w1.grad()), ref.gw1, ftol, 1e-2) &&
                    close(state, "torch b1.grad", flat(b1.grad()), ref.gb1, ftol, 1e-2) &&
                    close(state, "torch w2.grad", flat(w2.grad()), ref.gw2, ftol, 1e-2) &&
                    close(state, "torch b2.grad", flat(b2.grad()), ref.gb2, ftol, 1e-2);
    clear();
    if (!ok) return;
  }
  for (auto _ : state) {
    const auto loss = step();
    benchmark::DoNotOptimize(w1.grad().data_ptr());
    clear();
  }
  state.SetItemsProcessed(state.iterations() * mb);
}
BENCHMARK_TEMPLATE(BM_mlp_torch, false)->Name("BM_mlp_torch")->Apply(real_time_us);
BENCHMARK_TEMPLATE(BM_mlp_torch, true)->Name("BM_mlp_torch_addmm_nll")->Apply(real_time_us);
#endif

/// The five matrix products of one MLP step without autograd (forward x w1 and h w2; backward
/// h^T g2, g2 w2^T and x^T g1): how much of a step is matmul, for tl's own kernel and for LibTorch's
/// BLAS.
struct mlp_mm_inputs {
  tl::tensor<float, 2> h, g1, g2;
};
const mlp_mm_inputs& mlp_mm_data() {
  static const mlp_mm_inputs in = [] {
    tl::manual_seed(5);
    return mlp_mm_inputs{tl::randn<float>(mb, m_hid), tl::randn<float>(mb, m_hid), tl::randn<float>(mb, m_out)};
  }();
  return in;
}

void BM_mlp_matmuls_tl(benchmark::State& state) {
  single_thread();
  const auto& d = mlp_data();
  const auto& [h, g1, g2] = mlp_mm_data();
  tl::no_grad guard;
  for (auto _ : state) {
    tl::tensor<float, 2> a = tl::matmul(d.x, d.w1);
    tl::tensor<float, 2> b = tl::matmul(h, d.w2);
    tl::tensor<float, 2> c = tl::matmul(h.t(), g2);
    tl::tensor<float, 2> e = tl::matmul(g2, d.w2.t());
    tl::tensor<float, 2> f = tl::matmul(d.x.t(), g1);
    benchmark::DoNotOptimize(a.data());
    benchmark::DoNotOptimize(b.data());
    benchmark::DoNotOptimize(c.data());
    benchmark::DoNotOptimize(e.data());
    benchmark::DoNotOptimize(f.data());
  }
}
BENCHMARK(BM_mlp_matmuls_tl)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
void BM_mlp_matmuls_torch(benchmark::State& state) {
  single_thread();
  torch::NoGradGuard guard;
  const auto& d = mlp_data();
  const auto x = to_torch(d.x), w1 = to_torch(d.w1), w2 = to_torch(d.w2);
  const auto h = to_torch(mlp_mm_data().h), g1 = to_torch(mlp_mm_data().g1), g2 = to_torch(mlp_mm_data().g2);
  for (auto _ : state) {
    const auto a = torch::matmul(x, w1), b = torch::matmul(h, w2), c = torch::matmul(h.t(), g2),
               e = torch::matmul(g2, w2.t()), f = torch::matmul(x.t(), g1);
    benchmark::DoNotOptimize(a.data_ptr());
    benchmark::DoNotOptimize(b.data_ptr());
    benchmark::DoNotOptimize(c.data_ptr());
    benchmark::DoNotOptimize(e.data_ptr());
    benchmark::DoNotOptimize(f.data_ptr());
  }
}
BENCHMARK(BM_mlp_matmuls_torch)->Apply(real_time_us);
#endif

// ===== (d) Hessian of a 100-parameter function ===================================================

constexpr std::int64_t h_n = 100;

const tl::tensor<double, 1>& hessian_x() {
  static const tl::tensor<double, 1> x = [] {
    tl::manual_seed(4);
    return tl::tensor<double, 1>(tl::randn<double>(h_n));
  }();
  return x;
}

/// H_ij = (6 x_i - sin(x_i) sum(x)) [i == j] + cos(x_i) + cos(x_j).
const std::vector<double>& hessian_reference() {
  static const std::vector<double> h = [] {
    const auto x = flat(hessian_x());
    double s = 0;
    for (double v : x) s += v;
    std::vector<double> r(h_n * h_n);
    for (std::int64_t i = 0; i < h_n; ++i)
      for (std::int64_t j = 0; j < h_n; ++j)
        r[i * h_n + j] = std::cos(x[i]) + std::cos(x[j]) + (i == j ? 6 * x[i] - std::sin(x[i]) * s : 0.0);
    return r;
  }();
  return h;
}

tl::tensor<double, 0> hessian_f(const tl::tensor<double, 1>& x) {
  return tl::tensor<double, 0>(tl::sum(x * x * x) + tl::sum(tl::sin(x)) * tl::sum(x));
}

/// Times tl::autograd::hessian(f, x) after checking it once against `want` (tolerance 1e-9).
void time_hessian_tl(benchmark::State& state, const char* what,
                     tl::tensor<double, 0> (*f)(const tl::tensor<double, 1>&), const tl::tensor<double, 1>& x,
                     const std::vector<double>& want) {
  single_thread();
  if (!close(state, what, flat(tl::autograd::hessian(f, x)), want, 1e-9)) return;
  for (auto _ : state) {
    auto h = tl::autograd::hessian(f, x);
    benchmark::DoNotOptimize(h.data());
  }
}

void BM_hessian_tl(benchmark::State& state) {
  time_hessian_tl(state, "tl hessian", hessian_f, hessian_x(), hessian_reference());
}
BENCHMARK(BM_hessian_tl)->Apply(real_time_us);

/// The same with vectorize: one backward pass through the gradient's graph for all rows.
void time_hessian_tl_vectorized(benchmark::State& state, const char* what,
                                tl::tensor<double, 0> (*f)(const tl::tensor<double, 1>&),
                                const tl::tensor<double, 1>& x, const std::vector<double>& want) {
  single_thread();
  const tl::autograd::jacobian_options o{.create_graph = false, .vectorize = true};
  if (!close(state, what, flat(tl::autograd::hessian(f, x, o)), want, 1e-9)) return;
  for (auto _ : state) {
    auto h = tl::autograd::hessian(f, x, o);
    benchmark::DoNotOptimize(h.data());
  }
}
void BM_hessian_tl_vectorized(benchmark::State& state) {
  time_hessian_tl_vectorized(state, "tl hessian, vectorized", hessian_f, hessian_x(), hessian_reference());
}
BENCHMARK(BM_hessian_tl_vectorized)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
/// Times LibTorch's Hessian of f at x as torch.autograd.functional.hessian computes it (the
/// gradient with create_graph, then one backward per row), after checking it once against `want`.
template <class F>
void time_hessian_torch(benchmark::State& state, const char* what, F f, const tl::tensor<double, 1>& xt,
                        const std::vector<double>& want) {
  single_thread();
  const auto x0 = to_torch(xt);
  const std::int64_t n = x0.numel();
  const auto eye = torch::eye(n, torch::kFloat64);
  auto hessian = [&] {
    const auto x = x0.detach().requires_grad_(true);
    const auto y = f(x);
    const auto g = torch::autograd::grad({y}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
    auto h = torch::empty({n, n}, torch::kFloat64);
    for (std::int64_t i = 0; i < n; ++i)
      h[i].copy_(torch::autograd::grad({g}, {x}, {eye[i]}, /*retain_graph=*/true)[0]);
    return h;
  };
  if (!close(state, what, flat(hessian()), want, 1e-9)) return;
  for (auto _ : state) {
    auto h = hessian();
    benchmark::DoNotOptimize(h.data_ptr());
  }
}

void BM_hessian_torch(benchmark::State& state) {
  time_hessian_torch(
      state, "torch hessian", [](const torch::Tensor& x) { return (x * x * x).sum() + torch::sin(x).sum() * x.sum(); },
      hessian_x(), hessian_reference());
}
BENCHMARK(BM_hessian_torch)->Apply(real_time_us);
#endif

// ===== (e) Hessian of prod(x) with a zero, n = 64 ================================================

constexpr std::int64_t hp_n = 64;

/// 64 doubles of magnitude 0.8-1.2 with random signs, x[17] = 0.
const tl::tensor<double, 1>& hessian_prod_x() {
  static const tl::tensor<double, 1> x = [] {
    tl::manual_seed(5);
    const tl::tensor<double, 1> u = tl::rand<double>(hp_n);
    tl::tensor<double, 1> v = tl::where(u < 0.5, -(0.8 + 0.8 * u), 0.4 + 0.8 * u);
    v(17) = 0.0;
    return v;
  }();
  return x;
}

/// H_ij = prod_{k != i, j} x_k for i != j, 0 on the diagonal, by plain loops.
const std::vector<double>& hessian_prod_reference() {
  static const std::vector<double> h = [] {
    const auto x = flat(hessian_prod_x());
    std::vector<double> r(hp_n * hp_n, 0.0);
    for (std::int64_t i = 0; i < hp_n; ++i)
      for (std::int64_t j = 0; j < hp_n; ++j) {
        if (i == j) continue;
        double p = 1;
        for (std::int64_t k = 0; k < hp_n; ++k)
          if (k != i && k != j) p *= x[k];
        r[i * hp_n + j] = p;
      }
    return r;
  }();
  return h;
}

tl::tensor<double, 0> hessian_prod_f(const tl::tensor<double, 1>& x) { return tl::tensor<double, 0>(tl::prod(x)); }

void BM_hessian_prod_tl(benchmark::State& state) {
  time_hessian_tl(state, "tl hessian of prod", hessian_prod_f, hessian_prod_x(), hessian_prod_reference());
}
BENCHMARK(BM_hessian_prod_tl)->Apply(real_time_us);
void BM_hessian_prod_tl_vectorized(benchmark::State& state) {
  time_hessian_tl_vectorized(state, "tl hessian of prod, vectorized", hessian_prod_f, hessian_prod_x(),
                             hessian_prod_reference());
}
BENCHMARK(BM_hessian_prod_tl_vectorized)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
void BM_hessian_prod_torch(benchmark::State& state) {
  time_hessian_torch(
      state, "torch hessian of prod", [](const torch::Tensor& x) { return x.prod(); }, hessian_prod_x(),
      hessian_prod_reference());
}
BENCHMARK(BM_hessian_prod_torch)->Apply(real_time_us);
#endif

// ===== (f) Jacobian of f(x) = tanh(A x) * x + x^2, x: 128 floats =================================

constexpr std::int64_t j_n = 128;

struct jac_case {
  tl::tensor<float, 2> a;
  tl::tensor<float, 1> x;
  std::vector<double> want;  // J_ij = (1 - tanh(Ax)_i^2) A_ij x_i + [i == j] (tanh(Ax)_i + 2 x_i)
};
const jac_case& jacobian_case() {
  static const jac_case c = [] {
    tl::manual_seed(6);
    jac_case r{tl::tensor<float, 2>(tl::randn<float>(j_n, j_n) * 0.1f), tl::tensor<float, 1>(tl::randn<float>(j_n)), {}};
    r.want.assign(j_n * j_n, 0.0);
    for (std::int64_t i = 0; i < j_n; ++i) {
      double s = 0;
      for (std::int64_t k = 0; k < j_n; ++k) s += double(r.a(i, k)) * double(r.x(k));
      const double t = std::tanh(s), xi = r.x(i);
      for (std::int64_t j = 0; j < j_n; ++j)
        r.want[i * j_n + j] = (1 - t * t) * double(r.a(i, j)) * xi + (i == j ? t + 2 * xi : 0.0);
    }
    return r;
  }();
  return c;
}

/// tl::autograd::jacobian of f at c.x (row by row or vectorized), checked against c.want first.
template <class F>
void time_jacobian_tl(benchmark::State& state, const char* what, const jac_case& c, F f, bool vectorize) {
  single_thread();
  const tl::autograd::jacobian_options o{.create_graph = false, .vectorize = vectorize};
  if (!close(state, what, flat(tl::autograd::jacobian(f, c.x, o)), c.want, 1e-4)) return;
  for (auto _ : state) {
    auto j = tl::autograd::jacobian(f, c.x, o);
    benchmark::DoNotOptimize(j.data());
  }
}
void time_jacobian_tl(benchmark::State& state, bool vectorize) {
  const auto& c = jacobian_case();
  auto f = [&](const tl::tensor<float, 1>& v) {
    const tl::tensor<float, 1> ax = tl::matmul(c.a, v);
    return tl::tensor<float, 1>(tl::tanh(ax) * v + v * v);
  };
  time_jacobian_tl(state, vectorize ? "tl jacobian, vectorized" : "tl jacobian", c, f, vectorize);
}
void BM_jacobian_tl(benchmark::State& state) { time_jacobian_tl(state, false); }
BENCHMARK(BM_jacobian_tl)->Apply(real_time_us);
void BM_jacobian_tl_vectorized(benchmark::State& state) { time_jacobian_tl(state, true); }
BENCHMARK(BM_jacobian_tl_vectorized)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
/// LibTorch: torch.autograd.functional.jacobian's loop (one backward per output element through
/// the retained graph); LibTorch's C++ API has no batched (vmap) backward.
/// torch.autograd.functional.jacobian's loop for y = f(a, x) at c.x, checked against c.want first.
template <class F>
void time_jacobian_torch(benchmark::State& state, const char* what, const jac_case& c, F f) {
  single_thread();
  const auto a = to_torch(c.a), x0 = to_torch(c.x);
  const auto eye = torch::eye(j_n, torch::kFloat32);
  auto jac = [&] {
    const auto x = x0.detach().requires_grad_(true);
    const auto y = f(a, x);
    auto j = torch::empty({j_n, j_n}, torch::kFloat32);
    for (std::int64_t i = 0; i < j_n; ++i)
      j[i].copy_(torch::autograd::grad({y}, {x}, {eye[i]}, /*retain_graph=*/true)[0]);
    return j;
  };
  if (!close(state, what, flat(jac()), c.want, 1e-4)) return;
  for (auto _ : state) {
    auto j = jac();
    benchmark::DoNotOptimize(j.data_ptr());
  }
}
void BM_jacobian_torch(benchmark::State& state) {
  time_jacobian_torch(state, "torch jacobian", jacobian_case(), [](const torch::Tensor& a, const torch::Tensor& x) {
    return torch::tanh(torch::matmul(a, x)) * x + x * x;
  });
}
BENCHMARK(BM_jacobian_torch)->Apply(real_time_us);
#endif

// ===== (g) Jacobian of f(x) = softmax(A x) + cumsum(x), x: 128 floats ==========================

const jac_case& jacobian_softmax_case() {
  static const jac_case c = [] {
    tl::manual_seed(7);
    jac_case r{tl::tensor<float, 2>(tl::randn<float>(j_n, j_n) * 0.1f), tl::tensor<float, 1>(tl::randn<float>(j_n)), {}};
    // J_ij = s_i (A_ij - sum_k s_k A_kj) + [j <= i], s = softmax(A x)
    std::vector<double> ax(j_n), sm(j_n);
    double mx = -INFINITY, den = 0;
    for (std::int64_t i = 0; i < j_n; ++i) {
      for (std::int64_t k = 0; k < j_n; ++k) ax[i] += double(r.a(i, k)) * double(r.x(k));
      mx = std::max(mx, ax[i]);
    }
    for (std::int64_t i = 0; i < j_n; ++i) den += std::exp(ax[i] - mx);
    for (std::int64_t i = 0; i < j_n; ++i) sm[i] = std::exp(ax[i] - mx) / den;
    r.want.assign(j_n * j_n, 0.0);
    for (std::int64_t j = 0; j < j_n; ++j) {
      double sa = 0;
      for (std::int64_t k = 0; k < j_n; ++k) sa += sm[k] * double(r.a(k, j));
      for (std::int64_t i = 0; i < j_n; ++i) r.want[i * j_n + j] = sm[i] * (double(r.a(i, j)) - sa) + (j <= i ? 1.0 : 0.0);
    }
    return r;
  }();
  return c;
}

void time_jacobian_softmax_tl(benchmark::State& state, bool vectorize) {
  const auto& c = jacobian_softmax_case();
  auto f = [&](const tl::tensor<float, 1>& v) {
    const tl::tensor<float, 1> ax = tl::matmul(c.a, v);
    return tl::tensor<float, 1>(tl::softmax(ax, 0) + tl::cumsum(v, 0));
  };
  time_jacobian_tl(state, vectorize ? "tl softmax jacobian, vectorized" : "tl softmax jacobian", c, f, vectorize);
}
void BM_jacobian_softmax_tl(benchmark::State& state) { time_jacobian_softmax_tl(state, false); }
BENCHMARK(BM_jacobian_softmax_tl)->Apply(real_time_us);
void BM_jacobian_softmax_tl_vectorized(benchmark::State& state) { time_jacobian_softmax_tl(state, true); }
BENCHMARK(BM_jacobian_softmax_tl_vectorized)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
void BM_jacobian_softmax_torch(benchmark::State& state) {
  time_jacobian_torch(state, "torch softmax jacobian", jacobian_softmax_case(),
                      [](const torch::Tensor& a, const torch::Tensor& x) {
                        return torch::softmax(torch::matmul(a, x), 0) + torch::cumsum(x, 0);
                      });
}
BENCHMARK(BM_jacobian_softmax_torch)->Apply(real_time_us);
#endif

// ===== (h) Jacobian through views: f(x) = p * q + sin(p), p = x.reshape(16, 8).t(), q = the same
// with its columns flipped; x: 128 floats, f: [8, 16] ======================================================

const jac_case& jacobian_views_case() {
  static const jac_case c = [] {
    tl::manual_seed(8);
    jac_case r{tl::tensor<float, 2>(tl::zeros<float>(1, 1)), tl::tensor<float, 1>(tl::randn<float>(j_n)), {}};
    // f[a, b] = x[8 b + a] x[8 b + 7 - a] + sin(x[8 b + a]), row (a, b) of the Jacobian at a * 16 + b
    r.want.assign(j_n * j_n, 0.0);
    for (std::int64_t a = 0; a < 8; ++a)
      for (std::int64_t b = 0; b < 16; ++b) {
        const std::int64_t row = a * 16 + b, i = 8 * b + a, k = 8 * b + 7 - a;
        r.want[row * j_n + i] = double(r.x(k)) + std::cos(double(r.x(i)));
        r.want[row * j_n + k] = double(r.x(i));
      }
    return r;
  }();
  return c;
}

void time_jacobian_views_tl(benchmark::State& state, bool vectorize) {
  const auto& c = jacobian_views_case();
  auto f = [](const tl::tensor<float, 1>& v) {
    const auto p = v.reshape(16, 8).t(), q = v.reshape(16, 8).flip(1).t();
    return tl::tensor<float, 2>(p * q + tl::sin(p));
  };
  time_jacobian_tl(state, vectorize ? "tl views jacobian, vectorized" : "tl views jacobian", c, f, vectorize);
}
void BM_jacobian_views_tl(benchmark::State& state) { time_jacobian_views_tl(state, false); }
BENCHMARK(BM_jacobian_views_tl)->Apply(real_time_us);
void BM_jacobian_views_tl_vectorized(benchmark::State& state) { time_jacobian_views_tl(state, true); }
BENCHMARK(BM_jacobian_views_tl_vectorized)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
void BM_jacobian_views_torch(benchmark::State& state) {
  time_jacobian_torch(state, "torch views jacobian", jacobian_views_case(),
                      [](const torch::Tensor&, const torch::Tensor& x) {
                        const auto p = x.reshape({16, 8}).t(), q = x.reshape({16, 8}).flip({1}).t();
                        return (p * q + torch::sin(p)).reshape({-1});
                      });
}
BENCHMARK(BM_jacobian_views_torch)->Apply(real_time_us);
#endif

// ===== (i) Jacobian through max with indices, sort and gather: X = x.reshape(16, 8),
// f(x) = sort(X, 1).values * max(X, 1, keepdim).values + gather(X, 1, I), I[r, j] = (j^2 + r) mod 8 ====

std::int64_t select_index(std::int64_t r, std::int64_t j) { return (j * j + r) % 8; }

const jac_case& jacobian_select_case() {
  static const jac_case c = [] {
    tl::manual_seed(9);
    jac_case r{tl::tensor<float, 2>(tl::zeros<float>(1, 1)), tl::tensor<float, 1>(tl::randn<float>(j_n)), {}};
    // d f[q, j] / d X[q, k] = [k = perm_q(j)] m_q + s[q, j] [k = argmax_q] + [k = I[q, j]]
    r.want.assign(j_n * j_n, 0.0);
    for (std::int64_t q = 0; q < 16; ++q) {
      std::vector<std::int64_t> perm(8);
      for (std::int64_t k = 0; k < 8; ++k) perm[k] = k;
      std::stable_sort(perm.begin(), perm.end(), [&](std::int64_t u, std::int64_t v) { return r.x(8 * q + u) < r.x(8 * q + v); });
      const std::int64_t am = perm[7];
      const double m = r.x(8 * q + am);
      for (std::int64_t j = 0; j < 8; ++j) {
        double* row = r.want.data() + (8 * q + j) * j_n + 8 * q;
        row[perm[j]] += m;
        row[am] += double(r.x(8 * q + perm[j]));
        row[select_index(q, j)] += 1.0;
      }
    }
    return r;
  }();
  return c;
}

void BM_jacobian_select_tl(benchmark::State& state, bool vectorize) {
  tl::tensor<std::int64_t, 2> idx(tl::shape_t<2>{16, 8});
  for (std::int64_t q = 0; q < 16; ++q)
    for (std::int64_t j = 0; j < 8; ++j) idx(q, j) = select_index(q, j);
  auto f = [idx](const tl::tensor<float, 1>& v) {
    const tl::tensor<float, 2> x = v.reshape(16, 8);
    return tl::tensor<float, 2>(tl::sort(x, 1).values * tl::max(x, 1, tl::keepdim).values + tl::gather(x, 1, idx));
  };
  time_jacobian_tl(state, vectorize ? "tl select jacobian, vectorized" : "tl select jacobian", jacobian_select_case(), f,
                   vectorize);
}
BENCHMARK_CAPTURE(BM_jacobian_select_tl, rows, false)->Apply(real_time_us);
BENCHMARK_CAPTURE(BM_jacobian_select_tl, vectorized, true)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
void BM_jacobian_select_torch(benchmark::State& state) {
  auto idx = torch::empty({16, 8}, torch::kInt64);
  for (std::int64_t q = 0; q < 16; ++q)
    for (std::int64_t j = 0; j < 8; ++j) idx[q][j] = select_index(q, j);
  time_jacobian_torch(state, "torch select jacobian", jacobian_select_case(),
                      [idx](const torch::Tensor&, const torch::Tensor& v) {
                        const auto x = v.reshape({16, 8});
                        return (std::get<0>(torch::sort(x, 1)) * std::get<0>(torch::max(x, 1, true)) + torch::gather(x, 1, idx))
                            .reshape({-1});
                      });
}
BENCHMARK(BM_jacobian_select_torch)->Apply(real_time_us);
#endif

// ===== (j) Jacobian through batched products: X = x.reshape(8, 4, 4), f(x) = tanh(X B + A X),
// A: [8, 4, 4], B: [4, 4] (c.a holds A as rows 0-31 and B as rows 32-35) ==============================

const jac_case& jacobian_bmm_case() {
  static const jac_case c = [] {
    tl::manual_seed(10);
    jac_case r{tl::tensor<float, 2>(tl::randn<float>(36, 4) * 0.5f), tl::tensor<float, 1>(tl::randn<float>(j_n)), {}};
    // Y[b] = X[b] B + A[b] X[b]; dY[b, i, j] / dX[b, p, q] = [i = p] B[q, j] + A[b, i, p] [q = j]
    auto X = [&](std::int64_t b, std::int64_t i, std::int64_t j) { return double(r.x(16 * b + 4 * i + j)); };
    auto A = [&](std::int64_t b, std::int64_t i, std::int64_t j) { return double(r.a(4 * b + i, j)); };
    auto B = [&](std::int64_t i, std::int64_t j) { return double(r.a(32 + i, j)); };
    r.want.assign(j_n * j_n, 0.0);
    for (std::int64_t b = 0; b < 8; ++b)
      for (std::int64_t i = 0; i < 4; ++i)
        for (std::int64_t j = 0; j < 4; ++j) {
          double y = 0;
          for (std::int64_t k = 0; k < 4; ++k) y += X(b, i, k) * B(k, j) + A(b, i, k) * X(b, k, j);
          const double d = 1 - std::tanh(y) * std::tanh(y);
          double* row = r.want.data() + (16 * b + 4 * i + j) * j_n + 16 * b;
          for (std::int64_t q = 0; q < 4; ++q) row[4 * i + q] += d * B(q, j);
          for (std::int64_t p = 0; p < 4; ++p) row[4 * p + j] += d * A(b, i, p);
        }
    return r;
  }();
  return c;
}

void BM_jacobian_bmm_tl(benchmark::State& state, bool vectorize) {
  const auto& c = jacobian_bmm_case();
  const tl::tensor<float, 3> a = c.a.narrow(0, 0, 32).reshape(8, 4, 4);
  const tl::tensor<float, 2> b = c.a.narrow(0, 32, 4);
  auto f = [a, b](const tl::tensor<float, 1>& v) {
    const tl::tensor<float, 3> x = v.reshape(8, 4, 4);
    return tl::tensor<float, 3>(tl::tanh(tl::matmul(x, b) + tl::matmul(a, x)));
  };
  time_jacobian_tl(state, vectorize ? "tl bmm jacobian, vectorized" : "tl bmm jacobian", c, f, vectorize);
}
BENCHMARK_CAPTURE(BM_jacobian_bmm_tl, rows, false)->Apply(real_time_us);
BENCHMARK_CAPTURE(BM_jacobian_bmm_tl, vectorized, true)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
void BM_jacobian_bmm_torch(benchmark::State& state) {
  time_jacobian_torch(state, "torch bmm jacobian", jacobian_bmm_case(),
                      [](const torch::Tensor& ab, const torch::Tensor& v) {
                        const auto a = ab.narrow(0, 0, 32).reshape({8, 4, 4}), b = ab.narrow(0, 32, 4);
                        const auto x = v.reshape({8, 4, 4});
                        return torch::tanh(torch::matmul(x, b) + torch::matmul(a, x)).reshape({-1});
                      });
}
BENCHMARK(BM_jacobian_bmm_torch)->Apply(real_time_us);
#endif

// ===== (k) Jacobian of a complex function: f(z) = exp(z) * conj(flip(z)) + z^2, z: 128 complex floats

using cfloat = tl::complex<float>;
struct cjac_case {
  tl::tensor<cfloat, 1> z;
  std::vector<double> want;  // [128, 128] complex, real and imaginary parts interleaved
};
/// Row i is the gradient of f_i (grad_output e_i) in torch's convention, conj(df_i/dz) + df_i/dconj(z):
/// conj(exp(z_i) conj(z_j) + 2 z_i) at column i and exp(z_i) at column j = 127 - i.
const cjac_case& jacobian_complex_case() {
  static const cjac_case c = [] {
    tl::manual_seed(11);
    const tl::tensor<float, 1> re = tl::randn<float>(j_n), im = tl::randn<float>(j_n);
    cjac_case r{tl::tensor<cfloat, 1>(tl::shape_t<1>{j_n}), {}};
    for (std::int64_t i = 0; i < j_n; ++i) r.z(i) = cfloat(0.5f * re(i), 0.5f * im(i));
    r.want.assign(2 * j_n * j_n, 0.0);
    auto zd = [&](std::int64_t i) { return std::complex<double>(r.z(i).real(), r.z(i).imag()); };
    for (std::int64_t i = 0; i < j_n; ++i) {
      const std::int64_t j = j_n - 1 - i;
      const auto e = std::exp(zd(i));
      const auto d = std::conj(e * std::conj(zd(j)) + 2.0 * zd(i));
      r.want[2 * (i * j_n + i)] += d.real();
      r.want[2 * (i * j_n + i) + 1] += d.imag();
      r.want[2 * (i * j_n + j)] += e.real();
      r.want[2 * (i * j_n + j) + 1] += e.imag();
    }
    return r;
  }();
  return c;
}
/// A complex tl tensor's elements in row-major order, real and imaginary parts interleaved.
template <class X>
std::vector<double> flat_complex(const X& t) {
  const tl::tensor<typename X::value_type, X::rank> c = t.contiguous();
  std::vector<double> out;
  for (tl::index_t i = 0; i < c.numel(); ++i) {
    out.push_back(c.data()[i].real());
    out.push_back(c.data()[i].imag());
  }
  return out;
}

void BM_jacobian_complex_tl(benchmark::State& state, bool vectorize) {
  single_thread();
  const auto& c = jacobian_complex_case();
  using C1 = tl::tensor<cfloat, 1>;
  auto f = [](const C1& v) { return C1(tl::exp(v) * tl::conj(v.flip(0)) + v * v); };
  const tl::autograd::jacobian_options o{.create_graph = false, .vectorize = vectorize};
  if (!close(state, vectorize ? "tl complex jacobian, vectorized" : "tl complex jacobian",
             flat_complex(tl::autograd::jacobian(f, c.z, o)), c.want, 1e-4))
    return;
  for (auto _ : state) {
    auto j = tl::autograd::jacobian(f, c.z, o);
    benchmark::DoNotOptimize(j.data());
  }
}
BENCHMARK_CAPTURE(BM_jacobian_complex_tl, rows, false)->Apply(real_time_us);
BENCHMARK_CAPTURE(BM_jacobian_complex_tl, vectorized, true)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
void BM_jacobian_complex_torch(benchmark::State& state) {
  single_thread();
  const auto& c = jacobian_complex_case();
  const auto z0 = torch::from_blob(const_cast<cfloat*>(c.z.data()), {j_n}, torch::kComplexFloat).clone();
  const auto eye = torch::eye(j_n, torch::kComplexFloat);
  auto jac = [&] {
    const auto z = z0.detach().requires_grad_(true);
    const auto y = torch::exp(z) * torch::conj(z.flip({0})) + z * z;
    auto j = torch::empty({j_n, j_n}, torch::kComplexFloat);
    for (std::int64_t i = 0; i < j_n; ++i)
      j[i].copy_(torch::autograd::grad({y}, {z}, {eye[i]}, /*retain_graph=*/true)[0]);
    return j;
  };
  if (!close(state, "torch complex jacobian", flat(torch::view_as_real(jac())), c.want, 1e-4)) return;
  for (auto _ : state) {
    auto j = jac();
    benchmark::DoNotOptimize(j.data_ptr());
  }
}
BENCHMARK(BM_jacobian_complex_torch)->Apply(real_time_us);
#endif

// ===== (l) Jacobian with respect to a weight matrix: W = w.reshape(16, 8), f(w) = tanh(X W),
// X: [16, 16] (c.a) =================================================================================

const jac_case& jacobian_weight_case() {
  static const jac_case c = [] {
    tl::manual_seed(12);
    jac_case r{tl::tensor<float, 2>(tl::randn<float>(16, 16) * 0.3f), tl::tensor<float, 1>(tl::randn<float>(j_n)), {}};
    // Y = X W; dY[i, j] / dW[p, q] = (1 - tanh(Y[i, j])^2) X[i, p] [q = j]
    r.want.assign(j_n * j_n, 0.0);
    for (std::int64_t i = 0; i < 16; ++i)
      for (std::int64_t j = 0; j < 8; ++j) {
        double y = 0;
        for (std::int64_t k = 0; k < 16; ++k) y += double(r.a(i, k)) * double(r.x(8 * k + j));
        const double d = 1 - std::tanh(y) * std::tanh(y);
        for (std::int64_t p = 0; p < 16; ++p) r.want[(8 * i + j) * j_n + 8 * p + j] = d * double(r.a(i, p));
      }
    return r;
  }();
  return c;
}

void BM_jacobian_weight_tl(benchmark::State& state, bool vectorize) {
  const auto& c = jacobian_weight_case();
  auto f = [&c](const tl::tensor<float, 1>& w) {
    return tl::tensor<float, 2>(tl::tanh(tl::matmul(c.a, w.reshape(16, 8))));
  };
  time_jacobian_tl(state, vectorize ? "tl weight jacobian, vectorized" : "tl weight jacobian", c, f, vectorize);
}
BENCHMARK_CAPTURE(BM_jacobian_weight_tl, rows, false)->Apply(real_time_us);
BENCHMARK_CAPTURE(BM_jacobian_weight_tl, vectorized, true)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
void BM_jacobian_weight_torch(benchmark::State& state) {
  time_jacobian_torch(state, "torch weight jacobian", jacobian_weight_case(),
                      [](const torch::Tensor& a, const torch::Tensor& w) {
                        return torch::tanh(torch::matmul(a, w.reshape({16, 8}))).reshape({-1});
                      });
}
BENCHMARK(BM_jacobian_weight_torch)->Apply(real_time_us);
#endif

// ===== (m) Jacobian through scatter_add: X = x.reshape(16, 8), f(x) = scatter_add(2 X, 1, I, tanh(X[:, :4])),
// I[q, j] = (3 j + q) mod 8, except I[q, 3] = I[q, 0] (a repeated column) ==============================

std::int64_t scatter_index(std::int64_t q, std::int64_t j) { return ((j == 3 ? 0 : 3 * j) + q) % 8; }

const jac_case& jacobian_scatter_case() {
  static const jac_case c = [] {
    tl::manual_seed(13);
    jac_case r{tl::tensor<float, 2>(tl::zeros<float>(1, 1)), tl::tensor<float, 1>(tl::randn<float>(j_n)), {}};
    // dY[q, c] / dX[q, k] = 2 [c = k] + [k < 4] [I[q, k] = c] (1 - tanh(X[q, k])^2)
    r.want.assign(j_n * j_n, 0.0);
    for (std::int64_t q = 0; q < 16; ++q) {
      for (std::int64_t c = 0; c < 8; ++c) r.want[(8 * q + c) * j_n + 8 * q + c] += 2.0;
      for (std::int64_t k = 0; k < 4; ++k) {
        const double t = std::tanh(double(r.x(8 * q + k)));
        r.want[(8 * q + scatter_index(q, k)) * j_n + 8 * q + k] += 1 - t * t;
      }
    }
    return r;
  }();
  return c;
}

void BM_jacobian_scatter_tl(benchmark::State& state, bool vectorize) {
  tl::tensor<std::int64_t, 2> idx(tl::shape_t<2>{16, 4});
  for (std::int64_t q = 0; q < 16; ++q)
    for (std::int64_t j = 0; j < 4; ++j) idx(q, j) = scatter_index(q, j);
  auto f = [idx](const tl::tensor<float, 1>& v) {
    const tl::tensor<float, 2> x = v.reshape(16, 8);
    return tl::tensor<float, 2>(tl::scatter_add(x * 2.0f, 1, idx, tl::tensor<float, 2>(tl::tanh(x.narrow(1, 0, 4)))));
  };
  time_jacobian_tl(state, vectorize ? "tl scatter jacobian, vectorized" : "tl scatter jacobian", jacobian_scatter_case(),
                   f, vectorize);
}
BENCHMARK_CAPTURE(BM_jacobian_scatter_tl, rows, false)->Apply(real_time_us);
BENCHMARK_CAPTURE(BM_jacobian_scatter_tl, vectorized, true)->Apply(real_time_us);

#ifdef TL_BENCH_HAVE_TORCH
void BM_jacobian_scatter_torch(benchmark::State& state) {
  auto idx = torch::empty({16, 4}, torch::kInt64);
  for (std::int64_t q = 0; q < 16; ++q)
    for (std::int64_t j = 0; j < 4; ++j) idx[q][j] = scatter_index(q, j);
  time_jacobian_torch(state, "torch scatter jacobian", jacobian_scatter_case(),
                      [idx](const torch::Tensor&, const torch::Tensor& v) {
                        const auto x = v.reshape({16, 8});
                        return torch::scatter_add(x * 2.0f, 1, idx, torch::tanh(x.narrow(1, 0, 4))).reshape({-1});
                      });
}
BENCHMARK(BM_jacobian_scatter_torch)->Apply(real_time_us);
#endif

}  // namespace
