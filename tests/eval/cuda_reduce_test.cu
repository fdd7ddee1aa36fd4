// Reductions, scans, softmax and sort on a CUDA device against the host evaluator: every call runs
// on host tensors and on their device copies, and the device result (copied back) must match —
// exactly for integer, bool, min/max/arg and sort results, within a stated relative tolerance for
// floating sums (the device combines in a different, but fixed, order).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <tl/cuda.hpp>

namespace {

const tl::device cuda0 = tl::device::cuda(0);
constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_d = std::numeric_limits<double>::infinity();

/// Relative tolerance of floating results for dtype T (float: a few hundred ULP of headroom for
/// sums in a different order; double: the same in double).
template <class T>
double rtol() {
  using R = tl::real_t<T>;
  if constexpr (std::is_same_v<R, float>) return 2e-5;
  else return 1e-12;
}

template <class T>
bool near(const T& x, const T& y, double rt, double at) {
  if constexpr (tl::is_complex_v<T>) {
    return near(x.re, y.re, rt, at) && near(x.im, y.im, rt, at);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(y)) return std::isnan(x);
    if (std::isinf(y)) return x == y;
    return std::abs(static_cast<double>(x) - static_cast<double>(y)) <= at + rt * std::abs(static_cast<double>(y));
  } else {
    return x == y;
  }
}

/// The device result `dev` equals the host result `host` (same shape; within rt / at for floating).
template <class T, class Ext>
void check_near(const tl::basic_tensor<T, Ext>& dev, const tl::basic_tensor<T, Ext>& host, double rt = 0,
                double at = 0) {
  REQUIRE(dev.is_cuda());
  REQUIRE(dev.shape() == host.shape());
  const auto a = dev.cpu().contiguous();
  const auto b = host.contiguous();
  int reported = 0;
  for (tl::index_t i = 0; i < a.numel(); ++i) {
    const T x = a.data()[i], y = b.data()[i];
    const bool ok = near(x, y, rt, at);
    if (!ok && reported++ < 5) CHECK_MESSAGE(ok, "flat index ", i, ": device ", x, " vs host ", y);
  }
  CHECK(reported == 0);
}

/// The same computation on host tensors and on their device copies.
template <class F, class... H>
void same_on_device(F f, double rt, double at, const H&... host) {
  const auto h = f(host...);
  const auto d = f(host.cuda()...);
  check_near(d, h, rt, at);
}
template <class F, class... H>
void exact_on_device(F f, const H&... host) {
  same_on_device(f, 0, 0, host...);
}

/// Both results of max(x, dim) / min(x, dim) / sort(x, dim).
template <class F, class... H>
void pair_on_device(F f, const H&... host) {
  const auto h = f(host...);
  const auto d = f(host.cuda()...);
  check_near(d.values, h.values);
  check_near(d.indices, h.indices);
}

/// The bytes of a tensor's elements (bit-identity checks).
template <class T, class Ext>
std::vector<unsigned char> bytes_of(const tl::basic_tensor<T, Ext>& t) {
  const auto h = t.cpu().contiguous();
  std::vector<unsigned char> b(static_cast<std::size_t>(h.numel()) * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), h.data(), b.size());
  return b;
}

template <class T, std::size_t R>
tl::tensor<T, R> uniform(const tl::shape_t<R>& s) {
  return tl::rand<T>(s);
}

}  // namespace

