// Tests for tl::cat and tl::stack.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <tl/ops/ops.hpp>

namespace ops_cat_test {  // one namespace per test file: the tests compile as unity builds
using tl::index_t;

struct lcg {
  std::uint64_t s;
  int next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((s >> 33) % 19) - 9;
  }
};

template <class T>
T value_of(int v) {
  if constexpr (std::is_same_v<T, bool>) return (v & 1) != 0;
  else if constexpr (tl::is_complex_v<T>) return T(static_cast<tl::real_t<T>>(v), static_cast<tl::real_t<T>>(v - 3));
  else return static_cast<T>(v);
}

template <class T, std::size_t R>
tl::tensor<T, R> random_tensor(const tl::shape_t<R>& s, std::uint64_t seed) {
  tl::tensor<T, R> t(s);
  lcg g{seed};
  for (index_t i = 0; i < t.numel(); ++i) t.data()[i] = value_of<T>(g.next());
  return t;
}

TEST_CASE_TEMPLATE("cat joins along any dim, matching a reference loop", T, bool, std::int32_t, std::int64_t, float,
                   double, tl::complex<float>, tl::complex<double>) {
  auto a = random_tensor<T, 3>({2, 3, 4}, 1);
  auto b = random_tensor<T, 3>({2, 5, 4}, 2);
  auto c = random_tensor<T, 3>({2, 1, 4}, 3);
  auto r = tl::cat({a, b, c}, 1);
  REQUIRE(r.shape() == tl::shape_t<3>{2, 9, 4});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 9; ++j)
      for (index_t k = 0; k < 4; ++k) {
        const T want = j < 3 ? a(i, j, k) : (j < 8 ? b(i, j - 3, k) : c(i, j - 8, k));
        CHECK(r(i, j, k) == want);
      }
  // negative dim: -1 is the last
  auto r2 = tl::cat(std::vector<tl::tensor<T, 3>>{a, a}, -1);
  REQUIRE(r2.shape() == tl::shape_t<3>{2, 3, 8});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j)
      for (index_t k = 0; k < 8; ++k) CHECK(r2(i, j, k) == a(i, j, k % 4));
}

TEST_CASE("cat of non-contiguous views, empty pieces and conjugate views") {
  auto a = random_tensor<float, 2>({3, 4}, 7);
  auto at = a.t();                      // [4, 3], transposed
  auto sl = a(tl::all, tl::every(2));   // [3, 2], strided columns
  auto r = tl::cat({at, sl.t(), a.flip(0).t().narrow(0, 0, 0)}, 0);
  REQUIRE(r.shape() == tl::shape_t<2>{6, 3});
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(r(i, j) == a(j, i));
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(r(4 + i, j) == a(j, 2 * i));

  tl::tensor<tl::complex<double>, 1> z(tl::shape_t<1>{2});
  z(0) = {1, 2};
  z(1) = {3, -4};
  auto zc = tl::cat({z, z.conj()}, 0);
  CHECK(zc(0) == tl::complex<double>(1, 2));
  CHECK(zc(3) == tl::complex<double>(3, 4));
  CHECK_FALSE(zc.is_conj());

  // all empty along dim; empty along another dim
  tl::tensor<int, 2> e0(tl::shape_t<2>{0, 3});
  CHECK(tl::cat({e0, e0}, 0).shape() == tl::shape_t<2>{0, 3});
  CHECK(tl::cat({e0, e0}, 1).shape() == tl::shape_t<2>{0, 6});
  // size-1 tensors
  auto one = random_tensor<double, 1>({1}, 5);
  auto r1 = tl::cat({one, one, one});
  CHECK(r1.shape() == tl::shape_t<1>{3});
  CHECK(r1(2) == one(0));
  // result owns new storage
  r1(0) = 100.0;
  CHECK(one(0) != 100.0);
}

TEST_CASE("cat errors") {
  auto a = random_tensor<float, 2>({2, 3}, 1);
  auto b = random_tensor<float, 2>({4, 5}, 2);
  CHECK_THROWS_WITH_AS(tl::cat({a, a, b}, 0),
                       doctest::Contains("tl::cat: tensor 2 has shape [4, 5] but tensor 0 has shape [2, 3]"),
                       tl::shape_error);
  CHECK_THROWS_WITH_AS(tl::cat({a, b}, 1), doctest::Contains("all extents except dim 1 must match"), tl::shape_error);
  CHECK_THROWS_WITH_AS(tl::cat({a, a}, 2), doctest::Contains("tl::cat: dimension 2 is out of range"), tl::index_error);
  CHECK_THROWS_WITH_AS(tl::cat({a, a}, -3), doctest::Contains("tl::cat: dimension -3 is out of range"),
                       tl::index_error);
  CHECK_THROWS_WITH_AS(tl::cat(std::vector<tl::tensor<float, 2>>{}, 0),
                       doctest::Contains("tl::cat: expected a non-empty list"), tl::value_error);
}

TEST_CASE_TEMPLATE("stack inserts a new dim at every position", T, std::int32_t, double, tl::complex<float>) {
  auto a = random_tensor<T, 2>({2, 3}, 11);
  auto b = random_tensor<T, 2>({2, 3}, 12);
  auto bt = random_tensor<T, 2>({3, 2}, 12).t();  // non-contiguous, same shape as a
  for (index_t d : {0, 1, 2, -1, -3}) {
    auto s = tl::stack({a, b, bt}, d);
    const std::size_t dd = static_cast<std::size_t>(d < 0 ? d + 3 : d);
    tl::shape_t<3> want{2, 3, 3};
    for (std::size_t q = 0, o = 0; q < 3; ++q) want[q] = q == dd ? 3 : a.shape()[o++];
    REQUIRE(s.shape() == want);
    for (index_t p = 0; p < 3; ++p) {
      const auto& src = p == 0 ? a : (p == 1 ? b : bt);
      for (index_t i = 0; i < 2; ++i)
        for (index_t j = 0; j < 3; ++j) {
          const T got = dd == 0 ? s(p, i, j) : (dd == 1 ? s(i, p, j) : s(i, j, p));
          CHECK(got == src(i, j));
        }
    }
  }
}

TEST_CASE("stack of rank-0 tensors and errors") {
  tl::tensor<float, 0> x(tl::shape_t<0>{}), y(tl::shape_t<0>{});
  x() = 1.5f;
  y() = -2.0f;
  auto s = tl::stack({x, y});
  REQUIRE(s.shape() == tl::shape_t<1>{2});
  CHECK(s(0) == 1.5f);
  CHECK(s(1) == -2.0f);

  auto a = random_tensor<float, 2>({2, 3}, 1);
  auto b = random_tensor<float, 2>({3, 2}, 2);
  CHECK_THROWS_WITH_AS(tl::stack({a, b}, 0),
                       doctest::Contains("tl::stack: every tensor must have the same shape, but tensor 0 has shape "
                                         "[2, 3] and tensor 1 has shape [3, 2]"),
                       tl::shape_error);
  CHECK_THROWS_WITH_AS(tl::stack({a, a}, 3), doctest::Contains("tl::stack: dimension 3 is out of range"),
                       tl::index_error);
  CHECK_THROWS_WITH_AS(tl::stack(std::vector<tl::tensor<float, 2>>{}, 0),
                       doctest::Contains("tl::stack: expected a non-empty list"), tl::value_error);
}

}  // namespace ops_cat_test
