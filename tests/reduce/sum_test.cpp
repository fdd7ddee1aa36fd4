// sum, mean, prod: values against long-double reference loops, dim variants, layouts, edge cases,
// pairwise accuracy and thread-count bit-identity.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include <tl/tensor.hpp>

#include "reduce_test_util.hpp"

using namespace reduce_test;
using cld = std::complex<long double>;

namespace {
template <class T>
using wide_t = decltype(wide(T{}));

template <class T, std::size_t R, std::size_t RO>
void check_sum_against_ref(const tl::tensor<T, R>& x, const tl::tensor<tl::detail::sum_type_t<T>, RO>& got,
                           const std::array<bool, R>& mask) {
  using W = wide_t<T>;
  const auto ref = ref_reduce<W>(x.shape(), mask, W(0), [&](const auto& i) { return wide(at(x, i)); },
                                 [](W a, W v, tl::index_t) { return a + v; });
  REQUIRE(static_cast<std::size_t>(got.numel()) == ref.size());
  for (std::size_t o = 0; o < ref.size(); ++o) CHECK(close(flat(got, static_cast<tl::index_t>(o)), ref[o], tol_for<T>()));
}
}  // namespace

TEST_CASE_TEMPLATE("sum: full and per-dim against a long-double reference", T, float, double,
                   std::int64_t, tl::complex<float>, tl::complex<double>) {
  const auto x = random_tensor<T, 3>({5, 37, 19}, 11);
  using S = tl::detail::sum_type_t<T>;
  check_sum_against_ref<T, 3, 0>(x, tl::sum(x), {true, true, true});
  check_sum_against_ref<T, 3, 2>(x, tl::sum(x, 0), {true, false, false});
  check_sum_against_ref<T, 3, 2>(x, tl::sum(x, 1), {false, true, false});
  check_sum_against_ref<T, 3, 2>(x, tl::sum(x, -1), {false, false, true});
  check_sum_against_ref<T, 3, 1>(x, tl::sum(x, tl::dims{0, 2}), {true, false, true});
  check_sum_against_ref<T, 3, 1>(x, tl::sum(x, tl::dims{-1, -2}), {false, true, true});
  check_sum_against_ref<T, 3, 1>(x, tl::sum(x, std::array<tl::index_t, 2>{0, 1}), {true, true, false});
  // keepdim gives the same values with extent-1 dims.
  tl::tensor<S, 3> k = tl::sum(x, 1, tl::keepdim);
  CHECK(k.shape() == tl::shape_t<3>{5, 1, 19});
  check_sum_against_ref<T, 3, 3>(x, k, {false, true, false});
  tl::tensor<S, 3> k2 = tl::sum(x, tl::dims{0, 2}, tl::keepdim);
  CHECK(k2.shape() == tl::shape_t<3>{1, 37, 1});
  tl::tensor<S, 3> k3 = tl::sum(x, tl::keepdim);
  CHECK(k3.shape() == tl::shape_t<3>{1, 1, 1});
  CHECK(close(k3(0, 0, 0), wide(tl::sum(x).item()), tol_for<T>()));
  static_assert(std::is_same_v<typename decltype(tl::sum(x))::value_type, S>);
}

TEST_CASE("sum: dtype rules") {
  tl::tensor<bool, 1> b(tl::shape_t<1>{5});
  for (int i = 0; i < 5; ++i) b(i) = i % 2 == 0;
  auto s = tl::sum(b);
  static_assert(std::is_same_v<decltype(s), tl::tensor<std::int64_t, 0>>);
  CHECK(s.item() == 3);
  tl::tensor<std::int32_t, 1> i32(tl::shape_t<1>{3});
  i32(0) = 2000000000;
  i32(1) = 2000000000;
  i32(2) = 1;
  auto si = tl::sum(i32);
  static_assert(std::is_same_v<decltype(si)::value_type, std::int64_t>);
  CHECK(si.item() == 4000000001LL);  // no int32 overflow
  auto p = tl::prod(i32);
  static_assert(std::is_same_v<decltype(p)::value_type, std::int64_t>);
  CHECK(p.item() == 4000000000000000000LL);
}

