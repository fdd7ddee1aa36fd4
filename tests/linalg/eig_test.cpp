// tl::linalg::eig and eigvals: ‖AV − VΛ‖/(‖A‖‖V‖) in units of n·eps, unit eigenvectors with a real
// largest component (LAPACK geev's normalization), eigenvalues against numpy (LAPACK geev,
// float64; gen_svd_eig.py) up to c·n·eps·‖A‖ times a conditioning allowance, every dtype;
// batched, empty, 1 x 1, triangular, defective and non-finite inputs, shape errors.
#include <doctest/doctest.h>

#include <string>

#include "svd_eig_ref.hpp"

namespace {
using namespace tl_linalg_test;

template <class T, class A>
void check_eig(const A& a) {
  using C = tl::complex<tl::real_t<T>>;
  constexpr std::size_t R = std::remove_cvref_t<A>::rank;
  auto [w, V] = tl::linalg::eig(a);
  static_assert(std::is_same_v<typename decltype(w)::value_type, C>);
  const auto w2 = tl::linalg::eigvals(a);
  const index_t n = a.shape()[R - 1], nb = tl::linalg::detail::batch_count(a.shape());
  REQUIRE(w.numel() == nb * n);
  for (index_t b = 0; b < nb; ++b) {
    const mat Am = matrix_of(a, b), Vm = matrix_of(V, b);
    mat VL(n, n);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) VL(i, j) = Vm(i, j) * to_cld(w.data()[b * n + j]);
    CHECK(rel_err_neps<T>(mul(Am, Vm), VL, fro(Am) * fro(Vm), n) <= 8);
    for (index_t j = 0; j < n; ++j) {
      ld nrm = 0, mx = -1;
      cld big = 0;
      for (index_t i = 0; i < n; ++i) {
        nrm += std::norm(Vm(i, j));
        if (std::abs(Vm(i, j)) > mx) {
          mx = std::abs(Vm(i, j));
          big = Vm(i, j);
        }
      }
      CHECK(std::abs(std::sqrt(nrm) - 1) <= 8 * n * eps_of<T>());
      CHECK(big.imag() == 0);
    }
    // Real input (real Schur form): real eigenvalues are exactly real and complex ones come in
    // exactly conjugate pairs, the one of positive imaginary part first, as LAPACK's dgeev.
    if constexpr (!tl::is_complex_v<T>) {
      for (index_t j = 0; j < n; ++j) {
        const cld x = to_cld(w.data()[b * n + j]);
        if (x.imag() > 0) {
          REQUIRE(j + 1 < n);
          CHECK(to_cld(w.data()[b * n + j + 1]) == std::conj(x));
          ++j;
        } else {
          CHECK(x.imag() == 0);
        }
      }
    }
    // eigvals (no Schur vectors, a partial T update) finds the same eigenvalues.
    std::vector<bool> used(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) {
      const cld x = to_cld(w2.data()[b * n + i]);
      ld best = std::numeric_limits<ld>::infinity();
      index_t bj = -1;
      for (index_t j = 0; j < n; ++j)
        if (!used[j] && std::abs(to_cld(w.data()[b * n + j]) - x) < best) {
          best = std::abs(to_cld(w.data()[b * n + j]) - x);
          bj = j;
        }
      REQUIRE(bj >= 0);
      used[bj] = true;
      CHECK(best <= 1e3L * n * eps_of<T>() * std::max<ld>(fro(Am), 1));
    }
  }
}

