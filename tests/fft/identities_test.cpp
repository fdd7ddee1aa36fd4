// tl::fft identities (round trips, Parseval, linearity, shift theorem, separability), argument
// handling (n / s, dims, norms, dtypes, layouts), special values, empty tensors, errors and the
// plan cache.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <tl/tensor.hpp>
#include <type_traits>
#include <vector>

#include "../test_util.hpp"

namespace {
using tl::index_t;
template <class T>
using ct = tl::complex<T>;

using tl_test::random;

template <class A, class B>
double max_diff(const A& a, const B& b) {
  REQUIRE(a.shape() == b.shape());
  double m = 0;
  const auto ac = a.contiguous();
  const auto bc = b.contiguous();
  for (index_t i = 0; i < a.numel(); ++i) {
    using V = typename A::value_type;
    if constexpr (tl::is_complex_v<V>) {
      m = std::max(m, static_cast<double>(tl::abs(ac.data()[i] - bc.data()[i])));
    } else {
      m = std::max(m, std::abs(static_cast<double>(ac.data()[i]) - static_cast<double>(bc.data()[i])));
    }
  }
  return m;
}

template <class T>
double tol() {
  return std::is_same_v<T, float> ? 2e-4 : 1e-11;
}

/// Runs f, which must throw a tl::error whose message contains every one of `parts`.
template <class F>
void expect_error(F&& f, std::initializer_list<const char*> parts) {
  std::string what = "(no exception)";
  try {
    f();
  } catch (const tl::error& e) {
    what = e.what();
  }
  INFO(what);
  for (const char* p : parts) CHECK(what.find(p) != std::string::npos);
}
}  // namespace

TEST_CASE_TEMPLATE("fft: round trips for every norm and many lengths", T, float, double) {
  for (const char* norm : {"backward", "ortho", "forward"})
    for (index_t n : {1, 2, 3, 7, 16, 17, 60, 97, 128, 210, 1031}) {
      CAPTURE(norm);
      CAPTURE(n);
      const auto x = random<ct<T>, 1>({n}, static_cast<std::uint64_t>(n));
      CHECK(max_diff(tl::fft::ifft(tl::fft::fft(x, {}, -1, norm), {}, -1, norm), x) < tol<T>());
      const auto xr = random<T, 1>({n}, static_cast<std::uint64_t>(n) + 3);
      CHECK(max_diff(tl::fft::irfft(tl::fft::rfft(xr, {}, -1, norm), n, -1, norm), xr) < tol<T>());
      CHECK(max_diff(tl::fft::hfft(tl::fft::ihfft(xr, {}, -1, norm), n, -1, norm), xr) < tol<T>());
    }
}

TEST_CASE_TEMPLATE("fft: norms scale by 1, 1/sqrt(n) and 1/n", T, float, double) {
  const index_t n = 12;
  const auto x = random<ct<T>, 1>({n}, 5);
  const auto b = tl::fft::fft(x);
  const tl::tensor<ct<T>, 1> o = tl::fft::fft(x, {}, -1, "ortho");
  const tl::tensor<ct<T>, 1> f = tl::fft::fft(x, {}, -1, "forward");
  const tl::tensor<ct<T>, 1> so = b * static_cast<T>(1 / std::sqrt(12.0));
  const tl::tensor<ct<T>, 1> sf = b * static_cast<T>(1 / 12.0);
  CHECK(max_diff(o, so) < tol<T>());
  CHECK(max_diff(f, sf) < tol<T>());
  // ifft "forward" is the unscaled inverse: ifft(x, forward) == n * ifft(x)
  const tl::tensor<ct<T>, 1> i1 = tl::fft::ifft(x, {}, -1, "forward");
  const tl::tensor<ct<T>, 1> i2 = tl::fft::ifft(x) * static_cast<T>(n);
  CHECK(max_diff(i1, i2) < tol<T>() * 10);
}

