// tl::linalg::eigh and eigvalsh: ‖AV − VΛ‖/‖A‖ and ‖VᴴV − I‖ in units of n·eps, ascending
// eigenvalues against scipy.linalg.eigvalsh references (gen_linalg_decomp.py) to c·n·eps·‖A‖,
// on random, Hilbert (n <= 12), repeated-eigenvalue, complex, batched and viewed inputs; only the
// UPLO triangle is read; errors; NaN; empty and 1 x 1 inputs.
#include <string>

#include "decomp_reference.hpp"

namespace {
using namespace tl_linalg_test;

/// A random Hermitian n x n matrix (exactly Hermitian, real diagonal).
template <class T>
tl::tensor<T, 2> random_hermitian(index_t n, std::uint64_t seed) {
  auto h = random_tensor<T, 2>({n, n}, seed);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < i; ++j) h(j, i) = from_cld<T>(std::conj(to_cld(h(i, j))));
    h(i, i) = from_cld<T>(cld(to_cld(h(i, i)).real()));
  }
  return h;
}

template <class T>
void check_eigh_matrix(const mat& A, const mat& w, const mat& V) {
  const index_t n = A.r;
  CHECK(w.r == 1);
  CHECK(w.c == n);
  mat L(n, n);
  bool ascending = true;
  for (index_t i = 0; i < n; ++i) {
    L(i, i) = w(0, i);
    if (i > 0) ascending = ascending && w(0, i - 1).real() <= w(0, i).real();
  }
  CHECK(ascending);
  mat I(n, n);
  for (index_t i = 0; i < n; ++i) I(i, i) = 1;
  const index_t sz = std::max<index_t>(n, 1);
  CHECK(rel_err_neps<T>(mul(A, V), mul(V, L), fro(A), sz) <= 4);
  CHECK(rel_err_neps<T>(mul(adjoint(V), V), I, std::sqrt(static_cast<ld>(sz)), sz) <= 4);
}

/// w as a 1 x n mat (matrix_of needs rank >= 2).
template <class RT, class Ext>
mat values_of(const tl::basic_tensor<RT, Ext>& w, index_t b) {
  const index_t n = w.shape()[Ext::rank - 1];
  mat out(1, n);
  for (index_t i = 0; i < n; ++i) out(0, i) = to_cld(w.data()[b * n + i]);
  return out;
}

template <class T, class E>
void check_eigh(const E& a, const char* what) {
  const std::string what_s = what;
  CAPTURE(what_s);
  const index_t nb = tl::linalg::detail::batch_count(a.shape());
  auto [w, V] = tl::linalg::eigh(a);
  for (index_t b = 0; b < nb; ++b) check_eigh_matrix<T>(matrix_of(a, b), values_of(w, b), matrix_of(V, b));
  // eigvalsh (QL on the same tridiagonal matrix; eigh above 32 rows runs divide and conquer): the
  // same values to c n eps ‖A‖ (Weyl, both backward stable).
  const auto w2 = tl::linalg::eigvalsh(a);
  REQUIRE(w2.shape() == w.shape());
  const index_t n = a.shape()[a.rank - 1];
  for (index_t b = 0; b < nb; ++b) {
    const ld scale = fro(matrix_of(a, b)) * static_cast<ld>(std::max<index_t>(n, 1)) * eps_of<T>();
    ld err = 0;
    for (index_t i = 0; i < n; ++i)
      err = std::max(err, std::abs(to_cld(w.data()[b * n + i]) - to_cld(w2.data()[b * n + i])));
    CHECK(err <= 4 * scale);
  }
}

/// H A H with H = I - 2 u u^H / (u^H u) for a random u: the spectrum of A, dense.
template <class T>
tl::tensor<T, 2> reflected(const mat& a, std::uint64_t seed) {
  const index_t n = a.r;
  const auto u = random_tensor<T, 2>({n, 1}, seed);
  ld uu = 0;
  for (index_t i = 0; i < n; ++i) uu += std::norm(to_cld(u(i, 0)));
  mat h(n, n);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j)
      h(i, j) = (i == j ? cld(1) : cld(0)) - cld(2) * to_cld(u(i, 0)) * std::conj(to_cld(u(j, 0))) / uu;
  const mat r = mul(mul(h, a), h);
  auto out = tl::zeros<T>(tl::shape_t<2>{n, n});
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) out(i, j) = from_cld<T>(i == j ? cld(r(i, j).real()) : r(i, j));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j) out(j, i) = from_cld<T>(std::conj(to_cld(out(i, j))));
  return out;
}

