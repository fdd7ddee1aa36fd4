// tl's GPU library paths on CUDA tensors: matrix products on cuBLAS, Cholesky, solve and eigh on
// cuSOLVER, FFTs on cuFFT. Each benchmark times the tl call as a user writes it (including the contiguous copies,
// the result's allocation from tl's caching allocator and, for cholesky, the triangle zeroing and
// the info check), so the gap to the library's bare call is tl's overhead. The PyTorch peer on
// the same GPU is bench/cuda/torch_peer.py (its `matmul_*`, `cholesky_*`, `solve_*`, `eigh_*` and
// `fft_*` rows).
//
//   matmul      float and double n x n x n (n = 4096), float batched 512 x (128 x 128 x 128);
//               items = 2 n^3 flops per product, so items_per_second is FLOP/s
//   cholesky    float and double 4096 x 4096, and a batch of 1024 float 64 x 64;
//               items = n^3 / 3 flops per matrix
//   solve       float 4096 x 4096 with 1 and 4096 right-hand sides, double with 1; items = 2 n^3 / 3
//               + 2 n^2 k flops
//   eigh        float and double 1024 x 1024, eigenvalues and eigenvectors; items = n^3 (nominal)
//   fft         complex float 1-D of 2^24 points, 4096 rows of 4096 points, rfft of 2^24 floats;
//               bytes = the input read once and the output written once
//
// Times are GPU times between two CUDA events around one call (manual time). Before its timed
// loop, every benchmark checks its result against an identity (a product with a vector, L L^H = A,
// the inverse transform) and stops with SkipWithError when it fails.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tl/cuda.hpp>

#include "cuda_bench_util.cuh"