TEST_CASE_TEMPLATE("fft: Parseval, linearity and the shift theorem", T, float, double) {
  for (index_t n : {8, 15, 64, 101, 1000}) {
    CAPTURE(n);
    const auto x = random<ct<T>, 1>({n}, 1);
    const auto y = random<ct<T>, 1>({n}, 2);
    const auto X = tl::fft::fft(x, {}, -1, "ortho");
    double ex = 0, eX = 0;
    for (index_t i = 0; i < n; ++i) {
      ex += std::norm(std::complex<double>(x.data()[i].re, x.data()[i].im));
      eX += std::norm(std::complex<double>(X.data()[i].re, X.data()[i].im));
    }
    CHECK(std::abs(ex - eX) < tol<T>() * ex);
    const T a = T(0.75), b = T(-1.5);
    const tl::tensor<ct<T>, 1> lhs = tl::fft::fft(x * a + y * b);
    const tl::tensor<ct<T>, 1> rhs = tl::fft::fft(x) * a + tl::fft::fft(y) * b;
    CHECK(max_diff(lhs, rhs) < tol<T>() * static_cast<double>(n));
    // x shifted by s (circularly) has spectrum X_k exp(-2 pi i k s / n)
    const index_t s = n / 3 + 1;
    tl::tensor<ct<T>, 1> xs(tl::shape_t<1>{n});
    for (index_t i = 0; i < n; ++i) xs.data()[i] = x.data()[(i - s % n + n) % n];
    const auto Xs = tl::fft::fft(xs);
    const auto X1 = tl::fft::fft(x);
    double worst = 0;
    for (index_t k = 0; k < n; ++k) {
      const double ang = -2 * 3.14159265358979323846 * static_cast<double>((k * s) % n) / static_cast<double>(n);
      const std::complex<double> want = std::complex<double>(X1.data()[k].re, X1.data()[k].im) * std::polar(1.0, ang);
      worst = std::max(worst, std::abs(std::complex<double>(Xs.data()[k].re, Xs.data()[k].im) - want));
    }
    CHECK(worst < tol<T>() * static_cast<double>(n));
  }
}

TEST_CASE("fft: n pads with zeros or truncates") {
  const auto x = random<ct<double>, 1>({10}, 9);
  tl::tensor<ct<double>, 1> padded(tl::shape_t<1>{16});
  for (index_t i = 0; i < 16; ++i) padded.data()[i] = i < 10 ? x.data()[i] : ct<double>(0, 0);
  CHECK(max_diff(tl::fft::fft(x, 16), tl::fft::fft(padded)) < 1e-12);
  tl::tensor<ct<double>, 1> cut = x.slice(0, 0, 6).clone();
  CHECK(max_diff(tl::fft::fft(x, 6), tl::fft::fft(cut)) < 1e-12);
  CHECK(tl::fft::rfft(random<double, 1>({10}, 1), 7).shape()[0] == 4);
  CHECK(tl::fft::irfft(random<ct<double>, 1>({6}, 1), 11).shape()[0] == 11);
  CHECK(tl::fft::irfft(random<ct<double>, 1>({6}, 1)).shape()[0] == 10);
  CHECK(tl::fft::hfft(random<ct<double>, 1>({5}, 1)).shape()[0] == 8);
  CHECK(tl::fft::ihfft(random<double, 1>({9}, 1)).shape()[0] == 5);
  // a transformed dim of extent 0 is fine when n is given
  tl::tensor<ct<double>, 1> empty(tl::shape_t<1>{0});
  const auto z = tl::fft::fft(empty, 4);
  REQUIRE(z.shape()[0] == 4);
  for (index_t i = 0; i < 4; ++i) CHECK(z.data()[i] == ct<double>(0, 0));
}