/// Inputs that exercise the divide-and-conquer merges (n > 32) and the blocked reduction (n > 128): Wilkinson's W+
/// (eigenvalues in close pairs), three repeated values (almost everything deflates), a graded diagonal, random.
template <class T>
void eigh_divide_and_conquer() {
  CAPTURE(sizeof(T));
  if (tl_test::sweep_case<T>(160 * 160)) {
    check_eigh<T>(random_hermitian<T>(160, 11), "random 160");  // one blocked panel of the reduction
    check_eigh<T>(random_hermitian<T>(230, 14), "random 230");  // four panels, then 102 unblocked columns
  }
  const index_t n = 65;
  auto wp = tl::zeros<T>(tl::shape_t<2>{n, n});
  for (index_t i = 0; i < n; ++i) {
    wp(i, i) = T(static_cast<tl::real_t<T>>(std::abs(n / 2 - i)));
    if (i + 1 < n) wp(i, i + 1) = wp(i + 1, i) = T(1);
  }
  check_eigh<T>(wp, "Wilkinson W+ 65");
  mat three(70, 70), graded(70, 70);
  for (index_t i = 0; i < 70; ++i) {
    three(i, i) = cld(i % 3 == 0 ? -1.0L : i % 3 == 1 ? 0.5L : 2.0L);
    graded(i, i) = cld(std::pow(2.0L, -static_cast<ld>(i) / 3));
  }
  check_eigh<T>(reflected<T>(three, 12), "three repeated values, 70");
  check_eigh<T>(reflected<T>(graded, 13), "graded, 70");
}

template <class T>
void eigh_all_shapes() {
  CAPTURE(sizeof(T));
  for (index_t n : {1, 2, 3, 7, 32, 33, 65, 100}) {
    CAPTURE(n);
    if (tl_test::sweep_case<T>(n * n)) check_eigh<T>(random_hermitian<T>(n, static_cast<std::uint64_t>(n)), "random");
  }
  for (index_t n = 1; n <= 12; ++n) check_eigh<T>(hilbert<T>(n), "hilbert");
  check_eigh<T>(random_hpd<T>(40, 5), "positive definite");
  check_eigh<T>(tl::zeros<T>(tl::shape_t<2>{6, 6}), "zero");
  auto id = tl::zeros<T>(tl::shape_t<2>{9, 9});
  for (index_t i = 0; i < 9; ++i) id(i, i) = T(i < 5 ? 2 : -1);  // two clusters of repeated values
  check_eigh<T>(id, "repeated");
  // Rank one: u u^H has n - 1 zero eigenvalues.
  const auto u = random_tensor<T, 2>({30, 1}, 6);
  check_eigh<T>(tl::linalg::matmul(u, u.mH()), "rank one");
  auto batch = tl::zeros<T>(tl::shape_t<4>{2, 3, 12, 12});
  for (index_t b = 0; b < 6; ++b) {
    const auto h = random_hermitian<T>(12, static_cast<std::uint64_t>(40 + b));
    std::copy_n(h.data(), 144, batch.data() + b * 144);
  }
  check_eigh<T>(batch, "batched");
  const auto h = random_hermitian<T>(20, 7);
  check_eigh<T>(h.t(), "transposed view");
  // Columns of 2 KiB (padded work matrix); float's 512 x 512 runs the same code and is left out.
  if constexpr (sizeof(T) >= 8)
    if (tl_test::sweep_case<T>(128 * 128))
      check_eigh<T>(random_hermitian<T>(static_cast<index_t>(2048 / sizeof(T)), 8), "columns of 2 KiB");
}

TEST_CASE("eigh: A V = V diag(w), V unitary, w ascending, eigvalsh the same values (every dtype)") {
  eigh_all_shapes<float>();
  eigh_all_shapes<double>();
  eigh_all_shapes<tl::complex<float>>();
  eigh_all_shapes<tl::complex<double>>();
}

TEST_CASE("eigh: divide and conquer on close pairs, repeated, graded and random inputs (every dtype)") {
  eigh_divide_and_conquer<float>();
  eigh_divide_and_conquer<double>();
  eigh_divide_and_conquer<tl::complex<float>>();
  eigh_divide_and_conquer<tl::complex<double>>();
}

template <class T>
void eigvalsh_against_scipy(const decomp_case& c) {
  const auto a = c.matrix<T>();
  const auto w = tl::linalg::eigvalsh(a);
  REQUIRE(w.numel() == static_cast<index_t>(c.r1.size()));
  ld err = 0;
  for (std::size_t i = 0; i < c.r1.size(); ++i) err = std::max(err, std::abs(to_cld(w.data()[i]) - c.r1[i]));
  // Weyl: a backward error E moves each eigenvalue by at most ‖E‖_2 (cond holds ‖A‖_2 here).
  CHECK(err <= 4 * static_cast<ld>(c.n) * eps_of<T>() * std::max<ld>(static_cast<ld>(c.cond), 1e-3L));
  auto [w2, V] = tl::linalg::eigh(a, "U");
  ld err_u = 0;
  for (std::size_t i = 0; i < c.r1.size(); ++i) err_u = std::max(err_u, std::abs(to_cld(w2.data()[i]) - c.r1[i]));
  CHECK(err_u <= 4 * static_cast<ld>(c.n) * eps_of<T>() * std::max<ld>(static_cast<ld>(c.cond), 1e-3L));
}

