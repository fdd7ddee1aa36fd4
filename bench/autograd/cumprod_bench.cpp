// cumprod's backward when the input holds zeros (the exact rule: O(n) per slice, first zero found,
// division-based before it, one running product from it) against the same backward on an input
// without zeros (the division formula: one fused scan), and against LibTorch 1.13's cumprod backward
// on the same data when found. Single thread.
//
//   backward:  x: [64, 4096] doubles, loss = sum(cumprod(x, 1) * w), timed: forward + backward
//              (y.backward() into x.grad); "zeros" puts one zero in each row at a random position.
//   jacobian:  the 256 x 256 Jacobian of cumprod(x, 1) for x: [8, 32] doubles with one zero per row
//              (and without zeros, for comparison), row by row (one backward per output element) and
//              vectorized (one batched backward).
//   hessian_prod: the 64 x 64 Hessian of prod(x), x: 64 doubles with x[17] = 0 (case (e) of
//              autograd_bench.cpp): prod's exact gradient is built from cumprods of inputs with a
//              zero, so the vectorized second pass runs cumprod's batched rule with zeros.
//
// Before timing, each case checks its gradient once against the definition d y_j / d x_k =
// prod_{i <= j, i != k} x_i (computed here) and stops with SkipWithError when they differ.
#define TL_AUTOGRAD 2  // create_graph (the Hessian)

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <tl/tensor.hpp>

#ifdef TL_BENCH_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace {

using M2 = tl::tensor<double, 2>;

void single_thread() {
  if (tl::get_num_threads() != 1) tl::set_num_threads(1);
#ifdef TL_BENCH_HAVE_TORCH
  torch::set_num_threads(1);
#endif
}

/// Values in +-[0.9, 1.1] (products of 4096 stay in range), one zero per row when `zeros`.
M2 make_input(tl::index_t rows, tl::index_t n, bool zeros, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> mag(0.9, 1.1);
  std::uniform_int_distribution<tl::index_t> pos(0, n - 1);
  M2 x(tl::shape_t<2>{rows, n});
  for (tl::index_t r = 0; r < rows; ++r) {
    for (tl::index_t k = 0; k < n; ++k) x(r, k) = (gen() & 1 ? 1 : -1) * mag(gen);
    if (zeros) x(r, pos(gen)) = 0.0;
  }
  return x;
}

/// sum_{j >= k} w_j prod_{i <= j, i != k} x_i for row r, position k, from the definition (a running
/// product that skips k), and the sum of the terms' magnitudes (the scale of its rounding errors).
std::pair<double, double> grad_definition(const M2& x, const M2& w, tl::index_t r, tl::index_t k) {
  double acc = 0, mag = 0, p = 1;
  for (tl::index_t j = 0; j < x.shape()[1]; ++j) {
    if (j != k) p *= x(r, j);
    if (j >= k) acc += w(r, j) * p, mag += std::fabs(w(r, j) * p);
  }
  return {acc, mag};
}

bool grad_ok(const M2& x, const M2& w, const M2& g) {
  for (tl::index_t r = 0; r < x.shape()[0]; r += 7)
    for (tl::index_t k = 0; k < x.shape()[1]; k += 61) {
      const auto [want, mag] = grad_definition(x, w, r, k);
      if (std::fabs(g(r, k) - want) > 1e-11 * mag) return false;
    }
  return true;
}

