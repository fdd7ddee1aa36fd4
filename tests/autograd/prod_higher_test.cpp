// Higher derivatives (create_graph) through prod and cumprod, with and without zeros in the input.
#define TL_AUTOGRAD 2
#include <doctest/doctest.h>

#include <cstddef>
#include <initializer_list>
#include <utility>
#include <vector>

#include <tl/tensor.hpp>

namespace prod_higher_test {

namespace ag = tl::autograd;
using C = tl::complex<double>;
using X0 = tl::tensor<double, 0>;
using X1 = tl::tensor<double, 1>;
using X2 = tl::tensor<double, 2>;
using X3 = tl::tensor<double, 3>;
using Z2 = tl::tensor<C, 2>;

/// Nonzero values, none of them +-1 (so that a wrong power of a factor shows).
inline double nonzero(std::size_t i) {
  const double v = 0.55 + 0.13 * static_cast<double>(i % 7) + 0.021 * static_cast<double>(i % 5);
  return (i % 3 == 1) ? -v : v;
}

inline X1 vec(std::initializer_list<double> v) {
  X1 t(tl::shape_t<1>{static_cast<tl::index_t>(v.size())});
  tl::index_t i = 0;
  for (double x : v) t(i++) = x;
  return t;
}

/// An r x c matrix of nonzero values with zeros at `zs`.
inline X2 mat(tl::index_t r, tl::index_t c, std::initializer_list<std::pair<int, int>> zs = {}) {
  X2 t(tl::shape_t<2>{r, c});
  for (tl::index_t i = 0; i < r; ++i)
    for (tl::index_t j = 0; j < c; ++j) t(i, j) = nonzero(static_cast<std::size_t>(i * c + j));
  for (auto [i, j] : zs) t(i, j) = 0.0;
  return t;
}

struct ijk {
  int i, j, k;
};
/// A [2, 3, 2] tensor of nonzero values with zeros at `zs`.
inline X3 cube(std::initializer_list<ijk> zs = {}) {
  X3 t(tl::shape_t<3>{2, 3, 2});
  std::size_t n = 0;
  for (tl::index_t i = 0; i < 2; ++i)
    for (tl::index_t j = 0; j < 3; ++j)
      for (tl::index_t k = 0; k < 2; ++k) t(i, j, k) = nonzero(n++);
  for (auto z : zs) t(z.i, z.j, z.k) = 0.0;
  return t;
}

/// A 2 x 3 complex matrix with zeros at `zs`.
inline Z2 cmat(std::initializer_list<std::pair<int, int>> zs = {}) {
  Z2 t(tl::shape_t<2>{2, 3});
  for (tl::index_t i = 0; i < 2; ++i)
    for (tl::index_t j = 0; j < 3; ++j) {
      const auto n = static_cast<std::size_t>(i * 3 + j);
      t(i, j) = C(nonzero(n), 0.4 * nonzero(n + 3));
    }
  for (auto [i, j] : zs) t(i, j) = C(0.0, 0.0);
  return t;
}

/// The Hessian of prod(x) by plain loops: H_ij = prod_{k != i, j} x_k for i != j, 0 on the diagonal.
inline std::vector<double> prod_hessian(const std::vector<double>& x) {
  const std::size_t n = x.size();
  std::vector<double> h(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      double p = 1;
      for (std::size_t k = 0; k < n; ++k)
        if (k != i && k != j) p *= x[k];
      h[i * n + j] = p;
    }
  return h;
}

/// The Hessian of sum_j w_j prod_{i <= j} x_i by plain loops: for a != b,
/// sum_{j >= max(a, b)} w_j prod_{i <= j, i != a, b} x_i; 0 on the diagonal.
inline std::vector<double> cumprod_hessian(const std::vector<double>& x, const std::vector<double>& w) {
  const std::size_t n = x.size();
  std::vector<double> h(n * n, 0.0);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      double s = 0;
      for (std::size_t j = (a > b ? a : b); j < n; ++j) {
        double p = w[j];
        for (std::size_t i = 0; i <= j; ++i)
          if (i != a && i != b) p *= x[i];
        s += p;
      }
      h[a * n + b] = s;
    }
  return h;
}

inline std::vector<double> values(const X1& t) {
  std::vector<double> v;
  for (tl::index_t i = 0; i < t.numel(); ++i) v.push_back(t(i));
  return v;
}

inline X0 prod_all(const X1& v) { return X0(tl::prod(v)); }

