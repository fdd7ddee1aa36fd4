// var/std (correction), norm (all orders), logsumexp, cumsum/cumprod, softmax/log_softmax.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include <tl/tensor.hpp>

#include "reduce_test_util.hpp"

using namespace reduce_test;

TEST_CASE_TEMPLATE("var/std against a two-pass long-double reference", T, float, double, tl::complex<double>) {
  const auto x = random_tensor<T, 2>({23, 17}, 41);
  using Rt = tl::real_t<T>;
  for (int d = 0; d < 2; ++d) {
    std::array<bool, 2> mask{};
    mask[d] = true;
    using W = decltype(wide(T{}));
    const auto s = ref_reduce<W>(x.shape(), mask, W(0), [&](const auto& i) { return wide(at(x, i)); },
                                 [](W a, W v, tl::index_t) { return a + v; });
    const long double n = x.shape()[d];
    std::vector<W> mean(s.size());
    for (std::size_t o = 0; o < s.size(); ++o) mean[o] = s[o] / n;
    std::vector<long double> ss(s.size(), 0);
    for (tl::index_t i = 0; i < 23; ++i)
      for (tl::index_t j = 0; j < 17; ++j) {
        const auto dv = wide(x.get(i, j)) - mean[d == 0 ? j : i];
        ss[d == 0 ? j : i] += std::norm(std::complex<long double>(dv));
      }
    const auto v = tl::var(x, d);
    const auto sd = tl::std(x, d, tl::keepdim, tl::correction{0});
    static_assert(std::is_same_v<typename decltype(v)::value_type, Rt>);
    for (std::size_t o = 0; o < s.size(); ++o) {
      CHECK(close(v(static_cast<tl::index_t>(o)), ss[o] / (n - 1), tol_for<T>() * 10));
      CHECK(close(flat(sd, static_cast<tl::index_t>(o)), std::sqrt(ss[o] / n), tol_for<T>() * 10));
    }
  }
  CHECK(close(tl::var(x, tl::correction{2}).item(), wide(tl::var(x).item()) * 390 / 389, tol_for<T>() * 10));
}

TEST_CASE("var/std: corrections past the count and single elements") {
  tl::tensor<double, 1> one(tl::shape_t<1>{1});
  one(0) = 3;
  CHECK(std::isnan(tl::var(one).item()));  // 0 / 0
  CHECK(tl::var(one, tl::correction{0}).item() == 0.0);
  tl::tensor<double, 1> two(tl::shape_t<1>{2});
  two(0) = 1;
  two(1) = 2;
  CHECK(tl::var(two).item() == 0.5);
  CHECK(tl::var(two, 0, tl::correction{3}).item() == std::numeric_limits<double>::infinity());  // divisor clamped to 0
  tl::tensor<float, 2> e(tl::shape_t<2>{0, 2});
  CHECK(std::isnan(tl::var(e).item()));
  CHECK_THROWS_WITH_AS(tl::std(e, 2), doctest::Contains("tl::std: dimension 2"), tl::index_error);
}

TEST_CASE_TEMPLATE("norm: every order against reference loops", T, float, double, tl::complex<float>) {
  const auto x = random_tensor<T, 2>({9, 33}, 51);
  using Rt = tl::real_t<T>;
  const double inf = std::numeric_limits<double>::infinity();
  for (double p : {2.0, 1.0, inf, -inf, 0.0, 3.0, 0.5, -1.5}) {
    std::vector<long double> ref(9, 0);
    for (tl::index_t i = 0; i < 9; ++i) {
      long double acc = p == inf ? 0 : (p == -inf ? INFINITY : 0);
      for (tl::index_t j = 0; j < 33; ++j) {
        const long double a = std::abs(std::complex<long double>(wide(x(i, j))));
        if (p == inf) acc = std::max(acc, a);
        else if (p == -inf) acc = std::min(acc, a);
        else if (p == 0) acc += a != 0;
        else acc += std::pow(a, static_cast<long double>(p));
      }
      ref[i] = (std::isinf(p) || p == 0) ? acc : std::pow(acc, 1 / static_cast<long double>(p));
    }
    const auto n = tl::norm(x, p, 1);
    static_assert(std::is_same_v<typename decltype(n)::value_type, Rt>);
    for (tl::index_t i = 0; i < 9; ++i) CHECK(close(n(i), ref[i], tol_for<T>() * 10));
  }
  long double s = 0;
  for (tl::index_t k = 0; k < x.numel(); ++k) s += std::norm(std::complex<long double>(wide(flat(x, k))));
  CHECK(close(tl::norm(x).item(), std::sqrt(s), tol_for<T>()));
  CHECK(close(tl::norm(x.t(), 2, tl::dims{0, 1}, tl::keepdim)(0, 0), std::sqrt(s), tol_for<T>()));
}

