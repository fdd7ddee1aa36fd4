// Fused elementwise expressions over 16M floats (1 << 24 elements), tl against its peers.
//
//   compute-heavy:  r = a*b + c*sin(d) - exp(-e)
//   memory-bound:   r = a*b + c*d - e
//
// Side by side in one binary: a hand-written scalar loop (-O3, auto-vectorized where the
// compiler can), a STREAM-style copy (std::copy, and a copy with explicit streaming stores: the
// bandwidth ceiling) and STREAM's scale kernel (a plain loop with ordinary stores), tl, and when found Eigen
// (ArrayXf), xtensor (xtensor<float, 1> + xt::noalias) and LibTorch eager (one pass per op).
// Every benchmark takes the thread count as its argument (1 and all hardware threads); the
// same count is given to tl::set_num_threads, Eigen::setNbThreads and torch::set_num_threads.
// Eigen's and xtensor's elementwise array expressions are single-threaded whatever that count
// is (Eigen threads only its products; xtensor needs XTENSOR_USE_TBB or XTENSOR_USE_OPENMP), so their
// all-threads rows show what a user of those libraries gets, not a parallel run.
//
// Bytes processed count every array read once and the result written once (the compute-heavy
// and memory-bound expressions: 5 reads + 1 write; copy and scale: 1 read + 1 write).
// Before its timed loop, every benchmark checks its result against the hand loop once and
// stops with SkipWithError when they differ.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include <tl/tensor.hpp>

#ifdef TL_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#endif
#ifdef TL_BENCH_HAVE_XTENSOR
#ifndef XTENSOR_USE_XSIMD
#define XTENSOR_USE_XSIMD  // xtensor's documented switch for its SIMD path (xsimd is a tl dependency anyway)
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

constexpr std::int64_t n = std::int64_t{1} << 24;

struct inputs {
  std::vector<float> a, b, c, d, e;
};

const inputs& host() {
  static const inputs in = [] {
    inputs r;
    std::mt19937 gen(42);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f), ang(-3.5f, 3.5f);
    for (auto* v : {&r.a, &r.b, &r.c, &r.d, &r.e}) {
      v->resize(n);
      for (auto& x : *v) x = (v == &r.d) ? ang(gen) : u(gen);
    }
    return r;
  }();
  return in;
}

// ---- hand-written loops (also the reference results) -------------------------------------

void hand_heavy(const inputs& in, float* r, std::int64_t lo, std::int64_t hi) {
  const float *a = in.a.data(), *b = in.b.data(), *c = in.c.data(), *d = in.d.data(), *e = in.e.data();
  for (std::int64_t i = lo; i < hi; ++i) r[i] = a[i] * b[i] + c[i] * std::sin(d[i]) - std::exp(-e[i]);
}

void hand_light(const inputs& in, float* r, std::int64_t lo, std::int64_t hi) {
  const float *a = in.a.data(), *b = in.b.data(), *c = in.c.data(), *d = in.d.data(), *e = in.e.data();
  for (std::int64_t i = lo; i < hi; ++i) r[i] = a[i] * b[i] + c[i] * d[i] - e[i];
}

const std::vector<float>& reference(bool heavy) {
  static const std::vector<float> rh = [] {
    std::vector<float> r(n);
    hand_heavy(host(), r.data(), 0, n);
    return r;
  }();
  static const std::vector<float> rl = [] {
    std::vector<float> r(n);
    hand_light(host(), r.data(), 0, n);
    return r;
  }();
  return heavy ? rh : rl;
}

/// Compares n floats against the hand loop's result; on a mismatch stops the benchmark.
bool check(benchmark::State& state, const float* got, bool heavy) {
  const auto& ref = reference(heavy);
  for (std::int64_t i = 0; i < n; ++i) {
    const float tol = 2e-5f * (1.0f + std::abs(ref[i]));
    if (!(std::abs(got[i] - ref[i]) <= tol)) {
      state.SkipWithError(("result differs from the hand loop at " + std::to_string(i) + ": " +
                           std::to_string(got[i]) + " vs " + std::to_string(ref[i]))
                              .c_str());
      return false;
    }
  }
  return true;
}

void set_counters(benchmark::State& state, std::int64_t arrays) {
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * arrays * static_cast<std::int64_t>(sizeof(float)));
}

// ---- STREAM-style copy: the bandwidth ceiling ----------------------------------------------

