// tl::linalg::ldl_factor / ldl_factor_ex / ldl_solve: LAPACK's sytrf / hetrf output and torch's
// ldl_solve from tests/data/linalg/gen_ldl.py (pivots and info exact, values to rounding), the
// identities A = P L D Lᵀ Pᵀ and A X = B to a few n·eps, 2 x 2 pivots, singular and NaN input,
// batches with broadcasting, views, empty and 1 x 1 matrices, and the errors.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "decomp_reference.hpp"

namespace {
using namespace tl_linalg_test;
namespace la = tl::linalg;

// ---- reference data ----------------------------------------------------------------------------

struct ldl_case {
  bool herm = false, cplx = false;
  index_t n = 0, k = 0;
  int info = 0;
  double cond = 1;
  std::vector<cld> a, ld, b, x;
  std::vector<int> piv;
};

std::vector<ldl_case> load_cases() {
  std::string f = __FILE__;
  const auto p = f.find_last_of("/\\");
  const std::string dir = (p == std::string::npos ? std::string(".") : f.substr(0, p)) + "/../data/linalg";
  std::ifstream in(dir + "/ldl_reference.txt");
  REQUIRE(in.good());
  std::vector<ldl_case> out;
  std::string head, la_, ll, lp, lb, lx;
  while (std::getline(in, head)) {
    if (head.empty()) continue;
    ldl_case c;
    std::istringstream hs(head);
    std::string kind, dt, cond;
    hs >> kind >> dt >> c.n >> c.k >> c.info >> cond;
    c.herm = kind == "herm";
    c.cplx = dt == "c";
    c.cond = cond == "inf" ? 1e300 : std::stod(cond);
    std::getline(in, la_);
    std::getline(in, ll);
    std::getline(in, lp);
    std::getline(in, lb);
    std::getline(in, lx);
    c.a = parse_decomp_values(la_, c.cplx);
    c.ld = parse_decomp_values(ll, c.cplx);
    std::istringstream ps(lp);
    for (int v; ps >> v;) c.piv.push_back(v);
    c.b = parse_decomp_values(lb, c.cplx);
    c.x = parse_decomp_values(lx, c.cplx);
    out.push_back(std::move(c));
  }
  REQUIRE(out.size() > 10);
  return out;
}

bool same_or_both_nan(const cld& a, const cld& b, ld tol) {
  const auto close = [&](ld x, ld y) { return (std::isnan(x) && std::isnan(y)) || std::abs(x - y) <= tol; };
  return close(a.real(), b.real()) && close(a.imag(), b.imag());
}

template <class T>
void check_reference(const ldl_case& c) {
  CAPTURE(c.n);
  CAPTURE(c.herm);
  CAPTURE(sizeof(T));
  const auto a = tensor_of<T>(c.a, c.n, c.n);
  const auto r = la::ldl_factor_ex(a, c.herm);
  CHECK(r.info() == c.info);
  bool piv_ok = true;
  for (index_t i = 0; i < c.n; ++i) piv_ok = piv_ok && r.pivots(i) == c.piv[static_cast<std::size_t>(i)];
  CHECK(piv_ok);
  // Forward error of the factors: cond · growth · eps; the inputs are exact in every dtype.
  ld scale = 1;
  for (const auto& v : c.ld)
    if (std::isfinite(std::abs(v))) scale = std::max(scale, std::abs(v));
  const ld cond = std::min<ld>(c.cond, 1e6);
  const ld tol = 64 * static_cast<ld>(c.n) * eps_of<T>() * std::max<ld>(1, cond) * scale;
  const mat LD = matrix_of(r.LD);
  bool ld_ok = true;
  for (index_t i = 0; i < c.n * c.n; ++i) ld_ok = ld_ok && same_or_both_nan(LD.v[static_cast<std::size_t>(i)], c.ld[static_cast<std::size_t>(i)], tol);
  CHECK(ld_ok);
  if (c.k == 0) return;
  const auto b = tensor_of<T>(c.b, c.n, c.k);
  const mat X = matrix_of(la::ldl_solve(r.LD, r.pivots, b, c.herm));
  ld xs = 0;
  for (const auto& v : c.x) xs = std::max(xs, std::abs(v));
  const ld xtol = 64 * static_cast<ld>(c.n) * eps_of<T>() * cond * xs;
  bool x_ok = true;
  for (index_t i = 0; i < c.n * c.k; ++i) x_ok = x_ok && std::abs(X.v[static_cast<std::size_t>(i)] - c.x[static_cast<std::size_t>(i)]) <= xtol;
  CHECK(x_ok);
}

TEST_CASE("ldl_factor_ex returns LAPACK's sytrf / hetrf factors and ldl_solve torch's solutions") {
  const auto cases = load_cases();
  for (const auto& c : cases) {
    if (c.cplx) {
      check_reference<tl::complex<double>>(c);
      check_reference<tl::complex<float>>(c);
    } else {
      check_reference<double>(c);
      check_reference<float>(c);
    }
  }
}

// ---- identities --------------------------------------------------------------------------------

// P1 L1 P2 L2 ... D ... L2ᵀ P2ᵀ L1ᵀ P1ᵀ (ᴴ when herm) rebuilt from LAPACK's format, innermost first.
mat rebuild(const mat& LD, const std::vector<int>& piv, bool herm) {
  const index_t n = LD.r;
  const auto tr = [&](cld v) { return herm ? std::conj(v) : v; };
  mat m(n, n);
  std::vector<index_t> starts;
  for (index_t k = 0; k < n;) {
    starts.push_back(k);
    const bool two = piv[static_cast<std::size_t>(k)] < 0;
    m(k, k) = herm ? cld(LD(k, k).real()) : LD(k, k);
    if (two) {
      m(k + 1, k + 1) = herm ? cld(LD(k + 1, k + 1).real()) : LD(k + 1, k + 1);
      m(k + 1, k) = LD(k + 1, k);
      m(k, k + 1) = tr(LD(k + 1, k));
    }
    k += two ? 2 : 1;
  }
  for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
    const index_t k = *it;
    const int p = piv[static_cast<std::size_t>(k)];
    const index_t s = p < 0 ? 2 : 1;
    // M = L(k) M L(k)ᵀ: rows, then columns, i >= k + s.
    for (index_t q = k; q < k + s; ++q)
      for (index_t i = k + s; i < n; ++i)
        for (index_t j = 0; j < n; ++j) m(i, j) += LD(i, q) * m(q, j);
    for (index_t q = k; q < k + s; ++q)
      for (index_t j = k + s; j < n; ++j)
        for (index_t i = 0; i < n; ++i) m(i, j) += m(i, q) * tr(LD(j, q));
    // M = P(k) M P(k)ᵀ.
    const index_t r = (p < 0 ? k + 1 : k), t = (p < 0 ? -p : p) - 1;
    if (r != t) {
      for (index_t j = 0; j < n; ++j) std::swap(m(r, j), m(t, j));
      for (index_t i = 0; i < n; ++i) std::swap(m(i, r), m(i, t));
    }
  }
  return m;
}

