// tl::linalg::vector_norm, matrix_norm and norm: torch.linalg reference values
// (tests/data/linalg/gen_linalg_norms.py), overflow / underflow safety of the 2-norm, NaN and inf,
// empty inputs, dims and keepdim, torch's dispatch in norm and its errors.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "norms_ref.hpp"

namespace {
using namespace tl_linalg_test;
namespace la = tl::linalg;
constexpr double inf = std::numeric_limits<double>::infinity();

template <class T>
ld norm_tol() {
  return std::is_same_v<tl::real_t<T>, float> ? 2e-5L : 1e-13L;
}

template <class T, class Ext>
void check_all(const tl::basic_tensor<tl::real_t<T>, Ext>& r, const std::vector<cld>& want, const std::string& what) {
  CAPTURE(what);
  REQUIRE(r.numel() == static_cast<index_t>(want.size()));
  for (index_t i = 0; i < r.numel(); ++i) {
    const ld got = r.data()[i], w = want[static_cast<std::size_t>(i)].real();
    CHECK(std::abs(got - w) <= norm_tol<T>() * std::max<ld>(std::abs(w), 1e-30L));
  }
}

TEST_CASE_TEMPLATE("vector_norm and matrix_norm match torch.linalg for every order and dtype", T, float, double,
                   tl::complex<float>, tl::complex<double>) {
  const auto cases = load_ref_cases("linalg_norms_reference.txt");
  int n = 0;
  for (const auto& c : cases) {
    if (c.cplx != tl::is_complex_v<T>) continue;
    const std::string what = c.op + " " + c.param + " rank " + std::to_string(c.shape.size());
    const auto x = ref_input<T, 3>(c);
    if (c.op == "vec_all") {
      check_all<T>(la::vector_norm(x, ref_param(c.param)), c.out, what);
    } else if (c.op == "vec_last") {
      check_all<T>(la::vector_norm(x, ref_param(c.param), -1), c.out, what);
    } else if (c.param == "fro") {
      check_all<T>(la::matrix_norm(x), c.out, what);
      check_all<T>(la::matrix_norm(x, "fro"), c.out, what);
    } else if (c.param == "nuc") {
      check_all<T>(la::matrix_norm(x, "nuc"), c.out, what);
    } else {
      check_all<T>(la::matrix_norm(x, ref_param(c.param)), c.out, what);
    }
    ++n;
  }
  CHECK(n > 100);
}

TEST_CASE_TEMPLATE("the 2-norm neither overflows nor underflows", T, float, double, tl::complex<float>,
                   tl::complex<double>) {
  using R = tl::real_t<T>;
  const bool dbl = std::is_same_v<R, double>;
  const R big = dbl ? R(1e300) : R(1e30), small = dbl ? R(1e-300) : R(1e-30);
  const R sub = std::numeric_limits<R>::denorm_min() * R(8);
  for (index_t n : {1, 3, 17, 100, 70000}) {
    CAPTURE(n);
    const ld sq = std::sqrt(static_cast<ld>(n) * (tl::is_complex_v<T> ? 2 : 1));
    for (R v : {big, small, sub, static_cast<R>(std::numeric_limits<R>::max() / (4 * sq))}) {
      CAPTURE(static_cast<double>(v));
      tl::tensor<T, 1> x(tl::shape_t<1>{n});
      for (index_t i = 0; i < n; ++i) x(i) = tl::is_complex_v<T> ? from_cld<T>(cld(v, -v)) : T(v);
      const ld want = static_cast<ld>(v) * sq;
      const ld got = la::vector_norm(x).item();
      // a subnormal result is exact to its last place
      const ld dmin = std::numeric_limits<R>::denorm_min();
      const ld tol = (n > 1000 ? 64 : 4) * eps_of<T>();  // summation error of many equal squares
      CHECK(std::abs(got - want) <= tol * want + dmin);
      // 1-norm and p-norms are scaled too
      const ld got3 = la::vector_norm(x, 3).item();
      CHECK(std::abs(got3 - static_cast<ld>(v) * std::cbrt(static_cast<ld>(n) * (tl::is_complex_v<T> ? 2 * std::sqrt(2.0L) : 1))) <=
            tol * 2 * got3 + 16 * dmin);
    }
  }
  // a mixture: one huge value dominates; tiny values do not disturb
  tl::tensor<T, 1> x(tl::shape_t<1>{5});
  for (index_t i = 0; i < 5; ++i) x(i) = T(small);
  x(2) = T(big);
  CHECK(static_cast<ld>(la::vector_norm(x).item()) == doctest::Approx(static_cast<double>(big)).epsilon(1e-6));
}

TEST_CASE_TEMPLATE("long runs: the SIMD 2-norm and the other orders against long-double sums", T, float, double,
                   tl::complex<double>) {
  const index_t n = 300007;  // several chunks and a ragged tail
  const auto x = random_tensor<T, 1>({n}, 77);
  ld s2 = 0, s1 = 0, mx = 0, mn = 1e300, s3 = 0;
  for (index_t i = 0; i < n; ++i) {
    const ld a = std::abs(to_cld(x(i)));
    s2 += a * a;
    s1 += a;
    s3 += a * a * a;
    mx = std::max(mx, a);
    mn = std::min(mn, a);
  }
  const ld tol = std::is_same_v<tl::real_t<T>, float> ? 1e-5L : 1e-12L;
  CHECK(std::abs(la::vector_norm(x).item() - std::sqrt(s2)) <= tol * std::sqrt(s2));
  CHECK(std::abs(la::vector_norm(x, 1).item() - s1) <= tol * s1);
  CHECK(std::abs(la::vector_norm(x, 3).item() - std::cbrt(s3)) <= tol * std::cbrt(s3));
  CHECK(static_cast<ld>(la::vector_norm(x, inf).item()) == doctest::Approx(static_cast<double>(mx)).epsilon(1e-6));
  CHECK(static_cast<ld>(la::vector_norm(x, -inf).item()) == doctest::Approx(static_cast<double>(mn)).epsilon(1e-6));
  CHECK(la::vector_norm(x, 0).item() == static_cast<tl::real_t<T>>(n));
}

TEST_CASE("NaN and inf entries") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto x = tl::from<double>({1.0, inf, -2.0});
  CHECK(la::vector_norm(x).item() == inf);
  CHECK(la::vector_norm(x, 1).item() == inf);
  CHECK(la::vector_norm(x, inf).item() == inf);
  CHECK(la::vector_norm(x, -inf).item() == 1.0);
  CHECK(la::vector_norm(x, -1).item() == doctest::Approx(1.0 / 1.5));
  const auto y = tl::from<double>({1.0, inf, nan, 0.0});
  for (double o : {2.0, 1.0, 3.0, inf, -inf, -1.0}) {
    CAPTURE(o);
    CHECK(std::isnan(la::vector_norm(y, o).item()));
  }
  CHECK(la::vector_norm(y, 0).item() == 3.0);  // NaN counts as nonzero
  CHECK(std::isnan(la::vector_norm(tl::from<double>({1.0, 2.0}), nan).item()));
  // a NaN in a long run is found by the SIMD max and by the sum of squares
  tl::tensor<float, 1> z = random_tensor<float, 1>({1000}, 3);
  z(517) = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(la::vector_norm(z).item()));
  CHECK(std::isnan(la::vector_norm(z, inf).item()));
  const auto c = tl::from<tl::complex<double>>({tl::complex<double>(3, 4), tl::complex<double>(0, nan)});
  CHECK(std::isnan(la::vector_norm(c, inf).item()));
  const auto m = tl::from<double>({{1.0, nan}, {3.0, 4.0}});
  CHECK(std::isnan(la::matrix_norm(m, 1).item()));
  CHECK(std::isnan(la::matrix_norm(m, -inf).item()));
  CHECK(std::isnan(la::matrix_norm(m).item()));
}

