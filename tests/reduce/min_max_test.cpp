// amax/amin/max/min/argmax/argmin and all_of/any_of/count_nonzero.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include <tl/tensor.hpp>

#include "reduce_test_util.hpp"

using namespace reduce_test;

TEST_CASE_TEMPLATE("amax/amin/argmax/argmin against reference loops", T, float, double, std::int32_t, std::int64_t) {
  const auto x = random_tensor<T, 3>({6, 13, 9}, 7);  // integers in [-10, 10]: many ties
  for (int d = 0; d < 3; ++d) {
    std::array<bool, 3> mask{};
    mask[d] = true;
    using P = std::pair<long double, tl::index_t>;
    auto get = [&](const auto& i) { return wide(at(x, i)); };
    const auto mx = ref_reduce<P>(x.shape(), mask, P(0, -1), get, [](P a, long double v, tl::index_t k) {
      return (a.second < 0 || v > a.first) ? P(v, k) : a;
    });
    const auto mn = ref_reduce<P>(x.shape(), mask, P(0, -1), get, [](P a, long double v, tl::index_t k) {
      return (a.second < 0 || v < a.first) ? P(v, k) : a;
    });
    const auto amax = tl::amax(x, d);
    const auto amin = tl::amin(x, d - 3);  // negative dim
    const auto am = tl::argmax(x, d);
    const tl::tensor<std::int64_t, 3> ai = tl::argmin(x, d, tl::keepdim);
    const auto [v, i] = tl::max(x, d);
    const auto [vn, in] = tl::min(x, d, tl::keepdim);
    static_assert(std::is_same_v<typename decltype(am)::value_type, std::int64_t>);
    CHECK(ai.shape()[d] == 1);
    for (std::size_t o = 0; o < mx.size(); ++o) {
      const auto k = static_cast<tl::index_t>(o);
      CHECK(wide(flat(amax, k)) == mx[o].first);
      CHECK(wide(flat(amin, k)) == mn[o].first);
      CHECK(flat(am, k) == mx[o].second);
      CHECK(flat(ai, k) == mn[o].second);
      CHECK(wide(flat(v, k)) == mx[o].first);
      CHECK(flat(i, k) == mx[o].second);
      CHECK(wide(flat(vn, k)) == mn[o].first);
      CHECK(flat(in, k) == mn[o].second);
    }
  }
  // Full reductions: argmax is the flat index of the first maximum.
  const auto xt = x.transpose(0, 2);
  tl::index_t best = 0;
  for (tl::index_t k = 1; k < xt.numel(); ++k)
    if (flat(xt, k) > flat(xt, best)) best = k;
  CHECK(tl::argmax(xt).item() == best);
  CHECK(tl::max(xt).item() == flat(xt, best));
  CHECK(tl::amax(x, tl::dims{0, 1, 2}).item() == flat(xt, best));
}

TEST_CASE("max/min: column reductions over many rows, ties resolve to the first") {
  tl::tensor<float, 2> x(tl::shape_t<2>{3000, 5});
  for (int i = 0; i < 3000; ++i)
    for (int j = 0; j < 5; ++j) x(i, j) = float((i * 7 + j) % 50);
  auto [v, i] = tl::max(x, 0);
  for (int j = 0; j < 5; ++j) {
    CHECK(v(j) == 49.0f);
    int first = 0;
    while ((first * 7 + j) % 50 != 49) ++first;
    CHECK(i(j) == first);
  }
  CHECK(tl::argmin(x.t()).item() == 0);
}

TEST_CASE("max/min/argmax: NaN propagates and counts as the extreme") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  tl::tensor<float, 1> x(tl::shape_t<1>{40});
  for (int i = 0; i < 40; ++i) x(i) = float(i);
  x(17) = nan;
  x(30) = nan;
  CHECK(std::isnan(tl::max(x).item()));
  CHECK(std::isnan(tl::min(x).item()));
  CHECK(std::isnan(tl::amax(x, 0).item()));
  CHECK(tl::argmax(x).item() == 17);
  CHECK(tl::argmin(x).item() == 17);
  auto [v, i] = tl::max(x, 0);
  CHECK(std::isnan(v.item()));
  CHECK(i.item() == 17);
  tl::tensor<float, 1> two(tl::shape_t<1>{2});
  two(0) = 1;
  two(1) = nan;
  CHECK(std::isnan(tl::max(two).item()));
  two(0) = nan;
  two(1) = 1;
  CHECK(std::isnan(tl::amin(two).item()));
  tl::tensor<double, 1> inf(tl::shape_t<1>{3});
  inf(0) = -std::numeric_limits<double>::infinity();
  inf(1) = -std::numeric_limits<double>::infinity();
  inf(2) = -std::numeric_limits<double>::infinity();
  CHECK(tl::max(inf).item() == -std::numeric_limits<double>::infinity());
  CHECK(tl::argmax(inf).item() == 0);
}