std::vector<int> pivots_of(const tl::tensor<std::int32_t, 1>& p) {
  std::vector<int> v(static_cast<std::size_t>(p.numel()));
  for (index_t i = 0; i < p.numel(); ++i) v[static_cast<std::size_t>(i)] = p(i);
  return v;
}

// A symmetric (Hermitian when herm) matrix built from the lower triangle of a random one; `zero_diag`
// forces 2 x 2 pivots.
template <class T>
tl::tensor<T, 2> random_sym(index_t n, std::uint64_t seed, bool herm, bool zero_diag = false) {
  auto a = random_tensor<T, 2>({n, n}, seed);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < i; ++j) a(j, i) = herm ? from_cld<T>(std::conj(to_cld(a(i, j)))) : a(i, j);
    if (herm) a(i, i) = from_cld<T>(cld(to_cld(a(i, i)).real()));
    if (zero_diag) a(i, i) = T(0);
  }
  return a;
}

// ‖A − P L D Lᵀ Pᵀ‖_F / (‖A‖_F n eps) and ‖AX − B‖_F / ((‖A‖_F‖X‖_F + ‖B‖_F) n eps).
template <class T>
std::pair<ld, ld> backward_errors(const tl::tensor<T, 2>& a, bool herm) {
  const index_t n = a.shape()[0];
  const auto [LD, piv] = la::ldl_factor(a, herm);
  const mat A = matrix_of(a);
  const ld e1 = rel_err_neps<T>(rebuild(matrix_of(LD), pivots_of(piv), herm), A, fro(A), n);
  const auto b = random_tensor<T, 2>({n, 3}, static_cast<std::uint64_t>(n + 5));
  const mat X = matrix_of(la::ldl_solve(LD, piv, b, herm)), B = matrix_of(b);
  const ld e2 = rel_err_neps<T>(mul(A, X), B, fro(A) * fro(X) + fro(B), n);
  return {e1, e2};
}

