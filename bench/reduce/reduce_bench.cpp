// Reductions and softmax on float matrices, tl against a hand loop, Eigen and LibTorch.
//
//   sum_rows:  sum over dim -1 of 4096 x 4096 (one value per row, contiguous inner reduction)
//   sum_cols:  sum over dim 0 of 4096 x 4096 (one value per column, strided outer reduction)
//   sum_all:   sum of all 4096 x 4096 elements
//   softmax:   softmax over the last dim of 4096 x 1024
//
// The hand loops are what a careful C++ programmer writes without -ffast-math: row sums with 16
// partial sums (so the compiler can vectorize them), column sums as a row-by-row accumulation
// into the output, softmax as max / exp-and-sum / scale passes per row with std::exp.
// Eigen works on a row-major ArrayXXf (`rowwise().sum()`, `colwise().sum()`, `sum()`, and a
// max / exp / normalize expression for softmax); its reductions run single-threaded.
// The argument is the thread count, given to tl, Eigen and LibTorch alike. Bytes processed count
// the input read once (and for softmax the output written once).
// Every benchmark checks its result against the hand loop once before timing. All of them read the
// same input buffer (see shared_input).
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
#ifdef TL_BENCH_HAVE_TORCH
#include <torch/torch.h>
#endif

#include "../bench_threads.hpp"

namespace {

using tl_bench::hw_threads;
using tl_bench::set_threads;
using tl_bench::thread_args;

constexpr std::int64_t rows = 4096, cols = 4096, n = rows * cols;
constexpr std::int64_t srows = 4096, scols = 1024, sn = srows * scols;  // softmax input

std::vector<float> random_floats(std::int64_t count, unsigned seed, float lo, float hi) {
  std::vector<float> v(count);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (auto& e : v) e = u(gen);
  return v;
}

/// One input buffer per case, read by every implementation (tl through the tensor, the hand loops
/// through its data, Eigen through a Map, LibTorch through from_blob): the comparison then does not
/// depend on where each copy of 64 MiB happened to be placed in memory (measured: up to 15% between
/// two buffers filled the same way).
tl::tensor<float, 2> shared_input(std::int64_t r, std::int64_t c, unsigned seed, float lo, float hi) {
  const std::vector<float> v = random_floats(r * c, seed, lo, hi);
  tl::tensor<float, 2> t(tl::shape_t<2>{r, c});
  std::copy(v.begin(), v.end(), t.data());
  return t;
}
const tl::tensor<float, 2>& tl_x() {
  static const tl::tensor<float, 2> x = shared_input(rows, cols, 11, -1.0f, 1.0f);
  return x;
}
const tl::tensor<float, 2>& tl_s() {
  static const tl::tensor<float, 2> x = shared_input(srows, scols, 12, -8.0f, 8.0f);
  return x;
}
struct host_view {
  const float* p;
  const float* data() const { return p; }
};
host_view host_x() { return {tl_x().data()}; }
host_view host_s() { return {tl_s().data()}; }

// ---- hand loops --------------------------------------------------------------------------------

/// Sum of p[0, len) with 16 independent partial sums (vectorizable without -ffast-math).
float span_sum(const float* p, std::int64_t len) {
  float acc[16] = {};
  const std::int64_t body = len / 16 * 16;
  for (std::int64_t j = 0; j < body; j += 16)
    for (int k = 0; k < 16; ++k) acc[k] += p[j + k];
  float s = 0.0f;
  for (int k = 0; k < 16; ++k) s += acc[k];
  for (std::int64_t j = body; j < len; ++j) s += p[j];
  return s;
}

void hand_sum_rows(const float* x, float* out, std::int64_t r0, std::int64_t r1) {
  for (std::int64_t i = r0; i < r1; ++i) out[i] = span_sum(x + i * cols, cols);
}

/// Column sums of columns [c0, c1): accumulate row after row (the inner loop vectorizes).
void hand_sum_cols(const float* x, float* out, std::int64_t c0, std::int64_t c1) {
  for (std::int64_t j = c0; j < c1; ++j) out[j] = 0.0f;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = c0; j < c1; ++j) out[j] += x[i * cols + j];
}

void hand_softmax(const float* x, float* y, std::int64_t r0, std::int64_t r1) {
  for (std::int64_t i = r0; i < r1; ++i) {
    const float* xr = x + i * scols;
    float* yr = y + i * scols;
    float m = xr[0];
    for (std::int64_t j = 1; j < scols; ++j) m = std::max(m, xr[j]);
    float s = 0.0f;
    for (std::int64_t j = 0; j < scols; ++j) {
      yr[j] = std::exp(xr[j] - m);
      s += yr[j];
    }
    const float inv = 1.0f / s;
    for (std::int64_t j = 0; j < scols; ++j) yr[j] *= inv;
  }
}

// ---- references and checks -----------------------------------------------------------------------

