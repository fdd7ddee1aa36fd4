// Tests for tl::masked_fill and tl::masked_fill_.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include <tl/ops/ops.hpp>

namespace ops_masked_fill_test {  // one namespace per test file: the tests compile as unity builds
using tl::index_t;

template <class T>
T value_of(int v) {
  if constexpr (std::is_same_v<T, bool>) return (v & 1) != 0;
  else if constexpr (tl::is_complex_v<T>) return T(static_cast<tl::real_t<T>>(v), static_cast<tl::real_t<T>>(-v));
  else return static_cast<T>(v);
}

template <class T>
tl::tensor<T, 2> make(index_t m, index_t n) {
  tl::tensor<T, 2> t(tl::shape_t<2>{m, n});
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) t(i, j) = value_of<T>(static_cast<int>(3 * i + j + 1));
  return t;
}

TEST_CASE_TEMPLATE("masked_fill with a broadcast mask keeps the dtype", T, bool, std::int32_t, std::int64_t, float,
                   double, tl::complex<float>, tl::complex<double>) {
  auto t = make<T>(2, 3);
  tl::tensor<bool, 1> mask(tl::shape_t<1>{3});
  mask(0) = true;
  mask(1) = false;
  mask(2) = true;
  auto e = tl::masked_fill(t, mask, 0);
  static_assert(std::is_same_v<typename decltype(e)::value_type, T>);
  tl::tensor<T, 2> r = e;
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(r(i, j) == (j == 1 ? t(i, j) : value_of<T>(0)));
  // the input is unchanged
  CHECK(t(0, 0) == value_of<T>(1));

  // in place, through a transposed view
  auto tt = make<T>(3, 2);
  tl::masked_fill_(tt.t(), mask, 1);
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 2; ++j) CHECK(tt(i, j) == (i == 1 ? value_of<T>(static_cast<int>(3 * i + j + 1)) : static_cast<T>(1)));
}

TEST_CASE("masked_fill: lazy masks, value conversion, result shape is the broadcast shape") {
  tl::tensor<float, 1> x(tl::shape_t<1>{4});
  x(0) = -1.5f;
  x(1) = 2.0f;
  x(2) = std::numeric_limits<float>::quiet_NaN();
  x(3) = -0.25f;
  tl::tensor<float, 1> relu = tl::masked_fill(x, x < 0.0f, 0.0);
  CHECK(relu(0) == 0.0f);
  CHECK(relu(1) == 2.0f);
  CHECK(std::isnan(relu(2)));
  CHECK(relu(3) == 0.0f);
  tl::masked_fill_(x, x != x, 7);
  CHECK(x(2) == 7.0f);

  // an int tensor with a double value: truncated, the dtype stays int32 (torch)
  tl::tensor<std::int32_t, 1> i(tl::shape_t<1>{2});
  i(0) = 5;
  i(1) = 6;
  tl::tensor<bool, 1> m(tl::shape_t<1>{2});
  m(0) = false;
  m(1) = true;
  auto e = tl::masked_fill(i, m, 2.9);
  static_assert(std::is_same_v<typename decltype(e)::value_type, std::int32_t>);
  tl::tensor<std::int32_t, 1> ri = e;
  CHECK(ri(0) == 5);
  CHECK(ri(1) == 2);

  // a [2, 1] mask with a [3] tensor broadcasts to [2, 3] out of place
  tl::tensor<bool, 2> col(tl::shape_t<2>{2, 1});
  col(0, 0) = true;
  col(1, 0) = false;
  tl::tensor<std::int32_t, 1> row(tl::shape_t<1>{3});
  for (index_t j = 0; j < 3; ++j) row(j) = static_cast<std::int32_t>(j + 1);
  tl::tensor<std::int32_t, 2> b = tl::masked_fill(row, col, -1);
  REQUIRE(b.shape() == tl::shape_t<2>{2, 3});
  CHECK(b(0, 2) == -1);
  CHECK(b(1, 2) == 3);

  // empty
  tl::tensor<double, 2> empty(tl::shape_t<2>{0, 3});
  tl::tensor<bool, 2> em(tl::shape_t<2>{0, 3});
  tl::tensor<double, 2> er = tl::masked_fill(empty, em, 1.0);
  CHECK(er.numel() == 0);
  tl::masked_fill_(empty, em, 1.0);
}

TEST_CASE("masked_fill errors") {
  auto t = make<float>(2, 3);
  tl::tensor<bool, 1> m4(tl::shape_t<1>{4});
  m4.fill_(true);
  CHECK_THROWS_WITH_AS(tl::masked_fill(t, m4, 0.0f), doctest::Contains("tl::masked_fill: shapes [2, 3] and [4]"),
                       tl::shape_error);
  CHECK_THROWS_WITH_AS(tl::masked_fill_(t, m4, 0.0f), doctest::Contains("tl::masked_fill_: shapes [4] and [2, 3]"),
                       tl::shape_error);
  // a mask that broadcasts with t but not to t's shape cannot be used in place
  tl::tensor<bool, 2> m23(tl::shape_t<2>{2, 3});
  m23.fill_(true);
  tl::tensor<float, 2> t13(tl::shape_t<2>{1, 3});
  t13.fill_(1.0f);
  CHECK_THROWS_WITH_AS(tl::masked_fill_(t13, m23, 0.0f),
                       doctest::Contains("tl::masked_fill_: a mask of shape [2, 3] cannot be broadcast to the tensor's "
                                         "shape [1, 3]"),
                       tl::shape_error);
  CHECK(t13(0, 0) == 1.0f);
}

}  // namespace ops_masked_fill_test