TEST_CASE_TEMPLATE("sum, mean and prod over every dim and over chosen dims", T, float, double, tl::complex<float>,
                   tl::complex<double>) {
  tl::manual_seed(1);
  // Positive real parts: a relative tolerance on the sum bounds the error of any summation order.
  const auto x = uniform<T>(tl::shape_t<2>{37, 129});
  const double rt = rtol<T>();
  same_on_device([](const auto& a) { return tl::sum(a); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::sum(a, tl::keepdim); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::sum(a, 0); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::sum(a, 1); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::sum(a, -1, tl::keepdim); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::sum(a, tl::dims{1, 0}); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::mean(a); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::mean(a, 0); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::mean(a, 1, tl::keepdim); }, rt, 0, x);
  // Factors near 1 keep the products of 37 and 129 elements in range.
  const tl::tensor<T, 2> y = x * 0.2 + 0.9;
  if constexpr (tl::is_complex_v<T>) {
    // The phase turns, so a part of a long product may cancel to near zero: short products only,
    // with an absolute tolerance.
    const auto z = tl::tensor<T, 2>(y.slice(0, 0, 4).slice(1, 0, 10));
    same_on_device([](const auto& a) { return tl::prod(a, 1); }, rt, 1e-5, z);
    same_on_device([](const auto& a) { return tl::prod(a, 0); }, rt, 1e-5, z);
  } else {
    same_on_device([](const auto& a) { return tl::prod(a, 0); }, rt, 0, y);
    same_on_device([](const auto& a) { return tl::prod(a, 1); }, rt, 0, y);
    same_on_device([](const auto& a) { return tl::prod(a); }, 10 * rt, 0, y);
  }
}

TEST_CASE_TEMPLATE("integer and bool sums, products and counts are exact", T, std::int32_t, std::int64_t, bool) {
  tl::manual_seed(2);
  tl::tensor<T, 2> x;
  if constexpr (std::is_same_v<T, bool>) x = tl::randint(0, 2, 37, 129) > 0;
  else x = tl::randint<T>(-1, 3, tl::shape_t<2>{37, 129});  // -1, 0, 1, 2: prod over 37 rows fits int64
  exact_on_device([](const auto& a) { return tl::sum(a); }, x);
  exact_on_device([](const auto& a) { return tl::sum(a, 0); }, x);
  exact_on_device([](const auto& a) { return tl::sum(a, 1, tl::keepdim); }, x);
  exact_on_device([](const auto& a) { return tl::prod(a, 0); }, x);
  exact_on_device([](const auto& a) { return tl::count_nonzero(a); }, x);
  exact_on_device([](const auto& a) { return tl::count_nonzero(a, 1); }, x);
  exact_on_device([](const auto& a) { return tl::all_of(a, 0); }, x);
  exact_on_device([](const auto& a) { return tl::any_of(a, 1); }, x);
  exact_on_device([](const auto& a) { return tl::all_of(a != T(0)); }, x);
  exact_on_device([](const auto& a) { return tl::any_of(a, tl::keepdim); }, x);
  exact_on_device([](const auto& a) { return tl::amax(a, 1); }, x);
  exact_on_device([](const auto& a) { return tl::amin(a, 0); }, x);
}

TEST_CASE_TEMPLATE("min, max, argmin and argmax pick the first extreme as on the host", T, float, double,
                   std::int32_t, std::int64_t) {
  tl::manual_seed(3);
  // Seven values over 2310 elements: many ties, resolved to the first position.
  const auto x = tl::randint<T>(-3, 4, tl::shape_t<2>{33, 70});
  exact_on_device([](const auto& a) { return tl::amax(a); }, x);
  exact_on_device([](const auto& a) { return tl::amin(a, 1); }, x);
  exact_on_device([](const auto& a) { return tl::amax(a, tl::dims{0, 1}, tl::keepdim); }, x);
  exact_on_device([](const auto& a) { return tl::max(a); }, x);
  exact_on_device([](const auto& a) { return tl::min(a); }, x);
  exact_on_device([](const auto& a) { return tl::argmax(a); }, x);
  exact_on_device([](const auto& a) { return tl::argmin(a); }, x);
  exact_on_device([](const auto& a) { return tl::argmax(a, 0); }, x);
  exact_on_device([](const auto& a) { return tl::argmin(a, 1, tl::keepdim); }, x);
  pair_on_device([](const auto& a) { return tl::max(a, 1); }, x);
  pair_on_device([](const auto& a) { return tl::min(a, 0, tl::keepdim); }, x);
  // Transposed (strided) input and a column reduction.
  exact_on_device([](const auto& a) { return tl::argmax(a.t(), 1); }, x);
  pair_on_device([](const auto& a) { return tl::max(a.t(), 0); }, x);
  exact_on_device([](const auto& a) { return tl::argmax(a.t()); }, x);
}