template <class T>
void identities_all_sizes(bool herm) {
  CAPTURE(sizeof(T));
  CAPTURE(herm);
  for (index_t n : {1, 2, 7, 33, 64, 65, 129}) {
    for (bool zd : {false, true}) {
      if (zd && n == 1) continue;
      CAPTURE(n);
      CAPTURE(zd);
      const auto [e1, e2] = backward_errors(random_sym<T>(n, static_cast<std::uint64_t>(3 * n + zd), herm, zd), herm);
      CHECK(e1 <= 4);
      CHECK(e2 <= 4);
    }
  }
}

TEST_CASE("ldl: P L D Lᵀ Pᵀ reproduces A and ldl_solve's residual is a few n·eps, every dtype") {
  identities_all_sizes<float>(false);
  identities_all_sizes<double>(false);
  identities_all_sizes<tl::complex<float>>(false);
  identities_all_sizes<tl::complex<double>>(false);
  identities_all_sizes<tl::complex<float>>(true);
  identities_all_sizes<tl::complex<double>>(true);
  // Ill-conditioned: Hilbert matrices (positive definite: no 2 x 2 blocks, cond up to 1e16).
  for (index_t n : {4, 8, 12}) {
    CAPTURE(n);
    const auto [e1, e2] = backward_errors(hilbert<double>(n), false);
    CHECK(e1 <= 4);
    CHECK(e2 <= 4);
  }
  // A zero diagonal rules out a 1 x 1 pivot at the first step: the first block is 2 x 2.
  const auto z = random_sym<double>(10, 9, false, true);
  const auto [LD, piv] = la::ldl_factor(z);
  CHECK((piv(0) < 0 && piv(1) == piv(0)));
  for (index_t i = 0; i < 10; ++i)
    for (index_t j = i + 1; j < 10; ++j) CHECK(LD(i, j) == 0.0);
}

// The blocked factorization (panels of 64 columns, trailing GEMM updates) makes the same pivot
// choices as the unblocked one and agrees with it to rounding.
template <class T, bool Herm>
void blocked_matches_unblocked(index_t n, bool zero_diag) {
  CAPTURE(n);
  CAPTURE(Herm);
  CAPTURE(zero_diag);
  const auto a = random_sym<T>(n, static_cast<std::uint64_t>(n + 40), Herm, zero_diag);
  std::vector<T> w1(static_cast<std::size_t>(n * n)), w2;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) w1[static_cast<std::size_t>(i + j * n)] = a(i, j);
  w2 = w1;
  std::vector<std::int32_t> p1(static_cast<std::size_t>(n)), p2(p1);
  index_t info2 = 0;
  CHECK(tl::linalg::detail::sytrf<T, Herm>({w1.data(), n}, n, p1.data()) == 0);
  tl::linalg::detail::sytf2<T, Herm>({w2.data(), n}, n, 0, p2.data(), info2);
  CHECK(info2 == 0);
  CHECK(p1 == p2);
  ld diff = 0, scale = 0;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      const auto q = static_cast<std::size_t>(i + j * n);
      diff = std::max(diff, std::abs(to_cld(w1[q]) - to_cld(w2[q])));
      scale = std::max(scale, std::abs(to_cld(w2[q])));
    }
  CHECK(diff <= 64 * n * eps_of<T>() * scale);
  int blocks = 0;
  for (index_t k = 0; k < n; ++k) blocks += p1[static_cast<std::size_t>(k)] < 0;
  if (zero_diag) CHECK(blocks > 0);
}

