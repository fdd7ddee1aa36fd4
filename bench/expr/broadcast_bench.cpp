// Broadcasting along the last dim on a 4096 x 4096 float matrix (64 MiB, larger than the L3).
//
//   center:  y = x - mean(x, -1, keepdim)     (a row reduction feeding a broadcast subtraction)
//   bsub:    y = x - m, m of shape [4096, 1]   (the broadcast subtraction alone, m precomputed)
//
// Peers: a hand-written loop (per row: the mean with 16 partial sums, then the subtraction while
// the row is still in L1), Eigen (row-major ArrayXXf, `x.colwise() - x.rowwise().mean()`; Eigen
// evaluates it single-threaded), xtensor (`x - xt::mean(x, {1}, keep_dims | immediate)` with
// xt::noalias; single-threaded) and LibTorch eager (`x - x.mean(-1, true)`).
// The argument is the thread count, given to tl, Eigen and LibTorch alike. Bytes processed count
// the compulsory traffic: x read once and y written once (2 x 64 MiB per iteration).
// Every benchmark checks its result against the hand loop once before timing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <tl/tensor.hpp>

#ifdef TL_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#endif
#ifdef TL_BENCH_HAVE_XTENSOR
#ifndef XTENSOR_USE_XSIMD
#define XTENSOR_USE_XSIMD
#endif
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>
#endif
#ifdef TL_BENCH_HAVE_TORCH
#include <torch/torch.h>
#endif

#include "../bench_threads.hpp"

namespace {

using tl_bench::hw_threads;
using tl_bench::set_threads;
using tl_bench::split_run;
using tl_bench::thread_args;

constexpr std::int64_t rows = 4096, cols = 4096, n = rows * cols;

const std::vector<float>& host_x() {
  static const std::vector<float> x = [] {
    std::vector<float> v(n);
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> u(-1.0f, 3.0f);
    for (auto& e : v) e = u(gen);
    return v;
  }();
  return x;
}

/// Sum of p[0, len) with 16 independent partial sums (vectorizable without -ffast-math).
float row_sum(const float* p, std::int64_t len) {
  float acc[16] = {};
  const std::int64_t body = len / 16 * 16;
  for (std::int64_t j = 0; j < body; j += 16)
    for (int k = 0; k < 16; ++k) acc[k] += p[j + k];
  float s = 0.0f;
  for (int k = 0; k < 16; ++k) s += acc[k];
  for (std::int64_t j = body; j < len; ++j) s += p[j];
  return s;
}

const std::vector<float>& host_row_mean() {
  static const std::vector<float> m = [] {
    std::vector<float> v(rows);
    for (std::int64_t i = 0; i < rows; ++i) v[i] = row_sum(host_x().data() + i * cols, cols) / cols;
    return v;
  }();
  return m;
}

void hand_center(const float* x, float* y, std::int64_t r0, std::int64_t r1) {
  for (std::int64_t i = r0; i < r1; ++i) {
    const float* xr = x + i * cols;
    float* yr = y + i * cols;
    const float m = row_sum(xr, cols) / cols;
    for (std::int64_t j = 0; j < cols; ++j) yr[j] = xr[j] - m;
  }
}

void hand_bsub(const float* x, const float* m, float* y, std::int64_t r0, std::int64_t r1) {
  for (std::int64_t i = r0; i < r1; ++i)
    for (std::int64_t j = 0; j < cols; ++j) y[i * cols + j] = x[i * cols + j] - m[i];
}

const std::vector<float>& reference() {
  static const std::vector<float> y = [] {
    std::vector<float> v(n);
    hand_center(host_x().data(), v.data(), 0, rows);
    return v;
  }();
  return y;
}

bool check(benchmark::State& state, const float* got) {
  const auto& ref = reference();
  for (std::int64_t i = 0; i < n; ++i) {
    if (!(std::abs(got[i] - ref[i]) <= 1e-5f * (1.0f + std::abs(ref[i])))) {
      state.SkipWithError(("result differs from the hand loop at " + std::to_string(i) + ": " +
                           std::to_string(got[i]) + " vs " + std::to_string(ref[i]))
                              .c_str());
      return false;
    }
  }
  return true;
}

void set_counters(benchmark::State& state) {
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * 2 * static_cast<std::int64_t>(sizeof(float)));
}

/// Runs body once, checks result() (a pointer to y's elements) against the hand loop, then times body.
template <class F, class G>
void run(benchmark::State& state, F body, G result) {
  body();
  if (!check(state, result())) return;
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(result());
    benchmark::ClobberMemory();
  }
  set_counters(state);
}

// ---- hand loops ------------------------------------------------------------------------------

void BM_center_hand(benchmark::State& state) {
  const int nt = static_cast<int>(state.range(0));
  set_threads(nt);
  const float* x = host_x().data();
  std::vector<float> y(n, 0.0f);
  run(state, [&] { split_run(nt, rows, [&](std::int64_t r0, std::int64_t r1) { hand_center(x, y.data(), r0, r1); }); },
      [&] { return y.data(); });
}
BENCHMARK(BM_center_hand)->Apply(thread_args);

