// tl::linalg: GEMM and factorizations against OpenBLAS (BLAS and its LAPACK) and Eigen.
//
//   gemm:  C = A B for square float / double matrices of n = 256, 1024, 2048 and complex float /
//          double of n = 256, 512, 1024 (row-major, cblas_?gemm / cblas_[cz]gemm), with
//          1 and 2 threads (tl::set_num_threads, openblas_set_num_threads, Eigen::setNbThreads;
//          Eigen is built without OpenMP here, so its products are single-threaded anyway).
//          tl is timed through tl::matmul (which allocates its result), OpenBLAS through
//          cblas_?gemm and Eigen through C.noalias() = A * B on preallocated matrices.
//   batched_shared: tl::matmul of [batch, m, k] by one [k, k] matrix against one cblas_dgemm of
//          all the batch's rows (double, one thread).
//   lu / cholesky / solve / inv / det: double, n = 512 and 1024, tl::linalg against LAPACK's
//          dgetrf, dpotrf, dgesv (one right-hand side), dgetrf + dgetri, dgetrf + the diagonal.
//          LAPACK works in place, so its loop copies the input first, as tl does internally.
//
// Counters: GFLOPS (2 n^3 for a product; n^3 / 3 Cholesky, 2 n^3 / 3 LU, solve and det, 2 n^3
// inv, the LAPACK operation counts) and pct_peak: GFLOPS as a percentage of the machine's FMA
// peak, measured in this program by a register-only FMA loop on one thread (times the thread
// count for the multi-threaded rows).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include <tl/tensor.hpp>
#include <xsimd/xsimd.hpp>

#ifdef TL_BENCH_HAVE_OPENBLAS
#include <cblas.h>
extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work, const int* lwork, int* info);
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb,
            int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t uplo_len);
}
#endif
#ifdef TL_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#if __has_include(<unsupported/Eigen/MatrixFunctions>)
#include <unsupported/Eigen/MatrixFunctions>
#endif
#endif

namespace {
using tl::index_t;

// ---- the machine's FMA peak ---------------------------------------------------------------------

template <class R>
double measure_fma_peak() {
  using P = xsimd::batch<R>;
  constexpr int chains = 12;  // > latency x ports, so the FMA units never wait
  P acc[chains];
  for (int j = 0; j < chains; ++j) acc[j] = P(R(j) * R(1e-3));
  const P mul(R(0.9999999)), add(R(1e-7));
  constexpr long iters = 20'000'000;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 12
      for (int j = 0; j < chains; ++j) acc[j] = xsimd::fma(acc[j], mul, add);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * chains * static_cast<double>(P::size) * iters / s * 1e-9);
  }
  R sink = 0;
  for (int j = 0; j < chains; ++j) sink += xsimd::hadd(acc[j]);
  benchmark::DoNotOptimize(sink);
  return best;
}

template <class R>
double fma_peak() {
  static const double peak = measure_fma_peak<R>();
  return peak;
}

template <class R>
void report(benchmark::State& st, double flop, int threads) {
  st.counters["GFLOPS"] = benchmark::Counter(flop * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["pct_peak"] =
      benchmark::Counter(flop * 1e-9 * 100.0 / (fma_peak<R>() * threads), benchmark::Counter::kIsIterationInvariantRate);
}

void set_threads(int t) {
  if (tl::get_num_threads() != t) tl::set_num_threads(t);
#ifdef TL_BENCH_HAVE_OPENBLAS
  openblas_set_num_threads(t);
#endif
#ifdef TL_BENCH_HAVE_EIGEN
  Eigen::setNbThreads(t);
#endif
}

// Entries uniform in [-0.5, 0.5); a complex entry takes two consecutive draws (real, imaginary).
template <class T>
tl::tensor<T, 2> random_matrix(index_t n, unsigned seed) {
  tl::tensor<T, 2> a(tl::shape_t<2>{n, n});
  unsigned s = seed;
  const auto draw = [&s] {
    s = s * 1664525u + 1013904223u;
    return static_cast<double>(s >> 8) / 16777216.0 - 0.5;
  };
  using R = tl::real_t<T>;
  for (index_t i = 0; i < n * n; ++i) {
    if constexpr (tl::is_complex_v<T>) {
      const R re = static_cast<R>(draw());
      a.data()[i] = T(re, static_cast<R>(draw()));
    } else {
      a.data()[i] = static_cast<T>(draw());
    }
  }
  return a;
}

// A well-conditioned symmetric positive-definite matrix: B B^T / n + I.
tl::tensor<double, 2> spd_matrix(index_t n) {
  const auto b = random_matrix<double>(n, 7);
  tl::tensor<double, 2> a = tl::matmul(b, b.t());
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) a(i, j) = a(i, j) / static_cast<double>(n) + (i == j ? 1.0 : 0.0);
  return a;
}

// ---- GEMM ----------------------------------------------------------------------------------------