TEST_CASE("ldl: the blocked factorization makes the unblocked one's pivot choices") {
  for (bool zd : {false, true}) {
    blocked_matches_unblocked<double, false>(150, zd);
    blocked_matches_unblocked<float, false>(130, zd);
    blocked_matches_unblocked<tl::complex<double>, false>(140, zd);
    blocked_matches_unblocked<tl::complex<double>, true>(140, zd);
  }
}

TEST_CASE("ldl_factor reads only the lower triangle; hermitian ignores the diagonal's imaginary part") {
  using C = tl::complex<double>;
  const auto h = random_sym<C>(12, 4, true);
  auto g = h.clone();
  for (index_t i = 0; i < 12; ++i) {
    g(i, i) = C(g(i, i).re, 5.0);
    for (index_t j = i + 1; j < 12; ++j) g(i, j) = C(1e300, -1e300);
  }
  const auto r1 = la::ldl_factor(h, true), r2 = la::ldl_factor(g, true);
  CHECK(fro_diff(matrix_of(r1.LD), matrix_of(r2.LD)) == 0);
  for (index_t i = 0; i < 12; ++i) CHECK(r1.LD(i, i).im == 0.0);
  // A transposed view of a symmetric matrix's upper triangle is its lower triangle.
  const auto s = random_sym<double>(9, 5, false);
  auto u = s.clone();
  for (index_t i = 0; i < 9; ++i)
    for (index_t j = 0; j < i; ++j) u(i, j) = -3.0;
  CHECK(fro_diff(matrix_of(la::ldl_factor(u.t()).LD), matrix_of(la::ldl_factor(s).LD)) == 0);
  // For real matrices hermitian = true is the symmetric factorization.
  const auto rh = la::ldl_factor(s, true), rs = la::ldl_factor(s);
  CHECK(fro_diff(matrix_of(rh.LD), matrix_of(rs.LD)) == 0);
  CHECK(fro_diff(matrix_of(la::ldl_solve(rh.LD, rh.pivots, s, true)), matrix_of(la::ldl_solve(rs.LD, rs.pivots, s))) == 0);
  // An expression is evaluated once and factored.
  CHECK(fro_diff(matrix_of(la::ldl_factor(s * 2.0).LD), matrix_of(la::ldl_factor(tl::tensor<double, 2>(s * 2.0)).LD)) == 0);
}

// ---- batches, broadcasting, edge cases -------------------------------------------------------------

