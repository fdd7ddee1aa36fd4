// tl::linalg::svd and svdvals: ‖A − UΣVᴴ‖/‖A‖, ‖UᴴU − I‖, ‖VhVhᴴ − I‖ in units of max(m, n)·eps,
// singular values against numpy (LAPACK gesdd, float64; gen_svd_eig.py) to c·n·eps·σ₁ (Weyl's
// bound: singular values are perfectly conditioned in absolute terms), every dtype; tall, wide,
// square, batched, rank-deficient, Hilbert, empty, 1 x 1 and non-finite inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "svd_eig_ref.hpp"

namespace {
using namespace tl_linalg_test;

mat diag_rect(const std::vector<ld>& s, index_t r, index_t c) {
  mat D(r, c);
  for (std::size_t i = 0; i < s.size(); ++i) D(static_cast<index_t>(i), static_cast<index_t>(i)) = s[i];
  return D;
}

/// Checks one svd of matrix b of a (U, S, Vh from tl::linalg::svd), returns the largest error.
template <class T, class A, class RU, class RS, class RV>
void check_svd_matrix(const A& a, const RU& U, const RS& S, const RV& Vh, index_t b, bool full) {
  const mat Am = matrix_of(a, b), Um = matrix_of(U, b), Vm = matrix_of(Vh, b);
  const index_t m = Am.r, n = Am.c, k = std::min(m, n);
  CHECK(Um.r == m);
  CHECK(Um.c == (full ? m : k));
  CHECK(Vm.r == (full ? n : k));
  CHECK(Vm.c == n);
  std::vector<ld> s(static_cast<std::size_t>(k));
  for (index_t i = 0; i < k; ++i) s[static_cast<std::size_t>(i)] = static_cast<ld>(S.data()[b * k + i]);
  for (index_t i = 0; i + 1 < k; ++i) CHECK(s[i] >= s[i + 1]);
  if (k > 0) CHECK(s[k - 1] >= 0);
  const index_t sz = std::max<index_t>(std::max(m, n), 1);
  const mat USV = mul(Um, mul(diag_rect(s, Um.c, Vm.r), Vm));
  CHECK(rel_err_neps<T>(USV, Am, fro(Am), sz) <= 4);
  CHECK(rel_err_neps<T>(mul(adjoint(Um), Um), identity(Um.c), std::sqrt(static_cast<ld>(Um.c)), sz) <= 4);
  CHECK(rel_err_neps<T>(mul(Vm, adjoint(Vm)), identity(Vm.r), std::sqrt(static_cast<ld>(Vm.r)), sz) <= 4);
}

template <class T, class A>
void check_svd(const A& a) {
  constexpr std::size_t R = std::remove_cvref_t<A>::rank;
  const index_t nb = tl::linalg::detail::batch_count(a.shape());
  for (bool full : {true, false}) {
    CAPTURE(full);
    auto [U, S, Vh] = tl::linalg::svd(a, full);
    // Under AddressSanitizer the O(n^3) reference products of the larger matrices are left out (the
    // decomposition itself still runs and is checked for memory errors; the release run checks all).
    if (!tl_test::sanitized || a.numel() <= 10000)
      for (index_t b = 0; b < nb; ++b) check_svd_matrix<T>(a, U, S, Vh, b, full);
    // svdvals: the same values (another code path: no vectors accumulated).
    const auto sv = tl::linalg::svdvals(a);
    REQUIRE(sv.shape() == S.shape());
    const ld s0 = S.numel() ? static_cast<ld>(S.data()[0]) : 0;
    for (index_t i = 0; i < sv.numel(); ++i)
      CHECK(std::abs(static_cast<ld>(sv.data()[i]) - static_cast<ld>(S.data()[i])) <=
            8 * static_cast<ld>(a.shape()[R - 1] + a.shape()[R - 2]) * eps_of<T>() * std::max<ld>(s0, 1e-30L));
  }
}

template <class T>
void svd_shapes() {
  CAPTURE(sizeof(T));
  const std::vector<std::pair<index_t, index_t>> shapes{{1, 1}, {2, 2}, {3, 3}, {5, 3}, {3, 5}, {17, 17},
                                                        {40, 23}, {23, 40}, {64, 64}, {100, 7}, {7, 100}, {130, 130},
                                                        // three panels of the blocked bidiagonalization
                                                        {300, 200},
                                                        // columns of 2 KiB: padded work matrices for U
                                                        {static_cast<index_t>(2048 / sizeof(T)), 30}};
  std::uint64_t seed = 11;
  for (auto [m, n] : shapes) {
    CAPTURE(m);
    CAPTURE(n);
    ++seed;
    if (tl_test::sweep_case<T>(m * n)) check_svd<T>(random_tensor<T, 2>({m, n}, seed));
  }
  // Batched, with rectangular matrices.
  check_svd<T>(random_tensor<T, 4>({2, 3, 6, 4}, 7));
  check_svd<T>(random_tensor<T, 3>({3, 4, 9}, 8));
  // Rank-deficient (rank 3) and zero matrices; a matrix with repeated singular values (orthogonal).
  {
    const auto f = random_tensor<T, 2>({12, 3}, 21), g = random_tensor<T, 2>({3, 9}, 22);
    const auto p = tl::linalg::matmul(f, g);
    check_svd<T>(p);
    const auto s = tl::linalg::svdvals(p);
    for (index_t i = 3; i < 9; ++i) CHECK(static_cast<ld>(s(i)) <= 20 * 12 * eps_of<T>() * static_cast<ld>(s(0)));
  }
  check_svd<T>(tl::tensor<T, 2>(tl::zeros<T>(4, 6)));
  // Orders above 48 take divide and conquer: rank-deficient and with zero rows and columns (heavy
  // deflation, zero singular values).
  if (tl_test::sweep_case<T>(96 * 96)) {
    const auto f = random_tensor<T, 2>({120, 5}, 23), g = random_tensor<T, 2>({5, 70}, 24);
    check_svd<T>(tl::linalg::matmul(f, g));
    auto z = random_tensor<T, 2>({96, 96}, 25);
    for (index_t k = 0; k < 96; k += 7) {
      z.select(0, k) = T(0);
      z.select(1, (k * 5) % 96) = T(0);
    }
    check_svd<T>(z);
  }
  {
    auto [Q, S0, V0] = tl::linalg::svd(random_tensor<T, 2>({6, 6}, 31));
    check_svd<T>(Q);
    const auto s = tl::linalg::svdvals(Q);
    for (index_t i = 0; i < 6; ++i) CHECK(std::abs(static_cast<ld>(s(i)) - 1) <= 50 * eps_of<T>());
  }
  // Hilbert matrices (cond up to 1e16 at n = 12): the backward error stays at n * eps.
  for (index_t n : {4, 8, 12}) check_svd<T>(hilbert<T>(n));
  // Graded: rows scaled from 1 to 1e-12 (double) / 1e-5 (float), and huge / tiny entries.
  {
    auto g = random_tensor<T, 2>({9, 9}, 41);
    const double decay = sizeof(tl::real_t<T>) == 8 ? 0.03 : 0.25;
    double f = 1;
    for (index_t i = 0; i < 9; ++i, f *= decay)
      for (index_t j = 0; j < 9; ++j) g(i, j) = g(i, j) * T(static_cast<tl::real_t<T>>(f));
    check_svd<T>(g);
    using Rl = tl::real_t<T>;
    auto big = random_tensor<T, 2>({5, 4}, 42);
    for (index_t i = 0; i < big.numel(); ++i) big.data()[i] = big.data()[i] * T(std::numeric_limits<Rl>::max() / 4);
    check_svd<T>(big);
    auto small = random_tensor<T, 2>({4, 5}, 43);
    for (index_t i = 0; i < small.numel(); ++i) small.data()[i] = small.data()[i] * T(std::numeric_limits<Rl>::min() * 4);
    const auto ss = tl::linalg::svdvals(small);
    CHECK(static_cast<ld>(ss(0)) > 0);
    CHECK(std::isfinite(static_cast<ld>(ss(0)) / static_cast<ld>(std::numeric_limits<Rl>::min())));
  }
}

TEST_CASE("svd: U S Vh reproduces A, U and Vh orthonormal, S descending; every dtype and shape") {
  svd_shapes<float>();
  svd_shapes<double>();
  svd_shapes<tl::complex<float>>();
  svd_shapes<tl::complex<double>>();
}

template <class T>
void svdvals_reference() {
  CAPTURE(sizeof(T));
  for (const auto& c : load_svd_eig("svdvals")) {
    if (c.cplx && !tl::is_complex_v<T>) continue;
    CAPTURE(c.m);
    CAPTURE(c.n);
    const auto a = case_matrix<T>(c);
    const auto s = tl::linalg::svdvals(a);
    REQUIRE(s.numel() == static_cast<index_t>(c.res.size()));
    const ld s0 = c.res[0].real();
    const ld tol = 4 * static_cast<ld>(std::max(c.m, c.n)) * eps_of<T>() * s0;
    for (index_t i = 0; i < s.numel(); ++i) {
      CAPTURE(i);
      CHECK(std::abs(static_cast<ld>(s(i)) - c.res[static_cast<std::size_t>(i)].real()) <= tol);
    }
    auto [U, S, Vh] = tl::linalg::svd(a, false);
    for (index_t i = 0; i < s.numel(); ++i)
      CHECK(std::abs(static_cast<ld>(S(i)) - c.res[static_cast<std::size_t>(i)].real()) <= tol);
  }
}

TEST_CASE("svdvals and svd's S against numpy (random, rank-deficient, Hilbert up to n = 12)") {
  svdvals_reference<float>();
  svdvals_reference<double>();
  svdvals_reference<tl::complex<float>>();
  svdvals_reference<tl::complex<double>>();
}

TEST_CASE("svd: empty matrices, 1 x 1, shapes as torch") {
  {
    auto [U, S, Vh] = tl::linalg::svd(tl::tensor<double, 2>(tl::shape_t<2>{0, 3}));
    CHECK(U.shape() == tl::shape_t<2>{0, 0});
    CHECK(S.shape() == tl::shape_t<1>{0});
    REQUIRE(Vh.shape() == tl::shape_t<2>{3, 3});
    for (index_t i = 0; i < 3; ++i)
      for (index_t j = 0; j < 3; ++j) CHECK(Vh(i, j) == (i == j ? 1.0 : 0.0));
  }
  {
    auto [U, S, Vh] = tl::linalg::svd(tl::tensor<float, 3>(tl::shape_t<3>{2, 3, 0}), false);
    CHECK(U.shape() == tl::shape_t<3>{2, 3, 0});
    CHECK(S.shape() == tl::shape_t<2>{2, 0});
    CHECK(Vh.shape() == tl::shape_t<3>{2, 0, 0});
    auto [U2, S2, Vh2] = tl::linalg::svd(tl::tensor<float, 3>(tl::shape_t<3>{2, 3, 0}));
    CHECK(U2.shape() == tl::shape_t<3>{2, 3, 3});
    CHECK(U2(1, 2, 2) == 1.0f);
    CHECK(U2(1, 2, 1) == 0.0f);
  }
  CHECK(tl::linalg::svdvals(tl::tensor<double, 3>(tl::shape_t<3>{0, 4, 4})).shape() == tl::shape_t<2>{0, 4});
  {
    tl::tensor<tl::complex<double>, 2> a(tl::shape_t<2>{1, 1});
    a(0, 0) = tl::complex<double>(-3, 4);
    auto [U, S, Vh] = tl::linalg::svd(a);
    CHECK(S(0) == doctest::Approx(5.0));
    const auto p = U(0, 0) * tl::complex<double>(S(0)) * Vh(0, 0);
    CHECK(p.re == doctest::Approx(-3.0));
    CHECK(p.im == doctest::Approx(4.0));
    tl::tensor<float, 2> r(tl::shape_t<2>{1, 1});
    r(0, 0) = -2.0f;
    CHECK(tl::linalg::svdvals(r)(0) == 2.0f);
  }
}

TEST_CASE("svd / svdvals of non-finite input throw linalg_error naming the op (as torch)") {
  auto a = random_tensor<double, 3>({3, 4, 4}, 5);
  a(1, 2, 3) = std::numeric_limits<double>::quiet_NaN();
  expect_error_with<tl::linalg_error>([&] { (void)tl::linalg::svd(a); },
                                      {"tl::linalg::svd:", "non-finite", "batch element 1"});
  expect_error_with<tl::linalg_error>([&] { (void)tl::linalg::svdvals(a); },
                                      {"tl::linalg::svdvals:", "non-finite", "batch element 1"});
  tl::tensor<float, 2> b(tl::shape_t<2>{2, 3});
  for (index_t i = 0; i < 6; ++i) b.data()[i] = 1.0f;
  b(0, 1) = std::numeric_limits<float>::infinity();
  CHECK_THROWS_AS((void)tl::linalg::svdvals(b), tl::linalg_error);
}

// The divide-and-conquer bidiagonal SVD (orders above 64 with vectors) on the bidiagonal itself:
// B = U diag(d) V^T to n eps |B|, U and V orthonormal, d ascending and equal to the singular values
// of implicit QR (bidiagonal_qr, the other algorithm) to n eps |B|. Cases that exercise the
// deflation: the identity (every value deflates), zero diagonal entries (zero singular values),
// zero superdiagonal entries (the matrix splits), a cluster of values 1e-14 apart, graded entries
// down to 1e-15, and the zero matrix; orders with one merge (33) and several (100, 300).
template <class R>
void bidiagonal_dc_cases() {
  CAPTURE(sizeof(R));
  for (const index_t n : {33, 100, 300}) {
    for (int kind = 0; kind < 7; ++kind) {
      CAPTURE(n);
      CAPTURE(kind);
      const auto rnd = random_tensor<double, 1>({2 * n}, static_cast<std::uint64_t>(100 + n + kind));
      std::vector<R> d(static_cast<std::size_t>(n)), e(static_cast<std::size_t>(n), R(0));
      for (index_t i = 0; i < n; ++i) {
        const R a = static_cast<R>(rnd(2 * i)), b = static_cast<R>(rnd(2 * i + 1));
        R di = a, ei = b;
        if (kind == 1) di = 1, ei = 0;
        if (kind == 2 && i % 3 == 0) di = 0;
        if (kind == 3 && i % 5 == 4) ei = 0;
        if (kind == 4) di = R(1) + R(1e-14) * static_cast<R>(i), ei = R(1e-3) * b;
        if (kind == 5) di = static_cast<R>(std::pow(0.89, static_cast<double>(i))), ei = di * b / 2;
        if (kind == 6) di = 0, ei = 0;
        d[static_cast<std::size_t>(i)] = di;
        e[static_cast<std::size_t>(i)] = ei;
      }
      e[static_cast<std::size_t>(n - 1)] = 0;
      const std::vector<R> d0 = d, e0 = e;
      std::vector<R> u(static_cast<std::size_t>(n * n)), v(static_cast<std::size_t>(n * n));
      REQUIRE(tl::linalg::detail::bidiagonal_dc<R>(n, d.data(), e.data(), u.data(), n, v.data(), n));
      ld bn = 0;
      for (index_t i = 0; i < n; ++i) bn = std::max(bn, std::abs(static_cast<ld>(d0[i])) + std::abs(static_cast<ld>(e0[i])));
      const ld tol = 4 * static_cast<ld>(n) * eps_of<R>();
      ld res = 0, ou = 0, ov = 0;
      // (the O(n^3) reference check of n = 300 is left out under AddressSanitizer, as in check_svd)
      for (index_t i = 0; i < (tl_test::sanitized && n > 100 ? 0 : n); ++i)
        for (index_t j = 0; j < n; ++j) {
          ld s = 0, a = 0, c = 0;
          for (index_t k = 0; k < n; ++k) {
            s += static_cast<ld>(u[i + k * n]) * d[k] * v[j + k * n];
            a += static_cast<ld>(u[k + i * n]) * u[k + j * n];
            c += static_cast<ld>(v[k + i * n]) * v[k + j * n];
          }
          const ld b = i == j ? d0[i] : j == i + 1 ? e0[i] : 0;
          res = std::max(res, std::abs(s - b));
          ou = std::max(ou, std::abs(a - (i == j ? 1 : 0)));
          ov = std::max(ov, std::abs(c - (i == j ? 1 : 0)));
        }
      CHECK(res <= tol * std::max<ld>(bn, 1e-30L));
      CHECK(ou <= tol);
      CHECK(ov <= tol);
      std::vector<R> dq = d0, eq = e0;
      REQUIRE(tl::linalg::detail::bidiagonal_qr<R>(n, dq.data(), eq.data(), nullptr, 0, 0, nullptr, 0, 0));
      for (auto& x : dq) x = std::abs(x);
      std::sort(dq.begin(), dq.end());
      for (index_t i = 0; i < n; ++i) {
        CAPTURE(i);
        CHECK(d[i] >= 0);
        if (i + 1 < n) CHECK(d[i] <= d[i + 1]);
        CHECK(std::abs(static_cast<ld>(d[i]) - dq[static_cast<std::size_t>(i)]) <= tol * bn);
      }
    }
  }
}

TEST_CASE("bidiagonal divide and conquer: B = U S V^T, orthonormal U and V, values as implicit QR's") {
  bidiagonal_dc_cases<float>();
  bidiagonal_dc_cases<double>();
}

// svd at orders that take divide and conquer, with known singular values: A = Q1 diag(s) Q2^H for
// random unitary Q1, Q2 and s with a block of 30 equal values, a cluster 1e-9 apart, zeros and a
// geometric tail; S against s to 4 max(m, n) eps s_max, plus the backward error and orthogonality.
template <class T>
void svd_known_values() {
  CAPTURE(sizeof(T));
  using Rl = tl::real_t<T>;
  for (const auto& [m, n] : std::vector<std::pair<index_t, index_t>>{{120, 120}, {150, 110}}) {
    CAPTURE(m);
    if (!tl_test::sweep_case<T>(m * n)) continue;
    auto [Q1, R1] = tl::linalg::qr(random_tensor<T, 2>({m, m}, 61));
    auto [Q2, R2] = tl::linalg::qr(random_tensor<T, 2>({n, n}, 62));
    std::vector<ld> s(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) {
      ld v = 0;
      if (i < 30) v = 1;
      else if (i < 50) v = 0.5L + 1e-9L * static_cast<ld>(i);
      else if (i < 60) v = 0;
      else v = std::pow(0.8L, static_cast<ld>(i - 60));
      s[static_cast<std::size_t>(i)] = v;
    }
    tl::tensor<T, 2> a(tl::shape_t<2>{m, n});
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        T acc(0);
        for (index_t k = 0; k < n; ++k)
          acc = acc + Q1(i, k) * T(static_cast<Rl>(s[static_cast<std::size_t>(k)])) * tl::linalg::detail::conj_of(Q2(j, k));
        a(i, j) = acc;
      }
    check_svd<T>(a);
    std::sort(s.begin(), s.end(), std::greater<ld>());
    auto [U, S, Vh] = tl::linalg::svd(a, false);
    for (index_t i = 0; i < n; ++i) {
      CAPTURE(i);
      CHECK(std::abs(static_cast<ld>(S(i)) - s[static_cast<std::size_t>(i)]) <= 8 * static_cast<ld>(m) * eps_of<T>());
    }
  }
}

TEST_CASE("svd at divide-and-conquer orders: repeated, clustered and zero singular values") {
  svd_known_values<float>();
  svd_known_values<double>();
  svd_known_values<tl::complex<float>>();
  svd_known_values<tl::complex<double>>();
}

TEST_CASE("svd accepts views and expressions and leaves its input alone") {
  const auto a = random_tensor<tl::complex<double>, 2>({5, 7}, 9);
  const auto copy = a.clone();
  check_svd<tl::complex<double>>(a.mH());
  const auto s1 = tl::linalg::svdvals(a), s2 = tl::linalg::svdvals(a.mH()), s3 = tl::linalg::svdvals(a * 2.0);
  for (index_t i = 0; i < 5; ++i) {
    CHECK(s1(i) == doctest::Approx(s2(i)).epsilon(1e-13));
    CHECK(s3(i) == doctest::Approx(2 * s1(i)).epsilon(1e-13));
  }
  for (index_t i = 0; i < a.numel(); ++i) CHECK(a.data()[i] == copy.data()[i]);
}

}  // namespace
