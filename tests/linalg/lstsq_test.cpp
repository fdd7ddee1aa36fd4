// tl::linalg::lstsq with every driver: solutions, residuals and ranks against scipy.linalg.lstsq
// (minimum-norm) references from gen_linalg_decomp.py; the normal equations Aᴴ(AX − B) = 0 on
// random, Hilbert, rank-deficient, wide, complex, batched (broadcast) and vector right-hand sides;
// empty inputs; errors.
#include <optional>
#include <string>

#include "decomp_reference.hpp"

namespace {
using namespace tl_linalg_test;

constexpr const char* k_drivers[] = {"gels", "gelsy", "gelsd", "gelss"};

template <class T>
void lstsq_against_scipy(const decomp_case& c) {
  const auto a = c.matrix<T>();
  const auto b = c.matrix<T>(true);
  const bool full_rank = c.cond < 1e12;
  ld xnorm = 1;
  for (const auto& v : c.r1) xnorm = std::max(xnorm, std::abs(v));
  const ld cond = full_rank ? static_cast<ld>(c.cond) : 100;  // rank 3 part: well conditioned
  const ld tol = 8 * static_cast<ld>(std::max(c.m, c.n)) * eps_of<T>() * cond * (1 + cond) * xnorm;
  for (const char* drv : k_drivers) {
    const std::string d = drv;
    CAPTURE(d);
    if (d == "gels" && !full_rank) continue;  // gels assumes full rank
    auto [x, res, rank, sv] = tl::linalg::lstsq(a, b, std::nullopt, drv);
    REQUIRE(x.numel() == static_cast<index_t>(c.r1.size()));
    ld err = 0;
    for (std::size_t i = 0; i < c.r1.size(); ++i) err = std::max(err, std::abs(to_cld(x.data()[i]) - c.r1[i]));
    CHECK(err <= tol);
    CHECK(rank() == (d == "gels" || full_rank ? std::min(c.m, c.n) : 3));
    CHECK(sv.numel() == (d == "gelsd" || d == "gelss" ? std::min(c.m, c.n) : 0));
    const bool want_res = c.m > c.n && d != "gelsy" && (d == "gels" || full_rank);
    CHECK(res.numel() == (want_res ? c.k : 0));
    if (want_res && !c.r2.empty()) {
      ld bnorm2 = 0;
      for (const auto& v : c.b) bnorm2 += std::norm(v);
      for (index_t j = 0; j < c.k; ++j)
        CHECK(std::abs(static_cast<ld>(res(j)) - c.r2[static_cast<std::size_t>(j)].real()) <= tol * (1 + bnorm2));
    }
  }
}

TEST_CASE("lstsq matches scipy's minimum-norm solutions, residuals and ranks (every driver)") {
  for (const auto& c : load_decomp("lstsq")) {
    CAPTURE(c.m);
    CAPTURE(c.n);
    CAPTURE(c.cplx);
    if (c.cplx) {
      lstsq_against_scipy<tl::complex<double>>(c);
      lstsq_against_scipy<tl::complex<float>>(c);
    } else {
      lstsq_against_scipy<double>(c);
      lstsq_against_scipy<float>(c);
    }
  }
}

/// ‖Aᴴ(AX − B)‖_F / (‖A‖ (‖A‖‖X‖ + ‖B‖)) in units of max(m, n) eps: small for any least-squares
/// solution (the residual is orthogonal to A's range).
template <class T>
ld normal_eq_err(const mat& A, const mat& X, const mat& B) {
  mat r = mul(A, X);
  for (std::size_t i = 0; i < r.v.size(); ++i) r.v[i] -= B.v[i];
  const mat g = mul(adjoint(A), r);
  mat zero(g.r, g.c);
  const ld scale = fro(A) * (fro(A) * fro(X) + fro(B));
  return rel_err_neps<T>(g, zero, scale, std::max(A.r, A.c));
}

template <class T, class EA, class EB>
void check_normal_equations(const EA& a, const EB& b, const char* what, ld bound = 8) {
  const std::string what_s = what;
  CAPTURE(what_s);
  for (const char* drv : k_drivers) {
    const std::string d = drv;
    CAPTURE(d);
    const auto r = tl::linalg::lstsq(a, b, std::nullopt, drv);
    CHECK(normal_eq_err<T>(matrix_of(a), matrix_of(r.solution), matrix_of(b)) <= bound);
  }
}

template <class T>
void lstsq_identities() {
  CAPTURE(sizeof(T));
  check_normal_equations<T>(random_tensor<T, 2>({80, 30}, 1), random_tensor<T, 2>({80, 4}, 2), "tall");
  check_normal_equations<T>(random_tensor<T, 2>({150, 100}, 3), random_tensor<T, 2>({150, 3}, 4), "tall, several panels");
  check_normal_equations<T>(random_tensor<T, 2>({33, 33}, 5), random_tensor<T, 2>({33, 2}, 6), "square");
  check_normal_equations<T>(random_tensor<T, 2>({20, 45}, 7), random_tensor<T, 2>({20, 2}, 8), "wide");
  for (index_t n : {4, 8}) check_normal_equations<T>(hilbert<T>(n), random_tensor<T, 2>({n, 2}, 9), "hilbert", 64);
  const auto t = random_tensor<T, 2>({12, 40}, 10);
  check_normal_equations<T>(t.mT(), random_tensor<T, 2>({40, 1}, 11), "transposed view");
}

TEST_CASE("lstsq: A^H (A X - B) = 0 to a few n*eps (every dtype, every driver)") {
  lstsq_identities<float>();
  lstsq_identities<double>();
  lstsq_identities<tl::complex<float>>();
  lstsq_identities<tl::complex<double>>();
}

TEST_CASE("lstsq: minimum-norm solution of a rank-deficient system (gelsy, gelsd, gelss)") {
  using T = double;
  // Rank 4 of 12 columns; the minimum-norm solution lies in A's row space: X = A^H Y for some Y.
  const auto l = random_tensor<T, 2>({30, 4}, 12), rgt = random_tensor<T, 2>({4, 12}, 13);
  const auto a = tl::linalg::matmul(l, rgt);
  const auto b = random_tensor<T, 2>({30, 2}, 14);
  const auto ref = tl::linalg::lstsq(a, b, std::nullopt, "gelsd").solution;
  for (const char* drv : {"gelsy", "gelsd", "gelss"}) {
    CAPTURE(std::string(drv));
    auto [x, res, rank, sv] = tl::linalg::lstsq(a, b, 1e-10, drv);
    CHECK(rank() == 4);
    CHECK(res.numel() == 0);
    CHECK(normal_eq_err<T>(matrix_of(a), matrix_of(x), matrix_of(b)) <= 64);
    CHECK(fro_diff(matrix_of(x), matrix_of(ref)) <= 1e-10L * fro(matrix_of(ref)));
  }
  // rcond decides the rank: a diagonal matrix with values 1, 1e-3, 1e-8.
  auto d = tl::zeros<T>(tl::shape_t<2>{4, 3});
  d(0, 0) = 1;
  d(1, 1) = 1e-3;
  d(2, 2) = 1e-8;
  const auto ones = tl::ones<T>(tl::shape_t<2>{4, 1});
  for (const char* drv : {"gelsy", "gelsd"}) {
    CHECK(tl::linalg::lstsq(d, ones, std::nullopt, drv).rank() == 3);
    CHECK(tl::linalg::lstsq(d, ones, 1e-5, drv).rank() == 2);
    CHECK(tl::linalg::lstsq(d, ones, 1e-5, drv).solution(2, 0) == 0);
    CHECK(tl::linalg::lstsq(d, ones, 2.0, drv).rank() == 0);
  }
}

TEST_CASE("lstsq: batches broadcast, vector right-hand sides, shapes of every output") {
  using T = tl::complex<double>;
  const auto a = random_tensor<T, 4>({2, 1, 9, 5}, 20);
  const auto b = random_tensor<T, 4>({1, 3, 9, 2}, 21);
  auto [x, res, rank, sv] = tl::linalg::lstsq(a, b, std::nullopt, "gelsd");
  CHECK(x.shape() == tl::shape_t<4>{2, 3, 5, 2});
  CHECK(res.shape() == tl::shape_t<3>{2, 3, 2});
  CHECK(rank.shape() == tl::shape_t<2>{2, 3});
  CHECK(sv.shape() == tl::shape_t<3>{2, 3, 5});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) {
      const mat A = matrix_of(a, i), B = matrix_of(b, j), X = matrix_of(x, i * 3 + j);
      CHECK(normal_eq_err<T>(A, X, B) <= 8);
      mat r = mul(A, X);
      for (std::size_t q = 0; q < r.v.size(); ++q) r.v[q] -= B.v[q];
      for (index_t c = 0; c < 2; ++c) {
        ld s = 0;
        for (index_t q = 0; q < 9; ++q) s += std::norm(r(q, c));
        CHECK(std::abs(static_cast<ld>(res(i, j, c)) - s) <= 1e-12L * (1 + s));
      }
      CHECK(rank(i, j) == 5);
    }
  // A vector B of shape A.shape[:-1].
  const auto a3 = random_tensor<double, 3>({2, 7, 3}, 22);
  const auto v = random_tensor<double, 2>({2, 7}, 23);
  for (const char* drv : k_drivers) {
    auto r = tl::linalg::lstsq(a3, v, std::nullopt, drv);
    CHECK(r.solution.shape() == tl::shape_t<2>{2, 3});
    CHECK(r.residuals.shape() == (std::string(drv) == "gelsy" ? tl::shape_t<2>{0, 0} : tl::shape_t<2>{2, 1}));
    CHECK(r.rank.shape() == tl::shape_t<1>{2});
  }
  const auto r1 = tl::linalg::lstsq(a3, v);
  const auto r2 = tl::linalg::lstsq(a3, v.unsqueeze(-1));
  for (index_t i = 0; i < 6; ++i) CHECK(std::abs(r1.solution.data()[i] - r2.solution.data()[i]) <= 1e-14);
}

