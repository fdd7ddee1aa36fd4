// FFT: tl::fft against FFTW 3 (FFTW_MEASURE plans) and LibTorch's torch::fft, single-threaded.
//
//   c2c:  forward complex transforms (float and double) of lengths 64, 1024, 4096, 65536, 2^20,
//         1000, 1031 (prime: Bluestein in tl), 6720 = 3 * 5 * 7 * 64.
//   r2c:  forward real transform of 2^20 floats.
//   2-D:  forward complex float transform of 1024 x 1024.
//
// tl and LibTorch are timed through their public functions (which allocate the result), tl also
// through fft_out into a preallocated result; FFTW runs a precomputed out-of-place plan on
// preallocated arrays. The counter GFLOPS is FFTW's
// convention: 5 N log2(N) / t for complex transforms, 2.5 N log2(N) / t for real ones (N = all
// points of the transform).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <tl/tensor.hpp>
#include <vector>

#ifdef TL_BENCH_HAVE_FFTW
#include <fftw3.h>
#endif
#ifdef TL_BENCH_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace {
using tl::index_t;

void single_thread() {
  if (tl::get_num_threads() != 1) tl::set_num_threads(1);
#ifdef TL_BENCH_HAVE_TORCH
  at::set_num_threads(1);
#endif
}

void flops(benchmark::State& st, double points, double per_point_log) {
  st.counters["GFLOPS"] = benchmark::Counter(per_point_log * points * std::log2(points) * 1e-9,
                                             benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
tl::tensor<tl::complex<T>, 1> signal(index_t n) {
  tl::tensor<tl::complex<T>, 1> x(tl::shape_t<1>{n});
  for (index_t i = 0; i < n; ++i) x.data()[i] = tl::complex<T>(std::sin(0.37 * i), std::cos(0.11 * i));
  return x;
}

// ---- tl -------------------------------------------------------------------------------------

template <class T>
void tl_c2c(benchmark::State& st) {
  single_thread();
  const index_t n = st.range(0);
  const auto x = signal<T>(n);
  for (auto _ : st) benchmark::DoNotOptimize(tl::fft::fft(x).data());
  flops(st, static_cast<double>(n), 5);
}
/// Into a preallocated result (fft_out), like the FFTW rows' preallocated arrays.
template <class T>
void tl_c2c_out(benchmark::State& st) {
  single_thread();
  const index_t n = st.range(0);
  const auto x = signal<T>(n);
  tl::tensor<tl::complex<T>, 1> y(tl::shape_t<1>{n});
  for (auto _ : st) benchmark::DoNotOptimize(tl::fft::fft_out(y, x).data());
  flops(st, static_cast<double>(n), 5);
}
void tl_r2c(benchmark::State& st) {
  single_thread();
  const index_t n = st.range(0);
  tl::tensor<float, 1> x(tl::shape_t<1>{n});
  for (index_t i = 0; i < n; ++i) x.data()[i] = std::sin(0.37f * static_cast<float>(i));
  for (auto _ : st) benchmark::DoNotOptimize(tl::fft::rfft(x).data());
  flops(st, static_cast<double>(n), 2.5);
}
void tl_2d(benchmark::State& st) {
  single_thread();
  const index_t n = st.range(0);
  const auto x = signal<float>(n * n).reshape(n, n);
  for (auto _ : st) benchmark::DoNotOptimize(tl::fft::fft2(x).data());
  flops(st, static_cast<double>(n * n), 5);
}

// ---- FFTW -----------------------------------------------------------------------------------

#ifdef TL_BENCH_HAVE_FFTW
struct fftwf_traits {
  using cplx = fftwf_complex;
  using plan = fftwf_plan;
  static void* alloc(std::size_t b) { return fftwf_malloc(b); }
  static void free(void* p) { fftwf_free(p); }
  static plan c2c(int n, cplx* i, cplx* o) { return fftwf_plan_dft_1d(n, i, o, FFTW_FORWARD, FFTW_MEASURE); }
  static plan c2c_2d(int n, cplx* i, cplx* o) { return fftwf_plan_dft_2d(n, n, i, o, FFTW_FORWARD, FFTW_MEASURE); }
  static plan r2c(int n, float* i, cplx* o) { return fftwf_plan_dft_r2c_1d(n, i, o, FFTW_MEASURE); }
  static void execute(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};
struct fftw_traits {
  using cplx = fftw_complex;
  using plan = fftw_plan;
  static void* alloc(std::size_t b) { return fftw_malloc(b); }
  static void free(void* p) { fftw_free(p); }
  static plan c2c(int n, cplx* i, cplx* o) { return fftw_plan_dft_1d(n, i, o, FFTW_FORWARD, FFTW_MEASURE); }
  static void execute(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
template <class T>
using fftw_for = std::conditional_t<std::is_same_v<T, float>, fftwf_traits, fftw_traits>;

/// Times plan p (FFTW traits F), then releases it and its arrays.
template <class F>
void time_plan(benchmark::State& st, typename F::plan p, void* in, void* out, double points, double per_point) {
  for (auto _ : st) {
    F::execute(p);
    benchmark::DoNotOptimize(out);
  }
  F::destroy(p);
  F::free(in);
  F::free(out);
  flops(st, points, per_point);
}

template <class T>
void fftw_c2c(benchmark::State& st) {
  using F = fftw_for<T>;
  const int n = static_cast<int>(st.range(0));
  auto* in = static_cast<typename F::cplx*>(F::alloc(sizeof(typename F::cplx) * n));
  auto* out = static_cast<typename F::cplx*>(F::alloc(sizeof(typename F::cplx) * n));
  auto p = F::c2c(n, in, out);
  for (int i = 0; i < n; ++i) {
    in[i][0] = static_cast<T>(std::sin(0.37 * i));
    in[i][1] = static_cast<T>(std::cos(0.11 * i));
  }
  time_plan<F>(st, p, in, out, n, 5);
}
void fftw_r2c(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  auto* in = static_cast<float*>(fftwf_malloc(sizeof(float) * n));
  auto* out = static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * (n / 2 + 1)));
  auto p = fftwf_traits::r2c(n, in, out);
  for (int i = 0; i < n; ++i) in[i] = std::sin(0.37f * static_cast<float>(i));
  time_plan<fftwf_traits>(st, p, in, out, n, 2.5);
}
void fftw_2d(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  auto* in = static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * n * n));
  auto* out = static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * n * n));
  auto p = fftwf_traits::c2c_2d(n, in, out);
  for (int i = 0; i < n * n; ++i) {
    in[i][0] = std::sin(0.37f * static_cast<float>(i));
    in[i][1] = std::cos(0.11f * static_cast<float>(i));
  }
  time_plan<fftwf_traits>(st, p, in, out, static_cast<double>(n) * n, 5);
}
#endif

