// tl::linalg::pinv, matrix_rank and cond: the four Penrose conditions (in units of max(m, n)·eps,
// scaled by ‖A‖‖A⁺‖), ranks of constructed rank-r products, torch's atol / rtol rules, Hermitian
// inputs read from the lower triangle, cond against numpy (gen_svd_eig.py) for every p, errors.
#include <doctest/doctest.h>

#include <string>

#include "svd_eig_ref.hpp"

namespace {
using namespace tl_linalg_test;

template <class T>
void check_penrose(const tl::tensor<T, 2>& a, const tl::tensor<T, 2>& x) {
  const mat A = matrix_of(a), X = matrix_of(x);
  REQUIRE(X.r == A.c);
  REQUIRE(X.c == A.r);
  const index_t n = std::max<index_t>(std::max(A.r, A.c), 1);
  const ld na = fro(A), nx = fro(X);
  const mat AX = mul(A, X), XA = mul(X, A);
  CHECK(rel_err_neps<T>(mul(AX, A), A, na * na * nx, n) <= 20);   // A X A = A
  CHECK(rel_err_neps<T>(mul(XA, X), X, na * nx * nx, n) <= 20);   // X A X = X
  CHECK(rel_err_neps<T>(adjoint(AX), AX, na * nx, n) <= 20);      // (A X)^H = A X
  CHECK(rel_err_neps<T>(adjoint(XA), XA, na * nx, n) <= 20);      // (X A)^H = X A
}

template <class T>
tl::tensor<T, 2> rank_r(index_t m, index_t n, index_t r, std::uint64_t seed) {
  const auto f = random_tensor<T, 2>({m, r}, seed), g = random_tensor<T, 2>({r, n}, seed + 1);
  return tl::linalg::matmul(f, g);
}

template <class T>
void pinv_rank_all() {
  CAPTURE(sizeof(T));
  for (auto [m, n, r] : std::vector<std::array<index_t, 3>>{{1, 1, 1}, {4, 4, 4}, {7, 5, 5}, {5, 7, 5}, {30, 20, 20},
                                                            {12, 12, 5}, {15, 9, 2}, {9, 15, 1}, {40, 40, 17}}) {
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(r);
    const auto a = rank_r<T>(m, n, r, static_cast<std::uint64_t>(m * 100 + n * 10 + r));
    check_penrose<T>(a, tl::linalg::pinv(a));
    CHECK(tl::linalg::matrix_rank(a)() == r);
    // A large rtol drops everything but the largest singular value; a huge atol everything.
    CHECK(tl::linalg::matrix_rank(a, {}, 0.999999)() == 1);
    CHECK(tl::linalg::matrix_rank(a, 1e30)() == 0);
    const auto z = tl::linalg::pinv(a, 1e30);
    for (index_t i = 0; i < z.numel(); ++i) CHECK(z.data()[i] == T(0));
  }
  // Hermitian = true (through eigh): rank-3 and indefinite full-rank Hermitian matrices.
  {
    const auto f = random_tensor<T, 2>({8, 3}, 77);
    const tl::tensor<T, 2> h = tl::linalg::matmul(f, f.mH());
    check_penrose<T>(h, tl::linalg::pinv(h, {}, {}, true));
    CHECK(tl::linalg::matrix_rank(h, {}, {}, true)() == 3);
    auto g = random_hpd<T>(7, 78);
    for (index_t i = 0; i < 7; ++i) g(i, i) = g(i, i) - T(tl::real_t<T>(7));
    const auto gp = tl::linalg::pinv(g, {}, {}, true);
    check_penrose<T>(g, gp);
    CHECK(fro_diff(matrix_of(gp), matrix_of(tl::linalg::pinv(g))) <= 1e3L * eps_of<T>() * fro(matrix_of(gp)));
    CHECK(tl::linalg::matrix_rank(g, {}, {}, true)() == 7);
  }
  // Full rank square: pinv = inv.
  const auto a = random_tensor<T, 2>({6, 6}, 3);
  const mat X = matrix_of(tl::linalg::pinv(a)), I = matrix_of(tl::linalg::inv(a));
  CHECK(fro_diff(X, I) <= 1e3L * eps_of<T>() * fro(I));
  // Batched.
  const auto ab = random_tensor<T, 3>({3, 5, 4}, 4);
  const auto xb = tl::linalg::pinv(ab);
  CHECK(xb.shape() == tl::shape_t<3>{3, 4, 5});
  for (index_t b = 0; b < 3; ++b) {
    tl::tensor<T, 2> ai = ab.select(0, b).clone(), xi = xb.select(0, b).clone();
    check_penrose<T>(ai, xi);
  }
  const auto rb = tl::linalg::matrix_rank(ab);
  CHECK(rb.shape() == tl::shape_t<1>{3});
  for (index_t b = 0; b < 3; ++b) CHECK(rb(b) == 4);
}

TEST_CASE("pinv: the four Penrose conditions; matrix_rank of rank-r products; every dtype") {
  pinv_rank_all<float>();
  pinv_rank_all<double>();
  pinv_rank_all<tl::complex<float>>();
  pinv_rank_all<tl::complex<double>>();
}

TEST_CASE("pinv / matrix_rank tolerances follow torch 1.13") {
  tl::tensor<double, 2> d(tl::shape_t<2>{3, 3});
  for (index_t i = 0; i < 9; ++i) d.data()[i] = 0;
  d(0, 0) = 1;
  d(1, 1) = 1e-17;
  d(2, 2) = 1e-3;
  CHECK(tl::linalg::matrix_rank(d)() == 2);          // rtol = 3 eps
  CHECK(tl::linalg::matrix_rank(d, 0.0)() == 2);     // atol = 0 keeps the default rtol
  CHECK(tl::linalg::matrix_rank(d, 1e-20)() == 3);   // a positive atol alone: rtol = 0
  CHECK(tl::linalg::matrix_rank(d, 1e-2)() == 1);
  CHECK(tl::linalg::matrix_rank(d, {}, 1e-2)() == 1);
  CHECK(tl::linalg::matrix_rank(d, 1e-20, 1e-2)() == 1);  // max(atol, rtol * smax)
  CHECK(tl::linalg::matrix_rank(d, 1e-3)() == 1);    // strictly above the threshold
  const auto x = tl::linalg::pinv(d, 0.0);
  CHECK(x(0, 0) == doctest::Approx(1.0));
  CHECK(x(1, 1) == 0.0);
  CHECK(x(2, 2) == doctest::Approx(1000.0));
  // hermitian = true reads the lower triangle only.
  tl::tensor<double, 2> h(tl::shape_t<2>{2, 2});
  h(0, 0) = 2;
  h(0, 1) = 100;
  h(1, 0) = 1;
  h(1, 1) = 3;
  const auto hp = tl::linalg::pinv(h, {}, {}, true);
  CHECK(hp(0, 0) == doctest::Approx(0.6));
  CHECK(hp(0, 1) == doctest::Approx(-0.2));
  CHECK(hp(1, 0) == doctest::Approx(-0.2));
  CHECK(hp(1, 1) == doctest::Approx(0.4));
  CHECK(tl::linalg::matrix_rank(h, {}, {}, true)() == 2);
  tl::tensor<tl::complex<double>, 2> hc(tl::shape_t<2>{2, 2});
  hc(0, 0) = 1;
  hc(0, 1) = tl::complex<double>(7, 7);  // ignored
  hc(1, 0) = tl::complex<double>(0, 1);
  hc(1, 1) = 1;  // [[1, -i], [i, 1]]: rank 1
  CHECK(tl::linalg::matrix_rank(hc, {}, {}, true)() == 1);
  CHECK(tl::linalg::matrix_rank(hc)() == 2);
  CHECK_THROWS_AS((void)tl::linalg::pinv(random_tensor<double, 2>({2, 3}, 1), {}, {}, true), tl::shape_error);
  // Empty matrices.
  CHECK(tl::linalg::pinv(tl::tensor<float, 2>(tl::shape_t<2>{0, 3})).shape() == tl::shape_t<2>{3, 0});
  const auto pe = tl::linalg::pinv(tl::tensor<float, 3>(tl::shape_t<3>{2, 3, 0}));
  CHECK(pe.shape() == tl::shape_t<3>{2, 0, 3});
  CHECK(tl::linalg::matrix_rank(tl::tensor<double, 2>(tl::shape_t<2>{0, 3}))() == 0);
  CHECK(tl::linalg::matrix_rank(tl::tensor<double, 3>(tl::shape_t<3>{2, 4, 0})).shape() == tl::shape_t<1>{2});
}

template <class T>
void cond_reference() {
  CAPTURE(sizeof(T));
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& c : load_svd_eig("cond")) {
    if (c.cplx && !tl::is_complex_v<T>) continue;
    CAPTURE(c.p);
    CAPTURE(c.m);
    const auto a = case_matrix<T>(c);
    tl::tensor<tl::real_t<T>, 0> got;
    if (c.p == "none") got = tl::linalg::cond(a);
    else if (c.p == "fro" || c.p == "nuc") got = tl::linalg::cond(a, c.p);
    else got = tl::linalg::cond(a, c.p == "inf" ? inf : c.p == "-inf" ? -inf : std::stod(c.p));
    const ld want = c.res[0].real();
    // cond is as sensitive as the matrix: relative error c * n * cond * eps.
    const ld k2 = std::max<ld>(want, 1 / want);
    CHECK(std::abs(static_cast<ld>(got()) - want) <= 50 * c.m * eps_of<T>() * k2 * want);
  }
}

