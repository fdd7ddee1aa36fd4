// tl::linalg::vecdot, cross, multi_dot, matrix_power, vander and diagonal: values against
// long-double products, identities (a . (a x b) = 0, A^-n A^n = I), broadcasting, empty and
// size-1 cases, and torch's errors.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "linalg_test_util.hpp"
#include <tl/linalg/cross.hpp>
#include <tl/linalg/diagonal.hpp>
#include <tl/linalg/matrix_power.hpp>
#include <tl/linalg/multi_dot.hpp>
#include <tl/linalg/vander.hpp>
#include <tl/linalg/vecdot.hpp>

namespace {
using namespace tl_linalg_test;
namespace la = tl::linalg;

template <class T>
ld tol_of() {
  return 64 * eps_of<T>();
}

TEST_CASE_TEMPLATE("vecdot conjugates x, broadcasts and reduces along dim", T, float, double, tl::complex<float>,
                   tl::complex<double>) {
  const auto x = random_tensor<T, 2>({2, 4}, 1);
  const auto y = random_tensor<T, 3>({3, 1, 4}, 2);
  const auto d = la::vecdot(x, y);
  REQUIRE(d.shape() == tl::shape_t<2>{3, 2});
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 2; ++j) {
      cld s = 0;
      for (index_t k = 0; k < 4; ++k) s += std::conj(to_cld(x(j, k))) * to_cld(y(i, 0, k));
      CHECK(std::abs(to_cld(d(i, j)) - s) <= tol_of<T>());
    }
  // along dim 0
  const auto a = random_tensor<T, 2>({5, 3}, 3);
  const auto b = random_tensor<T, 2>({5, 3}, 4);
  const auto e = la::vecdot(a, b, 0);
  REQUIRE(e.shape() == tl::shape_t<1>{3});
  for (index_t j = 0; j < 3; ++j) {
    cld s = 0;
    for (index_t k = 0; k < 5; ++k) s += std::conj(to_cld(a(k, j))) * to_cld(b(k, j));
    CHECK(std::abs(to_cld(e(j)) - s) <= tol_of<T>());
  }
  // empty vectors: 0
  const tl::tensor<T, 1> z(tl::shape_t<1>{0});
  CHECK(la::vecdot(z, z).item() == T(0));
}

TEST_CASE("vecdot: a complex example and errors") {
  using C = tl::complex<double>;
  const auto x = tl::from<C>({C(1, 2)});
  const auto y = tl::from<C>({C(3, 1)});
  const C v = la::vecdot(x, y).item();  // (1 - 2i)(3 + i) = 5 - 5i
  CHECK(v.re == 5.0);
  CHECK(v.im == -5.0);
  const auto a = random_tensor<double, 2>({2, 4}, 1);
  const auto b = random_tensor<double, 2>({2, 3}, 1);
  expect_error_with<tl::shape_error>([&] { (void)la::vecdot(a, b); }, {"linalg::vecdot", "[2, 4]", "[2, 3]"});
  expect_error_with<tl::index_error>([&] { (void)la::vecdot(a, a, 3); }, {"linalg::vecdot"});
}

TEST_CASE_TEMPLATE("cross: basis vectors, identities, broadcasting, dim", T, float, double, tl::complex<double>) {
  const auto e = tl::from<T>({{T(1), T(0), T(0)}, {T(0), T(1), T(0)}});
  const auto c = la::cross(e.select(0, 0), e.select(0, 1));  // e1 x e2 = e3
  CHECK(c(0) == T(0));
  CHECK(c(1) == T(0));
  CHECK(c(2) == T(1));
  const auto a = random_tensor<T, 2>({1, 3}, 5);
  const auto b = random_tensor<T, 2>({6, 3}, 6);
  const auto r = la::cross(a, b);
  REQUIRE(r.shape() == tl::shape_t<2>{6, 3});
  const auto r2 = la::cross(b, a);
  for (index_t i = 0; i < 6; ++i) {
    cld da = 0, db = 0;  // a . (a x b) = b . (a x b) = 0 (bilinear, no conjugation)
    for (index_t k = 0; k < 3; ++k) {
      da += to_cld(a(0, k)) * to_cld(r(i, k));
      db += to_cld(b(i, k)) * to_cld(r(i, k));
      CHECK(std::abs(to_cld(r(i, k)) + to_cld(r2(i, k))) <= tol_of<T>());  // anti-commutative
    }
    CHECK(std::abs(da) <= tol_of<T>());
    CHECK(std::abs(db) <= tol_of<T>());
  }
  // along dim 0 of [3, 2]: the same as along dim -1 of the transposes
  const auto p = random_tensor<T, 2>({3, 2}, 7);
  const auto q = random_tensor<T, 2>({3, 2}, 8);
  const auto s0 = la::cross(p, q, 0);
  const auto s1 = la::cross(p.t(), q.t());
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 2; ++j) CHECK(std::abs(to_cld(s0(i, j)) - to_cld(s1(j, i))) <= tol_of<T>());
}