void BM_bsub_hand(benchmark::State& state) {
  const int nt = static_cast<int>(state.range(0));
  set_threads(nt);
  const float* x = host_x().data();
  const float* m = host_row_mean().data();
  std::vector<float> y(n, 0.0f);
  run(state,
      [&] { split_run(nt, rows, [&](std::int64_t r0, std::int64_t r1) { hand_bsub(x, m, y.data(), r0, r1); }); },
      [&] { return y.data(); });
}
BENCHMARK(BM_bsub_hand)->Apply(thread_args);

// ---- tl ----------------------------------------------------------------------------------------

const tl::tensor<float, 2>& tl_x() {
  static const tl::tensor<float, 2> x = [] {
    tl::tensor<float, 2> t(tl::shape_t<2>{rows, cols});
    std::copy(host_x().begin(), host_x().end(), t.data());
    return t;
  }();
  return x;
}

void BM_center_tl(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  const auto& x = tl_x();
  tl::tensor<float, 2> y(tl::shape_t<2>{rows, cols});
  y = 0.0f;
  run(state, [&] { y = x - tl::mean(x, -1, tl::keepdim); }, [&] { return y.data(); });
}
BENCHMARK(BM_center_tl)->Apply(thread_args);

void BM_bsub_tl(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  const auto& x = tl_x();
  tl::tensor<float, 2> m(tl::shape_t<2>{rows, 1});
  std::copy(host_row_mean().begin(), host_row_mean().end(), m.data());
  tl::tensor<float, 2> y(tl::shape_t<2>{rows, cols});
  y = 0.0f;
  run(state, [&] { y = x - m; }, [&] { return y.data(); });
}
BENCHMARK(BM_bsub_tl)->Apply(thread_args);

// ---- Eigen -------------------------------------------------------------------------------------

#ifdef TL_BENCH_HAVE_EIGEN
using eigen_rm = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void BM_center_eigen(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  const eigen_rm x = Eigen::Map<const eigen_rm>(host_x().data(), rows, cols);
  eigen_rm y = eigen_rm::Zero(rows, cols);
  run(state, [&] { y = x.colwise() - x.rowwise().mean(); }, [&] { return y.data(); });
}
BENCHMARK(BM_center_eigen)->Apply(thread_args);

void BM_bsub_eigen(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  const eigen_rm x = Eigen::Map<const eigen_rm>(host_x().data(), rows, cols);
  const Eigen::ArrayXf m = Eigen::Map<const Eigen::ArrayXf>(host_row_mean().data(), rows);
  eigen_rm y = eigen_rm::Zero(rows, cols);
  run(state, [&] { y = x.colwise() - m; }, [&] { return y.data(); });
}
BENCHMARK(BM_bsub_eigen)->Apply(thread_args);
#endif

// ---- xtensor -----------------------------------------------------------------------------------

#ifdef TL_BENCH_HAVE_XTENSOR
void BM_center_xtensor(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  using X = xt::xtensor<float, 2>;
  X x = X::from_shape({static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)});
  std::copy(host_x().begin(), host_x().end(), x.data());
  X y = xt::zeros<float>({static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)});
  // The lazy form `x - xt::mean(x, {1}, xt::keep_dims)` gives wrong values with xtensor 0.24.3 (Debian
  // 12) on this input, so the mean is evaluated immediately, as an xtensor user has to.
  run(state,
      [&] { xt::noalias(y) = x - xt::mean(x, {1}, xt::keep_dims | xt::evaluation_strategy::immediate); },
      [&] { return y.data(); });
}
BENCHMARK(BM_center_xtensor)->Apply(thread_args);

void BM_bsub_xtensor(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  using X = xt::xtensor<float, 2>;
  X x = X::from_shape({static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)});
  std::copy(host_x().begin(), host_x().end(), x.data());
  X m = X::from_shape({static_cast<std::size_t>(rows), 1});
  std::copy(host_row_mean().begin(), host_row_mean().end(), m.data());
  X y = xt::zeros<float>({static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)});
  run(state, [&] { xt::noalias(y) = x - m; }, [&] { return y.data(); });
}
BENCHMARK(BM_bsub_xtensor)->Apply(thread_args);
#endif

// ---- LibTorch eager ----------------------------------------------------------------------------

#ifdef TL_BENCH_HAVE_TORCH
void BM_center_torch_eager(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  torch::NoGradGuard no_grad;
  const auto x = torch::from_blob(const_cast<float*>(host_x().data()), {rows, cols}, torch::kFloat32).clone();
  torch::Tensor y;
  run(state, [&] { y = x - x.mean(-1, true); }, [&] { return y.data_ptr<float>(); });
}
BENCHMARK(BM_center_torch_eager)->Apply(thread_args);

void BM_bsub_torch_eager(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  torch::NoGradGuard no_grad;
  const auto x = torch::from_blob(const_cast<float*>(host_x().data()), {rows, cols}, torch::kFloat32).clone();
  const auto m = torch::from_blob(const_cast<float*>(host_row_mean().data()), {rows, 1}, torch::kFloat32).clone();
  auto y = torch::zeros({rows, cols});
  run(state, [&] { torch::sub_out(y, x, m); }, [&] { return y.data_ptr<float>(); });
}
BENCHMARK(BM_bsub_torch_eager)->Apply(thread_args);
#endif

}  // namespace
