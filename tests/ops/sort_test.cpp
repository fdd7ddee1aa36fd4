// Tests for tl::sort, tl::argsort, tl::topk and tl::unique.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <tl/ops/ops.hpp>

namespace {
using tl::index_t;
constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

struct lcg {
  std::uint64_t s;
  std::uint64_t next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s >> 33;
  }
};

template <class T, std::size_t R>
tl::tensor<T, R> random_tensor(const tl::shape_t<R>& s, std::uint64_t seed, int range = 7) {
  tl::tensor<T, R> t(s);
  lcg g{seed};
  for (index_t i = 0; i < t.numel(); ++i) {
    const int v = static_cast<int>(g.next() % static_cast<std::uint64_t>(range));  // many ties
    if constexpr (std::is_same_v<T, bool>) t.data()[i] = (v & 1) != 0;
    else t.data()[i] = static_cast<T>(v - range / 2);
  }
  return t;
}

template <class T>
tl::tensor<T, 1> vec(std::initializer_list<double> v) {
  tl::tensor<T, 1> t(tl::shape_t<1>{static_cast<index_t>(v.size())});
  index_t k = 0;
  for (double x : v) t(k++) = static_cast<T>(x);
  return t;
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  }
  return a == b;
}
}  // namespace

TEST_CASE_TEMPLATE("sort along every dim is a stable permutation in order", T, bool, std::int32_t, std::int64_t, float,
                   double) {
  auto t = random_tensor<T, 3>({3, 4, 9}, 77);
  for (index_t d = -3; d < 3; ++d) {
    const std::size_t dd = static_cast<std::size_t>(d < 0 ? d + 3 : d);
    for (bool desc : {false, true}) {
      auto [v, i] = tl::sort(t, d, desc, true);
      REQUIRE(v.shape() == t.shape());
      REQUIRE(i.shape() == t.shape());
      // reference: for every line, std::stable_sort of (value, position)
      tl::shape_t<3> ls = t.shape();
      ls[dd] = 1;
      for (index_t a = 0; a < ls[0]; ++a)
        for (index_t b = 0; b < ls[1]; ++b)
          for (index_t c = 0; c < ls[2]; ++c) {
            std::vector<std::pair<T, index_t>> ref;
            for (index_t k = 0; k < t.shape()[dd]; ++k) {
              std::array<index_t, 3> p{a, b, c};
              p[dd] = k;
              ref.push_back({t(p[0], p[1], p[2]), k});
            }
            std::stable_sort(ref.begin(), ref.end(), [&](const auto& x, const auto& y) {
              return desc ? y.first < x.first : x.first < y.first;
            });
            for (index_t k = 0; k < t.shape()[dd]; ++k) {
              std::array<index_t, 3> p{a, b, c};
              p[dd] = k;
              CHECK(v(p[0], p[1], p[2]) == ref[static_cast<std::size_t>(k)].first);
              CHECK(i(p[0], p[1], p[2]) == ref[static_cast<std::size_t>(k)].second);
            }
          }
    }
  }
}

TEST_CASE("sort: NaN last ascending, first descending; ties stable") {
  auto x = vec<double>({3, nan_v, 1, 3, -2, nan_v, 1});
  auto [v, i] = tl::sort(x, 0, false, true);
  const double want_v[] = {-2, 1, 1, 3, 3, nan_v, nan_v};
  const std::int64_t want_i[] = {4, 2, 6, 0, 3, 1, 5};
  for (index_t k = 0; k < 7; ++k) {
    CHECK(same_value(v(k), want_v[k]));
    CHECK(i(k) == want_i[k]);
  }
  auto [vd, id] = tl::sort(x, -1, true, true);
  const double want_vd[] = {nan_v, nan_v, 3, 3, 1, 1, -2};
  const std::int64_t want_id[] = {1, 5, 0, 3, 2, 6, 4};
  for (index_t k = 0; k < 7; ++k) {
    CHECK(same_value(vd(k), want_vd[k]));
    CHECK(id(k) == want_id[k]);
  }
  auto ord = tl::argsort(x);
  for (index_t k = 0; k < 7; ++k) CHECK(ord(k) == want_i[k]);
  // infinities stay ordered before NaN
  auto inf = vec<float>({nan_v, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()});
  auto [vi, ii] = tl::sort(inf);
  CHECK(std::isinf(vi(0)));
  CHECK(vi(0) < 0);
  CHECK(std::isinf(vi(1)));
  CHECK(std::isnan(vi(2)));
  CHECK(ii(2) == 0);
}