TEST_CASE("fft: fftn equals 1-D transforms along each dim, in any order; dims batch") {
  const auto x = random<ct<double>, 3>({4, 6, 5}, 3);
  const auto seq = tl::fft::fft(tl::fft::fft(x, {}, 0), {}, 2);
  CHECK(max_diff(tl::fft::fftn(x, {}, {2, 0}), seq) < 1e-12);
  CHECK(max_diff(tl::fft::fftn(x, {}, {0, -1}), seq) < 1e-12);
  CHECK(max_diff(tl::fft::fft2(x, {}, {0, 2}), seq) < 1e-12);
  const auto all = tl::fft::fft(tl::fft::fft(tl::fft::fft(x, {}, 0), {}, 1), {}, 2);
  CHECK(max_diff(tl::fft::fftn(x), all) < 1e-12);
  CHECK(max_diff(tl::fft::ifftn(tl::fft::fftn(x)), x) < 1e-12);
  // batching: every line along dim 1 is transformed independently
  const auto f1 = tl::fft::fft(x, {}, 1);
  for (index_t a = 0; a < 4; ++a)
    for (index_t c = 0; c < 5; ++c) {
      tl::tensor<ct<double>, 1> line = x(a, tl::all, c).clone();
      const tl::tensor<ct<double>, 1> want = tl::fft::fft(line);
      const tl::tensor<ct<double>, 1> got = f1(a, tl::all, c).clone();
      CHECK(max_diff(got, want) < 1e-12);
    }
  // rfftn: real transform over the last listed dim
  const auto xr = random<double, 3>({4, 6, 5}, 4);
  const auto r = tl::fft::rfftn(xr, {}, {2, 0});
  CHECK(r.shape() == tl::shape_t<3>{3, 6, 5});
  const auto full = tl::fft::fftn(xr, {}, {2, 0});
  CHECK(max_diff(r, full.slice(0, 0, 3)) < 1e-12);
  CHECK(max_diff(tl::fft::irfftn(r, {5, 4}, {2, 0}), xr) < 1e-12);
  CHECK(max_diff(tl::fft::irfft2(tl::fft::rfft2(xr), {6, 5}), xr) < 1e-12);
  CHECK(tl::fft::irfft2(tl::fft::rfft2(xr)).shape() == tl::shape_t<3>{4, 6, 4});  // default 2 * (m - 1)
  CHECK(max_diff(tl::fft::hfft2(tl::fft::ihfft2(xr), {6, 5}), xr) < 1e-12);
  CHECK(max_diff(tl::fft::hfftn(tl::fft::ihfftn(xr), {4, 6, 5}), xr) < 1e-12);
}

TEST_CASE("fft: strided views, lazy conjugates and expressions are read correctly") {
  const auto x = random<ct<double>, 2>({6, 8}, 7);
  const auto xt = x.t();  // non-contiguous
  const tl::tensor<ct<double>, 2> xtc = xt.clone();
  CHECK(max_diff(tl::fft::fft(xt), tl::fft::fft(xtc)) < 1e-12);
  CHECK(max_diff(tl::fft::fft(xt, {}, 0), tl::fft::fft(xtc, {}, 0)) < 1e-12);
  const tl::tensor<ct<double>, 2> xc = tl::conj(x);
  CHECK(max_diff(tl::fft::fft2(x.conj()), tl::fft::fft2(xc)) < 1e-12);
  const auto y = random<double, 2>({6, 8}, 8);
  const tl::tensor<double, 2> e = tl::sin(y) * 2.0 + 1.0;
  CHECK(max_diff(tl::fft::rfft(tl::sin(y) * 2.0 + 1.0), tl::fft::rfft(e)) < 1e-12);
  // the input is not modified
  const tl::tensor<ct<double>, 2> before = x.clone();
  (void)tl::fft::fftn(x);
  CHECK(max_diff(x, before) == 0);
}