TEST_CASE("ldl: batches match single matrices; ldl_solve broadcasts the batch dims of LD and B") {
  tl::tensor<double, 3> a(tl::shape_t<3>{2, 6, 6});
  for (index_t q = 0; q < 2; ++q) {
    const auto m = random_sym<double>(6, 20 + static_cast<std::uint64_t>(q), false, q == 1);
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 6; ++j) a(q, i, j) = m(i, j);
  }
  const auto [LD, piv, info] = la::ldl_factor_ex(a);
  CHECK(info.shape() == tl::shape_t<1>{2});
  CHECK(piv.shape() == tl::shape_t<2>{2, 6});
  const auto b = random_tensor<double, 4>({3, 1, 6, 2}, 31);
  const auto x = la::ldl_solve(LD, piv, b);
  CHECK(x.shape() == tl::shape_t<4>{3, 2, 6, 2});
  for (index_t q = 0; q < 2; ++q) {
    const tl::tensor<double, 2> aq = a.select(0, q);
    const auto [l1, p1] = la::ldl_factor(aq);
    CHECK(fro_diff(matrix_of(LD, q), matrix_of(l1)) == 0);
    for (index_t i = 0; i < 6; ++i) CHECK(piv(q, i) == p1(i));
    for (index_t r = 0; r < 3; ++r) {
      const tl::tensor<double, 2> br = b.select(0, r).select(0, 0);
      const auto xr = la::ldl_solve(l1, p1, br);
      CHECK(fro_diff(matrix_of(x, r * 2 + q), matrix_of(xr)) == 0);
    }
  }
  // One factored matrix against a batch of right-hand sides, int64 pivots (torch takes any integer dtype).
  const tl::tensor<double, 2> a0 = a.select(0, 0);
  const auto f0 = la::ldl_factor(a0);
  const tl::tensor<std::int64_t, 1> p64 = tl::astype<std::int64_t>(f0.pivots);
  const auto b3 = random_tensor<double, 3>({4, 6, 1}, 32);
  const auto x3 = la::ldl_solve(f0.LD, p64, b3);
  CHECK(x3.shape() == tl::shape_t<3>{4, 6, 1});
  for (index_t r = 0; r < 4; ++r) {
    const tl::tensor<double, 2> br = b3.select(0, r);
    CHECK(fro_diff(matrix_of(x3, r), matrix_of(la::ldl_solve(f0.LD, f0.pivots, br))) == 0);
  }
}

TEST_CASE("ldl: empty and 1 x 1 matrices, singular and NaN input") {
  const auto e = la::ldl_factor_ex(tl::tensor<double, 2>(tl::shape_t<2>{0, 0}));
  CHECK(e.LD.shape() == tl::shape_t<2>{0, 0});
  CHECK(e.pivots.shape() == tl::shape_t<1>{0});
  CHECK(e.info() == 0);
  const auto e2 = la::ldl_factor(tl::tensor<float, 3>(tl::shape_t<3>{2, 0, 0}));
  CHECK(e2.pivots.shape() == tl::shape_t<2>{2, 0});
  const auto e3 = la::ldl_factor_ex(tl::tensor<double, 3>(tl::shape_t<3>{0, 3, 3}));
  CHECK(e3.pivots.shape() == tl::shape_t<2>{0, 3});
  CHECK(e3.info.shape() == tl::shape_t<1>{0});
  CHECK(la::ldl_solve(e.LD, e.pivots, tl::tensor<double, 2>(tl::shape_t<2>{0, 3})).shape() == tl::shape_t<2>{0, 3});
  tl::tensor<double, 2> one(tl::shape_t<2>{1, 1});
  one(0, 0) = 2;
  const auto [l1, p1] = la::ldl_factor(one);
  CHECK(l1(0, 0) == 2.0);
  CHECK(p1(0) == 1);
  CHECK(la::ldl_solve(l1, p1, tl::tensor<double, 2>(tl::shape_t<2>{1, 0})).shape() == tl::shape_t<2>{1, 0});
  tl::tensor<double, 2> rhs(tl::shape_t<2>{1, 1});
  rhs(0, 0) = 3;
  CHECK(la::ldl_solve(l1, p1, rhs)(0, 0) == 1.5);
  using C = tl::complex<float>;
  tl::tensor<C, 2> c1(tl::shape_t<2>{1, 1});
  c1(0, 0) = C(2, 7);
  CHECK(la::ldl_factor(c1, true).LD(0, 0) == C(2, 0));
  CHECK(la::ldl_factor(c1).LD(0, 0) == C(2, 7));
  one(0, 0) = 0;
  CHECK(la::ldl_factor_ex(one).info() == 1);
  // Singular batch element 1 (rank one: exact cancellation leaves a zero at step 2).
  tl::tensor<double, 3> s(tl::shape_t<3>{2, 2, 2});
  s(0, 0, 0) = 1, s(0, 1, 1) = 1;
  s(1, 0, 0) = 1, s(1, 1, 0) = 2, s(1, 0, 1) = 2, s(1, 1, 1) = 4;
  const auto rs = la::ldl_factor_ex(s);
  CHECK(rs.info(0) == 0);
  CHECK(rs.info(1) == 2);
  expect_error_with<tl::linalg_error>([&] { (void)la::ldl_factor(s); },
                                      {"tl::linalg::ldl_factor", "singular", "batch element 1", "info = 2"});
  expect_error_with<tl::linalg_error>([&] { (void)la::ldl_factor_ex(s, false, true); },
                                      {"tl::linalg::ldl_factor_ex", "batch element 1"});
  const auto s1 = s.select(0, 1);
  expect_error_with<tl::linalg_error>([&] { (void)la::ldl_factor(s1); }, {"tl::linalg::ldl_factor", "info = 2"});
  // NaN anywhere propagates into the factors; on the diagonal it is reported in info.
  auto nanm = random_sym<double>(5, 8, false);
  nanm(3, 1) = std::numeric_limits<double>::quiet_NaN();
  const auto rn = la::ldl_factor_ex(nanm);
  bool any_nan = false;
  for (index_t i = 0; i < 25; ++i) any_nan = any_nan || std::isnan(rn.LD.data()[i]);
  CHECK(any_nan);
}

