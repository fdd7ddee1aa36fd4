// Backward errors of tl::linalg's factorizations and solvers, every floating dtype:
// ‖PA − LU‖/‖A‖, ‖A − LLᴴ‖/‖A‖ and ‖AX − B‖/(‖A‖‖X‖ + ‖B‖) in units of n·eps, on random,
// Hilbert (n <= 12), batched, transposed/conjugated and rectangular inputs.
#include <doctest/doctest.h>

#include "linalg_test_util.hpp"

namespace {
using namespace tl_linalg_test;

// Sizes around the TRSM / panel / block boundaries (16, 32, 128).
constexpr std::array<index_t, 9> k_sizes{1, 2, 7, 16, 33, 64, 129, 150, 260};

template <class T, class E>
void check_lu(const E& a, const char* what) {
  CAPTURE(what);
  auto [P, L, U] = tl::linalg::lu(a);
  const mat A = matrix_of(a), PLU = mul(matrix_of(P), mul(matrix_of(L), matrix_of(U)));
  const index_t n = std::max(A.r, A.c);
  CHECK(rel_err_neps<T>(PLU, A, fro(A), n) <= 4);
  // L is unit lower triangular, U upper triangular; partial pivoting on |re| + |im| bounds |L(i, j)|
  // by 1 (real) or sqrt(2) (complex).
  const ld lmax = tl::is_complex_v<T> ? std::sqrt(2.0L) : 1.0L;
  const mat Lm = matrix_of(L), Um = matrix_of(U);
  bool shape_ok = true;
  for (index_t i = 0; i < Lm.r; ++i)
    for (index_t j = 0; j < Lm.c; ++j) {
      if (j > i) shape_ok = shape_ok && Lm(i, j) == cld(0);
      if (j == i) shape_ok = shape_ok && Lm(i, j) == cld(1);
      if (j < i) shape_ok = shape_ok && std::abs(Lm(i, j)) <= lmax + 1e-6L;
    }
  for (index_t i = 0; i < Um.r; ++i)
    for (index_t j = 0; j < std::min(i, Um.c); ++j) shape_ok = shape_ok && Um(i, j) == cld(0);
  CHECK(shape_ok);
}

template <class T>
void lu_all_sizes() {
  CAPTURE(sizeof(T));
  for (index_t n : k_sizes) {
    CAPTURE(n);
    if (tl_test::sweep_case<T>(n * n)) check_lu<T>(random_tensor<T, 2>({n, n}, static_cast<std::uint64_t>(n)), "square");
  }
  if (tl_test::sweep_case<T>(200 * 140)) {
    check_lu<T>(random_tensor<T, 2>({200, 140}, 3), "tall");
    check_lu<T>(random_tensor<T, 2>({70, 150}, 4), "wide");
    // Rows of 2 KiB: factored in a copy with padded rows (blocked path: min(m, n) > 128).
    check_lu<T>(random_tensor<T, 2>({130, static_cast<index_t>(2048 / sizeof(T))}, 8), "rows of 2 KiB");
  }
  check_lu<T>(random_tensor<T, 2>({1, 5}, 5), "one row");
  check_lu<T>(random_tensor<T, 2>({5, 1}, 6), "one column");
  const auto t = random_tensor<T, 2>({90, 90}, 7);
  check_lu<T>(t.t(), "transposed view");
  if constexpr (tl::is_complex_v<T>) check_lu<T>(t.mH(), "adjoint view");
}

TEST_CASE("lu: P L U reproduces A to a few n*eps, every dtype and shape") {
  lu_all_sizes<float>();
  lu_all_sizes<double>();
  lu_all_sizes<tl::complex<float>>();
  lu_all_sizes<tl::complex<double>>();
}

template <class T>
void cholesky_all_sizes() {
  CAPTURE(sizeof(T));
  for (index_t n : k_sizes) {
    CAPTURE(n);
    if (!tl_test::sweep_case<T>(n * n)) continue;
    const auto a = random_hpd<T>(n, static_cast<std::uint64_t>(n + 100));
    const mat A = matrix_of(a);
    const auto L = tl::linalg::cholesky(a);
    const mat Lm = matrix_of(L);
    CHECK(rel_err_neps<T>(mul(Lm, adjoint(Lm)), A, fro(A), n) <= 4);
    bool lower = true;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = i + 1; j < n; ++j) lower = lower && Lm(i, j) == cld(0);
    CHECK(lower);
    const auto U = tl::linalg::cholesky(a, true);
    const mat Um = matrix_of(U);
    CHECK(rel_err_neps<T>(mul(adjoint(Um), Um), A, fro(A), n) <= 4);
    // U = L^H (the same algorithm on the same triangle, mirrored).
    CHECK(fro_diff(Um, adjoint(Lm)) <= 8 * n * eps_of<T>() * fro(Lm));
  }
}