TEST_CASE_TEMPLATE("fft: one dim of a contiguous tensor (the direct path) equals the general path", T, float, double) {
  // fft / ifft of one dim of a contiguous host tensor skip the argument lists; a non-contiguous
  // view of the same values takes the general path.
  const auto x = random<ct<T>, 3>({3, 4, 16}, 11);
  const tl::tensor<ct<T>, 3> xnc = x.permute({2, 1, 0}).clone().permute({2, 1, 0});
  REQUIRE_FALSE(xnc.is_contiguous());
  for (index_t d : {-3, -2, -1, 0, 1, 2})
    for (index_t n : {-1, 1, 3, 16, 21})
      for (const char* norm : {"backward", "ortho", "forward"}) {
        const std::optional<index_t> len = n == -1 ? std::nullopt : std::optional<index_t>(n);
        INFO("dim " << d << " n " << n << " norm " << norm);
        const auto a = tl::fft::fft(x, len, d, norm);
        const auto b = tl::fft::fft(xnc, len, d, norm);
        CHECK(max_diff(a, b) <= 10 * tol<T>());
        CHECK(max_diff(tl::fft::ifft(x, len, d, norm), tl::fft::ifft(xnc, len, d, norm)) <= 10 * tol<T>());
        if (n == -1) CHECK(max_diff(tl::fft::ifft(a, len, d, norm), x) <= 10 * tol<T>());
      }
  // empty batches, out-of-range dims and bad lengths behave as on the general path
  const tl::tensor<ct<T>, 2> e(tl::shape_t<2>{0, 5});
  CHECK(tl::fft::fft(e).shape() == tl::shape_t<2>{0, 5});
  CHECK(tl::fft::fft(e, 8).shape() == tl::shape_t<2>{0, 8});
  expect_error([&] { (void)tl::fft::fft(e, {}, 0); }, {"tl::fft::fft", "invalid number of data points (0)"});
  expect_error([&] { (void)tl::fft::fft(x, {}, 3); }, {"fft", "3"});
  expect_error([&] { (void)tl::fft::fft(x, 0); }, {"tl::fft::fft", "(0)"});
}

TEST_CASE("fft: dtypes follow torch") {
  tl::tensor<std::int32_t, 1> i(tl::shape_t<1>{4});
  for (index_t k = 0; k < 4; ++k) i.data()[k] = static_cast<std::int32_t>(k);
  const auto fi = tl::fft::fft(i);
  static_assert(std::is_same_v<decltype(fi), const tl::tensor<ct<float>, 1>>);
  CHECK(fi.data()[0] == ct<float>(6, 0));
  tl::tensor<bool, 1> b(tl::shape_t<1>{3});
  b.data()[0] = true;
  b.data()[1] = b.data()[2] = false;
  const auto rb = tl::fft::rfft(b);
  static_assert(std::is_same_v<decltype(rb), const tl::tensor<ct<float>, 1>>);
  CHECK(rb.data()[1] == ct<float>(1, 0));
  static_assert(std::is_same_v<decltype(tl::fft::fft(random<double, 1>({2}, 1))), tl::tensor<ct<double>, 1>>);
  static_assert(std::is_same_v<decltype(tl::fft::irfft(random<ct<float>, 1>({2}, 1))), tl::tensor<float, 1>>);
  static_assert(std::is_same_v<decltype(tl::fft::irfft(random<double, 1>({2}, 1))), tl::tensor<double, 1>>);
  static_assert(std::is_same_v<decltype(tl::fft::hfft(random<ct<double>, 1>({2}, 1))), tl::tensor<double, 1>>);
  static_assert(std::is_same_v<decltype(tl::fft::fftshift(i)), tl::tensor<std::int32_t, 1>>);
  static_assert(std::is_same_v<decltype(tl::fft::fftfreq(4)), tl::tensor<float, 1>>);
}