TEST_CASE("cross errors") {
  const auto a = random_tensor<double, 2>({2, 4}, 1);
  expect_error_with<tl::shape_error>([&] { (void)la::cross(a, a); }, {"tl::linalg::cross", "length 3", "4 and 4"});
  const auto b = random_tensor<double, 2>({3, 2}, 1);
  expect_error_with<tl::shape_error>([&] { (void)la::cross(b, b); }, {"tl::linalg::cross", "dimension -1", "2 and 2"});
  const auto c = random_tensor<double, 2>({2, 3}, 1);
  const auto d = random_tensor<double, 2>({4, 3}, 1);
  expect_error_with<tl::shape_error>([&] { (void)la::cross(c, d); }, {"linalg::cross", "[2, 3]", "[4, 3]"});
  const auto i3 = tl::from<std::int64_t>({1, 0, 0});
  const auto j3 = tl::from<std::int64_t>({0, 1, 0});
  CHECK(la::cross(i3, j3)(2) == 1);  // integer dtypes work too
}

template <class T>
mat chain_ref(const std::vector<tl::tensor<T, 2>>& ms) {
  mat r = matrix_of(ms[0]);
  for (std::size_t i = 1; i < ms.size(); ++i) r = mul(r, matrix_of(ms[i]));
  return r;
}

TEST_CASE_TEMPLATE("multi_dot equals the left-to-right product, vectors at the ends", T, float, double,
                   tl::complex<double>) {
  const auto a = random_tensor<T, 2>({10, 30}, 1);
  const auto b = random_tensor<T, 2>({30, 5}, 2);
  const auto c = random_tensor<T, 2>({5, 60}, 3);
  const auto d = random_tensor<T, 2>({60, 2}, 4);
  const auto want = chain_ref<T>({a, b, c, d});
  const auto got = la::multi_dot(a, b, c, d);
  static_assert(decltype(got)::rank == 2);
  CHECK(rel_err_neps<T>(matrix_of(got), want, fro(want), 60) < 4);
  const auto got_v = la::multi_dot(std::vector<tl::tensor<T, 2>>{a, b, c, d});
  CHECK(rel_err_neps<T>(matrix_of(got_v), want, fro(want), 60) < 4);
  // 1-D first and last: a row and a column vector, dropped from the result
  const auto u = random_tensor<T, 1>({10}, 5);
  const auto w = random_tensor<T, 1>({2}, 6);
  const auto r1 = la::multi_dot(u, a, b, c, d);
  static_assert(decltype(r1)::rank == 1);
  REQUIRE(r1.shape() == tl::shape_t<1>{2});
  const auto r2 = la::multi_dot(a, b, c, d, w);
  REQUIRE(r2.shape() == tl::shape_t<1>{10});
  const auto r0 = la::multi_dot(u, a, b, c, d, w);
  static_assert(decltype(r0)::rank == 0);
  cld s0 = 0;
  for (index_t j = 0; j < 2; ++j) {
    cld s = 0;
    for (index_t i = 0; i < 10; ++i) s += to_cld(u(i)) * want(i, j);
    CHECK(std::abs(to_cld(r1(j)) - s) <= 1e3L * eps_of<T>() * fro(want));
    s0 += s * to_cld(w(j));
  }
  CHECK(std::abs(to_cld(r0.item()) - s0) <= 1e3L * eps_of<T>() * fro(want));
  // two vectors: their dot product; empty inner extent: zeros
  CHECK(std::abs(to_cld(la::multi_dot(u, u).item()) - to_cld(la::vecdot(u.conj(), u).item())) <= tol_of<T>());
  const tl::tensor<T, 2> e20(tl::shape_t<2>{2, 0}), e03(tl::shape_t<2>{0, 3});
  const auto z = la::multi_dot(e20, e03);
  REQUIRE(z.shape() == tl::shape_t<2>{2, 3});
  for (index_t i = 0; i < 6; ++i) CHECK(z.data()[i] == T(0));
  CHECK(la::multi_dot(tl::tensor<T, 2>(tl::shape_t<2>{0, 3}), random_tensor<T, 2>({3, 3}, 1)).numel() == 0);
}

