// Reductions with tl::keepdim are expressions: consumed by an assignment they are fused into its
// rows (the last dim reduced) or computed by the reduction kernel (any other case). Both must give
// the eager reduction's values bit for bit, whatever the layout, aliasing, thread count or size.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <tl/tensor.hpp>

#include "reduce_test_util.hpp"

using namespace reduce_test;

namespace {
/// y(i, j) == x(i, j) - m(i) exactly, for every element (m: the eager reduction over the last dim).
template <class T>
bool rows_minus(const tl::tensor<T, 2>& y, const tl::tensor<T, 2>& x, const tl::tensor<T, 1>& m) {
  if (y.shape() != x.shape()) return false;
  for (tl::index_t i = 0; i < x.shape()[0]; ++i)
    for (tl::index_t j = 0; j < x.shape()[1]; ++j) {
      const T want = x(i, j) - m(i);
      const T got = y(i, j);
      if (!(got == want || (std::isnan(got) && std::isnan(want)))) return false;
    }
  return true;
}
}  // namespace

TEST_CASE("keepdim: a reduction with tl::keepdim is an expression of the input's rank") {
  const auto x = random_tensor<double, 2>({6, 9}, 3);
  auto m = tl::mean(x, -1, tl::keepdim);
  static_assert(tl::expression<decltype(m)>);
  static_assert(decltype(m)::rank == 2);
  CHECK(m.shape() == tl::shape_t<2>{6, 1});
  const tl::tensor<double, 1> eager = tl::mean(x, -1);
  CHECK(m(4, 0) == eager(4));
  // Like any expression it reads its input when evaluated; a tensor keeps the values.
  tl::tensor<double, 2> kept = m;
  x.fill_(2.0);
  tl::tensor<double, 2> now = m;
  CHECK(kept(4, 0) == eager(4));
  CHECK(now(4, 0) == 2.0);
  CHECK(tl::eval(m).shape() == tl::shape_t<2>{6, 1});
}

TEST_CASE_TEMPLATE("keepdim: x - mean(x, -1, keepdim) fused equals the eager reduction bit for bit", T, float,
                   double) {
  // 37: below one packet of rows; 4100: a few packets and a tail; 40000: three pairwise chunks,
  // still fused; 70000: longer than fused rows, computed by the kernel.
  for (tl::index_t cols : {1, 37, 4100, 40000, 70000}) {
    CAPTURE(cols);
    const auto x = random_tensor<T, 2>({5, cols}, 7 + static_cast<std::uint64_t>(cols));
    const tl::tensor<T, 1> m = tl::mean(x, -1);
    tl::tensor<T, 2> y = x - tl::mean(x, -1, tl::keepdim);
    CHECK(rows_minus(y, x, m));
    // Against a long-double reference of the mean.
    for (tl::index_t i = 0; i < 5; ++i) {
      long double s = 0;
      for (tl::index_t j = 0; j < cols; ++j) s += x(i, j);
      CHECK(close(static_cast<long double>(m(i)), s / static_cast<long double>(cols), tol_for<T>()));
    }
    // In place: each row's mean is taken before the row is overwritten.
    auto z = x.clone();
    z -= tl::mean(z, -1, tl::keepdim);
    CHECK(rows_minus(z, x, m));
    auto w = x.clone();
    w = w - tl::mean(w, -1, tl::keepdim);
    CHECK(rows_minus(w, x, m));
  }
}

