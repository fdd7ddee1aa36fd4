// tl::linalg::matrix_exp: 50-digit references (mpmath.expm, cross-checked with scipy.linalg.expm;
// tests/data/linalg/gen_linalg_norms.py) at every Padé degree, identities (exp(0) = I,
// exp(A) exp(-A) = I, diagonal, nilpotent and rotation generators), batches, errors; tensorinv and
// tensorsolve (tensordot identities, shapes, errors).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "norms_ref.hpp"
#include <tl/linalg/matrix_exp.hpp>
#include <tl/linalg/tensorinv.hpp>
#include <tl/linalg/tensorsolve.hpp>

namespace {
using namespace tl_linalg_test;
namespace la = tl::linalg;

ld norm1(const mat& a) {
  ld best = 0;
  for (index_t j = 0; j < a.c; ++j) {
    ld s = 0;
    for (index_t i = 0; i < a.r; ++i) s += std::abs(a(i, j));
    best = std::max(best, s);
  }
  return best;
}

TEST_CASE_TEMPLATE("matrix_exp matches 50-digit references at every Padé degree", T, float, double,
                   tl::complex<float>, tl::complex<double>) {
  const auto cases = load_ref_cases("linalg_expm_reference.txt");
  int count = 0;
  ld worst = 0;
  for (const auto& c : cases) {
    if (c.cplx != tl::is_complex_v<T>) continue;
    const index_t n = c.shape[0];
    const auto a = ref_input<T, 2>(c);
    mat want(n, n);
    const auto e = la::matrix_exp(a);
    const mat got = matrix_of(e);
    const mat am = matrix_of(a);
    // results are read as a flat list of reals: complex ones as (re, im) pairs
    if (tl::is_complex_v<T>) {
      for (index_t i = 0; i < n * n; ++i)
        want.v[static_cast<std::size_t>(i)] = cld(c.out[static_cast<std::size_t>(2 * i)].real(),
                                                  c.out[static_cast<std::size_t>(2 * i + 1)].real());
    } else {
      for (index_t i = 0; i < n * n; ++i) want.v[static_cast<std::size_t>(i)] = c.out[static_cast<std::size_t>(i)];
    }
    // error bound: a multiple of n eps max(1, ||A||_1) relative to ||exp(A)||_F (the condition of
    // exp grows with ||A||); the strongly non-normal case is allowed its conditioning
    const ld rel = fro_diff(got, want) / fro(want) / (static_cast<ld>(n) * eps_of<T>() * std::max<ld>(1, norm1(am)));
    CAPTURE(n);
    CAPTURE(static_cast<double>(norm1(am)));
    CHECK(rel < 20);
    worst = std::max(worst, rel);
    ++count;
  }
  MESSAGE("worst error in units of n eps max(1, |A|_1): ", static_cast<double>(worst));
  CHECK(count >= 35);
}

TEST_CASE_TEMPLATE("matrix_exp identities", T, float, double, tl::complex<double>) {
  using Rl = tl::real_t<T>;
  const ld tol = 100 * eps_of<T>();
  // exp(0) = I, also for a batch and 1 x 1
  const auto z = la::matrix_exp(tl::zeros<T>(tl::shape_t<3>{2, 4, 4}));
  for (index_t b = 0; b < 2; ++b) CHECK(fro_diff(matrix_of(z, b), identity(4)) == 0);
  const auto one = la::matrix_exp(tl::full<T>(tl::shape_t<2>{1, 1}, T(Rl(2))));
  CHECK(std::abs(to_cld(one(0, 0)) - std::exp(2.0L)) <= tol * std::exp(2.0L));
  // exp(A) exp(-A) = I for norms in every degree's range
  for (double scale : {0.01, 0.2, 0.8, 1.9, 5.0, 20.0}) {
    CAPTURE(scale);
    const auto a = random_tensor<T, 2>({6, 6}, 3);
    const tl::tensor<T, 2> as = a * T(Rl(scale / 6));
    const auto ep = la::matrix_exp(as);
    const auto em = la::matrix_exp(tl::tensor<T, 2>(-as));
    const mat p = mul(matrix_of(ep), matrix_of(em));
    CHECK(fro_diff(p, identity(6)) <= 6 * tol * std::max(1.0, scale) * fro(matrix_of(ep)) * fro(matrix_of(em)));
  }
  // diagonal: exp of the entries
  const auto d = tl::from<T>({{T(Rl(-3)), T(0), T(0)}, {T(0), T(Rl(0.5)), T(0)}, {T(0), T(0), T(Rl(7))}});
  const auto ed = la::matrix_exp(d);
  CHECK(std::abs(to_cld(ed(0, 0)) - std::exp(-3.0L)) <= tol * 10 * std::exp(-3.0L));
  CHECK(std::abs(to_cld(ed(1, 1)) - std::exp(0.5L)) <= tol * std::exp(0.5L));
  CHECK(std::abs(to_cld(ed(2, 2)) - std::exp(7.0L)) <= tol * 10 * std::exp(7.0L));
  CHECK(std::abs(to_cld(ed(0, 2))) <= tol);
  // nilpotent N (N^3 = 0): exp(N) = I + N + N^2 / 2 exactly
  const auto nl = tl::from<T>({{T(0), T(Rl(2)), T(Rl(-3))}, {T(0), T(0), T(Rl(4))}, {T(0), T(0), T(0)}});
  const auto en = la::matrix_exp(nl);
  const Rl want_n[3][3] = {{1, 2, 1}, {0, 1, 4}, {0, 0, 1}};  // N^2 / 2 adds 2 * 4 / 2 = 4 at (0, 2)
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(std::abs(to_cld(en(i, j)) - static_cast<ld>(want_n[i][j])) <= 8 * tol);
  // rotation generator [[0, -t], [t, 0]]: the rotation by t, error ~ t eps
  for (double t : {0.001, 0.5, 3.0, 40.0, 1000.0}) {
    CAPTURE(t);
    const auto g = tl::from<T>({{T(0), T(Rl(-t))}, {T(Rl(t)), T(0)}});
    const auto r = la::matrix_exp(g);
    const ld tt = static_cast<Rl>(t);  // t as rounded to T
    const ld c = std::cos(tt), s = std::sin(tt);
    const ld et = tol * std::max<ld>(1, tt);
    CHECK(std::abs(to_cld(r(0, 0)) - c) <= et);
    CHECK(std::abs(to_cld(r(0, 1)) + s) <= et);
    CHECK(std::abs(to_cld(r(1, 0)) - s) <= et);
    CHECK(std::abs(to_cld(r(1, 1)) - c) <= et);
  }
}

TEST_CASE("matrix_exp: batches pick their own degree; complex rotation; NaN; errors; empty") {
  // a batch mixing tiny and large norms equals the matrices done one by one
  auto a = random_tensor<double, 3>({3, 5, 5}, 8);
  for (index_t i = 0; i < 25; ++i) {
    a.data()[i] *= 1e-4;
    a.data()[50 + i] *= 10;
  }
  const auto e = la::matrix_exp(a);
  for (index_t b = 0; b < 3; ++b) {
    const auto eb = la::matrix_exp(tl::tensor<double, 2>(a.select(0, b)));
    CHECK(fro_diff(matrix_of(e, b), matrix_of(eb)) == 0);
  }
  // exp(i t) for a 1 x 1 complex matrix, and a conjugated view
  using C = tl::complex<double>;
  const auto it = tl::from<C>({{C(0, 2)}});
  const auto ei = la::matrix_exp(it);
  CHECK(std::abs(ei(0, 0).re - std::cos(2.0)) < 1e-15);
  CHECK(std::abs(ei(0, 0).im - std::sin(2.0)) < 1e-15);
  CHECK(std::abs(la::matrix_exp(it.conj())(0, 0).im + std::sin(2.0)) < 1e-15);
  // non-finite input: NaN
  const auto bad = tl::from<double>({{1.0, std::numeric_limits<double>::infinity()}, {0.0, 1.0}});
  CHECK(std::isnan(la::matrix_exp(bad)(0, 0)));
  expect_error_with<tl::shape_error>([&] { (void)la::matrix_exp(random_tensor<double, 2>({2, 3}, 1)); },
                                     {"tl::linalg::matrix_exp", "square", "[2, 3]"});
  CHECK(la::matrix_exp(tl::tensor<double, 2>(tl::shape_t<2>{0, 0})).numel() == 0);
  CHECK(la::matrix_exp(tl::tensor<float, 3>(tl::shape_t<3>{0, 2, 2})).shape() == tl::shape_t<3>{0, 2, 2});
}

}  // namespace