TEST_CASE_TEMPLATE("sum: non-contiguous inputs and fused expressions", T, float, double, std::int64_t) {
  const auto a = random_tensor<T, 2>({41, 29}, 3);
  const auto row = random_tensor<T, 1>({29}, 4);
  const auto at = a.t();  // [29, 41], strided
  check_sum_against_ref<T, 2, 1>(at, tl::sum(at, 0), {true, false});
  check_sum_against_ref<T, 2, 1>(at, tl::sum(at, 1), {false, true});
  check_sum_against_ref<T, 2, 0>(at, tl::sum(at), {true, true});
  const auto sl = a.slice(0, 1, 40, 3).slice(1, 2, 27, 2);
  check_sum_against_ref<T, 2, 1>(sl, tl::sum(sl, 0), {true, false});
  check_sum_against_ref<T, 2, 1>(sl, tl::sum(sl, 1), {false, true});
  const auto fl = a.flip(1);
  check_sum_against_ref<T, 2, 1>(fl, tl::sum(fl, 1), {false, true});
  // sum(a + b_row) and sum(a * b) consume the expression.
  tl::tensor<T, 2> e = a + row;
  check_sum_against_ref<T, 2, 1>(e, tl::sum(a + row, 0), {true, false});
  check_sum_against_ref<T, 2, 1>(e, tl::sum(a + row, 1), {false, true});
  check_sum_against_ref<T, 2, 0>(e, tl::sum(a + row), {true, true});
  tl::tensor<T, 2> m = a * at.t();
  check_sum_against_ref<T, 2, 0>(m, tl::sum(a * at.t()), {true, true});
  // Broadcast leaf inside a column reduction: the row vector reduced over the broadcast dim.
  auto bc = tl::sum(row + a * T(0), 0);
  for (tl::index_t j = 0; j < 29; ++j) CHECK(close(bc(j), wide(row(j)) * 41, tol_for<T>()));
}

TEST_CASE("sum: large column and row reductions (tiles, blocks, several chunks)") {
  const auto a = random_tensor<float, 2>({700, 4100}, 21);
  check_sum_against_ref<float, 2, 1>(a, tl::sum(a, 0), {true, false});
  check_sum_against_ref<float, 2, 1>(a, tl::sum(a, 1), {false, true});
  const auto b = random_tensor<double, 2>({3, 100003}, 22);
  check_sum_against_ref<double, 2, 1>(b, tl::sum(b, 1), {false, true});
  check_sum_against_ref<double, 2, 1>(b.t(), tl::sum(b.t(), 0), {true, false});
  const auto c = random_tensor<float, 2>({60000, 3}, 23);
  check_sum_against_ref<float, 2, 1>(c, tl::sum(c, 0), {true, false});
}

TEST_CASE("sum: pairwise accuracy on 1e7 values of 0.1f") {
  const tl::index_t n = 10000000;
  tl::tensor<float, 1> x(tl::shape_t<1>{n});
  for (tl::index_t i = 0; i < n; ++i) x(i) = 0.1f;
  const long double ref = static_cast<long double>(0.1f) * n;
  // Naive float accumulation is off by several percent here.
  float naive = 0;
  for (tl::index_t i = 0; i < n; ++i) naive += x(i);
  CHECK(std::fabs(static_cast<long double>(naive) - ref) / ref > 1e-3L);
  const float s = tl::sum(x).item();
  CHECK(std::fabs(static_cast<long double>(s) - ref) / ref < 1e-6L);
  // Also as a column reduction and through a strided view.
  auto col = tl::sum(x.view(tl::shape_t<2>{n / 2, 2}), 0);
  CHECK(std::fabs(static_cast<long double>(col(0)) - ref / 2) / (ref / 2) < 1e-6L);
  auto strided = tl::sum(x.slice(0, 0, n, 2));
  CHECK(std::fabs(static_cast<long double>(strided.item()) - ref / 2) / (ref / 2) < 1e-6L);
}

TEST_CASE("sum: bit-identical for 1 and 2 threads") {
  const auto a = random_tensor<float, 2>({1500, 1300}, 5);
  const auto big = random_tensor<float, 1>({3000001}, 6);
  const int saved = tl::get_num_threads();
  auto run = [&] {
    std::vector<float> r;
    r.push_back(tl::sum(a).item());
    r.push_back(tl::sum(big).item());
    r.push_back(tl::sum(big * big).item());
    r.push_back(tl::mean(a.t()).item());
    r.push_back(tl::sum(a.slice(1, 0, 1300, 2)).item());
    auto c = tl::sum(a, 0);
    auto rw = tl::sum(a, 1);
    for (tl::index_t j = 0; j < c.numel(); ++j) r.push_back(c(j));
    for (tl::index_t j = 0; j < rw.numel(); ++j) r.push_back(rw(j));
    auto cb = tl::sum(big.view(tl::shape_t<2>{3000001, 1}), 0);
    r.push_back(cb(0));
    return r;
  };
  tl::set_num_threads(1);
  const auto one = run();
  tl::set_num_threads(2);
  const auto two = run();
  tl::set_num_threads(saved);
  REQUIRE(one.size() == two.size());
  CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)) == 0);
}