TEST_CASE("keepdim: sum, prod, amax, amin, argmax, argmin, all_of, any_of, count_nonzero over the last dim") {
  const auto x = random_tensor<float, 3>({4, 3, 50}, 11);
  const tl::tensor<float, 3> s = tl::sum(x, -1, tl::keepdim) + 0 * x;
  const tl::tensor<float, 3> p = x / tl::prod(x, 2, tl::keepdim);
  const tl::tensor<float, 3> hi = tl::amax(x, -1, tl::keepdim) - x;
  const tl::tensor<float, 3> lo = x - tl::amin(x, -1, tl::keepdim);
  const tl::tensor<std::int64_t, 3> am = tl::argmax(x, -1, tl::keepdim) + 0 * tl::astype<std::int64_t>(x);
  const tl::tensor<std::int64_t, 3> an = tl::argmin(x, -1, tl::keepdim) - 0 * tl::astype<std::int64_t>(x);
  const tl::tensor<bool, 3> all = tl::logical_and(tl::all_of(x > -2, -1, tl::keepdim), x > -2);
  const tl::tensor<bool, 3> any = tl::logical_or(tl::any_of(x > 0.99f, -1, tl::keepdim), x > 2);
  const tl::tensor<std::int64_t, 3> cnt = tl::count_nonzero(x > 0, -1, tl::keepdim) + 0 * tl::astype<std::int64_t>(x);
  const tl::tensor<float, 2> es = tl::sum(x, -1), ep = tl::prod(x, -1), ehi = tl::amax(x, -1), elo = tl::amin(x, -1);
  const tl::tensor<std::int64_t, 2> eam = tl::argmax(x, -1), ean = tl::argmin(x, -1), ecnt = tl::count_nonzero(x > 0, -1);
  const tl::tensor<bool, 2> eany = tl::any_of(x > 0.99f, -1);
  bool ok = true;
  for (tl::index_t a = 0; a < 4; ++a)
    for (tl::index_t b = 0; b < 3; ++b)
      for (tl::index_t c = 0; c < 50; ++c) {
        const float v = x(a, b, c);
        ok = ok && s(a, b, c) == es(a, b) && p(a, b, c) == v / ep(a, b) && hi(a, b, c) == ehi(a, b) - v &&
             lo(a, b, c) == v - elo(a, b) && am(a, b, c) == eam(a, b) && an(a, b, c) == ean(a, b) &&
             all(a, b, c) && any(a, b, c) == eany(a, b) && cnt(a, b, c) == ecnt(a, b);
      }
  CHECK(ok);
}

TEST_CASE("keepdim: reductions over other dims, broadcast outer dims and overlapping views") {
  const auto x = random_tensor<double, 2>({7, 8}, 5);
  // Over dim 0: one output per column, computed by the kernel first.
  tl::tensor<double, 2> c = x - tl::mean(x, 0, tl::keepdim);
  const tl::tensor<double, 1> m0 = tl::mean(x, 0);
  bool ok = true;
  for (tl::index_t i = 0; i < 7; ++i)
    for (tl::index_t j = 0; j < 8; ++j) ok = ok && c(i, j) == x(i, j) - m0(j);
  CHECK(ok);
  // Every dim kept.
  tl::tensor<double, 2> g = x - tl::sum(x, tl::keepdim);
  CHECK(g(3, 4) == x(3, 4) - tl::sum(x).item());
  // The reduction broadcast over a leading dim of the destination: several rows share an output.
  const auto z = random_tensor<double, 3>({3, 7, 8}, 9);
  tl::tensor<double, 3> b = z - tl::mean(x, -1, tl::keepdim);
  const tl::tensor<double, 1> m1 = tl::mean(x, -1);
  ok = true;
  for (tl::index_t k = 0; k < 3; ++k)
    for (tl::index_t i = 0; i < 7; ++i)
      for (tl::index_t j = 0; j < 8; ++j) ok = ok && b(k, i, j) == z(k, i, j) - m1(i);
  CHECK(ok);
  // The destination is the transpose of the reduced tensor: rows of the output read columns of
  // the destination, so the evaluation must not overwrite them first.
  auto sq = random_tensor<double, 2>({8, 8}, 13);
  const auto before = sq.clone();
  const tl::tensor<double, 1> msq = tl::mean(before, -1);
  sq.t() = sq - tl::mean(sq, -1, tl::keepdim);
  ok = true;
  for (tl::index_t i = 0; i < 8; ++i)
    for (tl::index_t j = 0; j < 8; ++j) ok = ok && sq(j, i) == before(i, j) - msq(i);
  CHECK(ok);
  // A strided input (every other column).
  const auto wide_x = random_tensor<float, 2>({6, 40}, 17);
  const auto half = wide_x.slice(1, 0, 40, 2);
  tl::tensor<float, 2> h = half - tl::mean(half, -1, tl::keepdim);
  CHECK(rows_minus(h, tl::tensor<float, 2>(half), tl::tensor<float, 1>(tl::mean(half, -1))));
}