TEST_CASE("eigvalsh and eigh(UPLO = U) match scipy's eigenvalues (random, repeated, Hilbert 4, 8, 12)") {
  for (const auto& c : load_decomp("eigvalsh")) {
    CAPTURE(c.n);
    CAPTURE(c.cplx);
    if (c.cplx) {
      eigvalsh_against_scipy<tl::complex<double>>(c);
      eigvalsh_against_scipy<tl::complex<float>>(c);
    } else {
      eigvalsh_against_scipy<double>(c);
      eigvalsh_against_scipy<float>(c);
    }
  }
}

TEST_CASE("eigh reads only the UPLO triangle") {
  using T = tl::complex<double>;
  const auto h = random_hermitian<T>(25, 9);
  auto lo = h.clone(), up = h.clone();
  for (index_t i = 0; i < 25; ++i)
    for (index_t j = 0; j < 25; ++j) {
      if (j > i) lo(i, j) = T(1e3, -7);  // garbage above the diagonal
      if (j < i) up(i, j) = T(-5e2, 3);  // garbage below
    }
  // The diagonal's imaginary part is ignored too.
  lo(3, 3) = T(lo(3, 3).re, 11);
  const auto w = tl::linalg::eigvalsh(h);
  const auto wl = tl::linalg::eigvalsh(lo, "L");
  const auto wu = tl::linalg::eigvalsh(up, "U");
  for (index_t i = 0; i < 25; ++i) {
    CHECK(wl(i) == w(i));
    CHECK(std::abs(wu(i) - w(i)) <= 100 * 25 * 2.2e-16);
  }
  auto [wu2, Vu] = tl::linalg::eigh(up, "U");
  check_eigh_matrix<T>(matrix_of(h), values_of(wu2, 0), matrix_of(Vu));
}

TEST_CASE("eigh: empty, 1 x 1, NaN input and errors") {
  auto [w0, V0] = tl::linalg::eigh(tl::tensor<double, 2>(tl::shape_t<2>{0, 0}));
  CHECK(w0.shape() == tl::shape_t<1>{0});
  CHECK(V0.shape() == tl::shape_t<2>{0, 0});
  auto [wb, Vb] = tl::linalg::eigh(tl::tensor<float, 3>(tl::shape_t<3>{0, 4, 4}));
  CHECK(wb.shape() == tl::shape_t<2>{0, 4});
  CHECK(Vb.shape() == tl::shape_t<3>{0, 4, 4});
  auto one = tl::zeros<tl::complex<float>>(tl::shape_t<2>{1, 1});
  one(0, 0) = tl::complex<float>(-3.5f, 0.0f);
  auto [w1, V1] = tl::linalg::eigh(one);
  CHECK(w1(0) == -3.5f);
  CHECK(std::abs(std::abs(to_cld(V1(0, 0))) - 1) <= 1e-7L);
  auto nan = random_hermitian<double>(4, 3);
  nan(2, 1) = std::numeric_limits<double>::quiet_NaN();
  auto [wn, Vn] = tl::linalg::eigh(nan);
  CHECK(std::isnan(wn(0)));
  CHECK(std::isnan(Vn(0, 0)));
  CHECK(std::isnan(tl::linalg::eigvalsh(nan)(3)));
  // NaN in the triangle that is not read changes nothing.
  CHECK(!std::isnan(tl::linalg::eigvalsh(nan, "U")(0)));

  const auto r = random_tensor<double, 2>({3, 4}, 1);
  expect_error_with<tl::shape_error>([&] { (void)tl::linalg::eigh(r); }, {"tl::linalg::eigh", "square", "[3, 4]"});
  expect_error_with<tl::shape_error>([&] { (void)tl::linalg::eigvalsh(r); }, {"tl::linalg::eigvalsh", "[3, 4]"});
  const auto sq = random_hermitian<double>(3, 2);
  expect_error_with<tl::value_error>([&] { (void)tl::linalg::eigh(sq, "X"); }, {"tl::linalg::eigh", "UPLO", "'X'"});
  expect_error_with<tl::value_error>([&] { (void)tl::linalg::eigvalsh(sq, "lower"); },
                                     {"tl::linalg::eigvalsh", "'lower'"});
}

}  // namespace