TEST_CASE("empty inputs: 0 where the order has an identity, torch's error where it has none") {
  const tl::tensor<double, 1> e(tl::shape_t<1>{0});
  for (double o : {2.0, 1.0, 0.0, 3.0, 0.5}) CHECK(la::vector_norm(e, o).item() == 0.0);
  for (double o : {-1.0, inf, -inf})
    expect_error_with<tl::value_error>([&] { (void)la::vector_norm(e, o); },
                                  {"tl::linalg::vector_norm", "empty tensor", "[0]", "identity"});
  const tl::tensor<float, 2> e30(tl::shape_t<2>{3, 0});
  CHECK(la::vector_norm(e30, inf, 0).numel() == 0);  // the reduced dim is not empty
  expect_error_with<tl::value_error>([&] { (void)la::vector_norm(e30, inf, 1); }, {"inf norm", "empty dimension 1", "[3, 0]"});
  const auto z = la::vector_norm(e30, 2, 1);
  REQUIRE(z.numel() == 3);
  CHECK(z(0) == 0.0f);
  // matrix norms: 'fro' and sums over an empty dim are 0; extremes over an empty dim throw
  const tl::tensor<double, 2> e03(tl::shape_t<2>{0, 3});
  CHECK(la::matrix_norm(e03).item() == 0.0);
  CHECK(la::matrix_norm(e03, 1).item() == 0.0);
  CHECK(la::matrix_norm(e03, -1).item() == 0.0);
  expect_error_with<tl::index_error>([&] { (void)la::matrix_norm(e03, inf); }, {"tl::linalg::matrix_norm", "inf", "[0, 3]"});
  expect_error_with<tl::index_error>([&] { (void)la::matrix_norm(e03.t(), 1); }, {"tl::linalg::matrix_norm", "1", "[3, 0]"});
  CHECK(la::matrix_norm(e03, "nuc").item() == 0.0);
  CHECK(la::matrix_norm(e03, 2).item() == 0.0);
  expect_error_with<tl::index_error>([&] { (void)la::matrix_norm(e03, -2); }, {"tl::linalg::matrix_norm", "-2", "[0, 3]"});
  const tl::tensor<double, 3> eb(tl::shape_t<3>{0, 2, 2});
  CHECK(la::matrix_norm(eb, inf).numel() == 0);
  CHECK(la::norm(tl::zeros<double>(tl::shape_t<0>{})).item() == 0.0);  // a rank-0 zero
}