/// Times kernel(a, r, lo, hi) (r[i] = f(a[i]) over [lo, hi)) split over the threads, after
/// checking r against expect(a[i]) once; bytes count one read and one write.
template <class Kernel, class Expect>
void run_bandwidth(benchmark::State& state, const char* what, Kernel kernel, Expect expect) {
  const int nt = static_cast<int>(state.range(0));
  set_threads(nt);
  const auto& in = host();
  std::vector<float> r(n, 0.0f);
  auto body = [&](std::int64_t lo, std::int64_t hi) { kernel(in.a.data(), r.data(), lo, hi); };
  split_run(nt, n, body);
  for (std::int64_t i = 0; i < n; ++i)
    if (r[i] != expect(in.a[i])) {
      state.SkipWithError((std::string(what) + " is wrong").c_str());
      return;
    }
  for (auto _ : state) {
    split_run(nt, n, body);
    benchmark::DoNotOptimize(r.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, 2);
}

float identity(float v) { return v; }

void BM_stream_copy(benchmark::State& state) {
  run_bandwidth(
      state, "copy",
      [](const float* a, float* d, std::int64_t lo, std::int64_t hi) { std::copy(a + lo, a + hi, d + lo); }, identity);
}
BENCHMARK(BM_stream_copy)->Apply(thread_args);

/// A copy with explicit streaming (non-temporal) stores, which write without reading the line
/// first: the ceiling for an evaluator that streams its large results (tl does, see
/// tl::set_streaming_store_threshold). Falls back to std::copy on targets without AVX.
void nt_copy(const float* a, float* d, std::int64_t lo, std::int64_t hi) {
#if defined(__AVX512F__) || defined(__AVX__)
#if defined(__AVX512F__)
  constexpr std::int64_t w = 16;
#else
  constexpr std::int64_t w = 8;
#endif
  std::int64_t i = lo;
  for (; i < hi && reinterpret_cast<std::uintptr_t>(d + i) % (w * sizeof(float)) != 0; ++i) d[i] = a[i];
  for (; i + w <= hi; i += w) {
#if defined(__AVX512F__)
    _mm512_stream_ps(d + i, _mm512_loadu_ps(a + i));
#else
    _mm256_stream_ps(d + i, _mm256_loadu_ps(a + i));
#endif
  }
  for (; i < hi; ++i) d[i] = a[i];
  _mm_sfence();
#else
  std::copy(a + lo, a + hi, d + lo);
#endif
}

void BM_stream_copy_nt(benchmark::State& state) { run_bandwidth(state, "streaming copy", nt_copy, identity); }
BENCHMARK(BM_stream_copy_nt)->Apply(thread_args);

/// STREAM's "scale" kernel r = 3 a as a plain loop: ordinary (write-allocating) stores. (glibc's
/// memcpy may switch to non-temporal stores above a cache-derived size; on the 2-vCPU Xeon it did
/// not at 64 MiB: std::copy ran at this loop's speed.)
void BM_stream_scale(benchmark::State& state) {
  run_bandwidth(
      state, "scale",
      [](const float* a, float* d, std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) d[i] = 3.0f * a[i];
      },
      [](float v) { return 3.0f * v; });
}
BENCHMARK(BM_stream_scale)->Apply(thread_args);

// ---- hand loop -------------------------------------------------------------------------------

template <bool Heavy>
void BM_hand(benchmark::State& state) {
  const int nt = static_cast<int>(state.range(0));
  set_threads(nt);
  const auto& in = host();
  std::vector<float> r(n, 0.0f);
  auto body = [&](std::int64_t lo, std::int64_t hi) {
    if constexpr (Heavy) hand_heavy(in, r.data(), lo, hi);
    else hand_light(in, r.data(), lo, hi);
  };
  split_run(nt, n, body);
  if (!check(state, r.data(), Heavy)) return;
  for (auto _ : state) {
    split_run(nt, n, body);
    benchmark::DoNotOptimize(r.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, 6);
}
BENCHMARK_TEMPLATE(BM_hand, true)->Name("BM_heavy_hand")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_hand, false)->Name("BM_light_hand")->Apply(thread_args);

// ---- tl ----------------------------------------------------------------------------------------

struct tl_inputs {
  tl::tensor<float, 1> a, b, c, d, e;
};

const tl_inputs& tl_data() {
  static const tl_inputs t = [] {
    const auto& in = host();
    auto mk = [](const std::vector<float>& v) {
      tl::tensor<float, 1> x(tl::shape_t<1>{n});
      std::copy(v.begin(), v.end(), x.data());
      return x;
    };
    return tl_inputs{mk(in.a), mk(in.b), mk(in.c), mk(in.d), mk(in.e)};
  }();
  return t;
}

template <bool Heavy>
void BM_tl(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  const auto& [a, b, c, d, e] = tl_data();
  tl::tensor<float, 1> r(tl::shape_t<1>{n});
  auto body = [&] {
    // r owns its storage alone and has the right shape, so this writes into it in place.
    if constexpr (Heavy) r = a * b + c * tl::sin(d) - tl::exp(-e);
    else r = a * b + c * d - e;
  };
  body();
  if (!check(state, r.data(), Heavy)) return;
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(r.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, 6);
}
BENCHMARK_TEMPLATE(BM_tl, true)->Name("BM_heavy_tl")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_tl, false)->Name("BM_light_tl")->Apply(thread_args);