TEST_CASE_TEMPLATE("var, std, norm and logsumexp", T, float, double) {
  tl::manual_seed(4);
  const auto x = tl::randn<T>(40, 77);
  const double rt = 10 * rtol<T>();
  const double at = std::is_same_v<T, float> ? 1e-6 : 1e-14;
  same_on_device([](const auto& a) { return tl::var(a); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::var(a, 0); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::std(a, 1, tl::keepdim); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::var(a, 1, tl::correction{0}); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::std(a, tl::correction{2}); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::norm(a); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::norm(a, 1, -1); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::norm(a, inf_d, 0); }, 0, 0, x);
  same_on_device([](const auto& a) { return tl::norm(a, -inf_d); }, 0, 0, x);
  same_on_device([](const auto& a) { return tl::norm(a, 0, 1); }, 0, 0, x);
  same_on_device([](const auto& a) { return tl::norm(a, 3.0, 1); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::logsumexp(a); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::logsumexp(a, 0); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::logsumexp(a, 1, tl::keepdim); }, rt, at, x);
  // One element with correction 1: 0 / 0.
  same_on_device([](const auto& a) { return tl::var(a.slice(0, 0, 1), 0); }, 0, 0, x);
}

TEST_CASE("complex var, std and norm have real results on the device too") {
  tl::manual_seed(5);
  const auto z = tl::randn<tl::complex<double>>(9, 31);
  same_on_device([](const auto& a) { return tl::var(a, 1); }, 1e-12, 1e-14, z);
  same_on_device([](const auto& a) { return tl::std(a); }, 1e-12, 1e-14, z);
  same_on_device([](const auto& a) { return tl::norm(a, 2, 0); }, 1e-12, 1e-14, z);
  same_on_device([](const auto& a) { return tl::norm(a, 1); }, 1e-12, 1e-14, z);
  exact_on_device([](const auto& a) { return tl::count_nonzero(a, 0); }, z);
}

TEST_CASE("expressions, broadcasting and strided views are reduced directly") {
  tl::manual_seed(6);
  const auto a = tl::rand<float>(64, 300);
  const auto b = tl::rand<float>(64, 300);
  const auto c = tl::rand<float>(300);
  const auto col = tl::rand<float>(64, 1);
  const double rt = rtol<float>();
  same_on_device([](const auto& p, const auto& q, const auto& r) { return tl::sum(p * q + r); }, rt, 0, a, b, c);
  same_on_device([](const auto& p, const auto& q, const auto& r) { return tl::sum(p * q + r, 0); }, rt, 0, a, b, c);
  same_on_device([](const auto& p, const auto& q, const auto& r) { return tl::sum(p * q + r, 1); }, rt, 0, a, b, c);
  same_on_device([](const auto& p, const auto& q) { return tl::sum(tl::exp(p) * q, 1); }, rt, 0, a, col);
  same_on_device([](const auto& p, const auto& q) { return tl::mean(tl::exp(p) * q, 0); }, rt, 0, a, col);
  // Transposed, step-sliced and flipped views (strided and negative-stride leaves).
  same_on_device([](const auto& p) { return tl::sum(p.t()); }, rt, 0, a);
  same_on_device([](const auto& p) { return tl::sum(p.t(), 0); }, rt, 0, a);
  same_on_device([](const auto& p) { return tl::sum(p.t(), 1); }, rt, 0, a);
  same_on_device([](const auto& p) { return tl::sum(p.slice(1, 1, 300, 3), 1); }, rt, 0, a);
  same_on_device([](const auto& p) { return tl::sum(p.slice(1, 1, 300, 3), 0); }, rt, 0, a);
  same_on_device([](const auto& p) { return tl::sum(p.flip(0), 0); }, rt, 0, a);
  exact_on_device([](const auto& p) { return tl::amax(p.flip(1), 1); }, a);
  // Rank 3: every way of choosing the reduced dims (flat ranges, rows, runs of rows, columns).
  const auto x = tl::rand<double>(6, 7, 40);
  const auto w = tl::rand<double>(6, 7, 5);
  const double rd = rtol<double>();
  same_on_device([](const auto& p) { return tl::sum(p, tl::dims{1, 2}); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p, tl::dims{0, 2}); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p, tl::dims{0, 1}); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p, 1, tl::keepdim); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p, 0); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p.permute(2, 0, 1)); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p, tl::dims{0, 1}); }, rd, 0, w);
  same_on_device([](const auto& p) { return tl::sum(p, 1); }, rd, 0, w);
  exact_on_device([](const auto& p) { return tl::argmax(p, 1); }, x);
  exact_on_device([](const auto& p) { return tl::argmin(p, 0); }, w);
  // A scalar-only expression and a rank-0 tensor.
  exact_on_device([](const auto& p) { return tl::sum(p); }, tl::full(tl::shape_t<0>{}, 2.5f));
}

