// tl::linalg against reference values from scipy.linalg / numpy.linalg and exact rational
// arithmetic (tests/data/linalg/gen_linalg.py). Forward errors are bounded by c * n * cond(A) * eps
// (what a backward-stable algorithm promises), for float and double (complex too).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "linalg_test_util.hpp"

namespace {
using namespace tl_linalg_test;

std::string data_dir() {
  std::string f = __FILE__;  // .../tests/linalg/reference_test.cpp
  const auto p = f.find_last_of("/\\");
  return (p == std::string::npos ? std::string(".") : f.substr(0, p)) + "/../data/linalg";
}

struct ref_case {
  std::string op;
  bool cplx = false;
  index_t n = 0, k = 0;
  double cond = 1;
  std::vector<cld> a, b, res, extra;
};

std::vector<cld> parse_values(const std::string& line, bool cplx) {
  std::vector<cld> v;
  if (line == "-") return v;
  std::istringstream is(line);
  long double re, im = 0;
  while (is >> re) {
    if (cplx) is >> im;
    v.emplace_back(re, im);
  }
  return v;
}

std::vector<ref_case> load() {
  std::ifstream in(data_dir() + "/linalg_reference.txt");
  REQUIRE(in.good());
  std::vector<ref_case> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ref_case c;
    std::istringstream hs(line);
    std::string kind;
    hs >> c.op >> kind >> c.n >> c.k >> c.cond;
    c.cplx = kind == "c";
    std::string la, lb, lr;
    std::getline(in, la);
    std::getline(in, lb);
    std::getline(in, lr);
    c.a = parse_values(la, c.cplx);
    c.b = parse_values(lb, c.cplx);
    c.res = parse_values(lr, c.cplx);
    if (c.op == "det" || c.op == "hilbert") {
      std::string le;
      std::getline(in, le);
      c.extra = parse_values(le, c.cplx);
    }
    out.push_back(std::move(c));
  }
  return out;
}

ld rel_diff(const mat& got, const std::vector<cld>& want) {
  ld d = 0, s = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    d += std::norm(got.v[i] - want[i]);
    s += std::norm(want[i]);
  }
  return std::sqrt(d) / std::max<ld>(std::sqrt(s), std::numeric_limits<ld>::min());
}

template <class T>
void run_case(const ref_case& c) {
  CAPTURE(c.op);
  CAPTURE(c.n);
  CAPTURE(sizeof(T));
  const index_t n = c.n;
  const ld tol = 8 * static_cast<ld>(std::max<index_t>(n, 1)) * static_cast<ld>(c.cond) * eps_of<T>();
  if (tol > 0.1L) return;  // no meaningful forward accuracy at this precision
  if (c.op == "hilbert") {
    const auto h = hilbert<T>(n);
    const ld det = tl_linalg_test::to_cld(tl::linalg::det(h)()).real();
    CHECK(std::abs(det - c.res[0].real()) <= tol * std::abs(c.res[0].real()));
    CHECK(rel_diff(matrix_of(tl::linalg::inv(h)), c.extra) <= tol);
    return;
  }
  const auto a = tensor_of<T>(c.a, n, n);
  if (c.op == "solve") {
    const auto b = tensor_of<T>(c.b, n, c.k);
    CHECK(rel_diff(matrix_of(tl::linalg::solve(a, b)), c.res) <= tol);
    auto [LU, piv] = tl::linalg::lu_factor(a);
    CHECK(rel_diff(matrix_of(tl::linalg::lu_solve(LU, piv, b)), c.res) <= tol);
  } else if (c.op == "inv") {
    CHECK(rel_diff(matrix_of(tl::linalg::inv(a)), c.res) <= tol);
  } else if (c.op == "det") {
    const cld d = to_cld(tl::linalg::det(a)());
    CHECK(std::abs(d - c.res[0]) <= tol * std::abs(c.res[0]));
    auto [sign, logabs] = tl::linalg::slogdet(a);
    CHECK(std::abs(to_cld(sign()) - c.extra[0]) <= tol);
    CHECK(std::abs(static_cast<ld>(logabs()) - c.extra[1].real()) <= tol);
  } else if (c.op == "cholesky") {
    CHECK(rel_diff(matrix_of(tl::linalg::cholesky(a)), c.res) <= tol);
    CHECK(rel_diff(matrix_of(tl::linalg::cholesky(a, true).mH()), c.res) <= tol);
  } else {
    FAIL("unknown op in the reference data: " << c.op);
  }
}

TEST_CASE("reference values: solve, lu_solve, inv, det, slogdet, cholesky, Hilbert det and inverse") {
  const auto cases = load();
  CHECK(cases.size() == 48);  // as written by gen_linalg.py
  int hilbert_double_checked = 0;
  for (const auto& c : cases) {
    if (c.cplx) {
      run_case<tl::complex<float>>(c);
      run_case<tl::complex<double>>(c);
    } else {
      run_case<float>(c);
      run_case<double>(c);
      if (c.op == "hilbert" && 8 * c.n * c.cond * 2.2e-16 <= 0.1) ++hilbert_double_checked;
    }
  }
  CHECK(hilbert_double_checked >= 8);  // forward accuracy checked up to H_8 at least
}
}  // namespace