TEST_CASE("norm: empty inputs") {
  tl::tensor<float, 1> e(tl::shape_t<1>{0});
  CHECK(tl::norm(e).item() == 0.0f);
  CHECK(tl::norm(e, 1).item() == 0.0f);
  CHECK_THROWS_WITH_AS(tl::norm(e, std::numeric_limits<double>::infinity()),
                       doctest::Contains("tl::norm: cannot reduce over zero elements"), tl::value_error);
  CHECK_THROWS_WITH_AS(tl::norm(e, std::nan("")), doctest::Contains("tl::norm: the order p must not be NaN"),
                       tl::value_error);
}

TEST_CASE("logsumexp: stability and infinities") {
  tl::tensor<double, 2> x(tl::shape_t<2>{3, 4});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) x(i, j) = 1000.0 + j;
  auto l = tl::logsumexp(x, 1);
  const long double ref = 1000 + std::log(1 + std::exp(1.0L) + std::exp(2.0L) + std::exp(3.0L));
  CHECK(close(l(0), ref, 1e-12L));
  CHECK(close(tl::logsumexp(x, 0)(3), 1003 + std::log(3.0L), 1e-12L));
  CHECK(close(tl::logsumexp(x).item(), ref + std::log(3.0L), 1e-12L));
  const double inf = std::numeric_limits<double>::infinity();
  for (int j = 0; j < 4; ++j) x(1, j) = -inf;
  x(2, 0) = inf;
  auto l2 = tl::logsumexp(x, 1, tl::keepdim);
  CHECK(l2(1, 0) == -inf);
  CHECK(l2(2, 0) == inf);
  x(0, 2) = std::nan("");
  CHECK(std::isnan(tl::logsumexp(x, 1)(0)));
  tl::tensor<float, 2> e(tl::shape_t<2>{2, 0});
  CHECK(tl::logsumexp(e, 1)(0) == -std::numeric_limits<float>::infinity());
  CHECK_THROWS_WITH_AS(tl::logsumexp(e, 7), doctest::Contains("tl::logsumexp: dimension 7"), tl::index_error);
}

TEST_CASE_TEMPLATE("cumsum/cumprod along every dim", T, double, std::int32_t) {
  const auto x = random_tensor<T, 3>({4, 5, 6}, 61);
  using S = tl::detail::sum_type_t<T>;
  for (int d = 0; d < 3; ++d) {
    const auto cs = tl::cumsum(x, d);
    const auto cp = tl::cumprod(x.permute(2, 0, 1), d - 3);
    static_assert(std::is_same_v<typename decltype(cs)::value_type, S>);
    const auto xp = x.permute(2, 0, 1);
    for (tl::index_t i = 0; i < 4; ++i)
      for (tl::index_t j = 0; j < 5; ++j)
        for (tl::index_t k = 0; k < 6; ++k) {
          std::array<tl::index_t, 3> idx{i, j, k};
          long double s = 0;
          for (tl::index_t t = 0; t <= idx[d]; ++t) {
            auto q = idx;
            q[d] = t;
            s += wide(at(x, q));
          }
          CHECK(close(cs(i, j, k), s, tol_for<double>()));
          std::array<tl::index_t, 3> pidx{k, i, j};
          if (pidx[d] >= 3) continue;
          long double p = 1;
          for (tl::index_t t = 0; t <= pidx[d]; ++t) {
            auto q = pidx;
            q[d] = t;
            p *= wide(at(xp, q));
          }
          CHECK(close(at(cp, pidx), p, tol_for<double>()));
        }
  }
  CHECK_THROWS_WITH_AS(tl::cumsum(x, 3), doctest::Contains("tl::cumsum: dimension 3"), tl::index_error);
  CHECK_THROWS_WITH_AS(tl::cumprod(x, -4), doctest::Contains("tl::cumprod: dimension -4"), tl::index_error);
}