TEST_CASE("large reductions split into segments agree with the host") {
  tl::manual_seed(7);
  const double rt = rtol<float>();
  same_on_device([](const auto& p) { return tl::sum(p, 1); }, rt, 0, tl::rand<float>(3, 100000));
  same_on_device([](const auto& p) { return tl::sum(p); }, rt, 0, tl::rand<float>(1 << 21));
  same_on_device([](const auto& p) { return tl::sum(p, 0); }, rt, 0, tl::rand<float>(5000, 40));
  same_on_device([](const auto& p) { return tl::sum(p, 0); }, rt, 0, tl::rand<float>(200000, 3));
  same_on_device([](const auto& p) { return tl::mean(p, 1); }, rt, 0, tl::rand<float>(3000, 100));
  // The maximum at two places: the first one wins across segments.
  auto v = tl::rand<float>(1 << 20);
  v(123457) = 2.0f;
  v(900001) = 2.0f;
  exact_on_device([](const auto& p) { return tl::argmax(p); }, v);
  exact_on_device([](const auto& p) { return tl::amax(p); }, v);
  exact_on_device([](const auto& p) { return tl::count_nonzero(p > 0.5f); }, v);
}

TEST_CASE("NaN and infinities propagate as on the host") {
  tl::manual_seed(8);
  auto x = tl::randn<float>(8, 300);
  x(1, 7) = static_cast<float>(nan_d);
  x(3, 0) = static_cast<float>(nan_d);
  x(3, 299) = static_cast<float>(nan_d);
  x(5, 100) = static_cast<float>(inf_d);
  for (int j = 0; j < 300; ++j) x(6, j) = -static_cast<float>(inf_d);
  const double rt = rtol<float>();
  same_on_device([](const auto& p) { return tl::sum(p, 1); }, 1e-5, 1e-5, x);
  same_on_device([](const auto& p) { return tl::sum(p); }, 0, 0, x);
  same_on_device([](const auto& p) { return tl::mean(p, 0); }, 1e-5, 1e-5, x);
  exact_on_device([](const auto& p) { return tl::amax(p, 1); }, x);
  exact_on_device([](const auto& p) { return tl::amin(p, 0); }, x);
  exact_on_device([](const auto& p) { return tl::argmax(p, 1); }, x);
  exact_on_device([](const auto& p) { return tl::argmin(p); }, x);
  pair_on_device([](const auto& p) { return tl::max(p, 1); }, x);
  pair_on_device([](const auto& p) { return tl::min(p, 0); }, x);
  same_on_device([](const auto& p) { return tl::logsumexp(p, 1); }, rt, 1e-6, x);
  same_on_device([](const auto& p) { return tl::softmax(p, 1); }, 1e-5, 1e-7, x);
  same_on_device([](const auto& p) { return tl::log_softmax(p, 1); }, 1e-5, 1e-5, x);
  same_on_device([](const auto& p) { return tl::softmax(p, 0); }, 1e-5, 1e-7, x);
  exact_on_device([](const auto& p) { return tl::any_of(tl::isnan(p), 1); }, x);
}