// ---- Eigen -------------------------------------------------------------------------------------

#ifdef TL_BENCH_HAVE_EIGEN
template <bool Heavy>
void BM_eigen(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  const auto& in = host();
  using A = Eigen::ArrayXf;
  const A a = Eigen::Map<const A>(in.a.data(), n), b = Eigen::Map<const A>(in.b.data(), n),
          c = Eigen::Map<const A>(in.c.data(), n), d = Eigen::Map<const A>(in.d.data(), n),
          e = Eigen::Map<const A>(in.e.data(), n);
  A r = A::Zero(n);
  auto body = [&] {
    if constexpr (Heavy) r = a * b + c * d.sin() - (-e).exp();
    else r = a * b + c * d - e;
  };
  body();
  if (!check(state, r.data(), Heavy)) return;
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(r.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, 6);
}
BENCHMARK_TEMPLATE(BM_eigen, true)->Name("BM_heavy_eigen")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_eigen, false)->Name("BM_light_eigen")->Apply(thread_args);
#endif

// ---- xtensor -----------------------------------------------------------------------------------

#ifdef TL_BENCH_HAVE_XTENSOR
template <bool Heavy>
void BM_xtensor(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  const auto& in = host();
  using X = xt::xtensor<float, 1>;
  auto mk = [](const std::vector<float>& v) {
    X x = X::from_shape({static_cast<std::size_t>(n)});
    std::copy(v.begin(), v.end(), x.data());
    return x;
  };
  const X a = mk(in.a), b = mk(in.b), c = mk(in.c), d = mk(in.d), e = mk(in.e);
  X r = xt::zeros<float>({static_cast<std::size_t>(n)});
  auto body = [&] {
    if constexpr (Heavy) xt::noalias(r) = a * b + c * xt::sin(d) - xt::exp(-e);
    else xt::noalias(r) = a * b + c * d - e;
  };
  body();
  if (!check(state, r.data(), Heavy)) return;
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(r.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, 6);
}
BENCHMARK_TEMPLATE(BM_xtensor, true)->Name("BM_heavy_xtensor")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_xtensor, false)->Name("BM_light_xtensor")->Apply(thread_args);
#endif

// ---- LibTorch eager ----------------------------------------------------------------------------

#ifdef TL_BENCH_HAVE_TORCH
torch::Tensor torch_from(const std::vector<float>& v) {
  return torch::from_blob(const_cast<float*>(v.data()), {n}, torch::kFloat32).clone();
}

/// The expression as a LibTorch user writes it: one pass and one fresh temporary per op.
template <bool Heavy>
void BM_torch(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  torch::NoGradGuard no_grad;
  const auto& in = host();
  const auto a = torch_from(in.a), b = torch_from(in.b), c = torch_from(in.c), d = torch_from(in.d),
             e = torch_from(in.e);
  torch::Tensor r;
  auto body = [&] {
    if constexpr (Heavy) r = a * b + c * torch::sin(d) - torch::exp(-e);
    else r = a * b + c * d - e;
  };
  body();
  if (!check(state, r.data_ptr<float>(), Heavy)) return;
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(r.data_ptr<float>());
    benchmark::ClobberMemory();
  }
  set_counters(state, 6);
}
BENCHMARK_TEMPLATE(BM_torch, true)->Name("BM_heavy_torch_eager")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_torch, false)->Name("BM_light_torch_eager")->Apply(thread_args);

/// LibTorch eager with preallocated out= buffers: still one pass per op, but no allocations.
template <bool Heavy>
void BM_torch_out(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  torch::NoGradGuard no_grad;
  const auto& in = host();
  const auto a = torch_from(in.a), b = torch_from(in.b), c = torch_from(in.c), d = torch_from(in.d),
             e = torch_from(in.e);
  auto r = torch::zeros({n}), t1 = torch::zeros({n}), t2 = torch::zeros({n}), t3 = torch::zeros({n});
  auto body = [&] {
    torch::mul_out(t1, a, b);
    if constexpr (Heavy) {
      torch::sin_out(t2, d);
      torch::mul_out(t2, c, t2);
      torch::neg_out(t3, e);
      torch::exp_out(t3, t3);
      torch::add_out(t1, t1, t2);
      torch::sub_out(r, t1, t3);
    } else {
      torch::mul_out(t2, c, d);
      torch::add_out(t1, t1, t2);
      torch::sub_out(r, t1, e);
    }
  };
  body();
  if (!check(state, r.data_ptr<float>(), Heavy)) return;
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(r.data_ptr<float>());
    benchmark::ClobberMemory();
  }
  set_counters(state, 6);
}
BENCHMARK_TEMPLATE(BM_torch_out, true)->Name("BM_heavy_torch_eager_out")->Apply(thread_args);
BENCHMARK_TEMPLATE(BM_torch_out, false)->Name("BM_light_torch_eager_out")->Apply(thread_args);
#endif

}  // namespace