// ---- LibTorch -------------------------------------------------------------------------------

#ifdef TL_BENCH_HAVE_TORCH
template <class T>
void torch_c2c(benchmark::State& st) {
  single_thread();
  const int64_t n = st.range(0);
  const auto dt = std::is_same_v<T, float> ? torch::kComplexFloat : torch::kComplexDouble;
  const auto x = torch::randn({n}, torch::TensorOptions().dtype(dt));
  for (auto _ : st) benchmark::DoNotOptimize(torch::fft::fft(x).data_ptr());
  flops(st, static_cast<double>(n), 5);
}
void torch_r2c(benchmark::State& st) {
  single_thread();
  const int64_t n = st.range(0);
  const auto x = torch::randn({n});
  for (auto _ : st) benchmark::DoNotOptimize(torch::fft::rfft(x).data_ptr());
  flops(st, static_cast<double>(n), 2.5);
}
void torch_2d(benchmark::State& st) {
  single_thread();
  const int64_t n = st.range(0);
  const auto x = torch::randn({n, n}, torch::TensorOptions().dtype(torch::kComplexFloat));
  for (auto _ : st) benchmark::DoNotOptimize(torch::fft::fft2(x).data_ptr());
  flops(st, static_cast<double>(n * n), 5);
}
#endif

/// With --benchmark_repetitions, a "min" row beside mean / median / stddev: on a shared machine the
/// fastest repetition is the one least disturbed by other work.
void with_min(benchmark::internal::Benchmark* b) {
  b->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}
void c2c_sizes(benchmark::internal::Benchmark* b) {
  for (int64_t n : {64, 1024, 4096, 65536, 1 << 20, 1000, 1031, 3 * 5 * 7 * 64}) b->Arg(n);
  b->Unit(benchmark::kMicrosecond);
  with_min(b);
}
void r2c_sizes(benchmark::internal::Benchmark* b) {
  b->Arg(1 << 20)->Unit(benchmark::kMicrosecond);
  with_min(b);
}
void sizes_2d(benchmark::internal::Benchmark* b) {
  b->Arg(1024)->Unit(benchmark::kMicrosecond);
  with_min(b);
}

}  // namespace

BENCHMARK_TEMPLATE(tl_c2c, float)->Apply(c2c_sizes);
BENCHMARK_TEMPLATE(tl_c2c, double)->Apply(c2c_sizes);
BENCHMARK_TEMPLATE(tl_c2c_out, float)->Apply(c2c_sizes);
BENCHMARK_TEMPLATE(tl_c2c_out, double)->Apply(c2c_sizes);
BENCHMARK(tl_r2c)->Apply(r2c_sizes);
BENCHMARK(tl_2d)->Apply(sizes_2d);
#ifdef TL_BENCH_HAVE_FFTW
BENCHMARK_TEMPLATE(fftw_c2c, float)->Apply(c2c_sizes);
BENCHMARK_TEMPLATE(fftw_c2c, double)->Apply(c2c_sizes);
BENCHMARK(fftw_r2c)->Apply(r2c_sizes);
BENCHMARK(fftw_2d)->Apply(sizes_2d);
#endif
#ifdef TL_BENCH_HAVE_TORCH
BENCHMARK_TEMPLATE(torch_c2c, float)->Apply(c2c_sizes);
BENCHMARK_TEMPLATE(torch_c2c, double)->Apply(c2c_sizes);
BENCHMARK(torch_r2c)->Apply(r2c_sizes);
BENCHMARK(torch_2d)->Apply(sizes_2d);
#endif