TEST_CASE("cholesky: L L^H and U^H U reproduce A, every dtype; only one triangle is read") {
  cholesky_all_sizes<float>();
  cholesky_all_sizes<double>();
  cholesky_all_sizes<tl::complex<float>>();
  cholesky_all_sizes<tl::complex<double>>();
  // Garbage in the unread triangle does not matter.
  auto a = random_hpd<double>(40, 1);
  auto b = a.clone();
  for (index_t i = 0; i < 40; ++i)
    for (index_t j = i + 1; j < 40; ++j) b(i, j) = 1e300;
  const auto L1 = tl::linalg::cholesky(a), L2 = tl::linalg::cholesky(b);
  CHECK(fro_diff(matrix_of(L1), matrix_of(L2)) == 0);
  auto c = a.clone();
  for (index_t i = 0; i < 40; ++i)
    for (index_t j = 0; j < i; ++j) c(i, j) = -7;
  CHECK(fro_diff(matrix_of(tl::linalg::cholesky(a, true)), matrix_of(tl::linalg::cholesky(c, true))) == 0);
}

// ‖A X − B‖ / ((‖A‖‖X‖ + ‖B‖) n eps).
template <class T>
ld residual(const mat& A, const mat& X, const mat& B, bool left = true) {
  const mat AX = left ? mul(A, X) : mul(X, A);
  return rel_err_neps<T>(AX, B, fro(A) * fro(X) + fro(B), A.r);
}