// Real operation count of C = A B: 2 n^3 (8 n^3 for complex, 4 multiplies and 4 adds per
// multiply-add); pct_peak is against the FMA peak of the real type.
template <class T>
double gemm_flops(double n) {
  return (tl::is_complex_v<T> ? 8.0 : 2.0) * n * n * n;
}

template <class T>
void BM_tl_gemm(benchmark::State& st) {
  const index_t n = st.range(0);
  const int threads = static_cast<int>(st.range(1));
  set_threads(threads);
  const auto a = random_matrix<T>(n, 1), b = random_matrix<T>(n, 2);
  for (auto _ : st) benchmark::DoNotOptimize(tl::matmul(a, b).data());
  report<tl::real_t<T>>(st, gemm_flops<T>(static_cast<double>(n)), threads);
}

#ifdef TL_BENCH_HAVE_OPENBLAS
template <class T>
void BM_openblas_gemm(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const int threads = static_cast<int>(st.range(1));
  set_threads(threads);
  const auto a = random_matrix<T>(n, 1), b = random_matrix<T>(n, 2);
  std::vector<T> c(static_cast<std::size_t>(n) * n);
  const T one(1), zero(0);  // tl::complex is laid out as the C99 complex type cblas_?gemm reads
  for (auto _ : st) {
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(),
                  n);
    else if constexpr (std::is_same_v<T, double>)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, c.data(), n);
    else if constexpr (std::is_same_v<T, tl::complex<float>>)
      cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one, a.data(), n, b.data(), n, &zero, c.data(),
                  n);
    else
      cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one, a.data(), n, b.data(), n, &zero, c.data(),
                  n);
    benchmark::DoNotOptimize(c.data());
  }
  report<tl::real_t<T>>(st, gemm_flops<T>(n), threads);
}
#endif

#ifdef TL_BENCH_HAVE_EIGEN
template <class T>
void BM_eigen_gemm(benchmark::State& st) {
  using R = tl::real_t<T>;
  using E = std::conditional_t<tl::is_complex_v<T>, std::complex<R>, R>;  // same layout as T
  using M = Eigen::Matrix<E, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const index_t n = st.range(0);
  const int threads = static_cast<int>(st.range(1));
  set_threads(threads);
  const auto ta = random_matrix<T>(n, 1), tb = random_matrix<T>(n, 2);
  const M a = Eigen::Map<const M>(reinterpret_cast<const E*>(ta.data()), n, n);
  const M b = Eigen::Map<const M>(reinterpret_cast<const E*>(tb.data()), n, n);
  M c(n, n);
  for (auto _ : st) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  report<R>(st, gemm_flops<T>(static_cast<double>(n)), threads);
}
#endif

