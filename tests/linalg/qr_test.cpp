// tl::linalg::qr, householder_product and detail::geqrf: ‖A − QR‖/‖A‖ and ‖QᴴQ − I‖ in units of
// n·eps on random, Hilbert (n <= 12), rank-deficient, rectangular, batched, complex and viewed
// inputs; R upper triangular with a real diagonal; the packed factors against torch.geqrf; errors
// and empty / 1 x 1 inputs.
#include <string>

#include "decomp_reference.hpp"

namespace {
using namespace tl_linalg_test;

// Q and R of one matrix of a batch satisfy the QR identities for A.
template <class T>
void check_qr_matrix(const mat& A, const mat& Q, const mat& R, bool complete) {
  const index_t m = A.r, n = A.c, k = std::min(m, n);
  CHECK(Q.r == m);
  CHECK(Q.c == (complete ? m : k));
  CHECK(R.r == (complete ? m : k));
  CHECK(R.c == n);
  const index_t sz = std::max<index_t>(std::max(m, n), 1);
  CHECK(rel_err_neps<T>(mul(Q, R), A, fro(A), sz) <= 2);
  CHECK(rel_err_neps<T>(mul(adjoint(Q), Q), identity(Q.c), std::sqrt(static_cast<ld>(std::max<index_t>(Q.c, 1))), sz) <= 2);
  bool upper = true, real_diag = true;
  for (index_t i = 0; i < R.r; ++i)
    for (index_t j = 0; j < std::min(i + 1, R.c); ++j) {
      if (j < i) upper = upper && R(i, j) == cld(0);
      if (j == i) real_diag = real_diag && R(i, j).imag() == 0;
    }
  CHECK(upper);
  CHECK(real_diag);
}

template <class T, class E>
void check_qr(const E& a, const char* what) {
  const std::string what_s = what;
  CAPTURE(what_s);
  constexpr std::size_t Rk = std::remove_cvref_t<E>::rank;
  const index_t nb = tl::linalg::detail::batch_count(a.shape());
  for (const char* mode : {"reduced", "complete"}) {
    CAPTURE(mode);
    auto [Q, R] = tl::linalg::qr(a, mode);
    for (index_t b = 0; b < nb; ++b) check_qr_matrix<T>(matrix_of(a, b), matrix_of(Q, b), matrix_of(R, b), mode[0] == 'c');
  }
  // mode "r": the same R as "reduced", Q empty.
  auto [Q0, R0] = tl::linalg::qr(a, "r");
  auto [Q1, R1] = tl::linalg::qr(a);
  CHECK(Q0.numel() == 0);
  CHECK(Q0.shape()[Rk - 1] == 0);
  REQUIRE(R0.shape() == R1.shape());
  bool same = true;
  for (index_t i = 0; i < R0.numel(); ++i) same = same && R0.data()[i] == R1.data()[i];
  CHECK(same);
  // householder_product of geqrf's output is the reduced Q.
  auto [packed, tau] = tl::linalg::detail::geqrf(a);
  const index_t m = a.shape()[Rk - 2], n = a.shape()[Rk - 1];
  if (m >= n) {
    const auto Q2 = tl::linalg::householder_product(packed, tau);
    for (index_t b = 0; b < nb; ++b) CHECK(fro_diff(matrix_of(Q2, b), matrix_of(Q1, b)) <= 4 * std::max<index_t>(m, 1) * eps_of<T>() * std::sqrt(static_cast<ld>(n) + 1));
  }
}

template <class T>
void qr_all_shapes() {
  CAPTURE(sizeof(T));
  for (index_t n : {1, 2, 7, 33, 63, 64, 65, 100, 130}) {
    CAPTURE(n);
    if (tl_test::sweep_case<T>(n * n)) check_qr<T>(random_tensor<T, 2>({n, n}, static_cast<std::uint64_t>(n)), "square");
  }
  if (tl_test::sweep_case<T>(150 * 40)) {
    check_qr<T>(random_tensor<T, 2>({150, 40}, 3), "tall");
    check_qr<T>(random_tensor<T, 2>({97, 70}, 4), "tall, several panels");
    check_qr<T>(random_tensor<T, 2>({40, 150}, 5), "wide");
    // Columns of 2 KiB: factored in a work matrix with padded columns.
    constexpr index_t rows_2k = static_cast<index_t>(2048 / sizeof(T));
    check_qr<T>(random_tensor<T, 2>({rows_2k, 70}, 11), "columns of 2 KiB");
  }
  check_qr<T>(random_tensor<T, 2>({1, 6}, 6), "one row");
  check_qr<T>(random_tensor<T, 2>({6, 1}, 7), "one column");
  check_qr<T>(random_tensor<T, 4>({3, 2, 20, 12}, 8), "batched");
  const auto t = random_tensor<T, 2>({50, 36}, 9);
  check_qr<T>(t.t(), "transposed view");
  if constexpr (tl::is_complex_v<T>) check_qr<T>(t.mH(), "adjoint view");
  for (index_t n = 1; n <= 12; ++n) check_qr<T>(hilbert<T>(n), "hilbert");
  // Rank deficient: every column a copy of one of three; and a zero matrix.
  auto rd = random_tensor<T, 2>({45, 40}, 10);
  for (index_t i = 0; i < 45; ++i)
    for (index_t j = 3; j < 40; ++j) rd(i, j) = rd(i, j % 3);
  check_qr<T>(rd, "rank 3");
  check_qr<T>(tl::zeros<T>(tl::shape_t<2>{5, 4}), "zero");
}

TEST_CASE("qr: Q R reproduces A, Q has orthonormal columns, R is upper triangular (every dtype)") {
  qr_all_shapes<float>();
  qr_all_shapes<double>();
  qr_all_shapes<tl::complex<float>>();
  qr_all_shapes<tl::complex<double>>();
}

template <class T>
void geqrf_against_torch(const decomp_case& c) {
  const auto a = c.matrix<T>();
  auto [packed, tau] = tl::linalg::detail::geqrf(a);
  REQUIRE(packed.numel() == static_cast<index_t>(c.r1.size()));
  REQUIRE(tau.numel() == static_cast<index_t>(c.r2.size()));
  // R and the reflectors are perturbed by about cond(A) * eps relative to ‖A‖.
  ld ascale = 0;
  for (const auto& v : c.a) ascale = std::max(ascale, std::abs(v));
  const ld tol = 16 * static_cast<ld>(std::max(c.m, c.n)) * eps_of<T>() * static_cast<ld>(c.cond);
  ld err_a = 0, err_t = 0;
  for (std::size_t i = 0; i < c.r1.size(); ++i) {
    const index_t row = static_cast<index_t>(i) / c.n, col = static_cast<index_t>(i) % c.n;
    const ld scale = row <= col ? std::max<ld>(ascale, 1) : 1;  // R entries scale with A; v's are O(1)
    err_a = std::max(err_a, std::abs(to_cld(packed.data()[i]) - c.r1[i]) / scale);
  }
  for (std::size_t i = 0; i < c.r2.size(); ++i) err_t = std::max(err_t, std::abs(to_cld(tau.data()[i]) - c.r2[i]));
  CHECK(err_a <= tol);
  CHECK(err_t <= tol);
}

TEST_CASE("detail::geqrf matches torch.geqrf (reflectors, R and tau; LAPACK's signs)") {
  for (const auto& c : load_decomp("geqrf")) {
    CAPTURE(c.m);
    CAPTURE(c.n);
    CAPTURE(c.cplx);
    if (c.cplx) {
      geqrf_against_torch<tl::complex<double>>(c);
      if (c.cond < 1e3) geqrf_against_torch<tl::complex<float>>(c);
    } else {
      geqrf_against_torch<double>(c);
      if (c.cond < 1e3) geqrf_against_torch<float>(c);
    }
  }
}

TEST_CASE("qr and householder_product: empty inputs and 1 x 1") {
  for (auto [m, n] : {std::pair<index_t, index_t>{0, 0}, {0, 3}, {3, 0}}) {
    auto [Q, R] = tl::linalg::qr(tl::tensor<double, 2>(tl::shape_t<2>{m, n}));
    CHECK(Q.shape() == tl::shape_t<2>{m, std::min(m, n)});
    CHECK(R.shape() == tl::shape_t<2>{std::min(m, n), n});
    auto [Qc, Rc] = tl::linalg::qr(tl::tensor<double, 2>(tl::shape_t<2>{m, n}), "complete");
    CHECK(Qc.shape() == tl::shape_t<2>{m, m});
    CHECK(Rc.shape() == tl::shape_t<2>{m, n});
    for (index_t i = 0; i < Qc.numel(); ++i) CHECK(Qc.data()[i] == (i % (m + 1) == 0 ? 1.0 : 0.0));
  }
  auto [Qb, Rb] = tl::linalg::qr(tl::tensor<float, 3>(tl::shape_t<3>{0, 4, 3}));
  CHECK(Qb.shape() == tl::shape_t<3>{0, 4, 3});
  CHECK(Rb.shape() == tl::shape_t<3>{0, 3, 3});
  auto one = tl::zeros<double>(tl::shape_t<2>{1, 1});
  one(0, 0) = -2.5;
  auto [Q1, R1] = tl::linalg::qr(one);
  CHECK(Q1(0, 0) * R1(0, 0) == -2.5);
  CHECK(std::abs(Q1(0, 0)) == 1.0);
  // householder_product with k = 0 is the identity's first n columns.
  const auto hp = tl::linalg::householder_product(random_tensor<double, 2>({4, 2}, 1), tl::tensor<double, 1>(tl::shape_t<1>{0}));
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 2; ++j) CHECK(hp(i, j) == (i == j ? 1.0 : 0.0));
  const auto hp0 = tl::linalg::householder_product(tl::tensor<double, 3>(tl::shape_t<3>{0, 4, 3}), tl::tensor<double, 2>(tl::shape_t<2>{0, 2}));
  CHECK(hp0.shape() == tl::shape_t<3>{0, 4, 3});
}

TEST_CASE("qr and householder_product: errors name the op, the argument and the shapes") {
  const auto a = random_tensor<double, 2>({4, 3}, 2);
  expect_error_with<tl::value_error>([&] { (void)tl::linalg::qr(a, "full"); }, {"tl::linalg::qr", "'full'", "reduced"});
  expect_error_with<tl::shape_error>(
      [&] { (void)tl::linalg::householder_product(a.t(), random_tensor<double, 1>({2}, 3)); },
      {"tl::linalg::householder_product", "input.shape[-2]", "[3, 4]", "[2]"});
  expect_error_with<tl::shape_error>([&] { (void)tl::linalg::householder_product(a, random_tensor<double, 1>({4}, 3)); },
                                     {"tl::linalg::householder_product", "tau.shape[-1]", "[4, 3]", "[4]"});
  expect_error_with<tl::shape_error>(
      [&] {
        (void)tl::linalg::householder_product(random_tensor<double, 3>({2, 4, 3}, 4), random_tensor<double, 2>({3, 2}, 5));
      },
      {"tl::linalg::householder_product", "batch", "[2, 4, 3]", "[3, 2]"});
}

}  // namespace