TEST_CASE("max/min/argmax over an empty dim throw value_error") {
  tl::tensor<float, 2> e(tl::shape_t<2>{0, 4});
  CHECK_THROWS_WITH_AS(tl::max(e), doctest::Contains("tl::max: cannot reduce over zero elements (input shape [0, 4])"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::min(e, 0), doctest::Contains("tl::min: cannot reduce over zero elements"), tl::value_error);
  CHECK_THROWS_WITH_AS(tl::argmax(e), doctest::Contains("tl::argmax: cannot reduce"), tl::value_error);
  CHECK_THROWS_WITH_AS(tl::amin(e, 0), doctest::Contains("tl::amin: cannot reduce"), tl::value_error);
  CHECK_THROWS_WITH_AS(tl::argmin(e, 0, tl::keepdim), doctest::Contains("tl::argmin"), tl::value_error);
  // Reducing the non-empty dim is fine: the result is empty.
  CHECK(tl::amax(e, 1).numel() == 0);
  CHECK(tl::argmax(e, 1).shape() == tl::shape_t<1>{0});
  CHECK_THROWS_WITH_AS(tl::argmax(e, 2), doctest::Contains("tl::argmax: dimension 2 is out of range"),
                       tl::index_error);
  CHECK_THROWS_WITH_AS(tl::max(e, -3), doctest::Contains("tl::max: dimension -3"), tl::index_error);
}

TEST_CASE("max/min of bool tensors") {
  tl::tensor<bool, 2> b(tl::shape_t<2>{2, 3});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) b(i, j) = (i == 1 && j == 2);
  CHECK(tl::max(b).item() == true);
  CHECK(tl::min(b).item() == false);
  CHECK(tl::argmax(b).item() == 5);
  auto r = tl::amax(b, 1);
  CHECK(r(0) == false);
  CHECK(r(1) == true);
}

TEST_CASE_TEMPLATE("all_of/any_of/count_nonzero", T, float, bool, tl::complex<double>) {
  tl::tensor<T, 2> x(tl::shape_t<2>{3, 4});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) x(i, j) = T((i * 4 + j) % 3 != 0 ? 1 : 0);
  // Zeros at flat 0, 3, 6, 9.
  CHECK(tl::count_nonzero(x).item() == 8);
  CHECK(tl::all_of(x).item() == false);
  CHECK(tl::any_of(x).item() == true);
  auto c1 = tl::count_nonzero(x, 1);  // rows hold flat 0-3, 4-7, 8-11
  static_assert(std::is_same_v<typename decltype(c1)::value_type, std::int64_t>);
  CHECK(c1(0) == 2);
  CHECK(c1(1) == 3);
  CHECK(c1(2) == 3);
  CHECK(tl::count_nonzero(x, 0)(3) == 2);
  auto a1 = tl::all_of(x, 1, tl::keepdim);
  static_assert(std::is_same_v<typename decltype(a1)::value_type, bool>);
  CHECK(a1.shape() == tl::shape_t<2>{3, 1});
  CHECK(a1(0, 0) == false);
  auto any0 = tl::any_of(x, tl::dims{0, 1});
  CHECK(any0.item() == true);
  tl::tensor<T, 2> e(tl::shape_t<2>{0, 2});
  CHECK(tl::all_of(e).item() == true);
  CHECK(tl::any_of(e).item() == false);
  CHECK(tl::count_nonzero(e).item() == 0);
  CHECK(tl::all_of(e, 0)(1) == true);
}

TEST_CASE("all_of/any_of consume comparisons; errors name the op") {
  const auto x = random_tensor<double, 2>({50, 70}, 9);
  CHECK(tl::all_of(x < 1.0).item());
  CHECK_FALSE(tl::any_of(x > 1.0).item());
  tl::index_t pos = 0;
  for (tl::index_t k = 0; k < x.numel(); ++k) pos += flat(x, k) > 0 ? 1 : 0;
  CHECK(tl::count_nonzero(x > 0.0).item() == pos);
  CHECK(tl::sum(tl::astype<std::int64_t>(x > 0.0)).item() == pos);
  CHECK_THROWS_WITH_AS(tl::all_of(x, 3), doctest::Contains("tl::all: dimension 3"), tl::index_error);
  CHECK_THROWS_WITH_AS(tl::count_nonzero(x, tl::dims{0, -2}),
                       doctest::Contains("tl::count_nonzero: dim 0 appears multiple times"), tl::index_error);
}
