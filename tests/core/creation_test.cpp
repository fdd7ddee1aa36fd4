// Tests for the creation functions: zeros, ones, empty, full, *_like, arange, linspace, logspace, eye, from.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <tl/core/core.hpp>
#include <tl/eval/eval.hpp>
#include <tl/expr/expr.hpp>

namespace {
template <class T, class Ext>
bool all_equal(const tl::basic_tensor<T, Ext>& t, T v) {
  const T* p = t.data();
  for (tl::index_t i = 0; i < t.numel(); ++i)
    if (!(p[i] == v)) return false;
  return true;
}
template <class T, class Ext>
std::vector<T> values(const tl::basic_tensor<T, Ext>& t) {
  return std::vector<T>(t.data(), t.data() + t.numel());
}
}  // namespace

TEST_CASE_TEMPLATE("zeros, ones, full and empty", T, bool, std::int32_t, std::int64_t, float, double,
                   tl::complex<float>, tl::complex<double>) {
  auto z = tl::zeros<T>(2, 3);
  static_assert(std::is_same_v<decltype(z), tl::tensor<T, 2>>);
  CHECK(z.shape() == tl::shape_t<2>{2, 3});
  CHECK(z.is_contiguous());
  CHECK(all_equal(z, T(0)));
  auto o = tl::ones<T>(tl::shape_t<3>{2, 1, 4});
  CHECK(o.shape() == tl::shape_t<3>{2, 1, 4});
  CHECK(all_equal(o, T(1)));
  auto f = tl::full<T>(tl::shape_t<1>{5}, 1);
  CHECK(f.numel() == 5);
  CHECK(all_equal(f, T(1)));
  auto e = tl::empty<T>(4, 0);
  CHECK(e.shape() == tl::shape_t<2>{4, 0});
  auto s = tl::zeros<T>();
  static_assert(decltype(s)::rank == 0);
  CHECK(s.numel() == 1);
  CHECK(s.item() == T(0));
}

TEST_CASE("default dtypes follow torch") {
  static_assert(std::is_same_v<decltype(tl::zeros(3, 4)), tl::tensor<float, 2>>);
  static_assert(std::is_same_v<decltype(tl::ones(3)), tl::tensor<float, 1>>);
  static_assert(std::is_same_v<decltype(tl::empty(tl::shape_t<2>{1, 2})), tl::tensor<float, 2>>);
  auto a = tl::full({2, 3}, 1.5);
  static_assert(std::is_same_v<decltype(a), tl::tensor<float, 2>>);
  CHECK(all_equal(a, 1.5f));
  auto b = tl::full(tl::shape_t<2>{2, 2}, 7);
  static_assert(std::is_same_v<decltype(b), tl::tensor<std::int64_t, 2>>);
  CHECK(all_equal(b, std::int64_t{7}));
  auto c = tl::full(tl::shape_t<1>{2}, true);
  static_assert(std::is_same_v<decltype(c), tl::tensor<bool, 1>>);
  CHECK(all_equal(c, true));
  auto d = tl::full(tl::shape_t<1>{2}, std::complex<double>(1, -2));
  static_assert(std::is_same_v<decltype(d), tl::tensor<tl::complex<float>, 1>>);
  CHECK(all_equal(d, tl::complex<float>(1, -2)));
  auto e = tl::full<double>({3}, 0.1);
  CHECK(all_equal(e, 0.1));  // not rounded through float
  auto i = tl::arange(5);
  static_assert(std::is_same_v<decltype(i), tl::tensor<std::int64_t, 1>>);
  static_assert(std::is_same_v<decltype(tl::arange(0, 1.0)), tl::tensor<float, 1>>);
  static_assert(std::is_same_v<decltype(tl::linspace(0, 1, 3)), tl::tensor<float, 1>>);
  static_assert(std::is_same_v<decltype(tl::eye(2)), tl::tensor<float, 2>>);
}

