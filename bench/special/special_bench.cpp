// tl::special against scalar peers: 1M elements, one thread, float and double.
//
// For each function: tl (one fused SIMD pass), a <cmath> loop where <cmath> has the function or
// a textbook formula for it (erfcx = exp(x^2) erfc(x), ndtr = erfc(-x / sqrt 2) / 2,
// log_ndtr = log(ndtr); lgamma; spherical_bessel_j0 = sin(x) / x), Boost.Math (erf, erfc, erf_inv, the normal cdf and
// quantile, lgamma, digamma, trigamma, cyl_bessel_i and cyl_bessel_k of order 0 and 1; skipped
// when its headers are absent) and LibTorch's torch::special (its out= form, so no allocation is
// timed; with TL_BENCH_HAVE_TORCH). The counter ns/elem is the time per element; every
// benchmark checks its first results against the <cmath> or Boost loop before timing.
//
// main() comes from benchmark_main (as for every bench/**/*_bench.cpp):
//   bench_special_special --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <tl/tensor.hpp>

#if __has_include(<boost/math/special_functions/erf.hpp>)
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/airy.hpp>
#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#define TL_BENCH_HAVE_BOOST 1
#endif
#ifdef TL_BENCH_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace {
constexpr std::int64_t n = 1 << 20;