template <class T>
void eig_all() {
  CAPTURE(sizeof(T));
  std::uint64_t seed = 300;
  for (index_t n : {1, 2, 3, 5, 10, 17, 40, 100}) {
    CAPTURE(n);
    ++seed;
    if (tl_test::sweep_case<T>(n * n)) check_eig<T>(random_tensor<T, 2>({n, n}, seed));
  }
  check_eig<T>(random_tensor<T, 4>({2, 2, 6, 6}, 7));
  // Real input: a blocked Hessenberg panel, and double-shift sweeps whose right reflectors reach the
  // rows above the bulge at the sweep's end, in groups of one packet's rows.
  if constexpr (!tl::is_complex_v<T>)
    if (tl_test::sweep_case<T>(160 * 160)) check_eig<T>(random_tensor<T, 2>({160, 160}, 11));
  check_eig<T>(hilbert<T>(8));
  // Block upper triangular (the Hessenberg form keeps the zero subdiagonal at row 41): the QR
  // iteration starts on the lower block, so sweeps run with l > 0, the rows above the window and
  // the columns right of it waiting in the batched updates.
  if (tl_test::sweep_case<T>(97 * 97)) {
    auto bt = random_tensor<T, 2>({97, 97}, 13);
    for (index_t i = 41; i < 97; ++i)
      for (index_t j = 0; j < 41; ++j) bt(i, j) = T(0);
    check_eig<T>(bt);
  }
  // Upper triangular: the eigenvalues are the diagonal.
  {
    auto t = random_tensor<T, 2>({7, 7}, 9);
    for (index_t i = 0; i < 7; ++i)
      for (index_t j = 0; j < i; ++j) t(i, j) = T(0);
    check_eig<T>(t);
    const auto w = tl::linalg::eigvals(t);
    for (index_t i = 0; i < 7; ++i) {
      ld best = std::numeric_limits<ld>::infinity();
      for (index_t j = 0; j < 7; ++j) best = std::min(best, std::abs(to_cld(w(j)) - to_cld(t(i, i))));
      CHECK(best <= 100 * eps_of<T>());
    }
  }
  // Defective (a Jordan block) and the zero matrix.
  {
    tl::tensor<T, 2> j(tl::shape_t<2>{3, 3});
    for (index_t i = 0; i < 9; ++i) j.data()[i] = T(0);
    for (index_t i = 0; i < 3; ++i) j(i, i) = T(2);
    j(0, 1) = j(1, 2) = T(1);
    check_eig<T>(j);
    const auto w = tl::linalg::eigvals(j);
    for (index_t i = 0; i < 3; ++i) CHECK(std::abs(to_cld(w(i)) - cld(2)) <= 10 * std::cbrt(eps_of<T>()));
    check_eig<T>(tl::tensor<T, 2>(tl::zeros<T>(4, 4)));
  }
}

TEST_CASE("eig: A V = V diag(w), unit eigenvectors, every dtype and shape") {
  eig_all<float>();
  eig_all<double>();
  eig_all<tl::complex<float>>();
  eig_all<tl::complex<double>>();
}

// The Householder reduction behind eig: A = Z H Z^H with H upper Hessenberg (exact zeros below the
// subdiagonal) and Z unitary, to c * n * eps; orders that run zero, one and several blocked panels
// (gehrd_block columns each while more than gehrd_crossover remain) before the one-at-a-time tail.
template <class T>
void check_hessenberg(index_t n, std::uint64_t seed) {
  CAPTURE(n);
  const auto a = random_tensor<T, 2>({n, n}, seed);
  std::vector<T> h(a.data(), a.data() + n * n);
  const std::vector<T> zt = tl::linalg::detail::hessenberg_reduce(n, h.data(), true);
  REQUIRE(zt.size() == static_cast<std::size_t>(n * n));
  mat H(n, n), Z(n, n);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      if (j + 1 < i) CHECK(h[i * n + j] == T(0));
      H(i, j) = to_cld(h[i * n + j]);
      Z(i, j) = to_cld(zt[j * n + i]);  // row j of zt is column j of Z
    }
  const mat A = matrix_of(a);
  CHECK(rel_err_neps<T>(mul(mul(Z, H), adjoint(Z)), A, fro(A), n) <= 4);
  CHECK(rel_err_neps<T>(mul(adjoint(Z), Z), identity(n), std::sqrt(static_cast<ld>(n)), n) <= 4);
  // Without vectors: the same H.
  std::vector<T> h2(a.data(), a.data() + n * n);
  CHECK(tl::linalg::detail::hessenberg_reduce(n, h2.data(), false).empty());
  CHECK(h2 == h);
}