TEST_CASE("empty reductions and empty scans follow the host") {
  const auto e = tl::zeros<float>(0, 5);
  exact_on_device([](const auto& p) { return tl::sum(p); }, e);
  exact_on_device([](const auto& p) { return tl::sum(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::sum(p, 1); }, e);
  exact_on_device([](const auto& p) { return tl::mean(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::prod(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::all_of(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::any_of(p); }, e);
  exact_on_device([](const auto& p) { return tl::count_nonzero(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::logsumexp(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::norm(p, 2, 0); }, e);
  exact_on_device([](const auto& p) { return tl::amax(p, 1); }, e);
  exact_on_device([](const auto& p) { return tl::cumsum(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::softmax(p, 1); }, e);
  pair_on_device([](const auto& p) { return tl::sort(p, 0); }, e);
  const auto d = e.cuda();
  CHECK_THROWS_AS(tl::amax(d, 0), tl::value_error);
  CHECK_THROWS_AS(tl::argmax(d), tl::value_error);
  CHECK_THROWS_AS(tl::max(d, 0), tl::value_error);
  CHECK_THROWS_AS(tl::norm(d, inf_d, 0), tl::value_error);
}

TEST_CASE("errors: mixed devices and bad dims") {
  const auto h = tl::ones<float>(4, 5);
  const auto d = h.cuda();
  CHECK_THROWS_AS(tl::sum(d * h), tl::device_error);
  CHECK_THROWS_AS(tl::amax(h + d, 0), tl::device_error);
  CHECK_THROWS_AS(tl::softmax(d - h, 1), tl::device_error);
  CHECK_THROWS_AS(tl::cumsum(d * h, 0), tl::device_error);
  CHECK_THROWS_AS(tl::sum(d, 2), tl::index_error);
  CHECK_THROWS_AS(tl::sum(d, tl::dims{0, -2}), tl::index_error);
  CHECK_THROWS_AS(tl::cumsum(d, 3), tl::index_error);
  CHECK_THROWS_AS(tl::softmax(d, -3), tl::index_error);
  CHECK_THROWS_AS(tl::sort(d, 2), tl::index_error);
}

TEST_CASE_TEMPLATE("cumsum and cumprod along every dim", T, float, double, std::int32_t, std::int64_t, bool,
                   tl::complex<float>) {
  tl::manual_seed(9);
  // Float and complex<float> accumulate in double on both devices, in a different order: the
  // results differ at most in the last bit.
  const double rt = tl::detail::category<T>() >= 2 ? 1e-6 : 0;
  const double at = tl::detail::category<T>() >= 2 ? 1e-9 : 0;
  auto make = [](tl::shape_t<2> s) {
    if constexpr (std::is_same_v<T, bool>) return tl::tensor<bool, 2>(tl::randint(0, 2, s) > 0);
    else if constexpr (tl::detail::category<T>() == 1) return tl::randint<T>(-1, 2, s);  // -1, 0, 1
    else return tl::tensor<T, 2>(tl::rand<T>(s) * 0.02 + 0.99);                        // factors near 1
  };
  for (const auto s : {tl::shape_t<2>{37, 129}, tl::shape_t<2>{3, 20000}, tl::shape_t<2>{5000, 7},
                       tl::shape_t<2>{64, 4100}, tl::shape_t<2>{9, 3}}) {
    const auto x = make(s);
    CAPTURE(s[0]);
    CAPTURE(s[1]);
    same_on_device([](const auto& p) { return tl::cumsum(p, 0); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::cumsum(p, -1); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::cumprod(p, 0); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::cumprod(p, 1); }, rt, at, x);
  }
  const auto x = make(tl::shape_t<2>{40, 50});
  same_on_device([](const auto& p) { return tl::cumsum(p.t(), 1); }, rt, at, x);
  same_on_device([](const auto& p) { return tl::cumprod(p.slice(1, 0, 50, 2), 0); }, rt, at, x);
  // One long line (chunked) and a rank-3 scan along the middle dim.
  const auto line = make(tl::shape_t<2>{1, 1 << 18});
  same_on_device([](const auto& p) { return tl::cumsum(p.select(0, 0), 0); }, rt, at, line);
  const auto z = make(tl::shape_t<2>{8, 600});
  same_on_device([](const auto& p) { return tl::cumsum(p.reshape(8, 20, 30), 1); }, rt, at, z);
}

TEST_CASE("cumsum of an expression with broadcasting") {
  tl::manual_seed(10);
  const auto a = tl::rand<double>(30, 17);
  const auto b = tl::rand<double>(17);
  same_on_device([](const auto& p, const auto& q) { return tl::cumsum(p * 2.0 + q, 0); }, 1e-13, 0, a, b);
  same_on_device([](const auto& p, const auto& q) { return tl::cumsum(p * 2.0 + q, 1); }, 1e-13, 0, a, b);
}

TEST_CASE_TEMPLATE("softmax and log_softmax over dim 0 and -1", T, float, double) {
  tl::manual_seed(11);
  // log_softmax near 0 is x - max - log(sum): its absolute error is the sum's relative error
  // (float: sums of up to 5000 terms in different orders, and exp within 2 ULP).
  const double rt = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  const double at = std::is_same_v<T, float> ? 1e-6 : 1e-14;
  const double at_log = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  // Shapes that reach every kernel: warp rows, block rows kept in registers, block rows read again,
  // strided rows and one thread per column.
  for (const auto s : {tl::shape_t<2>{37, 129}, tl::shape_t<2>{13, 600}, tl::shape_t<2>{5, 5000},
                       tl::shape_t<2>{2000, 64}, tl::shape_t<2>{40, 2048}, tl::shape_t<2>{1, 1}}) {
    const tl::tensor<T, 2> x = tl::randn<T>(s) * T(3);
    CAPTURE(s[0]);
    CAPTURE(s[1]);
    same_on_device([](const auto& p) { return tl::softmax(p, -1); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::softmax(p, 0); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::log_softmax(p, -1); }, rt, at_log, x);
    same_on_device([](const auto& p) { return tl::log_softmax(p, 0); }, rt, at_log, x);
  }
  const auto y = tl::randn<T>(3, 4, 5);
  same_on_device([](const auto& p) { return tl::softmax(p, 1); }, rt, at, y);
  same_on_device([](const auto& p) { return tl::log_softmax(p * T(2) - T(1), 2); }, rt, at_log, y);
  same_on_device([](const auto& p) { return tl::softmax(p.permute(2, 0, 1), 0); }, rt, at, y);
  // Rows of -inf give NaN; a +inf gives NaN too (inf - inf), as on the host.
  auto z = tl::randn<T>(4, 9);
  for (int j = 0; j < 9; ++j) z(1, j) = -std::numeric_limits<T>::infinity();
  z(2, 3) = std::numeric_limits<T>::infinity();
  same_on_device([](const auto& p) { return tl::softmax(p, 1); }, rt, at, z);
  same_on_device([](const auto& p) { return tl::log_softmax(p, 1); }, rt, at_log, z);
}

TEST_CASE_TEMPLATE("sort gives the host's values and indices (stable, both directions)", T, float, double,
                   std::int32_t, std::int64_t) {
  tl::manual_seed(12);
  const auto x = tl::randint<T>(-5, 5, tl::shape_t<2>{13, 300});  // many ties
  for (const bool desc : {false, true}) {
    CAPTURE(desc);
    pair_on_device([desc](const auto& p) { return tl::sort(p, -1, desc); }, x);
    pair_on_device([desc](const auto& p) { return tl::sort(p, 0, desc); }, x);
    pair_on_device([desc](const auto& p) { return tl::sort(p.t(), 1, desc); }, x);
    exact_on_device([desc](const auto& p) { return tl::argsort(p, 1, desc); }, x);
    pair_on_device([desc](const auto& p) { return tl::sort(p, 0, desc); }, tl::randint<T>(-50, 50, tl::shape_t<1>{1 << 16}));
    pair_on_device([desc](const auto& p) { return tl::sort(p * T(2) - T(1), 1, desc); }, x);
  }
}

TEST_CASE("sort orders NaN, infinities and signed zeros like the host") {
  const std::vector<double> v{3, nan_d, -0.0, 1, 0.0, -inf_d, -nan_d, inf_d, 1, -0.0, nan_d, 0.0, -2};
  const auto f = tl::from<float>(v, tl::shape_t<1>{static_cast<tl::index_t>(v.size())});
  const auto d = tl::from<double>(v, tl::shape_t<2>{1, static_cast<tl::index_t>(v.size())});
  for (const bool desc : {false, true}) {
    CAPTURE(desc);
    pair_on_device([desc](const auto& p) { return tl::sort(p, 0, desc); }, f);
    pair_on_device([desc](const auto& p) { return tl::sort(p, 1, desc); }, d);
    // Signed zeros come back from the input, in their stable order.
    const auto h = tl::sort(f, 0, desc).values;
    const auto g = tl::sort(f.cuda(), 0, desc).values.cpu();
    for (tl::index_t i = 0; i < h.numel(); ++i) CHECK(std::signbit(g(i)) == std::signbit(h(i)));
  }
  const tl::tensor<bool, 1> b = tl::randint(0, 2, 100) > 0;
  pair_on_device([](const auto& p) { return tl::sort(p, 0); }, b);
  pair_on_device([](const auto& p) { return tl::sort(p, 0, true); }, b);
}

TEST_CASE("device reductions, scans and softmax are deterministic: two runs give the same bits") {
  tl::manual_seed(13);
  const auto x = tl::randn<float>(1 << 22, cuda0);
  const auto m = tl::randn<float>(2048, 2048, cuda0);
  CHECK(bytes_of(tl::sum(x)) == bytes_of(tl::sum(x)));
  CHECK(bytes_of(tl::sum(x * x - 1.0f)) == bytes_of(tl::sum(x * x - 1.0f)));
  CHECK(bytes_of(tl::sum(m, 0)) == bytes_of(tl::sum(m, 0)));
  CHECK(bytes_of(tl::sum(m, 1)) == bytes_of(tl::sum(m, 1)));
  CHECK(bytes_of(tl::sum(m.t())) == bytes_of(tl::sum(m.t())));
  CHECK(bytes_of(tl::var(m, 0)) == bytes_of(tl::var(m, 0)));
  CHECK(bytes_of(tl::norm(x)) == bytes_of(tl::norm(x)));
  CHECK(bytes_of(tl::logsumexp(m, 1)) == bytes_of(tl::logsumexp(m, 1)));
  CHECK(bytes_of(tl::softmax(m, 1)) == bytes_of(tl::softmax(m, 1)));
  CHECK(bytes_of(tl::softmax(m, 0)) == bytes_of(tl::softmax(m, 0)));
  CHECK(bytes_of(tl::cumsum(x, 0)) == bytes_of(tl::cumsum(x, 0)));
  // On another stream, too.
  const auto ref = bytes_of(tl::sum(m, 0));
  tl::cuda::stream s;
  {
    tl::cuda::stream_guard g(s);
    const auto r = tl::sum(m, 0);
    s.synchronize();
    CHECK(bytes_of(r) == ref);
  }
}
