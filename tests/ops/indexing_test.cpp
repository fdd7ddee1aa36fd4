// Tests for tl::index_select, tl::gather, tl::scatter(_), tl::scatter_add(_).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <tl/ops/ops.hpp>

namespace ops_indexing_test {  // one namespace per test file: the tests compile as unity builds
using tl::index_t;

struct lcg {
  std::uint64_t s;
  std::uint64_t next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s >> 33;
  }
};

template <class T>
T value_of(int v) {
  if constexpr (std::is_same_v<T, bool>) return (v & 1) != 0;
  else if constexpr (tl::is_complex_v<T>) return T(static_cast<tl::real_t<T>>(v), static_cast<tl::real_t<T>>(v % 5));
  else return static_cast<T>(v);
}

template <class T, std::size_t R>
tl::tensor<T, R> random_tensor(const tl::shape_t<R>& s, std::uint64_t seed) {
  tl::tensor<T, R> t(s);
  lcg g{seed};
  for (index_t i = 0; i < t.numel(); ++i) t.data()[i] = value_of<T>(static_cast<int>(g.next() % 41) - 20);
  return t;
}

template <class I, std::size_t R>
tl::tensor<I, R> random_index(const tl::shape_t<R>& s, index_t hi, std::uint64_t seed) {
  tl::tensor<I, R> t(s);
  lcg g{seed};
  for (index_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<I>(g.next() % static_cast<std::uint64_t>(hi));
  return t;
}

template <class I>
tl::tensor<I, 1> idx1(std::initializer_list<I> v) {
  tl::tensor<I, 1> t(tl::shape_t<1>{static_cast<index_t>(v.size())});
  index_t k = 0;
  for (I x : v) t(k++) = x;
  return t;
}

TEST_CASE_TEMPLATE("index_select matches a reference loop on every dim", T, bool, std::int32_t, float, double,
                   tl::complex<double>) {
  auto t = random_tensor<T, 3>({3, 4, 5}, 3);
  for (index_t d = -3; d < 3; ++d) {
    const std::size_t dd = static_cast<std::size_t>(d < 0 ? d + 3 : d);
    auto idx = random_index<std::int64_t, 1>({7}, t.shape()[dd], 10 + static_cast<std::uint64_t>(d + 3));
    auto r = tl::index_select(t, d, idx);
    tl::shape_t<3> want = t.shape();
    want[dd] = 7;
    REQUIRE(r.shape() == want);
    for (index_t i = 0; i < want[0]; ++i)
      for (index_t j = 0; j < want[1]; ++j)
        for (index_t k = 0; k < want[2]; ++k) {
          std::array<index_t, 3> s{i, j, k};
          s[dd] = idx(s[dd]);
          CHECK(r(i, j, k) == t(s[0], s[1], s[2]));
        }
  }
}

TEST_CASE("index_select: int32 indices, views, expressions, empty and 0-d indices") {
  auto t = random_tensor<float, 2>({4, 3}, 5);
  auto r = tl::index_select(t.t(), 1, idx1<std::int32_t>({3, 0, 3}));  // columns of t.t() = rows of t
  REQUIRE(r.shape() == tl::shape_t<2>{3, 3});
  for (index_t i = 0; i < 3; ++i) {
    CHECK(r(i, 0) == t(3, i));
    CHECK(r(i, 1) == t(0, i));
    CHECK(r(i, 2) == t(3, i));
  }
  // a lazy expression input and a strided index
  auto big = idx1<std::int64_t>({2, 9, 1, 9, 0});
  auto e = tl::index_select(t * 2.0f, 0, big(tl::every(2)));  // indices 2, 1, 0
  REQUIRE(e.shape() == tl::shape_t<2>{3, 3});
  CHECK(e(0, 1) == 2.0f * t(2, 1));
  CHECK(e(2, 2) == 2.0f * t(0, 2));
  // a conjugate view
  tl::tensor<tl::complex<float>, 1> z(tl::shape_t<1>{2});
  z(0) = {1, 1};
  z(1) = {2, -3};
  auto zc = tl::index_select(z.conj(), 0, idx1<std::int64_t>({1}));
  CHECK(zc(0) == tl::complex<float>(2, 3));
  // empty index -> empty dim; 0-d index keeps the dim with extent 1
  tl::tensor<std::int64_t, 1> none(tl::shape_t<1>{0});
  CHECK(tl::index_select(t, 1, none).shape() == tl::shape_t<2>{4, 0});
  tl::tensor<std::int64_t, 0> scalar_idx(tl::shape_t<0>{});
  scalar_idx() = 2;
  auto s = tl::index_select(t, 0, scalar_idx);
  REQUIRE(s.shape() == tl::shape_t<2>{1, 3});
  CHECK(s(0, 1) == t(2, 1));
  // empty input along another dim
  tl::tensor<double, 2> e0(tl::shape_t<2>{0, 3});
  CHECK(tl::index_select(e0, 1, idx1<std::int64_t>({2, 2})).shape() == tl::shape_t<2>{0, 2});
}

TEST_CASE("index_select errors") {
  auto t = random_tensor<float, 2>({4, 3}, 5);
  CHECK_THROWS_WITH_AS(tl::index_select(t, 1, idx1<std::int64_t>({0, 3})),
                       doctest::Contains("tl::index_select: index 3 is out of range for dim 1 of extent 3"),
                       tl::index_error);
  CHECK_THROWS_WITH_AS(tl::index_select(t, 0, idx1<std::int32_t>({-1})),
                       doctest::Contains("tl::index_select: index -1 is out of range for dim 0 of extent 4"),
                       tl::index_error);
  CHECK_THROWS_WITH_AS(tl::index_select(t, 2, idx1<std::int64_t>({0})),
                       doctest::Contains("tl::index_select: dimension 2 is out of range"), tl::index_error);
}

TEST_CASE_TEMPLATE("gather matches a reference loop", T, std::int64_t, float, tl::complex<float>) {
  auto t = random_tensor<T, 3>({4, 5, 6}, 21);
  for (index_t d = 0; d < 3; ++d) {
    // index smaller than t in the other dims, larger along d
    tl::shape_t<3> is{3, 4, 5};
    is[static_cast<std::size_t>(d)] = 8;
    auto idx = random_index<std::int64_t, 3>(is, t.shape()[static_cast<std::size_t>(d)], 30 + static_cast<std::uint64_t>(d));
    auto r = tl::gather(t, d - 3, idx);  // negative dim
    REQUIRE(r.shape() == is);
    for (index_t i = 0; i < is[0]; ++i)
      for (index_t j = 0; j < is[1]; ++j)
        for (index_t k = 0; k < is[2]; ++k) {
          std::array<index_t, 3> s{i, j, k};
          s[static_cast<std::size_t>(d)] = idx(i, j, k);
          CHECK(r(i, j, k) == t(s[0], s[1], s[2]));
        }
  }
}

TEST_CASE("gather: hand-computed example, views, int32, empty, errors") {
  tl::tensor<int, 2> t(tl::shape_t<2>{2, 2});
  t(0, 0) = 1;
  t(0, 1) = 2;
  t(1, 0) = 3;
  t(1, 1) = 4;
  tl::tensor<std::int32_t, 2> idx(tl::shape_t<2>{2, 2});
  idx(0, 0) = 0;
  idx(0, 1) = 0;
  idx(1, 0) = 1;
  idx(1, 1) = 0;
  auto g = tl::gather(t, 1, idx);  // torch doc example: [[1, 1], [4, 3]]
  CHECK(g(0, 0) == 1);
  CHECK(g(0, 1) == 1);
  CHECK(g(1, 0) == 4);
  CHECK(g(1, 1) == 3);
  auto gt = tl::gather(t.t(), 1, idx);  // t.t() = [[1, 3], [2, 4]] -> [[1, 1], [4, 2]]
  CHECK(gt(1, 0) == 4);
  CHECK(gt(1, 1) == 2);
  tl::tensor<std::int64_t, 2> none(tl::shape_t<2>{0, 2});
  CHECK(tl::gather(t, 0, none).shape() == tl::shape_t<2>{0, 2});

  idx(1, 1) = 2;
  CHECK_THROWS_WITH_AS(tl::gather(t, 1, idx), doctest::Contains("tl::gather: index 2 is out of range for dim 1 of extent 2"),
                       tl::index_error);
  tl::tensor<std::int64_t, 2> wide(tl::shape_t<2>{3, 1});
  wide.fill_(0);
  CHECK_THROWS_WITH_AS(tl::gather(t, 1, wide),
                       doctest::Contains("tl::gather: index of shape [3, 1] is larger than the input of shape [2, 2] at dim 0"),
                       tl::shape_error);
  CHECK_THROWS_WITH_AS(tl::gather(t, -3, wide), doctest::Contains("tl::gather: dimension -3 is out of range"),
                       tl::index_error);
}

TEST_CASE_TEMPLATE("scatter and scatter_add match reference loops", T, std::int32_t, double, tl::complex<double>) {
  auto self = random_tensor<T, 2>({5, 4}, 41);
  auto src = random_tensor<T, 2>({4, 6}, 42);
  for (index_t d = 0; d < 2; ++d) {
    const tl::shape_t<2> is{3, d == 0 ? 4 : 3};  // <= src everywhere, <= self off dim d
    auto idx = random_index<std::int64_t, 2>(is, self.shape()[static_cast<std::size_t>(d)], 50 + static_cast<std::uint64_t>(d));
    auto want = self.clone();
    auto want_add = self.clone();
    for (index_t i = 0; i < is[0]; ++i)
      for (index_t j = 0; j < is[1]; ++j) {
        const index_t a = d == 0 ? idx(i, j) : i, b = d == 0 ? j : idx(i, j);
        want(a, b) = src(i, j);
        want_add(a, b) = want_add(a, b) + src(i, j);
      }
    auto r = tl::scatter(self, d, idx, src);
    auto ra = tl::scatter_add(self, d, idx, src);
    for (index_t i = 0; i < 5; ++i)
      for (index_t j = 0; j < 4; ++j) {
        CHECK(r(i, j) == want(i, j));
        CHECK(ra(i, j) == want_add(i, j));
      }
    // out of place leaves self alone; in place matches
    auto copy = self.clone();
    tl::scatter_(copy, d, idx, src);
    auto copy_add = self.clone();
    tl::scatter_add_(copy_add, d, idx, src);
    for (index_t i = 0; i < 5; ++i)
      for (index_t j = 0; j < 4; ++j) {
        CHECK(copy(i, j) == want(i, j));
        CHECK(copy_add(i, j) == want_add(i, j));
      }
  }
}

TEST_CASE("scatter: value form, duplicates, views, conjugate views") {
  tl::tensor<float, 1> zeros(tl::shape_t<1>{5});
  zeros.fill_(0.0f);
  auto labels = idx1<std::int64_t>({1, 3, 1, 1, 4});
  tl::tensor<float, 1> ones(tl::shape_t<1>{5});
  ones.fill_(1.0f);
  auto hist = tl::scatter_add(zeros, 0, labels, ones);
  CHECK(hist(0) == 0.0f);
  CHECK(hist(1) == 3.0f);
  CHECK(hist(3) == 1.0f);
  CHECK(hist(4) == 1.0f);
  auto filled = tl::scatter(zeros, 0, idx1<std::int32_t>({2, 0}), 9);
  CHECK(filled(0) == 9.0f);
  CHECK(filled(1) == 0.0f);
  CHECK(filled(2) == 9.0f);
  // repeated indices: the last write in index order wins
  tl::tensor<float, 1> seq(tl::shape_t<1>{3});
  seq(0) = 1.0f;
  seq(1) = 2.0f;
  seq(2) = 3.0f;
  auto last = tl::scatter(zeros, 0, idx1<std::int64_t>({4, 4, 4}), seq);
  CHECK(last(4) == 3.0f);
  // in place into a transposed view of a matrix
  tl::tensor<int, 2> m(tl::shape_t<2>{2, 3});
  m.fill_(0);
  tl::tensor<std::int64_t, 2> ix(tl::shape_t<2>{1, 2});
  ix(0, 0) = 2;
  ix(0, 1) = 1;
  tl::scatter_(m.t(), 0, ix, 5);  // m.t()[2][0] = 5, m.t()[1][1] = 5
  CHECK(m(0, 2) == 5);
  CHECK(m(1, 1) == 5);
  CHECK(m(0, 0) == 0);
  // a conjugate destination view receives values as seen through the view
  tl::tensor<tl::complex<float>, 1> z(tl::shape_t<1>{2});
  z(0) = {1, 1};
  z(1) = {0, 0};
  tl::tensor<tl::complex<float>, 1> v(tl::shape_t<1>{1});
  v(0) = {2, 5};
  tl::scatter_add_(z.conj(), 0, idx1<std::int64_t>({0}), v);
  CHECK(z.conj().get(0) == tl::complex<float>(3, 4));  // conj(1+1j) + (2+5j)
  CHECK(z(0) == tl::complex<float>(3, -4));
  // empty index: no-op
  tl::tensor<std::int64_t, 1> none(tl::shape_t<1>{0});
  auto same = tl::scatter(seq, 0, none, 1.0f);
  CHECK(same(2) == 3.0f);
}

TEST_CASE("scatter errors leave the destination untouched") {
  tl::tensor<float, 2> self(tl::shape_t<2>{2, 3});
  self.fill_(1.0f);
  tl::tensor<float, 2> src(tl::shape_t<2>{2, 2});
  src.fill_(7.0f);
  tl::tensor<std::int64_t, 2> idx(tl::shape_t<2>{2, 2});
  idx.fill_(0);
  idx(1, 1) = 3;
  CHECK_THROWS_WITH_AS(tl::scatter_(self, 1, idx, src),
                       doctest::Contains("tl::scatter_: index 3 is out of range for dim 1 of extent 3"),
                       tl::index_error);
  CHECK(self(0, 0) == 1.0f);
  idx(1, 1) = -1;
  CHECK_THROWS_WITH_AS(tl::scatter_add(self, 1, idx, src),
                       doctest::Contains("tl::scatter_add: index -1 is out of range for dim 1 of extent 3"),
                       tl::index_error);
  tl::tensor<std::int64_t, 2> big(tl::shape_t<2>{2, 3});
  big.fill_(0);
  CHECK_THROWS_WITH_AS(tl::scatter(self, 0, big, src),
                       doctest::Contains("tl::scatter: index of shape [2, 3] must be no larger than src of shape [2, 2]"),
                       tl::shape_error);
  tl::tensor<std::int64_t, 2> tall(tl::shape_t<2>{3, 1});
  tall.fill_(0);
  CHECK_THROWS_WITH_AS(tl::scatter(self, 1, tall, 2.0f),
                       doctest::Contains("tl::scatter: index of shape [3, 1] must be no larger than self of shape [2, 3] "
                                         "in every dim but dim 1"),
                       tl::shape_error);
  // along dim 0 the index may be longer than self
  tl::tensor<float, 2> src3(tl::shape_t<2>{3, 1});
  src3.fill_(4.0f);
  auto ok = tl::scatter_add(self, 0, tall, src3);
  CHECK(ok(0, 0) == 13.0f);
  CHECK_THROWS_WITH_AS(tl::scatter_add_(self, 2, idx, src), doctest::Contains("tl::scatter_add_: dimension 2 is out of range"),
                       tl::index_error);
  CHECK(self(0, 0) == 1.0f);
}

}  // namespace ops_indexing_test