TEST_CASE("*_like functions take the shape and dtype of a tensor or an expression") {
  auto t = tl::full<double>(tl::shape_t<2>{3, 2}, 4.0);
  auto v = t.t();  // a strided view: the result is still contiguous
  auto z = tl::zeros_like(v);
  static_assert(std::is_same_v<decltype(z), tl::tensor<double, 2>>);
  CHECK(z.shape() == tl::shape_t<2>{2, 3});
  CHECK(z.is_contiguous());
  CHECK(all_equal(z, 0.0));
  auto o = tl::ones_like<std::int32_t>(t);
  static_assert(std::is_same_v<decltype(o), tl::tensor<std::int32_t, 2>>);
  CHECK(all_equal(o, 1));
  auto f = tl::full_like(t * 2.0, -1.5);
  static_assert(std::is_same_v<decltype(f), tl::tensor<double, 2>>);
  CHECK(f.shape() == t.shape());
  CHECK(all_equal(f, -1.5));
  auto e = tl::empty_like<float>(t + 1);
  static_assert(std::is_same_v<decltype(e), tl::tensor<float, 2>>);
  CHECK(e.shape() == t.shape());
  // The source is untouched and shares nothing with the result.
  CHECK(all_equal(t, 4.0));
  CHECK(z.data() != t.data());
}

TEST_CASE("arange values and lengths") {
  CHECK(values(tl::arange(5)) == std::vector<std::int64_t>{0, 1, 2, 3, 4});
  CHECK(values(tl::arange(0, 10, 3)) == std::vector<std::int64_t>{0, 3, 6, 9});
  CHECK(values(tl::arange(10, 0, -4)) == std::vector<std::int64_t>{10, 6, 2});
  CHECK(values(tl::arange<double>(3, -3, -2)) == std::vector<double>{3, 1, -1});
  CHECK(values(tl::arange(1.0, 2.0, 0.25)) == std::vector<float>{1.0f, 1.25f, 1.5f, 1.75f});
  CHECK(values(tl::arange<std::int32_t>(-2, 2)) == std::vector<std::int32_t>{-2, -1, 0, 1});
  CHECK(tl::arange(2.5).numel() == 3);  // ceil(2.5)
  CHECK(tl::arange(1, 1).numel() == 0);
  CHECK(tl::arange(0.0, 1.0, 0.1).numel() == 10);
  auto a = tl::arange<double>(0.0, 1.0, 0.1);
  for (int i = 0; i < 10; ++i) CHECK(a(i) == 0.0 + i * 0.1);  // start + i * step in double
  // A big integer range stays exact (no detour through float).
  auto big = tl::arange(std::int64_t{1} << 53, (std::int64_t{1} << 53) + 3);
  CHECK(big(1) == (std::int64_t{1} << 53) + 1);
}