TEST_CASE("sum/mean/prod: empty tensors and size-1 dims") {
  tl::tensor<float, 2> e(tl::shape_t<2>{0, 3});
  CHECK(tl::sum(e).item() == 0.0f);
  CHECK(tl::prod(e).item() == 1.0f);
  CHECK(std::isnan(tl::mean(e).item()));
  auto s0 = tl::sum(e, 0);
  CHECK(s0.shape() == tl::shape_t<1>{3});
  CHECK(s0(0) == 0.0f);
  CHECK(tl::prod(e, 0)(2) == 1.0f);
  CHECK(std::isnan(tl::mean(e, 0)(1)));
  auto s1 = tl::sum(e, 1);
  CHECK(s1.shape() == tl::shape_t<1>{0});
  tl::tensor<double, 3> one(tl::shape_t<3>{1, 4, 1});
  for (int j = 0; j < 4; ++j) one(0, j, 0) = j + 0.5;
  auto r = tl::sum(one, tl::dims{0, 2});
  CHECK(r.shape() == tl::shape_t<1>{4});
  CHECK(r(3) == 3.5);
  CHECK(tl::sum(one, 1)(0, 0) == 8.0);
  tl::tensor<double, 0> scalar(tl::shape_t<0>{});
  scalar.data()[0] = 2.5;
  CHECK(tl::sum(scalar).item() == 2.5);
}

TEST_CASE("sum/mean/prod: NaN and inf propagate") {
  tl::tensor<float, 2> x(tl::shape_t<2>{2, 3});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) x(i, j) = float(i + j);
  x(1, 1) = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(tl::sum(x).item()));
  CHECK(std::isnan(tl::mean(x).item()));
  CHECK(std::isnan(tl::prod(x).item()));
  auto r = tl::sum(x, 1);
  CHECK(r(0) == 3.0f);
  CHECK(std::isnan(r(1)));
  auto c = tl::mean(x, 0);
  CHECK(std::isnan(c(1)));
  CHECK(c(2) == 2.5f);
  x(1, 1) = std::numeric_limits<float>::infinity();
  x(0, 1) = -std::numeric_limits<float>::infinity();
  CHECK(std::isnan(tl::sum(x).item()));
  CHECK(tl::sum(x, 1)(1) == std::numeric_limits<float>::infinity());
}

TEST_CASE_TEMPLATE("mean and prod against a long-double reference", T, float, double, tl::complex<double>) {
  const auto x = random_tensor<T, 3>({4, 9, 6}, 31);
  using W = wide_t<T>;
  for (int d = 0; d < 3; ++d) {
    std::array<bool, 3> mask{};
    mask[d] = true;
    const auto s = ref_reduce<W>(x.shape(), mask, W(0), [&](const auto& i) { return wide(at(x, i)); },
                                 [](W a, W v, tl::index_t) { return a + v; });
    const auto p = ref_reduce<W>(x.shape(), mask, W(1), [&](const auto& i) { return wide(at(x, i)); },
                                 [](W a, W v, tl::index_t) { return a * v; });
    const auto m = tl::mean(x, d);
    const auto pr = tl::prod(x, d);
    const long double n = static_cast<long double>(x.shape()[d]);
    for (std::size_t o = 0; o < s.size(); ++o) {
      CHECK(close(flat(m, static_cast<tl::index_t>(o)), s[o] / n, tol_for<T>()));
      CHECK(close(flat(pr, static_cast<tl::index_t>(o)), p[o], tol_for<T>()));
    }
  }
  // Lazy conjugate views are honoured.
  if constexpr (tl::is_complex_v<T>) {
    const auto c = tl::sum(x.conj()).item();
    const auto ref = tl::sum(x).item();
    CHECK(c.re == doctest::Approx(ref.re));
    CHECK(c.im == doctest::Approx(-ref.im));
  }
}

TEST_CASE("sum: bad dims throw index_error naming the op") {
  const auto x = random_tensor<float, 2>({2, 3}, 1);
  CHECK_THROWS_WITH_AS(tl::sum(x, 2), doctest::Contains("tl::sum: dimension 2 is out of range"), tl::index_error);
  CHECK_THROWS_WITH_AS(tl::sum(x, -3), doctest::Contains("tl::sum: dimension -3"), tl::index_error);
  CHECK_THROWS_WITH_AS(tl::sum(x, tl::dims{1, -1}), doctest::Contains("tl::sum: dim 1 appears multiple times"),
                       tl::index_error);
  CHECK_THROWS_WITH_AS(tl::mean(x, tl::dims{0, 0}), doctest::Contains("tl::mean: dim 0 appears multiple times"),
                       tl::index_error);
  CHECK_THROWS_WITH_AS(tl::prod(x, 5, tl::keepdim), doctest::Contains("tl::prod: dimension 5"), tl::index_error);
}
