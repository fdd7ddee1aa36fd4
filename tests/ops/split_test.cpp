// Tests for tl::split and tl::chunk.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <tl/ops/ops.hpp>

namespace {
using tl::index_t;

tl::tensor<std::int64_t, 2> iota_2d(index_t m, index_t n) {
  tl::tensor<std::int64_t, 2> t(tl::shape_t<2>{m, n});
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) t(i, j) = 10 * i + j;
  return t;
}
}  // namespace

TEST_CASE("split by size returns views, last one smaller") {
  auto t = iota_2d(5, 3);
  auto parts = tl::split(t, 2, 0);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].shape() == tl::shape_t<2>{2, 3});
  CHECK(parts[1].shape() == tl::shape_t<2>{2, 3});
  CHECK(parts[2].shape() == tl::shape_t<2>{1, 3});
  CHECK(parts[1](1, 2) == 32);
  CHECK(parts[2](0, 0) == 40);
  // views: writes go through
  parts[2](0, 1) = -7;
  CHECK(t(4, 1) == -7);
  // negative dim, exact division
  auto cols = tl::split(t, 1, -1);
  REQUIRE(cols.size() == 3);
  CHECK(cols[2].shape() == tl::shape_t<2>{5, 1});
  CHECK(cols[2](3, 0) == 32);
  // split size larger than the extent: one piece
  auto whole = tl::split(t, 10, 0);
  REQUIRE(whole.size() == 1);
  CHECK(whole[0].shape() == t.shape());
  // split of a transposed view
  auto tt = tl::split(t.t(), 2, 1);
  REQUIRE(tt.size() == 3);
  CHECK(tt[1](2, 1) == t(3, 2));
  // an empty dim gives one empty piece (torch)
  tl::tensor<float, 2> e(tl::shape_t<2>{0, 4});
  auto ep = tl::split(e, 2, 0);
  REQUIRE(ep.size() == 1);
  CHECK(ep[0].shape() == tl::shape_t<2>{0, 4});
  CHECK(tl::split(e, 0, 0).size() == 1);
}

TEST_CASE("split by sizes") {
  auto t = iota_2d(2, 5);
  auto parts = tl::split(t, std::vector<index_t>{1, 0, 4}, 1);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].shape() == tl::shape_t<2>{2, 1});
  CHECK(parts[1].shape() == tl::shape_t<2>{2, 0});
  CHECK(parts[2].shape() == tl::shape_t<2>{2, 4});
  CHECK(parts[2](1, 0) == 11);
  CHECK(parts[2](1, 3) == 14);
  CHECK(parts[0](1, 0) == 10);
}

TEST_CASE("split errors") {
  auto t = iota_2d(5, 3);
  CHECK_THROWS_WITH_AS(tl::split(t, -1, 0), doctest::Contains("tl::split: split_size must be non-negative, got -1"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::split(t, 0, 0), doctest::Contains("tl::split: split_size can only be 0 if dim 0 has extent 0"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::split(t, 2, 2), doctest::Contains("tl::split: dimension 2 is out of range"),
                       tl::index_error);
  CHECK_THROWS_WITH_AS(tl::split(t, std::vector<index_t>{2, 2}, 0),
                       doctest::Contains("tl::split: split sizes [2, 2] sum to 4 but dim 0 has extent 5"),
                       tl::shape_error);
  CHECK_THROWS_WITH_AS(tl::split(t, std::vector<index_t>{6, -1}, 0),
                       doctest::Contains("tl::split: split sizes [6, -1] contain the negative size -1"),
                       tl::value_error);
}

TEST_CASE("chunk follows torch's ceil rule") {
  tl::tensor<int, 1> t(tl::shape_t<1>{6});
  for (index_t i = 0; i < 6; ++i) t(i) = static_cast<int>(i);
  auto c4 = tl::chunk(t, 4);  // ceil(6/4) = 2 -> three chunks of 2
  REQUIRE(c4.size() == 3);
  for (auto& c : c4) CHECK(c.shape() == tl::shape_t<1>{2});
  CHECK(c4[2](1) == 5);
  auto c3 = tl::chunk(t, 3);
  REQUIRE(c3.size() == 3);
  auto c5 = tl::chunk(t.narrow(0, 0, 5), 3);  // 5 into 3: 2, 2, 1
  REQUIRE(c5.size() == 3);
  CHECK(c5[2].shape() == tl::shape_t<1>{1});
  CHECK(c5[2](0) == 4);
  auto c10 = tl::chunk(t, 10);  // more chunks than elements: six of 1
  CHECK(c10.size() == 6);
  auto m = iota_2d(3, 4);
  auto cm = tl::chunk(m, 2, -1);
  REQUIRE(cm.size() == 2);
  CHECK(cm[1](2, 1) == 23);
  // empty dim: `chunks` empty pieces (torch)
  tl::tensor<int, 1> e(tl::shape_t<1>{0});
  auto ce = tl::chunk(e, 3);
  CHECK(ce.size() == 3);
  for (auto& c : ce) CHECK(c.numel() == 0);
  CHECK_THROWS_WITH_AS(tl::chunk(t, 0), doctest::Contains("tl::chunk: chunks must be greater than 0, got 0"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::chunk(t, 2, 1), doctest::Contains("tl::chunk: dimension 1 is out of range"),
                       tl::index_error);
}