TEST_CASE("sort: views, expressions, empty, size-1 and 0-d inputs") {
  auto m = random_tensor<float, 2>({5, 6}, 3, 1000);
  auto [vt, it] = tl::sort(m.t(), 1);  // sort the columns of m
  for (index_t c = 0; c < 6; ++c)
    for (index_t k = 0; k < 5; ++k) {
      CHECK(vt(c, k) == m(it(c, k), c));
      if (k > 0) CHECK(vt(c, k - 1) <= vt(c, k));
    }
  auto [ve, ie] = tl::sort(-m, 0);
  for (index_t c = 0; c < 6; ++c)
    for (index_t k = 1; k < 5; ++k) CHECK(ve(k - 1, c) <= ve(k, c));
  CHECK(ve(0, 0) == -m(ie(0, 0), 0));
  tl::tensor<int, 2> empty(tl::shape_t<2>{0, 4});
  CHECK(tl::sort(empty, 1).values.shape() == tl::shape_t<2>{0, 4});
  tl::tensor<int, 2> col(tl::shape_t<2>{4, 1});
  col.fill_(5);
  auto [v1, i1] = tl::sort(col, -1);
  CHECK(v1(3, 0) == 5);
  CHECK(i1(3, 0) == 0);
  tl::tensor<double, 0> s(tl::shape_t<0>{});
  s() = 2.5;
  auto [v0, i0] = tl::sort(s);
  CHECK(v0() == 2.5);
  CHECK(i0() == 0);
  CHECK_THROWS_WITH_AS(tl::sort(m, 2), doctest::Contains("tl::sort: dimension 2 is out of range"), tl::index_error);
  CHECK_THROWS_WITH_AS(tl::argsort(m, -3), doctest::Contains("tl::sort: dimension -3 is out of range"), tl::index_error);
}

TEST_CASE("sort of many long rows runs in parallel and agrees with std::sort") {
  auto t = random_tensor<std::int64_t, 2>({64, 3000}, 99, 1 << 20);
  auto [v, i] = tl::sort(t, 1, true);
  for (index_t r = 0; r < 64; r += 7) {
    std::vector<std::int64_t> ref(3000);
    for (index_t k = 0; k < 3000; ++k) ref[static_cast<std::size_t>(k)] = t(r, k);
    std::sort(ref.begin(), ref.end(), std::greater<>());
    for (index_t k = 0; k < 3000; ++k) {
      CHECK(v(r, k) == ref[static_cast<std::size_t>(k)]);
      CHECK(t(r, i(r, k)) == v(r, k));
    }
  }
}

TEST_CASE_TEMPLATE("topk matches the first k of a stable sort", T, std::int32_t, float, double) {
  auto t = random_tensor<T, 2>({4, 11}, 5);
  for (bool largest : {true, false})
    for (index_t k : {0, 1, 4, 11}) {
      auto [v, i] = tl::topk(t, k, -1, largest);
      REQUIRE(v.shape() == tl::shape_t<2>{4, k});
      auto [sv, si] = tl::sort(t, 1, largest, true);
      for (index_t r = 0; r < 4; ++r)
        for (index_t j = 0; j < k; ++j) {
          CHECK(v(r, j) == sv(r, j));
          CHECK(i(r, j) == si(r, j));
        }
    }
  auto [v0, i0] = tl::topk(t, 2, 0, false);
  REQUIRE(v0.shape() == tl::shape_t<2>{2, 11});
  for (index_t c = 0; c < 11; ++c) {
    T lo = t(0, c);
    for (index_t r = 1; r < 4; ++r) lo = std::min(lo, t(r, c));
    CHECK(v0(0, c) == lo);
    CHECK(t(i0(1, c), c) == v0(1, c));
  }
}