const std::vector<float>& ref_rows() {
  static const std::vector<float> r = [] {
    std::vector<float> v(rows);
    hand_sum_rows(host_x().data(), v.data(), 0, rows);
    return v;
  }();
  return r;
}
const std::vector<float>& ref_cols() {
  static const std::vector<float> r = [] {
    std::vector<float> v(cols);
    hand_sum_cols(host_x().data(), v.data(), 0, cols);
    return v;
  }();
  return r;
}
double ref_all() {
  static const double r = [] {
    double s = 0.0;
    for (float v : ref_rows()) s += v;
    return s;
  }();
  return r;
}
const std::vector<float>& ref_softmax() {
  static const std::vector<float> r = [] {
    std::vector<float> v(sn);
    hand_softmax(host_s().data(), v.data(), 0, srows);
    return v;
  }();
  return r;
}

/// got[0, len) against ref within abs_tol + rel_tol * |ref|; on a mismatch stops the benchmark.
bool check(benchmark::State& state, const float* got, const std::vector<float>& ref, float abs_tol, float rel_tol) {
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (!(std::abs(got[i] - ref[i]) <= abs_tol + rel_tol * std::abs(ref[i]))) {
      state.SkipWithError(("result differs from the hand loop at " + std::to_string(i) + ": " +
                           std::to_string(got[i]) + " vs " + std::to_string(ref[i]))
                              .c_str());
      return false;
    }
  }
  return true;
}
// Sums of 4096 values in [-1, 1] have magnitude ~40; float summation orders differ by ~1e-4.
bool check_rows(benchmark::State& s, const float* got) { return check(s, got, ref_rows(), 2e-3f, 1e-5f); }
bool check_cols(benchmark::State& s, const float* got) { return check(s, got, ref_cols(), 2e-3f, 1e-5f); }
bool check_all(benchmark::State& s, double got) {
  if (std::abs(got - ref_all()) <= 0.5) return true;  // |sum| of 16M values in [-1, 1]: ~2400
  s.SkipWithError(("full sum differs from the hand loop: " + std::to_string(got) + " vs " + std::to_string(ref_all()))
                      .c_str());
  return false;
}
bool check_softmax(benchmark::State& s, const float* got) { return check(s, got, ref_softmax(), 1e-7f, 1e-5f); }

enum class kind { rows, cols, all, softmax };

void set_counters(benchmark::State& state, kind k) {
  const std::int64_t elems = k == kind::softmax ? sn : n;
  state.SetItemsProcessed(state.iterations() * elems);
  state.SetBytesProcessed(state.iterations() * elems * (k == kind::softmax ? 2 : 1) *
                          static_cast<std::int64_t>(sizeof(float)));
}

/// Runs body once, checks it with ok(), then times body.
template <class F, class C>
void run(benchmark::State& state, kind k, F body, C ok) {
  body();
  if (!ok()) return;
  for (auto _ : state) {
    body();
    benchmark::ClobberMemory();
  }
  set_counters(state, k);
}

// ---- hand loops --------------------------------------------------------------------------------

template <kind K>
void BM_hand(benchmark::State& state) {
  const int nt = static_cast<int>(state.range(0));
  set_threads(nt);
  const float* x = K == kind::softmax ? host_s().data() : host_x().data();
  std::vector<float> out(K == kind::softmax ? sn : (K == kind::cols ? cols : rows), 0.0f);
  std::vector<double> partial(static_cast<std::size_t>(nt), 0.0);
  double total = 0.0;
  auto body = [&] {
    if constexpr (K == kind::rows) {
      tl_bench::split_run_indexed(nt, rows, [&](int, std::int64_t a, std::int64_t b) { hand_sum_rows(x, out.data(), a, b); });
    } else if constexpr (K == kind::cols) {
      // Split the columns in blocks of whole cache lines.
      const std::int64_t blocks = cols / 16;
      tl_bench::split_run_indexed(nt, blocks, [&](int, std::int64_t a, std::int64_t b) { hand_sum_cols(x, out.data(), a * 16, b * 16); });
    } else if constexpr (K == kind::all) {
      tl_bench::split_run_indexed(nt, rows, [&](int t, std::int64_t a, std::int64_t b) {
        float s = 0.0f;
        for (std::int64_t i = a; i < b; ++i) s += span_sum(x + i * cols, cols);
        partial[t] = s;
      });
      total = 0.0;
      for (double p : partial) total += p;
      benchmark::DoNotOptimize(total);
    } else {
      tl_bench::split_run_indexed(nt, srows, [&](int, std::int64_t a, std::int64_t b) { hand_softmax(x, out.data(), a, b); });
    }
  };
  run(state, K, body, [&] {
    if constexpr (K == kind::rows) return check_rows(state, out.data());
    else if constexpr (K == kind::cols) return check_cols(state, out.data());
    else if constexpr (K == kind::all) return check_all(state, total);
    else return check_softmax(state, out.data());
  });
}
BENCHMARK_TEMPLATE(BM_hand, kind::rows)->Name("BM_sum_rows_hand")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_hand, kind::cols)->Name("BM_sum_cols_hand")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_hand, kind::all)->Name("BM_sum_all_hand")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_hand, kind::softmax)->Name("BM_softmax_hand")->Apply(thread_args);

