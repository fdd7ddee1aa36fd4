// tl::linalg's errors and edge cases: shape errors naming the op and the shapes, linalg_error for
// singular and non-positive-definite inputs naming the batch element and the pivot / minor, the
// _ex variants' info tensors, empty (n = 0) and 1 x 1 matrices.
#include <doctest/doctest.h>

#include <string>

#include "linalg_test_util.hpp"

namespace {
using namespace tl_linalg_test;

// Runs f, expects an exception of type X whose message contains every one of `parts`.
template <class X, class F>
void expect_error(F&& f, std::initializer_list<const char*> parts) {
  expect_error_with<X>(std::forward<F>(f), parts);
}

TEST_CASE("shape errors name the op and the shapes") {
  const auto r = random_tensor<double, 2>({3, 4}, 1);
  const auto sq = random_tensor<double, 2>({3, 3}, 2);
  expect_error<tl::shape_error>([&] { (void)tl::linalg::det(r); }, {"tl::linalg::det", "square", "[3, 4]"});
  expect_error<tl::shape_error>([&] { (void)tl::linalg::slogdet(r); }, {"tl::linalg::slogdet", "[3, 4]"});
  expect_error<tl::shape_error>([&] { (void)tl::linalg::inv(r); }, {"tl::linalg::inv", "[3, 4]"});
  expect_error<tl::shape_error>([&] { (void)tl::linalg::inv_ex(r); }, {"tl::linalg::inv_ex", "[3, 4]"});
  expect_error<tl::shape_error>([&] { (void)tl::linalg::cholesky(r); }, {"tl::linalg::cholesky", "[3, 4]"});
  expect_error<tl::shape_error>([&] { (void)tl::linalg::cholesky_ex(r); }, {"tl::linalg::cholesky_ex", "[3, 4]"});
  expect_error<tl::shape_error>([&] { (void)tl::linalg::solve(r, sq); }, {"tl::linalg::solve", "[3, 4]"});
  expect_error<tl::shape_error>([&] { (void)tl::linalg::solve(sq, r.t()); },
                                {"tl::linalg::solve", "[3, 3]", "[4, 3]", "B.shape[-2]"});
  expect_error<tl::shape_error>([&] { (void)tl::linalg::solve(sq, r, false); },
                                {"tl::linalg::solve", "[3, 3]", "[3, 4]", "B.shape[-1]"});
  const auto v4 = random_tensor<double, 1>({4}, 3);
  expect_error<tl::shape_error>([&] { (void)tl::linalg::solve(sq, v4); }, {"tl::linalg::solve", "[3, 3]", "[4]"});
  expect_error<tl::value_error>([&] { (void)tl::linalg::solve(sq, v4, false); }, {"tl::linalg::solve", "left=false"});
  expect_error<tl::shape_error>([&] { (void)tl::linalg::solve_triangular(sq, r.t(), true); },
                                {"tl::linalg::solve_triangular", "[4, 3]"});
  const auto a3 = random_tensor<double, 3>({2, 3, 3}, 4);
  const auto b3 = random_tensor<double, 4>({1, 3, 3, 2}, 5);
  expect_error<tl::shape_error>([&] { (void)tl::linalg::solve(a3, b3); },
                                {"tl::linalg::solve", "batch dims", "[2, 3, 3]", "[1, 3, 3, 2]"});
  auto [LU, piv] = tl::linalg::lu_factor(sq);
  expect_error<tl::shape_error>([&] { (void)tl::linalg::lu_solve(LU, piv, r.t()); },
                                {"tl::linalg::lu_solve", "[4, 3]"});
  // Pivots out of range are rejected (they would index outside the matrix).
  auto bad = piv.clone();
  bad(0) = 7;
  expect_error<tl::value_error>([&] { (void)tl::linalg::lu_solve(LU, bad, sq); }, {"tl::linalg::lu_solve", "pivot 7"});
}

TEST_CASE("lu with pivot = false: no interchanges, P = I, L U = A") {
  // Diagonally dominant, so unpivoted elimination is stable.
  tl::tensor<double, 2> a(tl::shape_t<2>{4, 4});
  for (tl::index_t i = 0; i < 4; ++i)
    for (tl::index_t j = 0; j < 4; ++j) a(i, j) = i == j ? 10.0 + i : 1.0 / (1.0 + i + 2 * j);
  auto [LU, piv] = tl::linalg::lu_factor(a, false);
  for (tl::index_t i = 0; i < 4; ++i) CHECK(piv(i) == i + 1);
  auto [P, L, U] = tl::linalg::lu(a, false);
  for (tl::index_t i = 0; i < 4; ++i)
    for (tl::index_t j = 0; j < 4; ++j) {
      CHECK(P(i, j) == (i == j ? 1.0 : 0.0));
      double s = 0;
      for (tl::index_t k = 0; k < 4; ++k) s += L(i, k) * U(k, j);
      CHECK(s == doctest::Approx(a(i, j)).epsilon(1e-14));
    }
  // A zero leading entry is reported (info), not swapped away.
  tl::tensor<double, 2> z(tl::shape_t<2>{2, 2});
  z(0, 0) = 0;
  z(0, 1) = 1;
  z(1, 0) = 1;
  z(1, 1) = 0;
  CHECK(tl::linalg::lu_factor_ex(z, false).info() == 1);
  CHECK(tl::linalg::lu_factor_ex(z, true).info() == 0);
}

TEST_CASE("singular matrices: solve / inv / lu_factor throw linalg_error with the batch element and the pivot") {
  // Batch element 1 is singular: its second row is twice the first (exact zeros in elimination).
  tl::tensor<double, 3> a(tl::shape_t<3>{2, 3, 3});
  const double good[9] = {2, 1, 0, 1, 3, 1, 0, 1, 4};
  const double sing[9] = {1, 2, 3, 2, 4, 6, 1, 0, 1};
  for (int i = 0; i < 9; ++i) {
    a.data()[i] = good[i];
    a.data()[9 + i] = sing[i];
  }
  const auto b = random_tensor<double, 3>({2, 3, 2}, 6);
  expect_error<tl::linalg_error>([&] { (void)tl::linalg::solve(a, b); },
                                 {"tl::linalg::solve", "singular", "batch element 1", "U[2, 2]"});
  expect_error<tl::linalg_error>([&] { (void)tl::linalg::inv(a); },
                                 {"tl::linalg::inv", "singular", "batch element 1", "U[2, 2]"});
  expect_error<tl::linalg_error>([&] { (void)tl::linalg::lu_factor(a); }, {"tl::linalg::lu_factor", "batch element 1"});
  expect_error<tl::linalg_error>([&] { (void)tl::linalg::inv_ex(a, true); }, {"tl::linalg::inv_ex", "batch element 1"});
  // A single singular matrix: no batch element in the message; a zero first column -> U[0, 0].
  tl::tensor<float, 2> z(tl::shape_t<2>{2, 2});
  z(0, 0) = 0, z(0, 1) = 1, z(1, 0) = 0, z(1, 1) = 2;
  bool thrown = false;
  try {
    (void)tl::linalg::inv(z);
  } catch (const tl::linalg_error& e) {
    thrown = true;
    const std::string msg = e.what();
    CHECK(msg.find("batch") == std::string::npos);
    CHECK(msg.find("U[0, 0]") != std::string::npos);
  }
  CHECK(thrown);
  // The _ex variants report and never throw; det is 0 and slogdet (0, -inf).
  auto [x, info] = tl::linalg::solve_ex(a, b);
  CHECK(info(0) == 0);
  CHECK(info(1) == 3);
  auto [ai, info2] = tl::linalg::inv_ex(a);
  CHECK(info2(1) == 3);
  auto [LU, piv, info3] = tl::linalg::lu_factor_ex(a);
  CHECK(info3(0) == 0);
  CHECK(info3(1) == 3);
  const auto d = tl::linalg::det(a);
  CHECK(d(0) == doctest::Approx(2 * 11 - 1 * 4));
  CHECK(d(1) == 0.0);
  auto [sign, logabs] = tl::linalg::slogdet(a);
  CHECK(sign(1) == 0.0);
  CHECK(std::isinf(logabs(1)));
  CHECK(logabs(1) < 0);
  // lu of a singular matrix works.
  auto [P, L, U] = tl::linalg::lu(a);
  CHECK(U(1, 2, 2) == doctest::Approx(0.0).epsilon(1e-12));
  // An exactly zero matrix.
  const tl::tensor<double, 2> zero = tl::zeros<double>(4, 4);
  CHECK(tl::linalg::det(zero)() == 0.0);
  CHECK(tl::linalg::lu_factor_ex(zero).info() == 1);
}

TEST_CASE("cholesky of matrices that are not positive-definite names the leading minor") {
  tl::tensor<tl::complex<double>, 3> a(tl::shape_t<3>{3, 3, 3});
  for (index_t q = 0; q < 3; ++q) {
    // Diagonal 4, 4, 4 with a Hermitian off-diagonal pair; batch element 2 has d = -1 at (1, 1).
    for (index_t i = 0; i < 3; ++i)
      for (index_t j = 0; j < 3; ++j) a(q, i, j) = i == j ? tl::complex<double>(4) : tl::complex<double>(0);
    a(q, 1, 0) = {1, 1};
    a(q, 0, 1) = {1, -1};
  }
  a(2, 1, 1) = -1;
  expect_error<tl::linalg_error>([&] { (void)tl::linalg::cholesky(a); },
                                 {"tl::linalg::cholesky", "not positive-definite", "batch element 2", "order 2"});
  expect_error<tl::linalg_error>([&] { (void)tl::linalg::cholesky(a, true); }, {"batch element 2", "order 2"});
  auto [L, info] = tl::linalg::cholesky_ex(a);
  CHECK(info(0) == 0);
  CHECK(info(1) == 0);
  CHECK(info(2) == 2);
  expect_error<tl::linalg_error>([&] { (void)tl::linalg::cholesky_ex(a, false, true); },
                                 {"tl::linalg::cholesky_ex", "order 2"});
  // Larger matrices (recursive path): a negative eigenvalue direction found at minor 70.
  auto h = random_hpd<double>(100, 3);
  h(69, 69) = -1000;
  CHECK(tl::linalg::cholesky_ex(h).info() == 70);
  expect_error<tl::linalg_error>([&] { (void)tl::linalg::cholesky(h); }, {"order 70"});
  // NaN is not positive.
  auto g = random_hpd<float>(5, 4);
  g(0, 0) = std::nanf("");
  CHECK(tl::linalg::cholesky_ex(g).info() == 1);
}

TEST_CASE("empty (n = 0) and 1 x 1 matrices behave as in torch") {
  const tl::tensor<double, 2> e(tl::shape_t<2>{0, 0});
  CHECK(tl::linalg::det(e)() == 1.0);
  auto [s, la] = tl::linalg::slogdet(e);
  CHECK(s() == 1.0);
  CHECK(la() == 0.0);
  CHECK(tl::linalg::inv(e).shape() == tl::shape_t<2>{0, 0});
  CHECK(tl::linalg::cholesky(e).shape() == tl::shape_t<2>{0, 0});
  auto [LU, piv] = tl::linalg::lu_factor(e);
  CHECK(piv.shape() == tl::shape_t<1>{0});
  const tl::tensor<double, 2> b0(tl::shape_t<2>{0, 3});
  CHECK(tl::linalg::solve(e, b0).shape() == tl::shape_t<2>{0, 3});
  CHECK(tl::linalg::solve_triangular(e, b0, true).shape() == tl::shape_t<2>{0, 3});
  // An empty batch.
  const tl::tensor<float, 3> eb(tl::shape_t<3>{0, 4, 4});
  CHECK(tl::linalg::det(eb).shape() == tl::shape_t<1>{0});
  CHECK(tl::linalg::inv(eb).shape() == tl::shape_t<3>{0, 4, 4});
  CHECK(tl::linalg::cholesky_ex(eb).info.shape() == tl::shape_t<1>{0});
  // Zero right-hand sides.
  const auto a = random_tensor<double, 2>({3, 3}, 7);
  const tl::tensor<double, 2> bz(tl::shape_t<2>{3, 0});
  CHECK(tl::linalg::solve(a, bz).shape() == tl::shape_t<2>{3, 0});
  // 1 x 1.
  tl::tensor<tl::complex<float>, 2> one(tl::shape_t<2>{1, 1});
  one(0, 0) = {0, 2};
  CHECK(tl::linalg::det(one)() == tl::complex<float>(0, 2));
  auto [s1, la1] = tl::linalg::slogdet(one);
  CHECK(s1().re == doctest::Approx(0.0));
  CHECK(s1().im == doctest::Approx(1.0));
  CHECK(la1() == doctest::Approx(std::log(2.0)));
  const auto i1 = tl::linalg::inv(one);
  CHECK(i1(0, 0).re == doctest::Approx(0.0));
  CHECK(i1(0, 0).im == doctest::Approx(-0.5));
  tl::tensor<double, 2> four(tl::shape_t<2>{1, 1});
  four(0, 0) = 4;
  CHECK(tl::linalg::cholesky(four)(0, 0) == 2.0);
  four(0, 0) = -4;
  CHECK(tl::linalg::cholesky_ex(four).info() == 1);
}

TEST_CASE("inputs are not modified and expressions are accepted") {
  const auto a = random_tensor<double, 2>({20, 20}, 8);
  const auto before = a.clone();
  (void)tl::linalg::inv(a);
  (void)tl::linalg::det(a);
  (void)tl::linalg::lu_factor_ex(a);
  CHECK(fro_diff(matrix_of(a), matrix_of(before)) == 0);
  // An expression argument is evaluated once: det(2 A) = 2^n det(A).
  CHECK(tl::linalg::det(a * 2.0)() == doctest::Approx(tl::linalg::det(a)() * std::pow(2.0, 20)));
}
}  // namespace