void prod_gradgrad() {
  const std::vector<X2> all = {mat(3, 4), mat(3, 4, {{1, 2}}), mat(3, 4, {{0, 1}, {2, 3}}),
                               mat(3, 4, {{0, 1}, {1, 1}, {2, 3}})};
  for (const auto& x : all) {
    CHECK(ag::gradgradcheck([](const X2& v) { return tl::prod(v); }, x));
    CHECK(ag::gradgradcheck([](const X2& v) { return tl::prod(v, tl::keepdim); }, x));
  }
  // dim 1: the slices are the rows
  const std::vector<X2> rows = {mat(3, 4), mat(3, 4, {{0, 1}, {1, 3}, {2, 0}}),
                                mat(3, 4, {{0, 1}, {0, 2}, {1, 0}, {1, 3}, {2, 2}, {2, 3}})};
  for (const auto& x : rows) {
    CHECK(ag::gradgradcheck([](const X2& v) { return tl::prod(v, 1); }, x));
    CHECK(ag::gradgradcheck([](const X2& v) { return tl::prod(v, -1, tl::keepdim); }, x));
  }
  // dim 0: the slices are the columns
  const std::vector<X2> cols = {mat(3, 4, {{0, 0}, {1, 1}, {2, 2}, {0, 3}}),
                                mat(3, 4, {{0, 0}, {1, 0}, {1, 1}, {2, 1}, {0, 2}, {2, 2}, {1, 3}, {2, 3}})};
  for (const auto& x : cols) {
    CHECK(ag::gradgradcheck([](const X2& v) { return tl::prod(v, 0); }, x));
    CHECK(ag::gradgradcheck([](const X2& v) { return tl::prod(v, 0, tl::keepdim); }, x));
  }
  // dims {0, 2} of [2, 3, 2]: one slice of 4 elements per index of dim 1
  const std::vector<X3> cubes = {cube(), cube({{0, 0, 1}, {1, 1, 1}, {0, 2, 0}}),
                                 cube({{0, 0, 1}, {1, 0, 0}, {1, 1, 1}, {0, 1, 0}, {0, 2, 0}, {1, 2, 1}})};
  for (const auto& x : cubes) {
    CHECK(ag::gradgradcheck([](const X3& v) { return tl::prod(v, tl::dims{0, 2}); }, x));
    CHECK(ag::gradgradcheck([](const X3& v) { return tl::prod(v, tl::dims{2, 0}, tl::keepdim); }, x));
    CHECK(ag::gradgradcheck([](const X3& v) { return tl::prod(v, tl::dims{0, 1}); }, x));
  }
}

void cumprod_gradgrad() {
  const std::vector<X2> rows = {mat(3, 4), mat(3, 4, {{0, 1}, {1, 3}, {2, 0}}),
                                mat(3, 4, {{0, 1}, {0, 2}, {1, 0}, {1, 3}, {2, 2}, {2, 3}})};
  for (const auto& x : rows) CHECK(ag::gradgradcheck([](const X2& v) { return tl::cumprod(v, 1); }, x));
  const std::vector<X2> cols = {mat(3, 4), mat(3, 4, {{0, 0}, {1, 1}, {2, 2}, {0, 3}}),
                                mat(3, 4, {{0, 0}, {1, 0}, {1, 1}, {2, 1}, {0, 2}, {2, 2}, {1, 3}, {2, 3}})};
  for (const auto& x : cols) CHECK(ag::gradgradcheck([](const X2& v) { return tl::cumprod(v, 0); }, x));
  const X3 c = cube({{0, 0, 1}, {1, 1, 1}, {0, 2, 0}, {1, 0, 0}});
  CHECK(ag::gradgradcheck([](const X3& v) { return tl::cumprod(v, 1); }, c));
  CHECK(ag::gradgradcheck([](const X3& v) { return tl::cumprod(v, -1); }, c));
}

void complex_gradgrad() {
  const std::vector<Z2> zs = {cmat(), cmat({{0, 1}}), cmat({{0, 1}, {1, 2}}), cmat({{0, 0}, {0, 2}, {1, 1}})};
  for (const auto& z : zs) {
    CHECK(ag::gradgradcheck([](const Z2& v) { return tl::prod(v); }, z));
    CHECK(ag::gradgradcheck([](const Z2& v) { return tl::prod(v, 1); }, z));
    CHECK(ag::gradgradcheck([](const Z2& v) { return tl::prod(v, 0, tl::keepdim); }, z));
    CHECK(ag::gradgradcheck([](const Z2& v) { return tl::cumprod(v, 1); }, z));
    CHECK(ag::gradgradcheck([](const Z2& v) { return tl::cumprod(v, 0); }, z));
  }
}