TEST_CASE("dims, keepdim, views, expressions and the dtype argument") {
  const auto x = random_tensor<double, 3>({3, 4, 5}, 11);
  const auto r = la::vector_norm(x, 2, tl::dims{0, 2}, tl::keepdim);
  static_assert(decltype(r)::rank == 3);
  REQUIRE(r.shape() == tl::shape_t<3>{1, 4, 1});
  for (index_t j = 0; j < 4; ++j) {
    ld s = 0;
    for (index_t i = 0; i < 3; ++i)
      for (index_t k = 0; k < 5; ++k) s += static_cast<ld>(x(i, j, k)) * x(i, j, k);
    CHECK(r(0, j, 0) == doctest::Approx(static_cast<double>(std::sqrt(s))).epsilon(1e-14));
  }
  const auto r1 = la::vector_norm(x, 1, 1);
  REQUIRE(r1.shape() == tl::shape_t<2>{3, 5});
  for (index_t i = 0; i < 3; ++i)
    for (index_t k = 0; k < 5; ++k) {
      double s = 0;
      for (index_t j = 0; j < 4; ++j) s += std::abs(x(i, j, k));
      CHECK(r1(i, k) == doctest::Approx(s).epsilon(1e-14));
    }
  // a transposed view and an expression give the same as a contiguous copy
  CHECK(la::vector_norm(x.transpose(0, 2), 3, 0).shape() == tl::shape_t<2>{4, 3});
  CHECK(la::vector_norm(x * 2.0).item() == doctest::Approx(2 * la::vector_norm(x).item()).epsilon(1e-15));
  // dtype: a float input computed in double
  const auto f = tl::from<float>({3e20f, 4e20f});
  const auto nd = la::vector_norm<double>(f);
  static_assert(std::is_same_v<decltype(nd), const tl::tensor<double, 0>>);
  CHECK(nd.item() == doctest::Approx(5e20).epsilon(1e-7));
  // complex input gives a real result of its precision
  static_assert(std::is_same_v<decltype(la::vector_norm(tl::tensor<tl::complex<float>, 1>(tl::shape_t<1>{1}))),
                               tl::tensor<float, 0>>);
  // a conjugated view
  const auto c = random_tensor<tl::complex<double>, 2>({3, 3}, 5);
  CHECK(la::matrix_norm(c.mH(), 1).item() == doctest::Approx(la::matrix_norm(c, inf).item()).epsilon(1e-15));
  // matrix norms over other dims, keepdim, swapped dims
  const auto m = la::matrix_norm(x, 1, tl::dims{0, 2}, tl::keepdim);
  REQUIRE(m.shape() == tl::shape_t<3>{1, 4, 1});
  const auto ms = la::matrix_norm(x, inf, tl::dims{2, 0});
  for (index_t j = 0; j < 4; ++j) {
    double best = 0;
    for (index_t k = 0; k < 5; ++k) {
      double s = 0;
      for (index_t i = 0; i < 3; ++i) s += std::abs(x(i, j, k));
      best = std::max(best, s);
    }
    CHECK(m(0, j, 0) == doctest::Approx(best).epsilon(1e-14));
    CHECK(ms(j) == doctest::Approx(best).epsilon(1e-14));
  }
  CHECK(la::matrix_norm<double>(tl::astype<float>(x)).shape() == tl::shape_t<1>{3});
}