template <class T>
void solves_all_sizes() {
  CAPTURE(sizeof(T));
  for (index_t n : k_sizes) {
    CAPTURE(n);
    if (!tl_test::sweep_case<T>(n * n)) continue;
    const auto a = random_tensor<T, 2>({n, n}, static_cast<std::uint64_t>(n + 7));
    const auto b = random_tensor<T, 2>({n, 5}, static_cast<std::uint64_t>(n + 8));
    const mat A = matrix_of(a), B = matrix_of(b);
    CHECK(residual<T>(A, matrix_of(tl::linalg::solve(a, b)), B) <= 4);
    // Right-hand side on the right: X A = B^T.
    const auto bt = b.t();
    CHECK(residual<T>(A, matrix_of(tl::linalg::solve(a, bt, false)), matrix_of(bt), false) <= 4);
    // inv: A inv(A) = I.
    mat I(n, n);
    for (index_t i = 0; i < n; ++i) I(i, i) = 1;
    CHECK(residual<T>(A, matrix_of(tl::linalg::inv(a)), I) <= 4);
    // lu_solve, all four variants.
    auto [LU, piv] = tl::linalg::lu_factor(a);
    CHECK(residual<T>(A, matrix_of(tl::linalg::lu_solve(LU, piv, b)), B) <= 4);
    CHECK(residual<T>(adjoint(A), matrix_of(tl::linalg::lu_solve(LU, piv, b, true, true)), B) <= 4);
    CHECK(residual<T>(A, matrix_of(tl::linalg::lu_solve(LU, piv, bt, false)), matrix_of(bt), false) <= 4);
    CHECK(residual<T>(adjoint(A), matrix_of(tl::linalg::lu_solve(LU, piv, bt, false, true)), matrix_of(bt), false) <=
          4);
    // solve_triangular on the factors, both sides, upper and lower, unit diagonal.
    auto [P, L, U] = tl::linalg::lu(a);
    const mat Lm = matrix_of(L), Um = matrix_of(U);
    CHECK(residual<T>(Lm, matrix_of(tl::linalg::solve_triangular(L, b, false, true, true)), B) <= 4);
    CHECK(residual<T>(Um, matrix_of(tl::linalg::solve_triangular(U, b, true)), B) <= 4);
    CHECK(residual<T>(Um, matrix_of(tl::linalg::solve_triangular(U, bt, true, false)), matrix_of(bt), false) <= 4);
    // A transposed (and conjugated) view of U is lower triangular; garbage above is not read.
    CHECK(residual<T>(adjoint(Um), matrix_of(tl::linalg::solve_triangular(U.mH(), b, false)), B) <= 4);
    CHECK(residual<T>(Lm, matrix_of(tl::linalg::solve_triangular(LU, b, false, true, true)), B) <= 4);
  }
  // A vector right-hand side.
  const auto a = random_tensor<T, 2>({30, 30}, 1);
  const auto v = random_tensor<T, 1>({30}, 2);
  const auto x = tl::linalg::solve(a, v);
  static_assert(decltype(x)::rank == 1);
  REQUIRE(x.shape() == tl::shape_t<1>{30});
  CHECK(residual<T>(matrix_of(a), matrix_of(x.unsqueeze(1)), matrix_of(v.unsqueeze(1))) <= 4);
}

TEST_CASE("solve, inv, lu_solve, solve_triangular: residuals of a few n*eps, every dtype") {
  solves_all_sizes<float>();
  solves_all_sizes<double>();
  solves_all_sizes<tl::complex<float>>();
  solves_all_sizes<tl::complex<double>>();
}

TEST_CASE("Hilbert matrices up to n = 12: backward errors stay at n*eps although cond reaches 1e16") {
  for (index_t n = 1; n <= 12; ++n) {
    CAPTURE(n);
    const auto h = hilbert<double>(n);
    const mat H = matrix_of(h);
    auto [P, L, U] = tl::linalg::lu(h);
    CHECK(rel_err_neps<double>(mul(matrix_of(P), mul(matrix_of(L), matrix_of(U))), H, fro(H), n) <= 4);
    const mat Lc = matrix_of(tl::linalg::cholesky(h));
    CHECK(rel_err_neps<double>(mul(Lc, adjoint(Lc)), H, fro(H), n) <= 4);
    const auto b = random_tensor<double, 2>({n, 3}, 9);
    CHECK(residual<double>(H, matrix_of(tl::linalg::solve(h, b)), matrix_of(b)) <= 4);
    // float: Cholesky exists up to n = 7 (cond(H_8) * eps_float > 1).
    if (n <= 7) {
      const auto hf = hilbert<float>(n);
      const mat Hf = matrix_of(hf);
      const mat Lf = matrix_of(tl::linalg::cholesky(hf));
      CHECK(rel_err_neps<float>(mul(Lf, adjoint(Lf)), Hf, fro(Hf), n) <= 4);
    }
  }
}