TEST_CASE("fft: NaN and infinity propagate; size-1 dims; empty batches") {
  auto x = random<ct<double>, 1>({8}, 1);
  x.data()[3] = ct<double>(std::numeric_limits<double>::quiet_NaN(), 0);
  const auto X = tl::fft::fft(x);
  for (index_t k = 0; k < 8; ++k) CHECK((std::isnan(X.data()[k].re) || std::isnan(X.data()[k].im)));
  auto y = random<double, 1>({16}, 1);
  y.data()[0] = std::numeric_limits<double>::infinity();
  const auto Y = tl::fft::rfft(y);
  for (index_t k = 0; k < 9; ++k) CHECK(!std::isfinite(Y.data()[k].re));
  // size-1 transforms are the identity (times the norm factor)
  const auto one = random<ct<double>, 2>({3, 1}, 2);
  CHECK(max_diff(tl::fft::fft(one), one) == 0);
  CHECK(max_diff(tl::fft::fft(one, {}, -1, "forward"), one) == 0);
  // empty batch dims give empty results of the right shape
  tl::tensor<ct<float>, 2> eb(tl::shape_t<2>{0, 8});
  CHECK(tl::fft::fft(eb).shape() == tl::shape_t<2>{0, 8});
  CHECK(tl::fft::ifft(eb, 5).shape() == tl::shape_t<2>{0, 5});
  tl::tensor<float, 3> er(tl::shape_t<3>{2, 0, 6});
  CHECK(tl::fft::rfft(er).shape() == tl::shape_t<3>{2, 0, 4});
  CHECK(tl::fft::irfft(tl::fft::rfft(er)).shape() == tl::shape_t<3>{2, 0, 6});
  CHECK(tl::fft::rfftn(er, {}, {0, 2}).shape() == tl::shape_t<3>{2, 0, 4});
}

TEST_CASE("fft: large batches on the thread pool equal one-line transforms") {
  const auto x = random<ct<float>, 2>({37, 100}, 1);
  const auto all = tl::fft::fft(x, {}, 0);
  const auto rows = tl::fft::fft(x.t().clone());
  CHECK(max_diff(all.t().clone(), rows) < 1e-5);
  const auto xr = random<double, 2>({300, 64}, 2);
  const auto r = tl::fft::rfft(xr);
  for (index_t i : {0, 150, 299}) {
    const tl::tensor<double, 1> line = xr.select(0, i).clone();
    const tl::tensor<ct<double>, 1> got = r.select(0, i).clone();
    CHECK(max_diff(got, tl::fft::rfft(line)) < 1e-12);
  }
}

TEST_CASE("fft: fftfreq, rfftfreq, fftshift, ifftshift") {
  const auto f = tl::fft::fftfreq<double>(5, 0.1);
  const double want[] = {0, 2, 4, -4, -2};
  for (index_t k = 0; k < 5; ++k) CHECK(f.data()[k] == doctest::Approx(want[k]));
  const auto rf = tl::fft::rfftfreq(6);
  REQUIRE(rf.shape()[0] == 4);
  CHECK(rf.data()[3] == doctest::Approx(0.5));
  CHECK(tl::fft::fftfreq(0).shape()[0] == 0);
  tl::tensor<std::int64_t, 2> t(tl::shape_t<2>{3, 4});
  for (index_t k = 0; k < 12; ++k) t.data()[k] = k;
  const auto s = tl::fft::fftshift(t);
  CHECK(s(0, 0) == 10);  // numpy.fft.fftshift(arange(12).reshape(3, 4))[0, 0]
  CHECK(s(1, 2) == 0);
  CHECK(max_diff(tl::fft::ifftshift(s), t) == 0);
  const auto s1 = tl::fft::fftshift(t, {-1});
  CHECK(s1(0, 0) == 2);
  CHECK(max_diff(tl::fft::ifftshift(tl::fft::fftshift(t.t())), t.t()) == 0);
}