TEST_CASE("cumsum: bool gives int64, empty stays empty, expressions are consumed") {
  tl::tensor<bool, 1> b(tl::shape_t<1>{4});
  for (int i = 0; i < 4; ++i) b(i) = i != 1;
  auto c = tl::cumsum(b, 0);
  static_assert(std::is_same_v<decltype(c), tl::tensor<std::int64_t, 1>>);
  CHECK(c(3) == 3);
  tl::tensor<float, 2> e(tl::shape_t<2>{0, 3});
  CHECK(tl::cumsum(e, 1).shape() == tl::shape_t<2>{0, 3});
  tl::tensor<float, 1> a(tl::shape_t<1>{3});
  a(0) = 1;
  a(1) = 2;
  a(2) = 3;
  auto cc = tl::cumsum(a * a, 0);
  CHECK(cc(2) == 14.0f);
}

TEST_CASE_TEMPLATE("softmax/log_softmax against reference loops", T, float, double) {
  const auto x = random_tensor<T, 3>({3, 37, 45}, 71);
  for (int d = -3; d < 3; ++d) {
    const std::size_t dd = static_cast<std::size_t>(d < 0 ? d + 3 : d);
    const auto sm = tl::softmax(x * T(4), d);
    const auto ls = tl::log_softmax(x * T(4), d);
    for (tl::index_t i = 0; i < 3; ++i)
      for (tl::index_t j = 0; j < 37; j += 5)
        for (tl::index_t k = 0; k < 45; k += 4) {
          std::array<tl::index_t, 3> idx{i, j, k};
          long double den = 0;
          for (tl::index_t t = 0; t < x.shape()[dd]; ++t) {
            auto q = idx;
            q[dd] = t;
            den += std::exp(4 * wide(at(x, q)));
          }
          const long double ref = std::exp(4 * wide(at(x, idx))) / den;
          CHECK(close(sm(i, j, k), ref, tol_for<T>() * 10));
          CHECK(close(ls(i, j, k), std::log(ref), tol_for<T>() * 10));
        }
  }
  // Rows sum to 1 along the last dim, through a transposed view.
  const auto st = tl::softmax(x.transpose(1, 2), -1);
  const auto rs = tl::sum(st, -1);
  for (tl::index_t k = 0; k < rs.numel(); ++k) CHECK(close(flat(rs, k), 1.0L, tol_for<T>() * 10));
}

TEST_CASE("softmax: large values, -inf rows and errors") {
  tl::tensor<float, 2> x(tl::shape_t<2>{2, 20});
  for (int j = 0; j < 20; ++j) {
    x(0, j) = 1e4f + float(j == 3);
    x(1, j) = -std::numeric_limits<float>::infinity();
  }
  for (int dim : {1, -1}) {
    auto s = tl::softmax(x, dim);
    CHECK(close(s(0, 3), std::exp(1.0L) / (19 + std::exp(1.0L)), 1e-5L));
    CHECK(std::isnan(s(1, 0)));
    CHECK(std::isnan(s(1, 19)));
  }
  auto s0 = tl::softmax(x.t(), 0);  // other-dim path
  CHECK(close(s0(3, 0), std::exp(1.0L) / (19 + std::exp(1.0L)), 1e-5L));
  CHECK(std::isnan(s0(5, 1)));
  auto l = tl::log_softmax(x, 1);
  CHECK(close(l(0, 0), -std::log(19 + std::exp(1.0L)), 1e-5L));
  CHECK_THROWS_WITH_AS(tl::softmax(x, 2), doctest::Contains("tl::softmax: dimension 2"), tl::index_error);
  CHECK_THROWS_WITH_AS(tl::log_softmax(x, -3), doctest::Contains("tl::log_softmax: dimension -3"), tl::index_error);
}