TEST_CASE("topk: hand-computed values, NaN is the largest, errors") {
  auto x = vec<double>({1, 5, nan_v, 3, 5});
  auto [v, i] = tl::topk(x, 3);
  CHECK(std::isnan(v(0)));
  CHECK(i(0) == 2);
  CHECK(v(1) == 5.0);
  CHECK(i(1) == 1);
  CHECK(v(2) == 5.0);
  CHECK(i(2) == 4);
  auto [vs, is] = tl::topk(x, 2, 0, false);
  CHECK(vs(0) == 1.0);
  CHECK(is(0) == 0);
  CHECK(vs(1) == 3.0);
  CHECK(is(1) == 3);
  CHECK_THROWS_WITH_AS(tl::topk(x, 6), doctest::Contains("tl::topk: k = 6 is out of range for dim 0 of extent 5"),
                       tl::index_error);
  CHECK_THROWS_WITH_AS(tl::topk(x, -1), doctest::Contains("tl::topk: k = -1 is out of range"), tl::index_error);
  CHECK_THROWS_WITH_AS(tl::topk(x, 1, 1), doctest::Contains("tl::topk: dimension 1 is out of range"), tl::index_error);
}

TEST_CASE("unique: values, inverse and counts") {
  tl::tensor<std::int32_t, 2> t(tl::shape_t<2>{2, 3});
  const std::int32_t vals[] = {2, 1, 2, 5, 1, 2};
  for (index_t k = 0; k < 6; ++k) t(k / 3, k % 3) = vals[k];
  auto u = tl::unique(t, true, true, true);
  REQUIRE(u.values.shape() == tl::shape_t<1>{3});
  CHECK(u.values(0) == 1);
  CHECK(u.values(1) == 2);
  CHECK(u.values(2) == 5);
  REQUIRE(u.inverse.shape() == tl::shape_t<2>{2, 3});
  const std::int64_t inv[] = {1, 0, 1, 2, 0, 1};
  for (index_t k = 0; k < 6; ++k) CHECK(u.inverse(k / 3, k % 3) == inv[k]);
  REQUIRE(u.counts.shape() == tl::shape_t<1>{3});
  CHECK(u.counts(0) == 2);
  CHECK(u.counts(1) == 3);
  CHECK(u.counts(2) == 1);
  // round trip: values[inverse] == t, through a transposed view
  auto ut = tl::unique(t.t(), true, true);
  for (index_t a = 0; a < 3; ++a)
    for (index_t b = 0; b < 2; ++b) CHECK(ut.values(ut.inverse(a, b)) == t(b, a));
  CHECK(ut.counts.numel() == 0);
  auto only = tl::unique(t);
  CHECK(only.values.numel() == 3);
  CHECK(only.inverse.numel() == 0);
}

TEST_CASE("unique: NaN, bool, empty") {
  auto x = vec<float>({nan_v, 1, nan_v, 1, 0});
  auto u = tl::unique(x, true, true, true);
  REQUIRE(u.values.numel() == 4);  // 0, 1, NaN, NaN: NaNs are distinct (torch)
  CHECK(u.values(0) == 0.0f);
  CHECK(u.values(1) == 1.0f);
  CHECK(std::isnan(u.values(2)));
  CHECK(std::isnan(u.values(3)));
  CHECK(u.counts(1) == 2);
  CHECK(u.counts(3) == 1);
  CHECK(u.inverse(3) == 1);
  CHECK(std::isnan(u.values(u.inverse(0))));
  tl::tensor<bool, 1> b(tl::shape_t<1>{3});
  b(0) = true;
  b(1) = true;
  b(2) = true;
  auto ub = tl::unique(b, true, false, true);
  REQUIRE(ub.values.numel() == 1);
  CHECK(ub.values(0) == true);
  CHECK(ub.counts(0) == 3);
  tl::tensor<double, 2> e(tl::shape_t<2>{0, 2});
  auto ue = tl::unique(e, true, true, true);
  CHECK(ue.values.numel() == 0);
  CHECK(ue.inverse.shape() == tl::shape_t<2>{0, 2});
  CHECK(ue.counts.numel() == 0);
}