TEST_CASE("fft: invalid arguments throw tl errors naming the op and the value") {
  const auto x = random<ct<double>, 2>({4, 5}, 1);
  const auto xr = random<double, 2>({4, 5}, 1);
  expect_error([&] { (void)tl::fft::fft(x, 0); }, {"tl::fft::fft", "(0)"});
  expect_error([&] { (void)tl::fft::ifft(x, -3); }, {"tl::fft::ifft", "-3"});
  expect_error([&] { (void)tl::fft::rfft(xr, -1); }, {"tl::fft::rfft", "(-1)"});  // -1 is only "keep" inside an s list
  CHECK(tl::fft::fftn(x, {-1, 3}).shape() == tl::shape_t<2>{4, 3});
  expect_error([&] { (void)tl::fft::fft(x, {}, 2); }, {"tl::fft::fft", "dimension 2"});
  CHECK_THROWS_AS((void)tl::fft::fft(x, {}, -3), tl::index_error);
  expect_error([&] { (void)tl::fft::fftn(x, {}, {1, -1}); }, {"tl::fft::fftn", "repeated"});
  CHECK_THROWS_AS((void)tl::fft::fftn(x, {}, {1, -1}), tl::value_error);
  expect_error([&] { (void)tl::fft::rfft(xr, {}, -1, "orthogonal"); }, {"tl::fft::rfft", "\"orthogonal\""});
  CHECK_THROWS_AS((void)tl::fft::fft(x, {}, -1, ""), tl::value_error);
  tl::tensor<ct<double>, 1> one(tl::shape_t<1>{1});
  expect_error([&] { (void)tl::fft::irfft(one); }, {"tl::fft::irfft", "(0)"});
  expect_error([&] { (void)tl::fft::hfft(one); }, {"tl::fft::hfft"});
  CHECK(tl::fft::irfft(one, 1).shape()[0] == 1);  // an explicit n is fine
  tl::tensor<ct<double>, 2> e(tl::shape_t<2>{3, 0});
  expect_error([&] { (void)tl::fft::fft(e); }, {"tl::fft::fft", "(0)"});
  expect_error([&] { (void)tl::fft::fftn(x, {4, 4, 4}); }, {"tl::fft::fftn"});
  expect_error([&] { (void)tl::fft::fftn(x, {4, 4}, {0}); }, {"tl::fft::fftn"});
  expect_error([&] { (void)tl::fft::fftshift(x, {2}); }, {"tl::fft::fftshift", "2"});  // a repeated dim rolls twice, as torch
  CHECK_THROWS_AS((void)tl::fft::fftfreq(-1), tl::value_error);
}

TEST_CASE("fft: the plan cache is bounded, clearable and shared between directions") {
  tl::fft::clear_plan_cache();
  CHECK(tl::fft::plan_cache_size() == 0);
  const auto x = random<ct<double>, 1>({24}, 1);
  (void)tl::fft::fft(x);
  CHECK(tl::fft::plan_cache_size() == 1);
  (void)tl::fft::ifft(x);  // same length, precision and kind: no new plan
  CHECK(tl::fft::plan_cache_size() == 1);
  (void)tl::fft::fft(random<ct<float>, 1>({24}, 1));
  CHECK(tl::fft::plan_cache_size() == 2);
  (void)tl::fft::fft(random<ct<double>, 1>({1031}, 1));  // Bluestein: its own and its inner plan
  CHECK(tl::fft::plan_cache_size() == 3);
  const std::size_t old = tl::fft::plan_cache_max_size();
  tl::fft::set_plan_cache_max_size(2);
  CHECK(tl::fft::plan_cache_size() == 2);
  for (index_t n = 2; n < 10; ++n) (void)tl::fft::fft(x, n);
  CHECK(tl::fft::plan_cache_size() == 2);
  tl::fft::set_plan_cache_max_size(0);
  CHECK(max_diff(tl::fft::ifft(tl::fft::fft(x)), x) < 1e-12);  // still works uncached
  CHECK(tl::fft::plan_cache_size() == 0);
  tl::fft::set_plan_cache_max_size(old);
  tl::fft::clear_plan_cache();
  CHECK(tl::fft::plan_cache_size() == 0);
}