void gemm_args(benchmark::internal::Benchmark* b) {
  for (int n : {256, 1024, 2048})
    for (int t : {1, 2}) b->Args({n, t});
  b->ArgNames({"n", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

// Complex products do 4x the work of real ones of the same order: n = 256, 512 and 1024.
void cgemm_args(benchmark::internal::Benchmark* b) {
  for (int n : {256, 512, 1024})
    for (int t : {1, 2}) b->Args({n, t});
  b->ArgNames({"n", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

using cfloat = tl::complex<float>;
using cdouble = tl::complex<double>;

BENCHMARK(BM_tl_gemm<float>)->Apply(gemm_args);
BENCHMARK(BM_tl_gemm<double>)->Apply(gemm_args);
BENCHMARK(BM_tl_gemm<cfloat>)->Apply(cgemm_args);
BENCHMARK(BM_tl_gemm<cdouble>)->Apply(cgemm_args);
#ifdef TL_BENCH_HAVE_OPENBLAS
BENCHMARK(BM_openblas_gemm<float>)->Apply(gemm_args);
BENCHMARK(BM_openblas_gemm<double>)->Apply(gemm_args);
BENCHMARK(BM_openblas_gemm<cfloat>)->Apply(cgemm_args);
BENCHMARK(BM_openblas_gemm<cdouble>)->Apply(cgemm_args);
#endif
#ifdef TL_BENCH_HAVE_EIGEN
BENCHMARK(BM_eigen_gemm<float>)->Apply(gemm_args);
BENCHMARK(BM_eigen_gemm<double>)->Apply(gemm_args);
BENCHMARK(BM_eigen_gemm<cfloat>)->Apply(cgemm_args);
BENCHMARK(BM_eigen_gemm<cdouble>)->Apply(cgemm_args);
#endif

// ---- a batch times one shared matrix ---------------------------------------------------------------

// C[b] = A[b] W for A: [batch, m, k] (contiguous) and one W: [k, n], double, one thread. tl::matmul
// against one OpenBLAS call on the [batch * m, k] matrix of all the rows (what the product is).
// Args: batch, m, k = n.
template <bool Tl>
void batched_shared(benchmark::State& st) {
  const index_t nb = st.range(0), m = st.range(1), k = st.range(2);
  set_threads(1);
  tl::tensor<double, 3> a(tl::shape_t<3>{nb, m, k});
  for (index_t i = 0; i < a.numel(); ++i) a.data()[i] = std::sin(0.37 * static_cast<double>(i));
  const auto w = random_matrix<double>(k, 4);
  if constexpr (Tl) {
    for (auto _ : st) benchmark::DoNotOptimize(tl::matmul(a, w).data());
  } else {
#ifdef TL_BENCH_HAVE_OPENBLAS
    std::vector<double> c(static_cast<std::size_t>(nb * m * k));
    const int rows = static_cast<int>(nb * m), kk = static_cast<int>(k);
    for (auto _ : st) {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, kk, kk, 1.0, a.data(), kk, w.data(), kk, 0.0,
                  c.data(), kk);
      benchmark::DoNotOptimize(c.data());
    }
#endif
  }
  report<double>(st, 2.0 * static_cast<double>(nb * m) * static_cast<double>(k * k), 1);
}
void batched_shared_args(benchmark::internal::Benchmark* b) {
  b->Args({256, 16, 16})->Args({64, 8, 64})->Args({32, 64, 256});
  b->ArgNames({"batch", "m", "k"})->Unit(benchmark::kMicrosecond)->UseRealTime();
}
BENCHMARK(batched_shared<true>)->Name("BM_tl_batched_shared")->Apply(batched_shared_args);
#ifdef TL_BENCH_HAVE_OPENBLAS
BENCHMARK(batched_shared<false>)->Name("BM_openblas_batched_shared")->Apply(batched_shared_args);
#endif

// ---- factorizations ----------------------------------------------------------------------------

enum class op { lu, cholesky, solve, inv, det };

double op_flops(op o, double n) {
  switch (o) {
    case op::cholesky: return n * n * n / 3;
    case op::inv: return 2 * n * n * n;
    default: return 2 * n * n * n / 3;
  }
}

template <op O>
void BM_tl_factor(benchmark::State& st) {
  const index_t n = st.range(0);
  const int threads = static_cast<int>(st.range(1));
  set_threads(threads);
  const auto a = O == op::cholesky ? spd_matrix(n) : random_matrix<double>(n, 3);
  const auto b = random_matrix<double>(n, 4).select(1, 0).contiguous();  // one right-hand side
  for (auto _ : st) {
    if constexpr (O == op::lu) benchmark::DoNotOptimize(tl::linalg::lu_factor(a).LU.data());
    if constexpr (O == op::cholesky) benchmark::DoNotOptimize(tl::linalg::cholesky(a).data());
    if constexpr (O == op::solve) benchmark::DoNotOptimize(tl::linalg::solve(a, b).data());
    if constexpr (O == op::inv) benchmark::DoNotOptimize(tl::linalg::inv(a).data());
    if constexpr (O == op::det) benchmark::DoNotOptimize(tl::linalg::det(a).data());
  }
  report<double>(st, op_flops(O, static_cast<double>(n)), threads);
}

#ifdef TL_BENCH_HAVE_OPENBLAS
template <op O>
void BM_lapack_factor(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const int threads = static_cast<int>(st.range(1));
  set_threads(threads);
  const auto a = O == op::cholesky ? spd_matrix(n) : random_matrix<double>(n, 3);
  const auto bt = random_matrix<double>(n, 4).select(1, 0).contiguous();
  std::vector<double> w(static_cast<std::size_t>(n) * n), b(static_cast<std::size_t>(n));
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  std::vector<double> work(static_cast<std::size_t>(n) * 64);
  const int lwork = n * 64, one = 1;
  int info = 0;
  for (auto _ : st) {
    // The row-major input is the column-major transpose; the operation counts are the same.
    std::memcpy(w.data(), a.data(), w.size() * sizeof(double));
    if constexpr (O == op::lu) dgetrf_(&n, &n, w.data(), &n, ipiv.data(), &info);
    if constexpr (O == op::cholesky) dpotrf_("L", &n, w.data(), &n, &info, 1);
    if constexpr (O == op::solve) {
      std::memcpy(b.data(), bt.data(), b.size() * sizeof(double));
      dgesv_(&n, &one, w.data(), &n, ipiv.data(), b.data(), &n, &info);
    }
    if constexpr (O == op::inv) {
      dgetrf_(&n, &n, w.data(), &n, ipiv.data(), &info);
      dgetri_(&n, w.data(), &n, ipiv.data(), work.data(), &lwork, &info);
    }
    if constexpr (O == op::det) {
      dgetrf_(&n, &n, w.data(), &n, ipiv.data(), &info);
      double d = 1;
      for (int i = 0; i < n; ++i) d *= (ipiv[static_cast<std::size_t>(i)] != i + 1 ? -1 : 1) * w[static_cast<std::size_t>(i) * n + i];
      benchmark::DoNotOptimize(d);
    }
    benchmark::DoNotOptimize(w.data());
  }
  if (info != 0) st.SkipWithError("LAPACK reported a failure");
  report<double>(st, op_flops(O, static_cast<double>(n)), threads);
}
#endif

void factor_args(benchmark::internal::Benchmark* b) {
  for (int n : {512, 1024})
    for (int t : {1, 2}) b->Args({n, t});
  b->ArgNames({"n", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_tl_factor<op::lu>)->Name("BM_tl_lu_factor")->Apply(factor_args);
BENCHMARK(BM_tl_factor<op::cholesky>)->Name("BM_tl_cholesky")->Apply(factor_args);
BENCHMARK(BM_tl_factor<op::solve>)->Name("BM_tl_solve")->Apply(factor_args);
BENCHMARK(BM_tl_factor<op::inv>)->Name("BM_tl_inv")->Apply(factor_args);
BENCHMARK(BM_tl_factor<op::det>)->Name("BM_tl_det")->Apply(factor_args);
#ifdef TL_BENCH_HAVE_OPENBLAS
BENCHMARK(BM_lapack_factor<op::lu>)->Name("BM_lapack_dgetrf")->Apply(factor_args);
BENCHMARK(BM_lapack_factor<op::cholesky>)->Name("BM_lapack_dpotrf")->Apply(factor_args);
BENCHMARK(BM_lapack_factor<op::solve>)->Name("BM_lapack_dgesv")->Apply(factor_args);
BENCHMARK(BM_lapack_factor<op::inv>)->Name("BM_lapack_dgetri")->Apply(factor_args);
BENCHMARK(BM_lapack_factor<op::det>)->Name("BM_lapack_det")->Apply(factor_args);
#endif

// ---- vector_norm, matrix_exp, multi_dot ------------------------------------------------------------
//
//   vector_norm: the 2-norm of n = 2^20 and 2^24 contiguous floats / doubles (4 / 8 MiB and 64 /
//          128 MiB) against Eigen's .norm(), OpenBLAS's ?nrm2 and a STREAM-style read (a packet sum
//          of the same array: the machine's read bandwidth). One thread everywhere. Counter:
//          bytes_per_second (the array read once).
//   matrix_exp: double, n = 64 and 256, a random matrix scaled to 1-norm 8 (Padé 13 with one
//          squaring), against Eigen's MatrixFunctions exp().
//   multi_dot: the chain [1000, 20] [20, 1000] [1000, 20] [20, 500] (optimal order: 1.06e7
//          multiply-adds; left to right: 5.0e7), tl::linalg::multi_dot against tl::matmul left to
//          right.

template <class R>
std::vector<R> norm_data(index_t n) {
  std::vector<R> v(static_cast<std::size_t>(n));
  unsigned s = 12345;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<R>(static_cast<double>(s >> 8) / 16777216.0 - 0.5);
  }
  return v;
}

template <class R>
void norm_bytes(benchmark::State& st, index_t n) {
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * n * static_cast<std::int64_t>(sizeof(R)));
}

template <class R>
void BM_tl_vector_norm(benchmark::State& st) {
  set_threads(1);
  const index_t n = st.range(0);
  auto v = norm_data<R>(n);
  const auto x = tl::from<R>(v.data(), tl::shape_t<1>{n});
  for (auto _ : st) benchmark::DoNotOptimize(tl::linalg::vector_norm(x).item());
  norm_bytes<R>(st, n);
}

template <class R>
void BM_stream_read(benchmark::State& st) {
  const index_t n = st.range(0);
  auto v = norm_data<R>(n);
  using P = xsimd::batch<R>;
  constexpr index_t W = static_cast<index_t>(P::size);
  for (auto _ : st) {
    P a0(R(0)), a1(R(0)), a2(R(0)), a3(R(0));
    const R* p = v.data();
    for (index_t i = 0; i + 4 * W <= n; i += 4 * W) {
      a0 += P::load_unaligned(p + i);
      a1 += P::load_unaligned(p + i + W);
      a2 += P::load_unaligned(p + i + 2 * W);
      a3 += P::load_unaligned(p + i + 3 * W);
    }
    benchmark::DoNotOptimize(xsimd::hadd((a0 + a1) + (a2 + a3)));
  }
  norm_bytes<R>(st, n);
}

#ifdef TL_BENCH_HAVE_OPENBLAS
template <class R>
void BM_openblas_nrm2(benchmark::State& st) {
  set_threads(1);
  const index_t n = st.range(0);
  auto v = norm_data<R>(n);
  for (auto _ : st) {
    if constexpr (std::is_same_v<R, float>) benchmark::DoNotOptimize(cblas_snrm2(static_cast<int>(n), v.data(), 1));
    else benchmark::DoNotOptimize(cblas_dnrm2(static_cast<int>(n), v.data(), 1));
  }
  norm_bytes<R>(st, n);
}
#endif

#ifdef TL_BENCH_HAVE_EIGEN
template <class R>
void BM_eigen_norm(benchmark::State& st) {
  set_threads(1);
  const index_t n = st.range(0);
  auto v = norm_data<R>(n);
  const Eigen::Map<const Eigen::Matrix<R, Eigen::Dynamic, 1>> x(v.data(), n);
  for (auto _ : st) benchmark::DoNotOptimize(x.norm());
  norm_bytes<R>(st, n);
}
#endif

void norm_args(benchmark::internal::Benchmark* b) {
  for (int n : {1 << 20, 1 << 24}) b->Arg(n);
  b->ArgNames({"n"})->Unit(benchmark::kMicrosecond)->UseRealTime();
}

BENCHMARK(BM_tl_vector_norm<float>)->Apply(norm_args);
BENCHMARK(BM_tl_vector_norm<double>)->Apply(norm_args);
BENCHMARK(BM_stream_read<float>)->Apply(norm_args);
BENCHMARK(BM_stream_read<double>)->Apply(norm_args);
#ifdef TL_BENCH_HAVE_OPENBLAS
BENCHMARK(BM_openblas_nrm2<float>)->Apply(norm_args);
BENCHMARK(BM_openblas_nrm2<double>)->Apply(norm_args);
#endif
#ifdef TL_BENCH_HAVE_EIGEN
BENCHMARK(BM_eigen_norm<float>)->Apply(norm_args);
BENCHMARK(BM_eigen_norm<double>)->Apply(norm_args);
#endif

tl::tensor<double, 2> expm_input(index_t n) {
  tl::tensor<double, 2> a = random_matrix<double>(n, 11);
  const double n1 = tl::linalg::matrix_norm(a, 1).item();
  return tl::tensor<double, 2>(a * (8.0 / n1));
}

void BM_tl_matrix_exp(benchmark::State& st) {
  set_threads(1);
  const auto a = expm_input(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(tl::linalg::matrix_exp(a).data());
}

#if defined(TL_BENCH_HAVE_EIGEN) && __has_include(<unsupported/Eigen/MatrixFunctions>)
void BM_eigen_matrix_exp(benchmark::State& st) {
  set_threads(1);
  const index_t n = st.range(0);
  const auto a = expm_input(n);
  Eigen::MatrixXd m(n, n), r(n, n);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) m(i, j) = a(i, j);
  for (auto _ : st) {
    r = m.exp();
    benchmark::DoNotOptimize(r.data());
  }
}
BENCHMARK(BM_eigen_matrix_exp)->Arg(64)->Arg(256)->ArgNames({"n"})->Unit(benchmark::kMillisecond)->UseRealTime();
#endif
BENCHMARK(BM_tl_matrix_exp)->Arg(64)->Arg(256)->ArgNames({"n"})->Unit(benchmark::kMillisecond)->UseRealTime();

std::vector<tl::tensor<double, 2>> chain() {
  const index_t d[] = {1000, 20, 1000, 20, 500};
  std::vector<tl::tensor<double, 2>> c;
  for (int i = 0; i < 4; ++i) {
    tl::tensor<double, 2> m(tl::shape_t<2>{d[i], d[i + 1]});
    const auto r = random_matrix<double>(std::max(d[i], d[i + 1]), 3 + i);
    m = r.slice(0, 0, d[i]).slice(1, 0, d[i + 1]);
    c.push_back(m);
  }
  return c;
}

void BM_tl_multi_dot(benchmark::State& st) {
  set_threads(1);
  const auto c = chain();
  for (auto _ : st) benchmark::DoNotOptimize(tl::linalg::multi_dot(c[0], c[1], c[2], c[3]).data());
}

void BM_tl_matmul_left_to_right(benchmark::State& st) {
  set_threads(1);
  const auto c = chain();
  for (auto _ : st) {
    tl::tensor<double, 2> r = tl::matmul(tl::tensor<double, 2>(tl::matmul(tl::tensor<double, 2>(tl::matmul(c[0], c[1])), c[2])), c[3]);
    benchmark::DoNotOptimize(r.data());
  }
}
BENCHMARK(BM_tl_multi_dot)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_tl_matmul_left_to_right)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

// ---- qr, eigh (single thread) ----------------------------------------------------------------------
//
//   qr:   double, n = 512 and 1024: tl::linalg::detail::geqrf (the packed factorization, as LAPACK's
//         dgeqrf and Eigen's HouseholderQR compute it) and tl::linalg::qr (reduced: also forms Q).
//         GFLOPS counts 4 n^3 / 3 for the factorization alone.
//   eigh: double, n = 512 and 1024: tl::linalg::eigh / eigvalsh against LAPACK's dsyevd (jobz 'V'
//         / 'N') and Eigen's SelfAdjointEigenSolver (ComputeEigenvectors / EigenvaluesOnly).
#ifdef TL_BENCH_HAVE_EIGEN
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#endif
#ifdef TL_BENCH_HAVE_OPENBLAS
extern "C" {
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t jobz_len, std::size_t uplo_len);
}
#endif

namespace {

// A symmetric matrix with well-spread eigenvalues: (B + B^T) / 2.
tl::tensor<double, 2> symmetric_matrix(index_t n) {
  const auto b = random_matrix<double>(n, 11);
  tl::tensor<double, 2> a(tl::shape_t<2>{n, n});
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) a(i, j) = 0.5 * (b(i, j) + b(j, i));
  return a;
}

// Each factorization runs for half a second before it is timed: the first calls of every library
// touch fresh memory (their work buffers), which on a virtual machine costs up to 2x the steady
// state of a 1024 x 1024 SVD; the figures are for repeated calls.
void decomp_args(benchmark::internal::Benchmark* b) {
  for (int n : {512, 1024}) b->Args({n});
  b->ArgNames({"n"})->Unit(benchmark::kMillisecond)->UseRealTime()->MinWarmUpTime(0.5);
}

template <bool FormQ>
void BM_tl_qr(benchmark::State& st) {
  const index_t n = st.range(0);
  set_threads(1);
  const auto a = random_matrix<double>(n, 5);
  for (auto _ : st) {
    if constexpr (FormQ) benchmark::DoNotOptimize(tl::linalg::qr(a).Q.data());
    else benchmark::DoNotOptimize(tl::linalg::detail::geqrf(a).a.data());
  }
  report<double>(st, 4.0 * n * n * n / 3, 1);
}
BENCHMARK(BM_tl_qr<false>)->Name("BM_tl_geqrf")->Apply(decomp_args);
BENCHMARK(BM_tl_qr<true>)->Name("BM_tl_qr_reduced")->Apply(decomp_args);

template <bool Vectors>
void BM_tl_eigh(benchmark::State& st) {
  const index_t n = st.range(0);
  set_threads(1);
  const auto a = symmetric_matrix(n);
  for (auto _ : st) {
    if constexpr (Vectors) benchmark::DoNotOptimize(tl::linalg::eigh(a).eigenvectors.data());
    else benchmark::DoNotOptimize(tl::linalg::eigvalsh(a).data());
  }
}
BENCHMARK(BM_tl_eigh<true>)->Name("BM_tl_eigh")->Apply(decomp_args);
BENCHMARK(BM_tl_eigh<false>)->Name("BM_tl_eigvalsh")->Apply(decomp_args);

#ifdef TL_BENCH_HAVE_OPENBLAS
void BM_lapack_dgeqrf(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  set_threads(1);
  const auto a = random_matrix<double>(n, 5);
  std::vector<double> w(static_cast<std::size_t>(n) * n), tau(static_cast<std::size_t>(n)),
      work(static_cast<std::size_t>(n) * 64);
  const int lwork = n * 64;
  int info = 0;
  for (auto _ : st) {
    std::memcpy(w.data(), a.data(), w.size() * sizeof(double));
    dgeqrf_(&n, &n, w.data(), &n, tau.data(), work.data(), &lwork, &info);
    benchmark::DoNotOptimize(w.data());
  }
  if (info != 0) st.SkipWithError("LAPACK reported a failure");
  report<double>(st, 4.0 * n * n * n / 3, 1);
}
BENCHMARK(BM_lapack_dgeqrf)->Apply(decomp_args);

template <bool Vectors>
void BM_lapack_dsyevd(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  set_threads(1);
  const auto a = symmetric_matrix(n);
  std::vector<double> w(static_cast<std::size_t>(n) * n), ev(static_cast<std::size_t>(n));
  const int lwork = 1 + 6 * n + 2 * n * n, liwork = 3 + 5 * n;
  std::vector<double> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  int info = 0;
  for (auto _ : st) {
    std::memcpy(w.data(), a.data(), w.size() * sizeof(double));
    dsyevd_(Vectors ? "V" : "N", "L", &n, w.data(), &n, ev.data(), work.data(), &lwork, iwork.data(), &liwork, &info,
            1, 1);
    benchmark::DoNotOptimize(w.data());
  }
  if (info != 0) st.SkipWithError("LAPACK reported a failure");
}
BENCHMARK(BM_lapack_dsyevd<true>)->Name("BM_lapack_dsyevd_V")->Apply(decomp_args);
BENCHMARK(BM_lapack_dsyevd<false>)->Name("BM_lapack_dsyevd_N")->Apply(decomp_args);
#endif

#ifdef TL_BENCH_HAVE_EIGEN
using eigen_mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void BM_eigen_householder_qr(benchmark::State& st) {
  const index_t n = st.range(0);
  set_threads(1);
  const auto t = random_matrix<double>(n, 5);
  const eigen_mat a = Eigen::Map<const eigen_mat>(t.data(), n, n);
  Eigen::HouseholderQR<eigen_mat> qr(n, n);
  for (auto _ : st) {
    qr.compute(a);
    benchmark::DoNotOptimize(qr.matrixQR().data());
  }
  report<double>(st, 4.0 * n * n * n / 3, 1);
}
BENCHMARK(BM_eigen_householder_qr)->Apply(decomp_args);

template <bool Vectors>
void BM_eigen_selfadjoint(benchmark::State& st) {
  const index_t n = st.range(0);
  set_threads(1);
  const auto t = symmetric_matrix(n);
  const eigen_mat a = Eigen::Map<const eigen_mat>(t.data(), n, n);
  Eigen::SelfAdjointEigenSolver<eigen_mat> es(n);
  for (auto _ : st) {
    es.compute(a, Vectors ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
    benchmark::DoNotOptimize(es.eigenvalues().data());
  }
}
BENCHMARK(BM_eigen_selfadjoint<true>)->Name("BM_eigen_selfadjoint_vectors")->Apply(decomp_args);
BENCHMARK(BM_eigen_selfadjoint<false>)->Name("BM_eigen_selfadjoint_values")->Apply(decomp_args);
#endif

}  // namespace

// ---- svd, eig (single thread) ----------------------------------------------------------------------
//
//   svd:  double, n = 512 and 1024 (square): tl::linalg::svd (full_matrices = false) and svdvals
//         against LAPACK's dgesdd (jobz 'S' / 'N') and Eigen's BDCSVD (thin U and V / values
//         only); Eigen's JacobiSVD at n = 128 only (about 50 s per call at n = 512 here).
//   eig:  double, n = 512 and 1024: tl::linalg::eig / eigvals against LAPACK's dgeev (jobvr 'V' /
//         'N'); Eigen's EigenSolver (with / without eigenvectors) at n = 512 only (seconds per
//         call; n = 1024 would make the run too long).
#ifdef TL_BENCH_HAVE_EIGEN
#include <Eigen/SVD>
#endif
#ifdef TL_BENCH_HAVE_OPENBLAS
extern "C" {
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             std::size_t jobz_len);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr, double* wi,
            double* vl, const int* ldvl, double* vr, const int* ldvr, double* work, const int* lwork, int* info,
            std::size_t jobvl_len, std::size_t jobvr_len);
}
#endif

namespace {

template <bool Vectors>
void BM_tl_svd(benchmark::State& st) {
  const index_t n = st.range(0);
  set_threads(1);
  const auto a = random_matrix<double>(n, 13);
  for (auto _ : st) {
    if constexpr (Vectors) benchmark::DoNotOptimize(tl::linalg::svd(a, false).U.data());
    else benchmark::DoNotOptimize(tl::linalg::svdvals(a).data());
  }
}
BENCHMARK(BM_tl_svd<true>)->Name("BM_tl_svd")->Apply(decomp_args);
BENCHMARK(BM_tl_svd<false>)->Name("BM_tl_svdvals")->Apply(decomp_args);

template <bool Vectors>
void BM_tl_eig(benchmark::State& st) {
  const index_t n = st.range(0);
  set_threads(1);
  const auto a = random_matrix<double>(n, 17);
  for (auto _ : st) {
    if constexpr (Vectors) benchmark::DoNotOptimize(tl::linalg::eig(a).eigenvectors.data());
    else benchmark::DoNotOptimize(tl::linalg::eigvals(a).data());
  }
}
BENCHMARK(BM_tl_eig<true>)->Name("BM_tl_eig")->Apply(decomp_args);
BENCHMARK(BM_tl_eig<false>)->Name("BM_tl_eigvals")->Apply(decomp_args);

#ifdef TL_BENCH_HAVE_OPENBLAS
template <bool Vectors>
void BM_lapack_dgesdd(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  set_threads(1);
  const auto a = random_matrix<double>(n, 13);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  std::vector<double> w(nn), s(static_cast<std::size_t>(n)), u(Vectors ? nn : 1), vt(Vectors ? nn : 1);
  std::vector<int> iwork(static_cast<std::size_t>(8 * n));
  const char* jobz = Vectors ? "S" : "N";
  int info = 0, lwork = -1;
  double wq = 0;
  dgesdd_(jobz, &n, &n, w.data(), &n, s.data(), u.data(), &n, vt.data(), &n, &wq, &lwork, iwork.data(), &info, 1);
  lwork = static_cast<int>(wq);
  std::vector<double> work(static_cast<std::size_t>(lwork));
  for (auto _ : st) {
    std::memcpy(w.data(), a.data(), nn * sizeof(double));
    dgesdd_(jobz, &n, &n, w.data(), &n, s.data(), u.data(), &n, vt.data(), &n, work.data(), &lwork, iwork.data(),
            &info, 1);
    benchmark::DoNotOptimize(s.data());
  }
  if (info != 0) st.SkipWithError("LAPACK reported a failure");
}
BENCHMARK(BM_lapack_dgesdd<true>)->Name("BM_lapack_dgesdd_S")->Apply(decomp_args);
BENCHMARK(BM_lapack_dgesdd<false>)->Name("BM_lapack_dgesdd_N")->Apply(decomp_args);

template <bool Vectors>
void BM_lapack_dgeev(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  set_threads(1);
  const auto a = random_matrix<double>(n, 17);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  std::vector<double> w(nn), wr(static_cast<std::size_t>(n)), wi(static_cast<std::size_t>(n)), vr(Vectors ? nn : 1);
  const char* jobvr = Vectors ? "V" : "N";
  const int one = 1;
  int info = 0, lwork = -1;
  double wq = 0;
  dgeev_("N", jobvr, &n, w.data(), &n, wr.data(), wi.data(), nullptr, &one, vr.data(), &n, &wq, &lwork, &info, 1, 1);
  lwork = static_cast<int>(wq);
  std::vector<double> work(static_cast<std::size_t>(lwork));
  for (auto _ : st) {
    std::memcpy(w.data(), a.data(), nn * sizeof(double));
    dgeev_("N", jobvr, &n, w.data(), &n, wr.data(), wi.data(), nullptr, &one, vr.data(), &n, work.data(), &lwork,
           &info, 1, 1);
    benchmark::DoNotOptimize(wr.data());
  }
  if (info != 0) st.SkipWithError("LAPACK reported a failure");
}
BENCHMARK(BM_lapack_dgeev<true>)->Name("BM_lapack_dgeev_V")->Apply(decomp_args);
BENCHMARK(BM_lapack_dgeev<false>)->Name("BM_lapack_dgeev_N")->Apply(decomp_args);
#endif

#ifdef TL_BENCH_HAVE_EIGEN
template <class Solver, bool Vectors>
void BM_eigen_svd(benchmark::State& st) {
  const index_t n = st.range(0);
  set_threads(1);
  const auto t = random_matrix<double>(n, 13);
  const eigen_mat a = Eigen::Map<const eigen_mat>(t.data(), n, n);
  for (auto _ : st) {
    Solver svd(a, Vectors ? (Eigen::ComputeThinU | Eigen::ComputeThinV) : 0);
    benchmark::DoNotOptimize(svd.singularValues().data());
  }
}
BENCHMARK(BM_eigen_svd<Eigen::BDCSVD<eigen_mat>, true>)->Name("BM_eigen_bdcsvd_vectors")->Apply(decomp_args);
BENCHMARK(BM_eigen_svd<Eigen::BDCSVD<eigen_mat>, false>)->Name("BM_eigen_bdcsvd_values")->Apply(decomp_args);
BENCHMARK(BM_eigen_svd<Eigen::JacobiSVD<eigen_mat>, true>)
    ->Name("BM_eigen_jacobisvd_vectors")
    ->Arg(128)
    ->ArgNames({"n"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

template <bool Vectors>
void BM_eigen_eigensolver(benchmark::State& st) {
  const index_t n = st.range(0);
  set_threads(1);
  const auto t = random_matrix<double>(n, 17);
  const eigen_mat a = Eigen::Map<const eigen_mat>(t.data(), n, n);
  Eigen::EigenSolver<eigen_mat> es(n);
  for (auto _ : st) {
    es.compute(a, Vectors);
    benchmark::DoNotOptimize(es.eigenvalues().data());
  }
}
void eigensolver_args(benchmark::internal::Benchmark* b) {
  b->Arg(512)->ArgNames({"n"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_eigen_eigensolver<true>)->Name("BM_eigen_eigensolver_vectors")->Apply(eigensolver_args);
BENCHMARK(BM_eigen_eigensolver<false>)->Name("BM_eigen_eigensolver_values")->Apply(eigensolver_args);
#endif

}  // namespace

// ---- ldl_factor (single thread) --------------------------------------------------------------------
//
//   double, n = 64, 256, 512: tl::linalg::ldl_factor (Bunch-Kaufman LDLᵀ of a symmetric indefinite
//   matrix, (B + Bᵀ) / 2) against LAPACK's dsytrf (uplo 'L', optimal workspace from a query).
//   GFLOPS counts n^3 / 3 (LAPACK's operation count for sytrf).
#ifdef TL_BENCH_HAVE_OPENBLAS
extern "C" {
void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work, const int* lwork,
             int* info, std::size_t uplo_len);
}
#endif

namespace {

void ldl_args(benchmark::internal::Benchmark* b) {
  for (int n : {64, 256, 512}) b->Args({n});
  b->ArgNames({"n"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

void BM_tl_ldl_factor(benchmark::State& st) {
  const index_t n = st.range(0);
  set_threads(1);
  const auto a = symmetric_matrix(n);
  for (auto _ : st) benchmark::DoNotOptimize(tl::linalg::ldl_factor(a).LD.data());
  report<double>(st, static_cast<double>(n) * n * n / 3, 1);
}
BENCHMARK(BM_tl_ldl_factor)->Apply(ldl_args);

#ifdef TL_BENCH_HAVE_OPENBLAS
void BM_lapack_dsytrf(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  set_threads(1);
  const auto a = symmetric_matrix(n);
  std::vector<double> w(static_cast<std::size_t>(n) * n);
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  int info = 0, lwork = -1;
  double query = 0;
  dsytrf_("L", &n, w.data(), &n, ipiv.data(), &query, &lwork, &info, 1);
  lwork = static_cast<int>(query);
  std::vector<double> work(static_cast<std::size_t>(std::max(1, lwork)));
  for (auto _ : st) {
    // A symmetric row-major matrix is its own column-major layout.
    std::memcpy(w.data(), a.data(), w.size() * sizeof(double));
    dsytrf_("L", &n, w.data(), &n, ipiv.data(), work.data(), &lwork, &info, 1);
    benchmark::DoNotOptimize(w.data());
  }
  if (info != 0) st.SkipWithError("LAPACK reported a failure");
  report<double>(st, static_cast<double>(n) * n * n / 3, 1);
}
BENCHMARK(BM_lapack_dsytrf)->Apply(ldl_args);
#endif

}  // namespace