void prod_hessian_closed_form() {
  const std::vector<X1> xs = {vec({0.7, -1.3, 0.9, 2.1, -0.6}), vec({0.7, -1.3, 0.0, 2.1, -0.6}),
                              vec({0.0, -1.3, 0.9, 0.0, -0.6}), vec({0.0, -1.3, 0.0, 0.0, -0.6}),
                              vec({0.0, 0.0})};
  for (const auto& x : xs) {
    const auto h = ag::hessian(prod_all, x);
    const auto want = prod_hessian(values(x));
    const auto n = x.numel();
    REQUIRE(h.shape() == tl::shape_t<2>{n, n});
    for (tl::index_t i = 0; i < n; ++i)
      for (tl::index_t j = 0; j < n; ++j) CHECK(h(i, j) == doctest::Approx(want[i * n + j]).epsilon(1e-12));
  }
  // per-row products weighted and summed: the Hessian is block diagonal, one prod Hessian per row
  const X2 x = mat(3, 3, {{0, 0}, {1, 1}, {1, 2}});
  const X1 w = vec({0.5, -2.0, 1.5});
  const auto h = ag::hessian([&](const X2& v) { return X0(tl::sum(tl::prod(v, 1) * w)); }, x);
  REQUIRE(h.shape() == tl::shape_t<4>{3, 3, 3, 3});
  for (tl::index_t r = 0; r < 3; ++r) {
    const auto want = prod_hessian({x(r, 0), x(r, 1), x(r, 2)});
    for (tl::index_t s = 0; s < 3; ++s)
      for (tl::index_t i = 0; i < 3; ++i)
        for (tl::index_t j = 0; j < 3; ++j) {
          const double e = r == s ? w(r) * want[static_cast<std::size_t>(i * 3 + j)] : 0.0;
          CHECK(h(r, i, s, j) == doctest::Approx(e).epsilon(1e-12));
        }
  }
}

void cumprod_hessian_closed_form() {
  const X1 w = vec({0.3, -1.1, 0.8, 1.7, -0.4});
  const std::vector<X1> xs = {vec({0.7, -1.3, 0.9, 2.1, -0.6}), vec({0.7, 0.0, 0.9, 2.1, -0.6}),
                              vec({0.7, 0.0, 0.9, 0.0, -0.6}), vec({0.0, 0.0, 0.0, 1.2, 0.0})};
  for (const auto& x : xs) {
    const auto h = ag::hessian([&](const X1& v) { return X0(tl::sum(tl::cumprod(v, 0) * w)); }, x);
    const auto want = cumprod_hessian(values(x), values(w));
    for (tl::index_t i = 0; i < 5; ++i)
      for (tl::index_t j = 0; j < 5; ++j) CHECK(h(i, j) == doctest::Approx(want[i * 5 + j]).epsilon(1e-12));
  }
}

void third_derivatives() {
  // prod(x) = x0 x1 x2 and sum(cumprod(x)) = x0 + x0 x1 + x0 x1 x2: d3 / dx0 dx1 dx2 = 1 for both
  for (int which = 0; which < 2; ++which) {
    auto x = tl::zeros<double>(tl::shape_t<1>{3}).requires_grad_();
    const X0 y = which == 0 ? X0(tl::prod(x)) : X0(tl::sum(tl::cumprod(x, 0)));
    auto [g] = ag::grad(y, std::tie(x), {true, true});
    REQUIRE(g.requires_grad());
    auto [h0] = ag::grad(g, std::tie(x), X1(vec({1.0, 0.0, 0.0})), {true, true});  // row 0 of the Hessian
    REQUIRE(h0.requires_grad());
    auto [t01] = ag::grad(h0, std::tie(x), X1(vec({0.0, 1.0, 0.0})), {true, true});
    CHECK(t01(0) == 0.0);
    CHECK(t01(1) == 0.0);
    CHECK(t01(2) == 1.0);
    CHECK(g(0) == (which == 0 ? 0.0 : 1.0));  // x1 x2, or 1 + x1 + x1 x2
    // a fourth derivative of a multilinear function is zero
    auto [f] = ag::grad(t01, std::tie(x), X1(vec({0.0, 0.0, 1.0})), {true, false, true});
    if (f.defined())
      for (int i = 0; i < 3; ++i) CHECK(f(i) == 0.0);
  }
}