TEST_CASE("multi_dot's order is the cheapest one") {
  // the textbook chain 30x35, 35x15, 15x5, 5x10, 10x20, 20x25: 15125 multiply-adds, ((A1(A2A3))((A4A5)A6))
  const auto o = la::detail::best_chain_order({30, 35, 15, 5, 10, 20, 25});
  CHECK(o.cost == 15125);
  CHECK(o.split[0 * 6 + 5] == 2);  // split after A3
  CHECK(o.split[0 * 6 + 2] == 0);  // A1 (A2 A3)
  CHECK(o.split[3 * 6 + 5] == 4);  // (A4 A5) A6
  // the benchmark's chain: 1.06e7 against 5.0e7 left to right
  CHECK(la::detail::best_chain_order({1000, 20, 1000, 20, 500}).cost == 10600000);
  CHECK(la::detail::best_chain_order({4, 5}).cost == 0);
}

TEST_CASE("multi_dot errors") {
  const auto a = random_tensor<double, 2>({2, 3}, 1);
  const auto b = random_tensor<double, 2>({4, 2}, 1);
  expect_error_with<tl::shape_error>([&] { (void)la::multi_dot(a, b); },
                                {"tl::linalg::multi_dot", "tensors 0 and 1", "[2, 3]", "[4, 2]", "cannot be multiplied"});
  const auto v = random_tensor<double, 1>({3}, 1);
  expect_error_with<tl::shape_error>([&] { (void)la::multi_dot(v, a); }, {"tensors 0 and 1", "[3]", "[2, 3]"});
  expect_error_with<tl::value_error>([&] { (void)la::multi_dot(std::vector<tl::tensor<double, 2>>{a}); },
                                {"tl::linalg::multi_dot", "at least 2 tensors but got 1"});
  expect_error_with<tl::value_error>([&] { (void)la::multi_dot(std::vector<tl::tensor<double, 2>>{}); }, {"got 0"});
}

TEST_CASE_TEMPLATE("matrix_power: binary powers, n = 0 and 1, negative powers", T, float, double, tl::complex<double>) {
  const index_t n = 6;
  // a well-conditioned batch: I + 0.3 * random
  auto a = random_tensor<T, 3>({2, n, n}, 9);
  for (index_t b = 0; b < 2; ++b)
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) a(b, i, j) = a(b, i, j) * T(0.3f) + T(i == j ? 1 : 0);
  const auto i0 = la::matrix_power(a, 0);
  for (index_t b = 0; b < 2; ++b)
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) CHECK(i0(b, i, j) == T(i == j ? 1 : 0));
  const auto a1 = la::matrix_power(a, 1);
  CHECK(a1.data() != a.data());  // a copy
  CHECK(a1(1, 2, 3) == a(1, 2, 3));
  for (std::int64_t p : {2, 5, 8, 13}) {
    CAPTURE(p);
    const auto ap = la::matrix_power(a, p);
    for (index_t b = 0; b < 2; ++b) {
      mat want = matrix_of(a, b);
      for (std::int64_t k = 1; k < p; ++k) want = mul(want, matrix_of(a, b));
      CHECK(rel_err_neps<T>(matrix_of(ap, b), want, fro(want), n * p) < 2);
      // A^-p A^p = I
      const auto am = la::matrix_power(a, -p);
      const mat prod = mul(matrix_of(am, b), matrix_of(ap, b));
      mat eye(n, n);
      for (index_t i = 0; i < n; ++i) eye(i, i) = 1;
      // forward error of the products: p n eps ||A^-p|| ||A^p|| (the conditioning of the power)
      const ld scale = fro(matrix_of(am, b)) * fro(matrix_of(ap, b));
      CHECK(fro_diff(prod, eye) <= 8 * static_cast<ld>(p * n) * eps_of<T>() * scale);
    }
  }
}