// ---- tensorinv / tensorsolve ---------------------------------------------------------------------
namespace {

TEST_CASE_TEMPLATE("tensorinv: tensordot(A, X, ind) = I and X's shape", T, float, double, tl::complex<double>) {
  // A [4, 6, 8, 3] as a 24 x 24 matrix with a dominant diagonal
  auto a = random_tensor<T, 4>({4, 6, 8, 3}, 12);
  T* p = a.data();
  for (index_t i = 0; i < 24; ++i) p[i * 24 + i] += T(8);
  const auto x = la::tensorinv(a, 2);
  REQUIRE(x.shape() == tl::shape_t<4>{8, 3, 4, 6});
  const mat am = matrix_of(a.reshape(tl::shape_t<2>{24, 24}));
  const mat xm = matrix_of(x.reshape(tl::shape_t<2>{24, 24}));
  CHECK(fro_diff(mul(am, xm), identity(24)) <= 200 * 24 * eps_of<T>());
  // ind = 1: [4, 2, 2] -> [2, 2, 4]
  auto b = random_tensor<T, 3>({4, 2, 2}, 13);
  for (index_t i = 0; i < 4; ++i) b.data()[i * 4 + i] += T(4);
  const auto y = la::tensorinv(b, 1);
  REQUIRE(y.shape() == tl::shape_t<3>{2, 2, 4});
  CHECK(fro_diff(mul(matrix_of(b.reshape(tl::shape_t<2>{4, 4})), matrix_of(y.reshape(tl::shape_t<2>{4, 4}))),
                 identity(4)) <= 200 * 4 * eps_of<T>());
}

TEST_CASE("tensorinv errors") {
  const auto a = random_tensor<double, 4>({4, 6, 2, 3}, 1);
  expect_error_with<tl::shape_error>([&] { (void)la::tensorinv(a, 1); },
                                     {"tl::linalg::tensorinv", "[4, 6, 2, 3]", "36 != 4"});
  expect_error_with<tl::value_error>([&] { (void)la::tensorinv(a, 0); }, {"tl::linalg::tensorinv", "'ind'", "0"});
  expect_error_with<tl::linalg_error>([&] { (void)la::tensorinv(tl::zeros<double>(2, 2, 2, 2), 2); },
                                      {"tl::linalg::tensorinv", "singular"});
}

TEST_CASE_TEMPLATE("tensorsolve: tensordot(A, X, X.ndim) = B, with and without dims", T, float, double,
                   tl::complex<double>) {
  auto a = random_tensor<T, 3>({2, 3, 6}, 21);
  for (index_t i = 0; i < 6; ++i) a.data()[i * 6 + i] += T(4);
  const auto b = random_tensor<T, 2>({2, 3}, 22);
  const auto x = la::tensorsolve(a, b);
  static_assert(decltype(x)::rank == 1);
  REQUIRE(x.shape() == tl::shape_t<1>{6});
  const mat am = matrix_of(a.reshape(tl::shape_t<2>{6, 6}));
  const mat r = mul(am, matrix_of(x.reshape(tl::shape_t<2>{6, 1})));
  const mat bm = matrix_of(b.reshape(tl::shape_t<2>{6, 1}));
  CHECK(fro_diff(r, bm) <= 100 * 6 * eps_of<T>() * fro(am) * fro(matrix_of(x.reshape(tl::shape_t<2>{6, 1}))));
  // dims = {0}: A [6, 2, 3] with dim 0 moved last is the A above
  const tl::tensor<T, 3> at = a.permute(2, 0, 1).contiguous();
  const auto y = la::tensorsolve(at, b, {0});
  for (index_t i = 0; i < 6; ++i) CHECK(std::abs(to_cld(y(i)) - to_cld(x(i))) <= 100 * eps_of<T>() * 10);
}

TEST_CASE("tensorsolve errors") {
  const auto a = random_tensor<double, 3>({2, 3, 6}, 1);
  expect_error_with<tl::shape_error>([&] { (void)la::tensorsolve(a, random_tensor<double, 2>({2, 4}, 1)); },
                                     {"tl::linalg::tensorsolve", "[2, 4]", "needs 6"});
  expect_error_with<tl::shape_error>([&] { (void)la::tensorsolve(random_tensor<double, 2>({6, 4}, 1), random_tensor<double, 1>({6}, 1)); },
                                     {"tl::linalg::tensorsolve", "4 != 6"});
  expect_error_with<tl::index_error>([&] { (void)la::tensorsolve(a, random_tensor<double, 2>({2, 3}, 1), {5}); },
                                     {"linalg::tensorsolve"});
  expect_error_with<tl::linalg_error>([&] { (void)la::tensorsolve(tl::zeros<double>(2, 3, 6), tl::ones<double>(2, 3)); },
                                      {"tl::linalg::tensorsolve", "singular"});
}

}  // namespace