void edge_cases() {
  SUBCASE("a reduction over a size-0 dim is 1 and its gradient is empty") {
    auto x = tl::zeros<double>(tl::shape_t<2>{3, 0}).requires_grad_();
    const X1 p = tl::prod(x, 1);
    REQUIRE(p.shape() == tl::shape_t<1>{3});
    for (tl::index_t i = 0; i < 3; ++i) CHECK(p(i) == 1.0);
    auto [g] = ag::grad(X0(tl::sum(p * p)), std::tie(x), {true, true});
    CHECK(g.shape() == tl::shape_t<2>{3, 0});
    auto y = tl::zeros<double>(tl::shape_t<2>{0, 4}).requires_grad_();
    const X1 q = tl::prod(y, 1);
    CHECK(q.shape() == tl::shape_t<1>{0});
    auto [gy] = ag::grad(X0(tl::prod(y)), std::tie(y), {true, true});
    CHECK(gy.shape() == tl::shape_t<2>{0, 4});
    auto [gc] = ag::grad(X0(tl::sum(tl::cumprod(x, 1))), std::tie(x), {true, true, true});
    if (gc.defined()) CHECK(gc.shape() == tl::shape_t<2>{3, 0});
    CHECK(ag::gradgradcheck([](const X2& v) { return tl::prod(v, 1); }, X2(tl::zeros<double>(tl::shape_t<2>{3, 0}))));
    CHECK(ag::hessian(prod_all, X1(tl::zeros<double>(tl::shape_t<1>{0}))).shape() == tl::shape_t<2>{0, 0});
  }
  SUBCASE("reductions and scans over size-1 dims are the identity: gradient g, second derivative 0") {
    const X2 x = mat(3, 1, {{1, 0}});
    CHECK(ag::gradgradcheck([](const X2& v) { return tl::prod(v, 1); }, x));
    CHECK(ag::gradgradcheck([](const X2& v) { return tl::cumprod(v, 1); }, x));
    const X1 w = vec({0.5, -2.0, 1.5});
    const auto h = ag::hessian([&](const X2& v) { return X0(tl::sum(tl::prod(v, 1) * w)); }, x);
    for (tl::index_t i = 0; i < 3; ++i)
      for (tl::index_t j = 0; j < 3; ++j) CHECK(h(i, 0, j, 0) == 0.0);
    auto v = X2(x.clone()).requires_grad_();
    auto [g] = ag::grad(X0(tl::sum(tl::prod(v, 1) * w)), std::tie(v), {true, true});
    for (tl::index_t i = 0; i < 3; ++i) CHECK(g(i, 0) == doctest::Approx(w(i)).epsilon(1e-15));
    // a single element: the Hessian of prod is [[0]]
    const auto h1 = ag::hessian(prod_all, vec({0.0}));
    CHECK(h1(0, 0) == 0.0);
  }
  SUBCASE("rank 0: prod(x) = x") {
    for (double a : {0.0, -1.7}) {
      X0 s(tl::shape_t<0>{});
      s() = a;
      auto x = X0(s.clone()).requires_grad_();
      const X0 p = tl::prod(x);
      CHECK(p.item() == a);
      auto [g] = ag::grad(p, std::tie(x), {true, true});
      CHECK(g.item() == 1.0);
      const auto h = ag::hessian([](const X0& v) { return X0(tl::prod(v)); }, s);
      CHECK(h.item() == 0.0);
      CHECK(ag::gradgradcheck([](const X0& v) { return X0(tl::prod(v * v)); }, s));
    }
  }
}

}  // namespace prod_higher_test

TEST_CASE("prod: gradgradcheck over all dims, one dim, two dims and keepdim, with 0, 1 and 2 zeros per slice") {
  prod_higher_test::prod_gradgrad();
}

TEST_CASE("cumprod: gradgradcheck along each dim with 0, 1 and 2 zeros per slice") {
  prod_higher_test::cumprod_gradgrad();
}

TEST_CASE("prod and cumprod: gradgradcheck on complex double input") {
  prod_higher_test::complex_gradgrad();
}

TEST_CASE("hessian of prod equals prod_{k != i, j} x_k with 0, 1, 2 and 3 zeros") {
  prod_higher_test::prod_hessian_closed_form();
}

TEST_CASE("hessian of sum(w * cumprod(x)) against the closed form, with and without zeros") {
  prod_higher_test::cumprod_hessian_closed_form();
}

TEST_CASE("third derivatives of prod and cumprod at an input of zeros") {
  prod_higher_test::third_derivatives();
}

TEST_CASE("prod and cumprod under create_graph: empty slices, size-1 dims, rank 0") {
  prod_higher_test::edge_cases();
}