struct domain {
  double lo, hi;
};
// Each function's inputs: uniform over the range where users evaluate it.
domain domain_of(const std::string& f) {
  if (f == "erfinv") return {-0.999, 0.999};
  if (f == "ndtri" || f == "logit") return {0.001, 0.999};
  if (f == "log_ndtr") return {-30, 8};
  if (f == "erfcx") return {-3, 30};
  if (f == "gammaln" || f == "digamma" || f == "trigamma") return {0.01, 30};
  if (f == "i0" || f == "i0e" || f == "i1" || f == "i1e" || f == "spherical_bessel_j0") return {-30, 30};
  if (f.find("bessel_k") != std::string::npos) return {0.01, 30};
  if (f == "tgamma") return {0.01, 30};
  if (f.rfind("bessel_", 0) == 0) return {0.1, 30};
  if (f == "airy_ai") return {-10, 10};
  if (f.rfind("std_cyl", 0) == 0) return {0.1, 30};
  if (f.rfind("std_legendre", 0) == 0 || f.rfind("std_hermite", 0) == 0 || f.rfind("std_laguerre", 0) == 0) return {-1, 1};
  if (f == "gammainc" || f == "gammaincc" || f == "zeta" || f == "zeta_real") return {0.01, 30};
  if (f == "gammainc_temme" || f == "gammaincc_temme") return {10, 1000};
  if (f == "polynomial") return {-1, 1};
  return {-5, 5};
}
template <class T>
tl::tensor<T, 1> input(const std::string& f) {
  const domain d = domain_of(f);
  std::mt19937_64 g(42);
  std::uniform_real_distribution<double> u(d.lo, d.hi);
  tl::tensor<T, 1> x(tl::shape_t<1>{n});
  for (std::int64_t i = 0; i < n; ++i) x(i) = static_cast<T>(u(g));
  return x;
}
void finish(benchmark::State& state) {
  state.counters["ns/elem"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * n * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(state.iterations() * n);
}
bool close(double a, double b) { return std::abs(a - b) <= 1e-5 * std::abs(b) || (std::isnan(a) && std::isnan(b)); }

// ---- the functions, in each library -------------------------------------------------------------
#define TL_SPECIAL_BENCH_FUNCTIONS(X) X(erf) X(erfc) X(erfcx) X(erfinv) X(ndtr) X(ndtri) X(log_ndtr) X(logit)

template <class T>
T cmath_ref(const std::string& f, T x) {
  constexpr T r2 = T(0.70710678118654752440);
  if (f == "erf") return std::erf(x);
  if (f == "erfc") return std::erfc(x);
  if (f == "erfcx") return std::exp(x * x) * std::erfc(x);
  if (f == "ndtr") return T(0.5) * std::erfc(-x * r2);
  if (f == "log_ndtr") return std::log(T(0.5) * std::erfc(-x * r2));
  if (f == "logit") return std::log(x / (T(1) - x));
  if (f == "gammaln") return std::lgamma(x);
  if (f == "tgamma") return std::tgamma(x);
  if (f == "spherical_bessel_j0") return std::sin(x) / x;
  return std::numeric_limits<T>::quiet_NaN();  // erfinv, ndtri: no <cmath> form
}
/// Where the textbook formula is accurate enough to check tl against (|x| < 3; no inverse).
bool checkable(const std::string& f, double x) {
  if (f == "gammaln" || f == "tgamma") return true;
  if (f == "airy_ai") return false;
  if (f == "spherical_bessel_j0") return x != 0;
  return f != "erfinv" && f != "ndtri" && f != "digamma" && f != "trigamma" && f[0] != 'i' && f.find("bessel") == std::string::npos &&
         std::abs(x) < 3;
}

template <class T, class F>
void run_scalar(benchmark::State& state, const std::string& f, F fn) {
  tl::set_num_threads(1);
  const auto x = input<T>(f);
  std::vector<T> y(n);
  for (auto _ : state) {
    for (std::int64_t i = 0; i < n; ++i) y[i] = fn(x(i));
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}

#define TL_BENCH_TL(NAME)                                                                 \
  template <class T>                                                                      \
  void BM_tl_##NAME(benchmark::State& state) {                                            \
    tl::set_num_threads(1);                                                               \
    const auto x = input<T>(#NAME);                                                       \
    tl::tensor<T, 1> y(tl::shape_t<1>{n});                                                \
    y = tl::special::NAME(x);                                                             \
    for (std::int64_t i = 0; i < 64; ++i)                                                 \
      if (checkable(#NAME, x(i)) && !close(y(i), cmath_ref<double>(#NAME, x(i)))) {       \
        state.SkipWithError("tl differs from <cmath>");                                   \
        return;                                                                           \
      }                                                                                   \
    for (auto _ : state) {                                                                \
      y = tl::special::NAME(x);                                                           \
      benchmark::DoNotOptimize(y.data());                                                 \
      benchmark::ClobberMemory();                                                         \
    }                                                                                     \
    finish(state);                                                                        \
  }                                                                                       \
  BENCHMARK_TEMPLATE(BM_tl_##NAME, float);                                                \
  BENCHMARK_TEMPLATE(BM_tl_##NAME, double);
TL_SPECIAL_BENCH_FUNCTIONS(TL_BENCH_TL)
// The gamma and Bessel group.
#define TL_SPECIAL_BENCH_GAMMA(X)                                                                         \
  X(gammaln) X(digamma) X(i0) X(i0e) X(i1) X(i1e) X(modified_bessel_k0) X(modified_bessel_k1) X(scaled_modified_bessel_k0) \
  X(scaled_modified_bessel_k1) X(spherical_bessel_j0)
TL_SPECIAL_BENCH_GAMMA(TL_BENCH_TL)
// tgamma, the Bessel functions of the first and second kind, Airy Ai.
#define TL_SPECIAL_BENCH_JY(X) X(tgamma) X(bessel_j0) X(bessel_j1) X(bessel_y0) X(bessel_y1) X(airy_ai)
TL_SPECIAL_BENCH_JY(TL_BENCH_TL)
#undef TL_BENCH_TL

// Temme's region of gammainc / gammaincc: a uniform in [10, 1000] (the input), x = a (0.7 + 0.6 w) with
// w = frac(13 a), so |x / a - 1| <= 0.3.
template <class T>
T temme_x(T a) {
  const T w = a * T(13) - std::floor(a * T(13));
  return a * (T(0.7) + T(0.6) * w);
}
template <class T>
tl::tensor<T, 1> temme_xs(const tl::tensor<T, 1>& a) {
  tl::tensor<T, 1> x(a.shape());
  for (std::int64_t i = 0; i < a.shape()[0]; ++i) x(i) = temme_x(a(i));
  return x;
}
// Binary: gammainc, gammaincc (x in [0.01, 30], a = 2.5 + x / 2: the transition region; the _temme rows:
// Temme's region above), zeta(3, q) and zeta(2.5, q) (q in [0.01, 30]; the real order takes the other path),
// degree-10 polynomials on [-1, 1] (recurrences for Legendre, Hermite and Laguerre, the trigonometric forms for the
// Chebyshev kinds), Hermite with a degree per element in 8..12 (the _mixed rows).
template <class T>
auto binary_expr(const std::string& f, const tl::tensor<T, 1>& a, const tl::tensor<T, 1>& x, const tl::tensor<T, 1>& nd,
                 const tl::tensor<T, 1>& xt) {
  namespace ts = tl::special;
  if (f == "gammainc_temme") return tl::tensor<T, 1>(ts::gammainc(x, xt));
  if (f == "gammaincc_temme") return tl::tensor<T, 1>(ts::gammaincc(x, xt));
  if (f == "gammainc") return tl::tensor<T, 1>(ts::gammainc(a, x));
  if (f == "gammaincc") return tl::tensor<T, 1>(ts::gammaincc(a, x));
  if (f == "zeta") return tl::tensor<T, 1>(ts::zeta(T(3), x));
  if (f == "zeta_real") return tl::tensor<T, 1>(ts::zeta(T(2.5), x));
  if (f == "chebyshev_polynomial_t") return tl::tensor<T, 1>(ts::chebyshev_polynomial_t(x, T(10)));
  if (f == "chebyshev_polynomial_u") return tl::tensor<T, 1>(ts::chebyshev_polynomial_u(x, T(10)));
  if (f == "chebyshev_polynomial_v") return tl::tensor<T, 1>(ts::chebyshev_polynomial_v(x, T(10)));
  if (f == "chebyshev_polynomial_w") return tl::tensor<T, 1>(ts::chebyshev_polynomial_w(x, T(10)));
  if (f == "hermite_polynomial_h") return tl::tensor<T, 1>(ts::hermite_polynomial_h(x, T(10)));
  if (f == "hermite_polynomial_he") return tl::tensor<T, 1>(ts::hermite_polynomial_he(x, T(10)));
  if (f == "laguerre_polynomial_l") return tl::tensor<T, 1>(ts::laguerre_polynomial_l(x, T(10)));
  // a degree per element (nd: 7 to 12): the recurrence runs to the packet's largest degree
  if (f == "hermite_polynomial_h_mixed") return tl::tensor<T, 1>(ts::hermite_polynomial_h(x, nd));
  return tl::tensor<T, 1>(ts::legendre_polynomial_p(x, T(10)));
}
std::string domain_name(const std::string& f) { return f.find("polynomial") != std::string::npos ? "polynomial" : f; }
#define TL_BENCH_TL2(NAME)                                         \
  template <class T>                                               \
  void BM_tl_##NAME(benchmark::State& state) {                     \
    tl::set_num_threads(1);                                        \
    const auto x = input<T>(domain_name(#NAME));                   \
    const tl::tensor<T, 1> a = x * T(0.5) + T(2.5);                \
    const tl::tensor<T, 1> nd = tl::floor(x * T(2.5)) + T(10);     \
    const tl::tensor<T, 1> xt = temme_xs(x);                       \
    tl::tensor<T, 1> y;                                            \
    for (auto _ : state) {                                         \
      y = binary_expr<T>(#NAME, a, x, nd, xt);                     \
      benchmark::DoNotOptimize(y.data());                          \
      benchmark::ClobberMemory();                                  \
    }                                                              \
    finish(state);                                                 \
  }                                                                \
  BENCHMARK_TEMPLATE(BM_tl_##NAME, float);                         \
  BENCHMARK_TEMPLATE(BM_tl_##NAME, double);
#define TL_SPECIAL_BENCH_BINARY(X) \
  X(gammainc) X(gammaincc) X(gammainc_temme) X(gammaincc_temme) X(zeta) X(zeta_real) X(chebyshev_polynomial_t) X(chebyshev_polynomial_u) X(chebyshev_polynomial_v) \
  X(chebyshev_polynomial_w) X(hermite_polynomial_h) X(hermite_polynomial_he) X(laguerre_polynomial_l)            \
  X(legendre_polynomial_p) X(hermite_polynomial_h_mixed)
TL_SPECIAL_BENCH_BINARY(TL_BENCH_TL2)
#undef TL_BENCH_TL2
/// trigamma: polygamma(1, x).
template <class T>
void BM_tl_trigamma(benchmark::State& state) {
  tl::set_num_threads(1);
  const auto x = input<T>("trigamma");
  tl::tensor<T, 1> y(tl::shape_t<1>{n});
  for (auto _ : state) {
    y = tl::special::polygamma(1, x);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}
BENCHMARK_TEMPLATE(BM_tl_trigamma, float);
BENCHMARK_TEMPLATE(BM_tl_trigamma, double);

// <cmath> loops: the string dispatch above is resolved at compile time by one lambda per function.
#define TL_BENCH_CMATH(NAME, EXPR)                                       \
  template <class T>                                                     \
  void BM_cmath_loop_##NAME(benchmark::State& state) {                   \
    constexpr T r2 = T(0.70710678118654752440);                          \
    (void)r2;                                                            \
    run_scalar<T>(state, #NAME, [&](T x) { return EXPR; });              \
  }                                                                      \
  BENCHMARK_TEMPLATE(BM_cmath_loop_##NAME, float);                       \
  BENCHMARK_TEMPLATE(BM_cmath_loop_##NAME, double);
TL_BENCH_CMATH(erf, std::erf(x))
TL_BENCH_CMATH(erfc, std::erfc(x))
TL_BENCH_CMATH(erfcx, std::exp(x * x) * std::erfc(x))
TL_BENCH_CMATH(ndtr, T(0.5) * std::erfc(-x * r2))
TL_BENCH_CMATH(log_ndtr, std::log(T(0.5) * std::erfc(-x * r2)))
TL_BENCH_CMATH(logit, std::log(x / (T(1) - x)))
TL_BENCH_CMATH(gammaln, std::lgamma(x))
TL_BENCH_CMATH(spherical_bessel_j0, std::sin(x) / x)
TL_BENCH_CMATH(tgamma, std::tgamma(x))
// glibc's POSIX j0, j1, y0, y1 (and their float forms), the fastest scalar peers we have
TL_BENCH_CMATH(bessel_j0, (std::is_same_v<T, float> ? T(::j0f(float(x))) : T(::j0(double(x)))))
TL_BENCH_CMATH(bessel_j1, (std::is_same_v<T, float> ? T(::j1f(float(x))) : T(::j1(double(x)))))
TL_BENCH_CMATH(bessel_y0, (std::is_same_v<T, float> ? T(::y0f(float(x))) : T(::y0(double(x)))))
TL_BENCH_CMATH(bessel_y1, (std::is_same_v<T, float> ? T(::y1f(float(x))) : T(::y1(double(x)))))
// libstdc++'s C++17 special functions
TL_BENCH_CMATH(std_cyl_bessel_j0, std::cyl_bessel_j(T(0), x))
TL_BENCH_CMATH(std_cyl_neumann0, std::cyl_neumann(T(0), x))
TL_BENCH_CMATH(std_riemann_zeta, std::riemann_zeta(T(3) + x * T(0)))
TL_BENCH_CMATH(std_legendre10, std::legendre(10u, x))
TL_BENCH_CMATH(std_hermite10, std::hermite(10u, x))
TL_BENCH_CMATH(std_laguerre10, std::laguerre(10u, std::abs(x)))  // libstdc++ refuses x < 0
#undef TL_BENCH_CMATH

#ifdef TL_BENCH_HAVE_BOOST
#define TL_BENCH_BOOST(NAME, EXPR)                                       \
  template <class T>                                                     \
  void BM_boost_##NAME(benchmark::State& state) {                        \
    const boost::math::normal_distribution<T> nd;                        \
    (void)nd;                                                            \
    run_scalar<T>(state, #NAME, [&](T x) { return EXPR; });              \
  }                                                                      \
  BENCHMARK_TEMPLATE(BM_boost_##NAME, float);                            \
  BENCHMARK_TEMPLATE(BM_boost_##NAME, double);
TL_BENCH_BOOST(erf, boost::math::erf(x))
TL_BENCH_BOOST(erfc, boost::math::erfc(x))
TL_BENCH_BOOST(erfinv, boost::math::erf_inv(x))
TL_BENCH_BOOST(ndtr, boost::math::cdf(nd, x))
TL_BENCH_BOOST(ndtri, boost::math::quantile(nd, x))
TL_BENCH_BOOST(gammaln, boost::math::lgamma(x))
TL_BENCH_BOOST(digamma, boost::math::digamma(x))
TL_BENCH_BOOST(trigamma, boost::math::trigamma(x))
TL_BENCH_BOOST(i0, boost::math::cyl_bessel_i(0, x))
TL_BENCH_BOOST(i1, boost::math::cyl_bessel_i(1, x))
TL_BENCH_BOOST(modified_bessel_k0, boost::math::cyl_bessel_k(0, x))
TL_BENCH_BOOST(modified_bessel_k1, boost::math::cyl_bessel_k(1, x))
TL_BENCH_BOOST(tgamma, boost::math::tgamma(x))
TL_BENCH_BOOST(bessel_j0, boost::math::cyl_bessel_j(0, x))
TL_BENCH_BOOST(bessel_j1, boost::math::cyl_bessel_j(1, x))
TL_BENCH_BOOST(bessel_y0, boost::math::cyl_neumann(0, x))
TL_BENCH_BOOST(bessel_y1, boost::math::cyl_neumann(1, x))
TL_BENCH_BOOST(airy_ai, boost::math::airy_ai(x))
TL_BENCH_BOOST(gammainc, boost::math::gamma_p(T(2.5) + x * T(0.5), x))
TL_BENCH_BOOST(gammaincc, boost::math::gamma_q(T(2.5) + x * T(0.5), x))
TL_BENCH_BOOST(gammainc_temme, boost::math::gamma_p(x, temme_x(x)))
TL_BENCH_BOOST(gammaincc_temme, boost::math::gamma_q(x, temme_x(x)))
#undef TL_BENCH_BOOST
#endif

#ifdef TL_BENCH_HAVE_TORCH
#define TL_BENCH_TORCH(NAME)                                                                              \
  template <class T>                                                                                      \
  void BM_torch_##NAME(benchmark::State& state) {                                                         \
    at::set_num_threads(1);                                                                               \
    torch::NoGradGuard no_grad;                                                                           \
    const auto x = input<T>(#NAME);                                                                       \
    const auto dt = std::is_same_v<T, float> ? torch::kFloat32 : torch::kFloat64;                        \
    const auto tx = torch::from_blob(const_cast<T*>(x.data()), {n}, dt).clone();                          \
    auto ty = torch::empty({n}, dt);                                                                      \
    for (auto _ : state) {                                                                                \
      at::special_##NAME##_out(ty, tx);                                                                   \
      benchmark::DoNotOptimize(ty.data_ptr());                                                            \
      benchmark::ClobberMemory();                                                                         \
    }                                                                                                     \
    finish(state);                                                                                        \
  }                                                                                                       \
  BENCHMARK_TEMPLATE(BM_torch_##NAME, float);                                                             \
  BENCHMARK_TEMPLATE(BM_torch_##NAME, double);
TL_SPECIAL_BENCH_FUNCTIONS(TL_BENCH_TORCH)
TL_BENCH_TORCH(gammaln)
TL_BENCH_TORCH(digamma)
TL_BENCH_TORCH(i0)
TL_BENCH_TORCH(i0e)
TL_BENCH_TORCH(i1)
TL_BENCH_TORCH(i1e)
TL_BENCH_TORCH(modified_bessel_k0)
TL_BENCH_TORCH(modified_bessel_k1)
TL_BENCH_TORCH(scaled_modified_bessel_k0)
TL_BENCH_TORCH(scaled_modified_bessel_k1)
TL_BENCH_TORCH(spherical_bessel_j0)
TL_BENCH_TORCH(bessel_j0)
TL_BENCH_TORCH(bessel_j1)
TL_BENCH_TORCH(bessel_y0)
TL_BENCH_TORCH(bessel_y1)
TL_BENCH_TORCH(airy_ai)
#undef TL_BENCH_TORCH
#define TL_BENCH_TORCH2(NAME, CALL)                                                        \
  template <class T>                                                                      \
  void BM_torch_##NAME(benchmark::State& state) {                                         \
    at::set_num_threads(1);                                                               \
    torch::NoGradGuard no_grad;                                                           \
    const auto x = input<T>(domain_name(#NAME));                                          \
    const tl::tensor<T, 1> a = x * T(0.5) + T(2.5);                                       \
    const auto dt = std::is_same_v<T, float> ? torch::kFloat32 : torch::kFloat64;        \
    const auto ta = torch::from_blob(const_cast<T*>(a.data()), {n}, dt).clone();          \
    const auto tx = torch::from_blob(const_cast<T*>(x.data()), {n}, dt).clone();          \
    const tl::tensor<T, 1> xt = temme_xs(x);                                              \
    const auto txt = torch::from_blob(const_cast<T*>(xt.data()), {n}, dt).clone();        \
    const auto t3 = torch::full({n}, 3.0, dt), t10 = torch::full({n}, 10.0, dt);          \
    const auto t25 = torch::full({n}, 2.5, dt);                                           \
    const auto tnd = at::floor(tx * 2.5) + 10;  /* degrees 7 to 12 */                     \
    (void)ta, (void)txt, (void)t3, (void)t25, (void)t10, (void)tnd;                       \
    auto ty = torch::empty({n}, dt);                                                      \
    for (auto _ : state) {                                                                \
      CALL;                                                                               \
      benchmark::DoNotOptimize(ty.data_ptr());                                            \
      benchmark::ClobberMemory();                                                         \
    }                                                                                     \
    finish(state);                                                                        \
  }                                                                                       \
  BENCHMARK_TEMPLATE(BM_torch_##NAME, float);                                             \
  BENCHMARK_TEMPLATE(BM_torch_##NAME, double);
TL_BENCH_TORCH2(gammainc, at::special_gammainc_out(ty, ta, tx))
TL_BENCH_TORCH2(gammaincc, at::special_gammaincc_out(ty, ta, tx))
TL_BENCH_TORCH2(gammainc_temme, at::special_gammainc_out(ty, tx, txt))
TL_BENCH_TORCH2(gammaincc_temme, at::special_gammaincc_out(ty, tx, txt))
TL_BENCH_TORCH2(zeta, at::special_zeta_out(ty, t3, tx))
TL_BENCH_TORCH2(zeta_real, at::special_zeta_out(ty, t25, tx))
TL_BENCH_TORCH2(chebyshev_polynomial_t, at::special_chebyshev_polynomial_t_out(ty, tx, t10))
TL_BENCH_TORCH2(chebyshev_polynomial_u, at::special_chebyshev_polynomial_u_out(ty, tx, t10))
TL_BENCH_TORCH2(chebyshev_polynomial_v, at::special_chebyshev_polynomial_v_out(ty, tx, t10))
TL_BENCH_TORCH2(chebyshev_polynomial_w, at::special_chebyshev_polynomial_w_out(ty, tx, t10))
TL_BENCH_TORCH2(hermite_polynomial_h, at::special_hermite_polynomial_h_out(ty, tx, t10))
TL_BENCH_TORCH2(hermite_polynomial_he, at::special_hermite_polynomial_he_out(ty, tx, t10))
TL_BENCH_TORCH2(laguerre_polynomial_l, at::special_laguerre_polynomial_l_out(ty, tx, t10))
TL_BENCH_TORCH2(hermite_polynomial_h_mixed, at::special_hermite_polynomial_h_out(ty, tx, tnd))
TL_BENCH_TORCH2(legendre_polynomial_p, at::special_legendre_polynomial_p_out(ty, tx, t10))
#undef TL_BENCH_TORCH2
template <class T>
void BM_torch_trigamma(benchmark::State& state) {
  at::set_num_threads(1);
  torch::NoGradGuard no_grad;
  const auto x = input<T>("trigamma");
  const auto dt = std::is_same_v<T, float> ? torch::kFloat32 : torch::kFloat64;
  const auto tx = torch::from_blob(const_cast<T*>(x.data()), {n}, dt).clone();
  auto ty = torch::empty({n}, dt);
  for (auto _ : state) {
    at::special_polygamma_out(ty, 1, tx);
    benchmark::DoNotOptimize(ty.data_ptr());
    benchmark::ClobberMemory();
  }
  finish(state);
}
BENCHMARK_TEMPLATE(BM_torch_trigamma, float);
BENCHMARK_TEMPLATE(BM_torch_trigamma, double);
#endif
}  // namespace