TEST_CASE("lstsq: empty inputs and 1 x 1") {
  auto r0 = tl::linalg::lstsq(tl::tensor<double, 2>(tl::shape_t<2>{0, 3}), tl::tensor<double, 2>(tl::shape_t<2>{0, 2}));
  CHECK(r0.solution.shape() == tl::shape_t<2>{3, 2});
  bool zeros = true;
  for (index_t i = 0; i < 6; ++i) zeros = zeros && r0.solution.data()[i] == 0;
  CHECK(zeros);
  CHECK(r0.rank() == 0);
  auto r1 = tl::linalg::lstsq(tl::tensor<double, 2>(tl::shape_t<2>{4, 0}), random_tensor<double, 2>({4, 2}, 1), std::nullopt, "gelsd");
  CHECK(r1.solution.shape() == tl::shape_t<2>{0, 2});
  CHECK(r1.rank() == 0);
  auto rb = tl::linalg::lstsq(tl::tensor<float, 3>(tl::shape_t<3>{0, 5, 3}), tl::tensor<float, 3>(tl::shape_t<3>{0, 5, 2}));
  CHECK(rb.solution.shape() == tl::shape_t<3>{0, 3, 2});
  auto one = tl::zeros<double>(tl::shape_t<2>{1, 1});
  one(0, 0) = 4;
  auto rhs = tl::zeros<double>(tl::shape_t<2>{1, 1});
  rhs(0, 0) = 2;
  for (const char* drv : k_drivers) CHECK(tl::linalg::lstsq(one, rhs, std::nullopt, drv).solution(0, 0) == 0.5);
}

TEST_CASE("lstsq: errors name the op, the argument and the shapes") {
  const auto a = random_tensor<double, 2>({5, 3}, 1);
  const auto b = random_tensor<double, 2>({5, 2}, 2);
  expect_error_with<tl::value_error>([&] { (void)tl::linalg::lstsq(a, b, std::nullopt, "gelsx"); },
                                     {"tl::linalg::lstsq", "driver", "gelsx"});
  expect_error_with<tl::shape_error>([&] { (void)tl::linalg::lstsq(a, random_tensor<double, 2>({4, 2}, 3)); },
                                     {"tl::linalg::lstsq", "[5, 3]", "[4, 2]"});
  expect_error_with<tl::shape_error>([&] { (void)tl::linalg::lstsq(a, random_tensor<double, 1>({4}, 3)); },
                                     {"tl::linalg::lstsq", "other.size(-1)", "[4]"});
  expect_error_with<tl::shape_error>(
      [&] { (void)tl::linalg::lstsq(random_tensor<double, 3>({2, 5, 3}, 4), random_tensor<double, 3>({3, 5, 1}, 5)); },
      {"tl::linalg::lstsq", "batch dims", "[2, 5, 3]", "[3, 5, 1]"});
}

}  // namespace