TEST_CASE("matrix_norm and vector_norm errors") {
  const auto a = random_tensor<double, 2>({3, 3}, 1);
  expect_error_with<tl::value_error>([&] { (void)la::matrix_norm(a, "abc"); }, {"tl::linalg::matrix_norm", "'abc'"});
  expect_error_with<tl::value_error>([&] { (void)la::norm(a, "nucc"); }, {"tl::linalg::matrix_norm", "'nucc'"});
  expect_error_with<tl::value_error>([&] { (void)la::matrix_norm(a, 3); }, {"tl::linalg::matrix_norm", "order 3"});
  expect_error_with<tl::value_error>([&] { (void)la::matrix_norm(a, 0.5); }, {"tl::linalg::matrix_norm", "0.5"});
  expect_error_with<tl::value_error>([&] { (void)la::matrix_norm(a, "fro", tl::dims{0, 0}); }, {"dims must be different"});
  expect_error_with<tl::value_error>([&] { (void)la::matrix_norm(a, 1, tl::dims{-1, 1}); }, {"dims must be different"});
  expect_error_with<tl::index_error>([&] { (void)la::matrix_norm(a, 1, tl::dims{0, 2}); }, {"linalg::matrix_norm", "2"});
  expect_error_with<tl::index_error>([&] { (void)la::vector_norm(a, 2, 2); }, {"linalg::vector_norm"});
  expect_error_with<tl::index_error>([&] { (void)la::vector_norm(a, 2, tl::dims{0, -2}); },
                                {"linalg::vector_norm", "multiple times"});
  expect_error_with<tl::value_error>([&] { (void)la::norm(random_tensor<double, 3>({2, 2, 2}, 1), std::optional<double>(2)); },
                                {"tl::linalg::norm", "1-D or 2-D", "3-D"});
}

template <class X>
concept norm_fro_ok = requires(X x) { la::norm(x, "fro"); };
template <class X>
concept norm_fro_dim1_ok = requires(X x) { la::norm(x, "fro", tl::dims{0}); };
template <class X>
concept norm_three_dims_ok = requires(X x) { la::norm(x, 2.0, tl::dims{0, 1, 2}); };

// torch.linalg.norm's dispatch
TEST_CASE("norm chooses a vector or a matrix norm as torch does") {
  const auto x3 = random_tensor<double, 3>({2, 3, 4}, 21);
  const auto x2 = random_tensor<double, 2>({3, 4}, 22);
  const auto x1 = random_tensor<double, 1>({5}, 23);
  CHECK(la::norm(x3).item() == la::vector_norm(x3).item());  // flattened 2-norm, any rank
  CHECK(la::norm(x3, std::nullopt).item() == la::vector_norm(x3).item());
  CHECK(la::norm(x2, 1).item() == la::matrix_norm(x2, 1).item());  // 2-D + ord: matrix norm
  CHECK(la::norm(x2, inf).item() == la::matrix_norm(x2, inf).item());
  CHECK(la::norm(x2, "fro").item() == la::matrix_norm(x2).item());
  CHECK(la::norm(x2, "nuc").item() == la::matrix_norm(x2, "nuc").item());
  CHECK(la::norm(x2, 2).item() == la::matrix_norm(x2, 2).item());
  CHECK(la::norm(x2, -2).item() == la::matrix_norm(x2, -2).item());
  CHECK(la::norm(x2, std::optional<double>(1)).item() == la::matrix_norm(x2, 1).item());
  CHECK(la::norm(x2, std::optional<double>()).item() == la::vector_norm(x2).item());
  CHECK(la::norm(x1, 1).item() == la::vector_norm(x1, 1).item());  // 1-D + ord: vector norm
  CHECK(la::norm(x1, 3.5).item() == la::vector_norm(x1, 3.5).item());
  const auto a = la::norm(x3, 3, -1, tl::keepdim);  // one dim: vector norm
  CHECK(a.shape() == tl::shape_t<3>{2, 3, 1});
  CHECK(a(1, 2, 0) == la::vector_norm(x3, 3, -1)(1, 2));
  const auto b = la::norm(x3, -1, tl::dims{0, 2});  // two dims: matrix norm
  CHECK(b.shape() == tl::shape_t<1>{3});
  CHECK(b(1) == la::matrix_norm(x3, -1, tl::dims{0, 2})(1));
  CHECK(la::norm(x3, tl::dims{1, 2})(1) == la::matrix_norm(x3)(1));
  CHECK(la::norm(x3, std::nullopt, 1).shape() == tl::shape_t<2>{2, 4});
  CHECK(la::norm(x3, tl::dims{1})(1, 2) == la::vector_norm(x3, 2, 1)(1, 2));
  expect_error_with<tl::value_error>([&] { (void)la::norm(x2, 3); }, {"tl::linalg::matrix_norm", "order 3"});
  // ord without dim needs 1-D or 2-D input
  expect_error_with<tl::value_error>([&] { (void)la::norm(x3, 2.0); }, {"tl::linalg::norm", "1-D or 2-D", "3-D"});
  // The rank rules of string orders and dims that torch checks at run time are compile-time here:
  static_assert(!norm_fro_ok<decltype(x3)> && !norm_fro_ok<decltype(x1)> && norm_fro_ok<decltype(x2)>);
  static_assert(!norm_fro_dim1_ok<decltype(x3)>);
  static_assert(!norm_three_dims_ok<decltype(x3)>);
}

}  // namespace