TEST_CASE("ldl: errors name the op and the shapes") {
  const auto r = random_tensor<double, 2>({3, 4}, 1);
  expect_error_with<tl::shape_error>([&] { (void)la::ldl_factor(r); }, {"tl::linalg::ldl_factor", "square", "[3, 4]"});
  expect_error_with<tl::shape_error>([&] { (void)la::ldl_factor_ex(r); }, {"tl::linalg::ldl_factor_ex", "[3, 4]"});
  const auto a = random_sym<double>(4, 2, false);
  const auto [LD, piv] = la::ldl_factor(a);
  const auto b = random_tensor<double, 2>({4, 2}, 3);
  expect_error_with<tl::shape_error>([&] { (void)la::ldl_solve(r, piv, b); }, {"tl::linalg::ldl_solve", "[3, 4]"});
  expect_error_with<tl::shape_error>([&] { (void)la::ldl_solve(LD, piv, b.t()); },
                                     {"tl::linalg::ldl_solve", "[4, 4]", "[2, 4]", "B.shape[-2]"});
  const tl::tensor<std::int32_t, 1> short_piv = piv.slice(0, 0, 3);
  expect_error_with<tl::shape_error>([&] { (void)la::ldl_solve(LD, short_piv, b); },
                                     {"tl::linalg::ldl_solve", "pivots of shape [3]", "[4, 4]"});
  const auto a3 = random_tensor<double, 3>({2, 4, 4}, 4);
  const auto [LD3, piv3] = la::ldl_factor(tl::tensor<double, 3>(a3 + a3.mT()));
  const auto b3 = random_tensor<double, 3>({3, 4, 2}, 5);
  expect_error_with<tl::shape_error>([&] { (void)la::ldl_solve(LD3, piv3, b3); },
                                     {"tl::linalg::ldl_solve", "batch dims", "[2, 4, 4]", "[3, 4, 2]"});
  // Pivots that do not encode a factorization are rejected (they would index outside the matrix).
  for (std::int32_t bad : {0, 5, -1}) {
    auto p = piv.clone();
    p(0) = bad;
    p(1) = bad < 0 ? 3 : p(1);
    expect_error_with<tl::value_error>([&] { (void)la::ldl_solve(LD, p, b); }, {"tl::linalg::ldl_solve", "pivot"});
  }
  auto p = piv.clone();
  p(3) = -4;  // a 2 x 2 block cannot start in the last row
  expect_error_with<tl::value_error>([&] { (void)la::ldl_solve(LD, p, b); }, {"tl::linalg::ldl_solve", "pivot -4"});
}

}  // namespace