void BM_tl_cumprod_backward(benchmark::State& state) {
  single_thread();
  const bool zeros = state.range(0) != 0;
  const M2 x0 = make_input(64, 4096, zeros, 1), w = make_input(64, 4096, false, 2);
  const auto step = [&] {
    auto x = M2(x0.clone()).requires_grad_();
    tl::tensor<double, 0> loss = tl::sum(M2(tl::cumprod(x, 1)) * w);
    loss.backward();
    return x.grad();
  };
  if (!grad_ok(x0, w, step())) {
    state.SkipWithError("gradient differs from the definition");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(step().data());
  state.SetItemsProcessed(state.iterations() * x0.numel());
  state.SetLabel(zeros ? "one zero per row" : "no zeros");
}
BENCHMARK(BM_tl_cumprod_backward)->ArgName("zeros")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

#ifdef TL_BENCH_HAVE_TORCH
void BM_torch_cumprod_backward(benchmark::State& state) {
  single_thread();
  const bool zeros = state.range(0) != 0;
  const M2 x0 = make_input(64, 4096, zeros, 1), w = make_input(64, 4096, false, 2);
  const auto opts = torch::TensorOptions().dtype(torch::kFloat64);
  const torch::Tensor tx = torch::from_blob(const_cast<double*>(x0.data()), {64, 4096}, opts).clone();
  const torch::Tensor tw = torch::from_blob(const_cast<double*>(w.data()), {64, 4096}, opts).clone();
  const auto step = [&] {
    torch::Tensor x = tx.clone().requires_grad_(true);
    torch::Tensor loss = (torch::cumprod(x, 1) * tw).sum();
    loss.backward();
    return x.grad();
  };
  {
    const torch::Tensor g = step().contiguous();
    M2 gg(tl::shape_t<2>{64, 4096});
    std::copy(g.data_ptr<double>(), g.data_ptr<double>() + g.numel(), gg.data());
    if (!grad_ok(x0, w, gg)) {
      state.SkipWithError("LibTorch's gradient differs from the definition");
      return;
    }
  }
  for (auto _ : state) benchmark::DoNotOptimize(step().data_ptr());
  state.SetItemsProcessed(state.iterations() * x0.numel());
  state.SetLabel(zeros ? "one zero per row" : "no zeros");
}
BENCHMARK(BM_torch_cumprod_backward)->ArgName("zeros")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
#endif

void BM_tl_jacobian_cumprod_zeros(benchmark::State& state) {
  single_thread();
  const bool vectorize = state.range(0) != 0, zeros = state.range(1) != 0;
  const M2 x = make_input(8, 32, zeros, 3);
  const tl::autograd::jacobian_options opt{.create_graph = false, .vectorize = vectorize};
  const auto f = [](const M2& v) { return M2(tl::cumprod(v, 1)); };
  {
    const auto j = tl::autograd::jacobian(f, x, opt).contiguous().reshape(256, 256);
    for (tl::index_t r = 0; r < 8; ++r)
      for (tl::index_t c = 0; c < 32; c += 5)
        for (tl::index_t k = 0; k < 32; k += 3) {
          double p = 0;
          if (k <= c) {
            p = 1;
            for (tl::index_t i = 0; i <= c; ++i)
              if (i != k) p *= x(r, i);
          }
          if (std::fabs(j(r * 32 + c, r * 32 + k) - p) > 1e-12) {
            state.SkipWithError("Jacobian differs from the definition");
            return;
          }
        }
  }
  for (auto _ : state) benchmark::DoNotOptimize(tl::autograd::jacobian(f, x, opt).data());
  state.SetLabel(std::string(vectorize ? "vectorized" : "row by row") + (zeros ? ", one zero per row" : ", no zeros"));
}
BENCHMARK(BM_tl_jacobian_cumprod_zeros)->ArgNames({"vectorize", "zeros"})->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);

void BM_tl_hessian_prod_zero(benchmark::State& state) {
  single_thread();
  const bool vectorize = state.range(0) != 0;
  constexpr tl::index_t n = 64;
  tl::tensor<double, 1> x(tl::shape_t<1>{n});
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> mag(0.8, 1.2);
  for (tl::index_t i = 0; i < n; ++i) x(i) = (gen() & 1 ? 1 : -1) * mag(gen);
  x(17) = 0.0;
  const auto f = [](const tl::tensor<double, 1>& v) { return tl::tensor<double, 0>(tl::prod(v)); };
  const tl::autograd::jacobian_options opt{.create_graph = false, .vectorize = vectorize};
  {
    const auto h = tl::autograd::hessian(f, x, opt);
    for (tl::index_t i = 0; i < n; ++i)
      for (tl::index_t j = 0; j < n; ++j) {
        double p = 0;
        if (i != j) {
          p = 1;
          for (tl::index_t k = 0; k < n; ++k)
            if (k != i && k != j) p *= x(k);
        }
        if (std::fabs(h(i, j) - p) > 1e-9) {
          state.SkipWithError("Hessian differs from the definition");
          return;
        }
      }
  }
  for (auto _ : state) benchmark::DoNotOptimize(tl::autograd::hessian(f, x, opt).data());
  state.SetLabel(vectorize ? "vectorized" : "row by row");
}
BENCHMARK(BM_tl_hessian_prod_zero)->ArgName("vectorize")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