TEST_CASE("matrix_power errors and empty matrices") {
  const auto s = tl::zeros<double>(2, 2);
  expect_error_with<tl::linalg_error>([&] { (void)la::matrix_power(s, -1); }, {"tl::linalg::inv", "singular"});
  CHECK(la::matrix_power(s, 3)(0, 0) == 0.0);
  expect_error_with<tl::shape_error>([&] { (void)la::matrix_power(random_tensor<double, 2>({2, 3}, 1), 2); },
                                {"tl::linalg::matrix_power", "square", "[2, 3]"});
  const tl::tensor<double, 2> e(tl::shape_t<2>{0, 0});
  CHECK(la::matrix_power(e, -2).shape() == tl::shape_t<2>{0, 0});
  CHECK(la::matrix_power(e, 0).shape() == tl::shape_t<2>{0, 0});
  const auto one = tl::from<double>({{2.0}});
  CHECK(la::matrix_power(one, 10)(0, 0) == 1024.0);
  CHECK(la::matrix_power(one, -2)(0, 0) == 0.25);
}

TEST_CASE("vander: increasing powers, N, dtypes, batches, errors") {
  const auto x = tl::from<double>({1.0, 2.0, 3.0});
  const auto v = la::vander(x);
  REQUIRE(v.shape() == tl::shape_t<2>{3, 3});
  const double want[3][3] = {{1, 1, 1}, {1, 2, 4}, {1, 3, 9}};
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(v(i, j) == want[i][j]);
  const auto w = la::vander(x, 5);
  REQUIRE(w.shape() == tl::shape_t<2>{3, 5});
  CHECK(w(2, 4) == 81.0);
  const auto xi = tl::from<std::int64_t>({{2, -3}, {0, 5}});
  const auto vi = la::vander(xi, 3);
  REQUIRE(vi.shape() == tl::shape_t<3>{2, 2, 3});
  CHECK(vi(0, 1, 2) == 9);
  CHECK(vi(1, 0, 0) == 1);  // 0^0 = 1
  using C = tl::complex<double>;
  const auto c = tl::from<C>({C(0, 1)});
  const auto vc = la::vander(c, 4);  // 1, i, -1, -i
  CHECK(vc(0, 2).re == -1.0);
  CHECK(vc(0, 3).im == -1.0);
  CHECK(la::vander(c.conj(), 2)(0, 1).im == -1.0);
  expect_error_with<tl::value_error>([&] { (void)la::vander(x, 1); }, {"tl::linalg::vander", "N must be greater than 1"});
  expect_error_with<tl::value_error>([&] { (void)la::vander(x, 0); }, {"N must be greater than 1"});
  expect_error_with<tl::value_error>([&] { (void)la::vander(tl::tensor<double, 1>(tl::shape_t<1>{0})); },
                                {"N must be greater than 1"});
  CHECK(la::vander(tl::tensor<double, 1>(tl::shape_t<1>{0}), 3).shape() == tl::shape_t<2>{0, 3});
}

TEST_CASE("diagonal is a view of the last two dims by default") {
  auto a = random_tensor<double, 3>({2, 3, 4}, 1);
  const auto d = la::diagonal(a);
  REQUIRE(d.shape() == tl::shape_t<2>{2, 3});
  CHECK(d(1, 2) == a(1, 2, 2));
  d.fill_(7.0);  // writes go through
  CHECK(a(0, 1, 1) == 7.0);
  const auto up = la::diagonal(a, 1);
  REQUIRE(up.shape() == tl::shape_t<2>{2, 3});
  CHECK(up(0, 2) == a(0, 2, 3));
  const auto lo = la::diagonal(a, -1, 0, 2);  // dims 0 and 2: a(j + 1, i, j)
  REQUIRE(lo.shape() == tl::shape_t<2>{3, 1});
  CHECK(lo(2, 0) == a(1, 2, 0));
  CHECK(la::diagonal(a, 5).shape() == tl::shape_t<2>{2, 0});
  CHECK(la::diagonal(a * 2.0)(1, 0) == 14.0);  // an expression is evaluated first
  expect_error_with<tl::value_error>([&] { (void)la::diagonal(a, 0, 1, -2); }, {"diagonal"});
  expect_error_with<tl::index_error>([&] { (void)la::diagonal(a, 0, 0, 3); }, {"diagonal"});
}

}  // namespace