TEST_CASE("arange rejects invalid ranges") {
  CHECK_THROWS_WITH_AS(tl::arange(0, 5, 0), doctest::Contains("tl::arange: step must be nonzero, got 0"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::arange(0, 5, -1),
                       doctest::Contains("tl::arange: the sign of step -1 is inconsistent with the range 0 -> 5"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::arange(5.0, 0.0, 0.5), doctest::Contains("inconsistent with the range 5 -> 0"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::arange(0.0, std::numeric_limits<double>::infinity()),
                       doctest::Contains("tl::arange: unsupported range 0 -> inf"), tl::value_error);
  CHECK_THROWS_WITH_AS(tl::arange(std::nan(""), 1.0), doctest::Contains("tl::arange: unsupported range"),
                       tl::value_error);
}

TEST_CASE("linspace follows torch, including its symmetric evaluation") {
  CHECK(values(tl::linspace(0.0, 1.0, 5)) == std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f, 1.0f});
  CHECK(values(tl::linspace<double>(-1, 1, 1)) == std::vector<double>{-1});
  CHECK(tl::linspace(0, 1, 0).numel() == 0);
  CHECK(values(tl::linspace<std::int64_t>(0, 10, 4)) == std::vector<std::int64_t>{0, 3, 6, 10});
  CHECK(values(tl::linspace<double>(5, 5, 3)) == std::vector<double>{5, 5, 5});
  // Both ends exact; each value within an ulp of the exact (long double) value.
  const int n = 7;
  auto x = tl::linspace<double>(0.1, 0.7, n);
  CHECK(x(0) == 0.1);
  CHECK(x(n - 1) == 0.7);
  for (int i = 0; i < n; ++i) {
    const long double exact = 0.1L + (0.7L - 0.1L) * i / (n - 1);
    CHECK(std::fabs(static_cast<long double>(x(i)) - exact) <= 2 * std::numeric_limits<double>::epsilon() * 0.7L);
  }
  // The second half is computed from the end: end - step * (steps - 1 - i), in float for float.
  auto f = tl::linspace<float>(0.0f, 1.0f, 10);
  const float step = (1.0f - 0.0f) / 9.0f;
  // (within one float ulp: the compiler may contract the reference's multiply-add into an FMA)
  for (int i = 0; i < 10; ++i)
    CHECK(std::fabs(f(i) - (i < 5 ? 0.0f + step * i : 1.0f - step * (9 - i))) <= std::numeric_limits<float>::epsilon());
  CHECK(f(0) == 0.0f);
  CHECK(f(9) == 1.0f);
  using c64 = tl::complex<float>;
  auto c = tl::linspace<c64>(c64(0, 0), c64(2, -4), 3);
  CHECK(values(c) == std::vector<c64>{c64(0, 0), c64(1, -2), c64(2, -4)});
  CHECK_THROWS_WITH_AS(tl::linspace(0, 1, -1),
                       doctest::Contains("tl::linspace: number of steps must be non-negative, got -1"),
                       tl::value_error);
}

TEST_CASE("logspace") {
  CHECK(values(tl::logspace<double>(0, 3, 4)) == std::vector<double>{1, 10, 100, 1000});
  CHECK(values(tl::logspace<float>(0, 2, 3, 2.0)) == std::vector<float>{1, 2, 4});
  CHECK(values(tl::logspace<std::int64_t>(1, 2, 2)) == std::vector<std::int64_t>{10, 100});
  CHECK(values(tl::logspace<double>(-1, -1, 1)) == std::vector<double>{0.1});
  CHECK(tl::logspace(0, 1, 0).numel() == 0);
  CHECK_THROWS_WITH_AS(tl::logspace(0, 1, -3),
                       doctest::Contains("tl::logspace: number of steps must be non-negative, got -3"),
                       tl::value_error);
}

TEST_CASE("eye") {
  auto i3 = tl::eye(3);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) CHECK(i3(r, c) == (r == c ? 1.0f : 0.0f));
  auto r = tl::eye<std::int32_t>(2, 3);
  CHECK(values(r) == std::vector<std::int32_t>{1, 0, 0, 0, 1, 0});
  CHECK(values(tl::eye<bool>(3, 2)) == std::vector<bool>{true, false, false, true, false, false});
  CHECK(tl::eye(0).shape() == tl::shape_t<2>{0, 0});
  CHECK(tl::eye(2, 0).shape() == tl::shape_t<2>{2, 0});
  CHECK_THROWS_WITH_AS(tl::eye(-1), doctest::Contains("tl::eye: n must be greater or equal to 0, got -1"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::eye(2, -4), doctest::Contains("tl::eye: m must be greater or equal to 0, got -4"),
                       tl::value_error);
}

TEST_CASE("from nested initializer lists") {
  auto v = tl::from<float>({1.5, 2, -3});
  static_assert(std::is_same_v<decltype(v), tl::tensor<float, 1>>);
  CHECK(values(v) == std::vector<float>{1.5f, 2.0f, -3.0f});
  auto m = tl::from<float>({{1, 2}, {3, 4}, {5, 6}});
  static_assert(std::is_same_v<decltype(m), tl::tensor<float, 2>>);
  CHECK(m.shape() == tl::shape_t<2>{3, 2});
  CHECK(m(2, 1) == 6.0f);
  CHECK(m(1, 0) == 3.0f);
  auto c = tl::from<int>({{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}});
  static_assert(std::is_same_v<decltype(c), tl::tensor<int, 3>>);
  CHECK(c.shape() == tl::shape_t<3>{2, 2, 3});
  CHECK(c(1, 0, 2) == 9);
  CHECK(c(1, 1, 0) == 10);
  auto col = tl::from<double>({{1}, {2}});
  CHECK(col.shape() == tl::shape_t<2>{2, 1});

  auto ti = tl::tensor_from({{1, 2}, {3, 4}});
  static_assert(std::is_same_v<decltype(ti), tl::tensor<std::int64_t, 2>>);
  CHECK(ti(1, 1) == 4);
  auto tf = tl::tensor_from({0.5, 0.25});
  static_assert(std::is_same_v<decltype(tf), tl::tensor<float, 1>>);
  CHECK(tf(1) == 0.25f);
  auto tb = tl::tensor_from({true, false});
  static_assert(std::is_same_v<decltype(tb), tl::tensor<bool, 1>>);
  CHECK(tb(0));
}

TEST_CASE("from rejects ragged lists") {
  CHECK_THROWS_WITH_AS(tl::from<float>({{1, 2}, {3}}),
                       doctest::Contains("tl::from: ragged nested list: element 1 along dim 1 has length 1 but element 0 has length 2"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::from<float>({{1, 2}, {3, 4}, {5, 6, 7}}), doctest::Contains("element 2 along dim 1 has length 3"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::from<int>({{{1, 2}}, {{3, 4}, {5, 6}}}),
                       doctest::Contains("tl::from: ragged nested list: element 1 along dim 1 has length 2 but element 0 has length 1"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::from<int>({{{1, 2}}, {{3}}}),
                       doctest::Contains("element 1 along dim 2 has length 1 but element 0 has length 2"), tl::value_error);
}

TEST_CASE("from buffers copies the data") {
  std::vector<double> buf{1, 2, 3, 4, 5, 6};
  auto t = tl::from<float>(buf.data(), tl::shape_t<2>{2, 3});
  static_assert(std::is_same_v<decltype(t), tl::tensor<float, 2>>);
  CHECK(t(1, 2) == 6.0f);
  buf[5] = 60;
  CHECK(t(1, 2) == 6.0f);  // a copy, not a view
  auto u = tl::tensor_from(buf, tl::shape_t<3>{3, 1, 2});
  static_assert(std::is_same_v<decltype(u), tl::tensor<double, 3>>);
  CHECK(u(2, 0, 1) == 60.0);
  auto w = tl::from<std::int64_t>(std::vector<int>{4, 5});
  CHECK(values(w) == std::vector<std::int64_t>{4, 5});
  auto z = tl::from<float>(static_cast<const double*>(nullptr), tl::shape_t<2>{0, 4});
  CHECK(z.numel() == 0);
  CHECK_THROWS_WITH_AS(tl::from<float>(buf, tl::shape_t<2>{2, 2}),
                       doctest::Contains("tl::from: a vector of 6 elements does not fit shape [2, 2] (4 elements)"),
                       tl::shape_error);
  CHECK_THROWS_WITH_AS(tl::from<float>(static_cast<const double*>(nullptr), tl::shape_t<1>{3}),
                       doctest::Contains("tl::from: null data pointer for shape [3]"), tl::value_error);
  CHECK_THROWS_WITH_AS(tl::from<float>(buf, tl::shape_t<2>{-2, 3}),
                       doctest::Contains("tl::from: negative extent in shape [-2, 3]"), tl::value_error);
}

TEST_CASE("creation functions reject negative extents") {
  CHECK_THROWS_WITH_AS(tl::zeros(2, -1), doctest::Contains("tl::zeros: negative extent in shape [2, -1]"), tl::value_error);
  CHECK_THROWS_WITH_AS(tl::ones<int>(-3), doctest::Contains("tl::ones: negative extent in shape [-3]"), tl::value_error);
  CHECK_THROWS_WITH_AS(tl::empty(1, 1, -5), doctest::Contains("tl::empty: negative extent in shape [1, 1, -5]"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::full(tl::shape_t<1>{-1}, 2.0), doctest::Contains("tl::full: negative extent in shape [-1]"),
                       tl::value_error);
}