namespace {

using tl::index_t;
using tl_bench::large_args;
using tl_bench::small_args;
using tl_bench::timed_loop;

const tl::device gpu = tl::device::cuda(0);

template <class V>
double mag(V v) {
  if constexpr (tl::is_complex_v<V>)
    return std::hypot(static_cast<double>(v.re), static_cast<double>(v.im));
  else
    return std::abs(static_cast<double>(v));
}

/// max |a - b| / max |b| over every element, on the host.
template <class A, class B>
double rel_max(const A& a_dev, const B& b_dev) {
  const auto a = a_dev.cpu().contiguous();
  const auto b = b_dev.cpu().contiguous();
  double num = 0, den = 0;
  for (index_t i = 0; i < b.numel(); ++i) {
    num = std::max(num, mag(a.data()[i] - b.data()[i]));
    den = std::max(den, mag(b.data()[i]));
  }
  return den == 0 ? num : num / den;
}

bool require(benchmark::State& state, double err, double tol, const char* what) {
  if (err <= tol) return true;
  state.SkipWithError(
      (std::string(what) + ": relative error " + std::to_string(err) + " above " + std::to_string(tol)).c_str());
  return false;
}

// ---- matmul (cuBLAS) ---------------------------------------------------------------------------

template <class T>
void BM_matmul(benchmark::State& state) {
  const index_t n = state.range(0);
  tl::manual_seed(1);
  const tl::tensor<T, 2> a = tl::randn<T>(n, n, gpu), b = tl::randn<T>(n, n, gpu);
  const tl::tensor<T, 2> x = tl::randn<T>(n, index_t{1}, gpu);
  tl::tensor<T, 2> c = tl::matmul(a, b);
  // (A B) x against A (B x): two independent products
  if (!require(state, rel_max(tl::matmul(c, x), tl::matmul(a, tl::matmul(b, x))),
               1e3 * std::numeric_limits<T>::epsilon(), "matmul"))
    return;
  timed_loop(state, [&] { c = tl::matmul(a, b); });
  state.SetItemsProcessed(state.iterations() * 2 * n * n * n);
}
BENCHMARK_TEMPLATE(BM_matmul, float)->Arg(4096)->Apply(large_args);
BENCHMARK_TEMPLATE(BM_matmul, double)->Arg(4096)->Apply(large_args);

void BM_matmul_batched(benchmark::State& state) {
  const index_t batch = 512, n = state.range(0);
  tl::manual_seed(2);
  const tl::tensor<float, 3> a = tl::randn<float>(batch, n, n, gpu), b = tl::randn<float>(batch, n, n, gpu);
  const tl::tensor<float, 3> x = tl::randn<float>(batch, n, index_t{1}, gpu);
  tl::tensor<float, 3> c = tl::matmul(a, b);
  if (!require(state, rel_max(tl::matmul(c, x), tl::matmul(a, tl::matmul(b, x))), 1e-4, "batched matmul")) return;
  timed_loop(state, [&] { c = tl::matmul(a, b); });
  state.SetItemsProcessed(state.iterations() * 2 * batch * n * n * n);
}
BENCHMARK(BM_matmul_batched)->Arg(128)->Apply(small_args);

// ---- cholesky (cuSOLVER) -----------------------------------------------------------------------

/// B B^T / n + I on the device: symmetric positive-definite, condition number a few hundred.
template <class T, std::size_t R>
tl::tensor<T, R> spd(const tl::shape_t<R>& s) {
  tl::manual_seed(3);
  const index_t n = s[R - 1];
  const tl::tensor<T, R> b = tl::randn<T>(s, gpu);
  return tl::tensor<T, R>(tl::matmul(b, b.mT()) * T(1.0 / static_cast<double>(n)) + tl::eye<T>(n, n, gpu));
}

template <class T, std::size_t R>
void cholesky_case(benchmark::State& state, const tl::shape_t<R>& s, bool upper = false) {
  const auto a = spd<T, R>(s);
  const index_t n = s[R - 1];
  tl::tensor<T, R> l = tl::linalg::cholesky(a, upper);
  const auto ll = upper ? tl::tensor<T, R>(tl::matmul(l.mT(), l)) : tl::tensor<T, R>(tl::matmul(l, l.mT()));
  if (!require(state, rel_max(ll, a), 1e3 * std::numeric_limits<T>::epsilon(), "cholesky")) return;
  timed_loop(state, [&] { l = tl::linalg::cholesky(a, upper); });
  const index_t batch = tl::tensor<T, R>::rank == 2 ? 1 : s[0];
  state.SetItemsProcessed(state.iterations() * batch * n * n * n / 3);
}
template <class T>
void BM_cholesky(benchmark::State& state) {
  cholesky_case<T, 2>(state, {state.range(0), state.range(0)});
}
BENCHMARK_TEMPLATE(BM_cholesky, float)->Arg(4096)->Apply(large_args);
BENCHMARK_TEMPLATE(BM_cholesky, double)->Arg(4096)->Apply(large_args);
void BM_cholesky_upper(benchmark::State& state) {
  cholesky_case<float, 2>(state, {state.range(0), state.range(0)}, true);
}
BENCHMARK(BM_cholesky_upper)->Arg(4096)->Apply(large_args);
void BM_cholesky_batched(benchmark::State& state) {
  cholesky_case<float, 3>(state, {1024, state.range(0), state.range(0)});
}
BENCHMARK(BM_cholesky_batched)->Arg(64)->Apply(small_args);

// ---- solve, eigh (cuSOLVER) ----------------------------------------------------------------------

/// tl::linalg::solve(A, B) for A n x n (A + n I: well conditioned) and B n x k; checked by the
/// residual A X - B. items = 2 n^3 / 3 + 2 n^2 k flops.
template <class T>
void BM_solve(benchmark::State& state) {
  const index_t n = state.range(0), k = state.range(1);
  tl::manual_seed(4);
  const tl::tensor<T, 2> a = tl::randn<T>(n, n, gpu) + tl::eye<T>(n, n, gpu) * T(static_cast<double>(n));
  const tl::tensor<T, 2> b = tl::randn<T>(n, k, gpu);
  tl::tensor<T, 2> x = tl::linalg::solve(a, b);
  if (!require(state, rel_max(tl::matmul(a, x), b), 1e3 * std::numeric_limits<T>::epsilon(), "solve")) return;
  timed_loop(state, [&] { x = tl::linalg::solve(a, b); });
  state.SetItemsProcessed(state.iterations() * (2 * n * n * n / 3 + 2 * n * n * k));
}
BENCHMARK_TEMPLATE(BM_solve, float)->Args({4096, 1})->Args({4096, 4096})->Apply(large_args);
BENCHMARK_TEMPLATE(BM_solve, double)->Args({4096, 1})->Apply(large_args);

/// tl::linalg::eigh of a symmetric n x n matrix (eigenvalues and eigenvectors); checked by the
/// residual A V - V diag(w). items = n^3 (a nominal count: compare times).
template <class T>
void BM_eigh(benchmark::State& state) {
  const index_t n = state.range(0);
  tl::manual_seed(5);
  const tl::tensor<T, 2> g = tl::randn<T>(n, n, gpu);
  const tl::tensor<T, 2> a = (g + g.mT()) * T(0.5);
  auto r = tl::linalg::eigh(a);
  const tl::tensor<T, 2> av = tl::matmul(a, r.eigenvectors);
  const tl::tensor<T, 2> vw = r.eigenvectors * r.eigenvalues.reshape(1, n);
  if (!require(state, rel_max(av, vw), 1e2 * static_cast<double>(n) * std::numeric_limits<T>::epsilon(), "eigh"))
    return;
  timed_loop(state, [&] { r = tl::linalg::eigh(a); });
  state.SetItemsProcessed(state.iterations() * n * n * n);
}
BENCHMARK_TEMPLATE(BM_eigh, float)->Arg(1024)->Apply(large_args);
BENCHMARK_TEMPLATE(BM_eigh, double)->Arg(1024)->Apply(large_args);

// ---- fft (cuFFT) -------------------------------------------------------------------------------

template <std::size_t R>
void fft_case(benchmark::State& state, const tl::shape_t<R>& s) {
  using C = tl::complex<float>;
  tl::manual_seed(4);
  const tl::tensor<C, R> x = tl::randn<C>(s, gpu);
  tl::tensor<C, R> y = tl::fft::fft(x);
  const index_t len = s[R - 1];
  if (!require(state, rel_max(tl::fft::ifft(y), x), 1e-5 * std::log2(static_cast<double>(len)), "fft round trip"))
    return;
  timed_loop(state, [&] { y = tl::fft::fft(x); });
  state.SetBytesProcessed(state.iterations() * 2 * x.numel() * static_cast<std::int64_t>(sizeof(C)));
}
void BM_fft_1d(benchmark::State& state) { fft_case<1>(state, {index_t{1} << 24}); }
void BM_fft_rows(benchmark::State& state) { fft_case<2>(state, {4096, 4096}); }
BENCHMARK(BM_fft_1d)->Apply(small_args);
BENCHMARK(BM_fft_rows)->Apply(small_args);

void BM_rfft_1d(benchmark::State& state) {
  const index_t n = index_t{1} << 24;
  tl::manual_seed(5);
  const tl::tensor<float, 1> x = tl::randn<float>(n, gpu);
  tl::tensor<tl::complex<float>, 1> y = tl::fft::rfft(x);
  if (!require(state, rel_max(tl::fft::irfft(y, n), x), 1e-5 * 24.0, "rfft round trip")) return;
  timed_loop(state, [&] { y = tl::fft::rfft(x); });
  state.SetBytesProcessed(state.iterations() * (n * static_cast<std::int64_t>(sizeof(float)) +
                                                (n / 2 + 1) * static_cast<std::int64_t>(sizeof(tl::complex<float>))));
}
BENCHMARK(BM_rfft_1d)->Apply(small_args);

}  // namespace

int main(int argc, char** argv) { return tl_bench::gpu_bench_main(argc, argv); }