TEST_CASE("Hessenberg reduction: A = Z H Z^H, Z unitary, blocked and unblocked columns") {
  using tl::linalg::detail::gehrd_block, tl::linalg::detail::gehrd_crossover;
  for (index_t n : {0, 1, 2, 3, 9}) {
    check_hessenberg<double>(n, 40 + n);
    check_hessenberg<tl::complex<float>>(n, 50 + n);
  }
  // One panel, one panel and a column of the next, three panels.
  for (index_t n : {gehrd_crossover + 1, gehrd_crossover + gehrd_block + 1, gehrd_crossover + 3 * gehrd_block - 5}) {
    if (tl_test::sweep_case<float>(n * n)) check_hessenberg<float>(n, 60 + n);
    check_hessenberg<double>(n, 70 + n);
    check_hessenberg<tl::complex<float>>(n, 80 + n);
    if (tl_test::sweep_case<tl::complex<double>>(n * n)) check_hessenberg<tl::complex<double>>(n, 90 + n);
  }
}

template <class T>
void eigvals_reference() {
  CAPTURE(sizeof(T));
  for (const auto& c : load_svd_eig("eigvals")) {
    if (c.cplx && !tl::is_complex_v<T>) continue;
    CAPTURE(c.n);
    const auto a = case_matrix<T>(c);
    const auto w = tl::linalg::eigvals(a);
    const ld na = fro(matrix_of(a));
    // Eigenvalues of random matrices are moderately conditioned; allow 1e3 on top of n * eps.
    const ld tol = 1e3L * c.n * eps_of<T>() * std::max<ld>(na, 1);
    std::vector<bool> used(c.res.size());
    for (const cld& want : c.res) {
      ld best = std::numeric_limits<ld>::infinity();
      std::size_t bj = 0;
      for (std::size_t j = 0; j < c.res.size(); ++j)
        if (!used[j] && std::abs(to_cld(w(static_cast<index_t>(j))) - want) < best) {
          best = std::abs(to_cld(w(static_cast<index_t>(j))) - want);
          bj = j;
        }
      used[bj] = true;
      CAPTURE(want);
      CHECK(best <= tol);
    }
  }
}

TEST_CASE("eigvals against numpy (random real and complex matrices, a rotation)") {
  eigvals_reference<float>();
  eigvals_reference<double>();
  eigvals_reference<tl::complex<float>>();
  eigvals_reference<tl::complex<double>>();
}

TEST_CASE("eig: empty, 1 x 1, non-square and non-finite inputs") {
  {
    auto [w, V] = tl::linalg::eig(tl::tensor<double, 2>(tl::shape_t<2>{0, 0}));
    CHECK(w.shape() == tl::shape_t<1>{0});
    CHECK(V.shape() == tl::shape_t<2>{0, 0});
    CHECK(tl::linalg::eigvals(tl::tensor<float, 3>(tl::shape_t<3>{3, 0, 0})).shape() == tl::shape_t<2>{3, 0});
    CHECK(tl::linalg::eigvals(tl::tensor<float, 3>(tl::shape_t<3>{0, 4, 4})).shape() == tl::shape_t<2>{0, 4});
  }
  {
    tl::tensor<float, 2> a(tl::shape_t<2>{1, 1});
    a(0, 0) = -3.5f;
    auto [w, V] = tl::linalg::eig(a);
    CHECK(w(0) == tl::complex<float>(-3.5f, 0.0f));
    CHECK(V(0, 0) == tl::complex<float>(1.0f, 0.0f));
  }
  const auto r = random_tensor<double, 2>({2, 3}, 1);
  expect_error_with<tl::shape_error>([&] { (void)tl::linalg::eig(r); }, {"tl::linalg::eig", "[2, 3]"});
  expect_error_with<tl::shape_error>([&] { (void)tl::linalg::eigvals(r); }, {"tl::linalg::eigvals", "[2, 3]"});
  auto nan = random_tensor<tl::complex<double>, 3>({2, 3, 3}, 2);
  nan(1, 0, 2) = tl::complex<double>(0, std::numeric_limits<double>::infinity());
  expect_error_with<tl::linalg_error>([&] { (void)tl::linalg::eig(nan); }, {"tl::linalg::eig", "batch element 1", "NaN"});
  expect_error_with<tl::linalg_error>([&] { (void)tl::linalg::eigvals(nan); }, {"tl::linalg::eigvals"});
}

}  // namespace