TEST_CASE("batched inputs: every matrix of the batch matches the unbatched result; broadcasting") {
  using T = tl::complex<double>;
  const auto a = random_tensor<T, 4>({2, 3, 20, 20}, 11);
  // B of rank 4 (a rank-3 B would be a batch of vectors): broadcast over the first dim of a.
  const auto b = random_tensor<T, 4>({1, 3, 20, 4}, 12);
  const auto x = tl::linalg::solve(a, b);
  REQUIRE(x.shape() == tl::shape_t<4>{2, 3, 20, 4});
  const auto d = tl::linalg::det(a);
  REQUIRE(d.shape() == tl::shape_t<2>{2, 3});
  const auto ai = tl::linalg::inv(a);
  auto [LU, piv, info] = tl::linalg::lu_factor_ex(a);
  REQUIRE(piv.shape() == tl::shape_t<3>{2, 3, 20});
  REQUIRE(info.shape() == tl::shape_t<2>{2, 3});
  for (index_t p = 0; p < 2; ++p)
    for (index_t q = 0; q < 3; ++q) {
      const auto aq = a.select(0, p).select(0, q).contiguous();
      const auto bq = b.select(0, 0).select(0, q).contiguous();
      const index_t flat = p * 3 + q;
      CHECK(fro_diff(matrix_of(x, flat), matrix_of(tl::linalg::solve(aq, bq))) == 0);
      CHECK(to_cld(d(p, q)) == to_cld(tl::linalg::det(aq)()));
      CHECK(fro_diff(matrix_of(ai, flat), matrix_of(tl::linalg::inv(aq))) == 0);
      CHECK(info(p, q) == 0);
    }
  // A batch of vectors (B of shape A.shape[:-1]).
  const auto v = random_tensor<T, 3>({2, 3, 20}, 13);
  const auto xv = tl::linalg::solve(a, v);
  static_assert(decltype(xv)::rank == 3);
  REQUIRE(xv.shape() == tl::shape_t<3>{2, 3, 20});
  CHECK(fro_diff(matrix_of(xv.unsqueeze(3), 4),
                 matrix_of(tl::linalg::solve(a.select(0, 1).select(0, 1).contiguous(),
                                             v.select(0, 1).select(0, 1).contiguous().unsqueeze(1)))) <= 1e-12L);
  // Many small matrices (run one per task) for every real op.
  const auto s = random_tensor<float, 3>({64, 6, 6}, 14);
  const auto hs = tl::linalg::cholesky(tl::matmul(s, s.mT()) + 6.0f * tl::eye<float>(6));
  for (index_t q = 0; q < 64; q += 9) {
    const mat A = matrix_of(s, q);
    const mat H = mul(A, adjoint(A));
    const mat Lq = matrix_of(hs, q);
    mat H6 = H;
    for (index_t i = 0; i < 6; ++i) H6(i, i) += 6;
    CHECK(rel_err_neps<float>(mul(Lq, adjoint(Lq)), H6, fro(H6), 6) <= 4);
  }
  // solve_triangular with broadcast batch dims.
  const auto L = tl::linalg::cholesky(random_hpd<double>(12, 5));
  const auto bb = random_tensor<double, 3>({4, 12, 3}, 15);
  const auto xt = tl::linalg::solve_triangular(L, bb, false);
  REQUIRE(xt.shape() == tl::shape_t<3>{4, 12, 3});
  for (index_t q = 0; q < 4; ++q) CHECK(residual<double>(matrix_of(L), matrix_of(xt, q), matrix_of(bb, q)) <= 4);
}

TEST_CASE("large single matrices with two threads match one thread to rounding") {
  for (int threads : {1, 2}) {
    tl::set_num_threads(threads);
    const auto a = random_tensor<double, 2>({300, 300}, 21);
    const auto b = random_tensor<double, 2>({300, 2}, 22);
    CHECK(residual<double>(matrix_of(a), matrix_of(tl::linalg::solve(a, b)), matrix_of(b)) <= 4);
    const auto h = random_hpd<double>(300, 23);
    const mat Lm = matrix_of(tl::linalg::cholesky(h));
    CHECK(rel_err_neps<double>(mul(Lm, adjoint(Lm)), matrix_of(h), fro(matrix_of(h)), 300) <= 4);
  }
  tl::set_num_threads(2);
}
}  // namespace