// ---- tl ----------------------------------------------------------------------------------------

template <kind K>
void BM_tl(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  const auto& x = K == kind::softmax ? tl_s() : tl_x();
  tl::tensor<float, 1> out;
  tl::tensor<float, 2> sm;
  float total = 0.0f;
  auto body = [&] {
    if constexpr (K == kind::rows) out = tl::sum(x, -1);
    else if constexpr (K == kind::cols) out = tl::sum(x, 0);
    else if constexpr (K == kind::all) total = tl::sum(x).item();
    else sm = tl::softmax(x, -1);
    benchmark::DoNotOptimize(total);
  };
  run(state, K, body, [&] {
    if constexpr (K == kind::rows) return check_rows(state, out.data());
    else if constexpr (K == kind::cols) return check_cols(state, out.data());
    else if constexpr (K == kind::all) return check_all(state, total);
    else return check_softmax(state, sm.data());
  });
}
BENCHMARK_TEMPLATE(BM_tl, kind::rows)->Name("BM_sum_rows_tl")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_tl, kind::cols)->Name("BM_sum_cols_tl")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_tl, kind::all)->Name("BM_sum_all_tl")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_tl, kind::softmax)->Name("BM_softmax_tl")->Apply(thread_args);

// ---- Eigen -------------------------------------------------------------------------------------

#ifdef TL_BENCH_HAVE_EIGEN
using eigen_rm = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <kind K>
void BM_eigen(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  const Eigen::Map<const eigen_rm> x = K == kind::softmax ? Eigen::Map<const eigen_rm>(host_s().data(), srows, scols)
                                                          : Eigen::Map<const eigen_rm>(host_x().data(), rows, cols);
  Eigen::ArrayXf out = Eigen::ArrayXf::Zero(K == kind::cols ? cols : rows);
  eigen_rm sm = eigen_rm::Zero(x.rows(), x.cols());
  float total = 0.0f;
  auto body = [&] {
    if constexpr (K == kind::rows) out = x.rowwise().sum();
    else if constexpr (K == kind::cols) out = x.colwise().sum().transpose();
    else if constexpr (K == kind::all) total = x.sum();
    else {
      sm = (x.colwise() - x.rowwise().maxCoeff()).exp();
      sm.colwise() /= sm.rowwise().sum();
    }
    benchmark::DoNotOptimize(total);
  };
  run(state, K, body, [&] {
    if constexpr (K == kind::rows) return check_rows(state, out.data());
    else if constexpr (K == kind::cols) return check_cols(state, out.data());
    else if constexpr (K == kind::all) return check_all(state, total);
    else return check_softmax(state, sm.data());
  });
}
BENCHMARK_TEMPLATE(BM_eigen, kind::rows)->Name("BM_sum_rows_eigen")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_eigen, kind::cols)->Name("BM_sum_cols_eigen")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_eigen, kind::all)->Name("BM_sum_all_eigen")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_eigen, kind::softmax)->Name("BM_softmax_eigen")->Apply(thread_args);
#endif

// ---- LibTorch ----------------------------------------------------------------------------------

#ifdef TL_BENCH_HAVE_TORCH
template <kind K>
void BM_torch(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  torch::NoGradGuard no_grad;
  const auto x = K == kind::softmax
                     ? torch::from_blob(const_cast<float*>(host_s().data()), {srows, scols}, torch::kFloat32)
                     : torch::from_blob(const_cast<float*>(host_x().data()), {rows, cols}, torch::kFloat32);
  torch::Tensor out;
  float total = 0.0f;
  auto body = [&] {
    if constexpr (K == kind::rows) out = x.sum(-1);
    else if constexpr (K == kind::cols) out = x.sum(0);
    else if constexpr (K == kind::all) total = x.sum().item<float>();
    else out = torch::softmax(x, -1);
    benchmark::DoNotOptimize(total);
  };
  run(state, K, body, [&] {
    if constexpr (K == kind::rows) return check_rows(state, out.data_ptr<float>());
    else if constexpr (K == kind::cols) return check_cols(state, out.data_ptr<float>());
    else if constexpr (K == kind::all) return check_all(state, total);
    else return check_softmax(state, out.data_ptr<float>());
  });
}
BENCHMARK_TEMPLATE(BM_torch, kind::rows)->Name("BM_sum_rows_torch")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_torch, kind::cols)->Name("BM_sum_cols_torch")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_torch, kind::all)->Name("BM_sum_all_torch")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_torch, kind::softmax)->Name("BM_softmax_torch")->Apply(thread_args);
#endif

}  // namespace