TEST_CASE("keepdim: NaN, infinities, empty tensors and size-1 dims") {
  tl::tensor<double, 2> x(tl::shape_t<2>{3, 4});
  x.fill_(1.0);
  x(1, 2) = std::numeric_limits<double>::quiet_NaN();
  x(2, 0) = std::numeric_limits<double>::infinity();
  tl::tensor<double, 2> y = x - tl::mean(x, -1, tl::keepdim);
  CHECK(y(0, 0) == 0.0);
  for (tl::index_t j = 0; j < 4; ++j) CHECK(std::isnan(y(1, j)));
  CHECK(std::isnan(y(2, 0)));  // inf - inf
  CHECK(y(2, 1) == -std::numeric_limits<double>::infinity());
  tl::tensor<double, 2> mx = tl::amax(x, -1, tl::keepdim) + 0 * x;
  CHECK(std::isnan(mx(1, 3)));
  CHECK(mx(2, 3) == std::numeric_limits<double>::infinity());
  // Rows of zero elements: the mean is NaN, the sum 0, amax has no identity.
  tl::tensor<double, 2> e(tl::shape_t<2>{3, 0});
  tl::tensor<double, 2> em = tl::mean(e, -1, tl::keepdim);
  CHECK(em.shape() == tl::shape_t<2>{3, 1});
  CHECK(std::isnan(em(2, 0)));
  tl::tensor<double, 2> es = tl::sum(e, -1, tl::keepdim) + tl::zeros<double>(3, 2);
  CHECK(es(1, 1) == 0.0);
  tl::tensor<double, 2> ee = e - tl::mean(e, -1, tl::keepdim);
  CHECK(ee.numel() == 0);
  CHECK_THROWS_AS(tl::amax(e, -1, tl::keepdim), tl::value_error);
  tl::tensor<double, 2> none(tl::shape_t<2>{0, 5});
  tl::tensor<double, 2> n2 = none - tl::mean(none, -1, tl::keepdim);
  CHECK(n2.shape() == tl::shape_t<2>{0, 5});
  // Size-1 dims: the mean of one element is the element.
  const auto col = random_tensor<double, 2>({5, 1}, 2);
  tl::tensor<double, 2> c0 = col - tl::mean(col, -1, tl::keepdim);
  CHECK(tl::sum(tl::abs(c0)).item() == 0.0);
  // Bad dims and shapes still throw when the reduction is built or assigned.
  CHECK_THROWS_AS(tl::mean(x, 2, tl::keepdim), tl::index_error);
  tl::tensor<double, 2> wrong(tl::shape_t<2>{4, 4});
  CHECK_THROWS_AS(wrong += x - tl::mean(x, -1, tl::keepdim), tl::shape_error);
}

TEST_CASE("keepdim: the fused evaluation gives the same bits with 1 and 2 threads") {
  const auto x = random_tensor<float, 2>({300, 3000}, 21);
  const int saved = tl::get_num_threads();
  tl::set_num_threads(1);
  const tl::tensor<float, 2> a = x / tl::sum(x * x, -1, tl::keepdim);
  tl::set_num_threads(2);
  const tl::tensor<float, 2> b = x / tl::sum(x * x, -1, tl::keepdim);
  tl::set_num_threads(saved);
  CHECK(std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.numel())) == 0);
  const tl::tensor<float, 1> s = tl::sum(x * x, -1);
  bool ok = true;
  for (tl::index_t i = 0; i < 300; ++i) ok = ok && a(i, 7) == x(i, 7) / s(i);
  CHECK(ok);
}