TEST_CASE("cond against numpy for p = None, 2, -2, fro, nuc, inf, -inf, 1, -1") {
  cond_reference<float>();
  cond_reference<double>();
  cond_reference<tl::complex<float>>();
  cond_reference<tl::complex<double>>();
}

TEST_CASE("cond: singular, zero, empty, rectangular, batched inputs and errors as torch") {
  const double inf = std::numeric_limits<double>::infinity();
  tl::tensor<double, 2> s(tl::shape_t<2>{2, 2});
  s(0, 0) = 1;
  s(0, 1) = 2;
  s(1, 0) = 2;
  s(1, 1) = 4;
  CHECK(tl::linalg::cond(s)() > 1e15);
  CHECK(tl::linalg::cond(s, "fro")() == inf);
  CHECK(tl::linalg::cond(s, inf)() == inf);
  CHECK(tl::linalg::cond(s, 1)() == inf);
  const auto z = tl::tensor<double, 2>(tl::zeros<double>(2, 2));
  CHECK(std::isnan(tl::linalg::cond(z)()));
  CHECK(tl::linalg::cond(z, -1)() == inf);
  CHECK(tl::linalg::cond(tl::tensor<double, 2>(tl::shape_t<2>{0, 0}))() == 0);
  CHECK(tl::linalg::cond(tl::tensor<double, 2>(tl::shape_t<2>{0, 0}), "fro")() == 0);
  CHECK(tl::linalg::cond(tl::tensor<float, 2>(tl::shape_t<2>{3, 0}))() == 0);
  // Rectangular and rank-deficient with p = 2: sqrt(6) / (0 up to rounding, which may leave a
  // value of order eps * sqrt(6) as LAPACK may too).
  tl::tensor<float, 2> ones(tl::shape_t<2>{2, 3});
  for (index_t i = 0; i < 6; ++i) ones.data()[i] = 1;
  CHECK(tl::linalg::cond(ones)() >= 0.1f / std::numeric_limits<float>::epsilon());
  const auto r = random_tensor<double, 2>({3, 5}, 2);
  const auto sv = tl::linalg::svdvals(r);
  CHECK(tl::linalg::cond(r)() == doctest::Approx(sv(0) / sv(2)).epsilon(1e-14));
  CHECK(tl::linalg::cond(r, -2)() == doctest::Approx(sv(2) / sv(0)).epsilon(1e-14));
  // Batched.
  auto b = random_tensor<tl::complex<double>, 4>({2, 2, 3, 3}, 5);
  const auto cb = tl::linalg::cond(b, "nuc");
  CHECK(cb.shape() == tl::shape_t<2>{2, 2});
  tl::tensor<tl::complex<double>, 2> b11 = b.select(0, 1).select(0, 1).clone();
  CHECK(cb(1, 1) == doctest::Approx(tl::linalg::cond(b11, "nuc")()).epsilon(1e-14));
  // Errors.
  expect_error_with<tl::shape_error>([&] { (void)tl::linalg::cond(r, "fro"); }, {"tl::linalg::cond", "[3, 5]"});
  expect_error_with<tl::shape_error>([&] { (void)tl::linalg::cond(r, 1); }, {"tl::linalg::cond", "[3, 5]"});
  expect_error_with<tl::value_error>([&] { (void)tl::linalg::cond(s, "foo"); }, {"tl::linalg::cond", "foo"});
  expect_error_with<tl::value_error>([&] { (void)tl::linalg::cond(s, 3); }, {"tl::linalg::cond", "3"});
}

}  // namespace
