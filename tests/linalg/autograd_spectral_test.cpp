// Autograd of tl::linalg svd, svdvals, eig, eigvals and pinv: gradcheck and gradgradcheck (central
// differences in double, complex aware) on batched real and complex inputs (square, 3 x 2 and
// 2 x 3), through functions that do not depend on the phases of the vectors; the gauge errors;
// non-finite gradients at repeated singular values (as torch); and gradients of fixed losses
// against torch 1.13 (tests/data/linalg/gen_spectral_grad.py).
//
// Every checked function is one `probe` with complex output, so that gradcheck is compiled once per
// input dtype.
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../test_util.hpp"
#include "autograd_test_util.hpp"

namespace linalg_autograd_spectral_test {

using namespace tl_linalg_ag_test;

namespace {

template <class V>
using M3 = tl::tensor<V, 3>;
using out_t = M3<cd>;

enum probe_id : int {
  svd_s, svd_abs_u, svd_abs_vh, svd_u_vh, svd_full_abs, svdvals_s,
  eig_l, eig_abs_v, eig_square, eigvals_l, pinv_x, pinv_herm, probe_count
};
const char* const probe_names[] = {"svd S", "svd |U|", "svd |Vh|", "svd U Vh", "svd(full) |U[:k]| + |Vh[:k]|",
                                   "svdvals", "eig L", "eig |V|", "eig V diag(L^2) V^-1", "eigvals", "pinv",
                                   "pinv hermitian"};

/// A [*, k] or [*, m, n] result as a complex [*, m, n] tensor (a [*, k] one as [*, k, 1]).
template <class X>
out_t as_out(const X& t) {
  if constexpr (X::rank == 2) return as_out(tl::tensor<typename X::value_type, 3>(t.unsqueeze(-1)));
  else if constexpr (std::is_same_v<typename X::value_type, cd>) return t;
  else return out_t(tl::astype<cd>(t));
}

/// The checked functions of x (each invariant to the phases of the singular vectors / eigenvectors
/// and to the order of the eigenpairs where the test needs it).
template <class V>
out_t probe(int id, const M3<V>& x) {
  switch (id) {
    case svd_s: return as_out(la::svd(x, false).S);
    case svd_abs_u: return as_out(M3<double>(tl::abs(la::svd(x, false).U)));
    case svd_abs_vh: return as_out(M3<double>(tl::abs(la::svd(x, false).Vh)));
    case svd_u_vh: {
      const auto r = la::svd(x, false);
      return as_out(tl::matmul(r.U, r.Vh));
    }
    case svd_full_abs: {
      // With full_matrices the columns of U and rows of Vh beyond k carry no gradient (as torch).
      const auto r = la::svd(x, true);
      const tl::index_t k = r.S.extent(-1);
      return as_out(M3<double>(tl::abs(tl::matmul(r.U.narrow(-1, 0, k), r.Vh.narrow(-2, 0, k)))));
    }
    case svdvals_s: return as_out(la::svdvals(x));
    case eig_l: return as_out(la::eig(x).eigenvalues);
    case eig_abs_v: return as_out(M3<double>(tl::abs(la::eig(x).eigenvectors)));
    case eig_square: {
      const auto r = la::eig(x);
      const tl::tensor<cd, 2> l2 = r.eigenvalues * r.eigenvalues;
      const out_t vl = r.eigenvectors * l2.unsqueeze(-2);
      return la::solve(r.eigenvectors, vl, /*left=*/false);  // V diag(L^2) V^-1 = A^2
    }
    case eigvals_l: return as_out(la::eigvals(x));
    case pinv_x: return as_out(la::pinv(x));
    default: return as_out(la::pinv(M3<V>(x + x.mH()), {}, {}, /*hermitian=*/true));
  }
}

template <class V>
void check_probe(int id, const M3<V>& x, bool second_order) {
  const std::string name = probe_names[id];
  CAPTURE(name);
  CAPTURE(tl::detail::shape_str(x.shape()));
  const auto f = [id](const M3<V>& v) { return probe(id, v); };
  CHECK(ag::gradcheck(f, x));
  if (second_order) CHECK(ag::gradgradcheck(f, x));
}

/// The loss of a reference case (see gen_spectral_grad.py): Re sum(p * c) over its probes p, with
/// c(i) = cos(0.7 i + 0.2) + i sin(0.3 i + 0.5) over p's flat index, or the constant 0.3 + 0.7i for
/// eig and eigvals (whose eigenpairs tl and torch order differently).
template <class V>
tl::tensor<double, 0> ref_loss(const std::string& op, int flag, const M3<V>& x) {
  std::vector<int> ids;
  if (op == "svd") ids = flag ? std::vector<int>{svd_full_abs} : std::vector<int>{svd_s, svd_abs_u, svd_abs_vh, svd_u_vh};
  else if (op == "svdvals") ids = {svdvals_s};
  else if (op == "eig") ids = {eig_l, eig_abs_v, eig_square};
  else if (op == "eigvals") ids = {eigvals_l};
  else ids = {flag ? pinv_herm : pinv_x};
  const bool constant = op == "eig" || op == "eigvals";
  tl::tensor<double, 0> total = tl::zeros<double>(tl::shape_t<0>{});
  for (int id : ids) {
    const out_t p = probe(id, x);
    out_t c(p.shape());
    for (index_t i = 0; i < c.numel(); ++i)
      c.data()[i] = constant ? cd(0.3, 0.7)
                             : cd(std::cos(0.7 * static_cast<double>(i) + 0.2), std::sin(0.3 * static_cast<double>(i) + 0.5));
    total = total + tl::sum(tl::real(p * c));
  }
  return total;
}

struct ref_case {
  std::string op;
  bool cplx = false;
  index_t m = 0, n = 0;
  int flag = 0;
  std::vector<double> a, g;
};

std::vector<double> numbers(const std::string& line) {
  std::vector<double> v;
  std::istringstream is(line);
  for (double x; is >> x;) v.push_back(x);
  return v;
}

std::vector<ref_case> load_reference() {
  std::string f = __FILE__;
  const auto slash = f.find_last_of("/\\");
  const std::string dir = (slash == std::string::npos ? std::string(".") : f.substr(0, slash)) + "/../data/linalg";
  std::ifstream in(dir + "/spectral_grad_reference.txt");
  REQUIRE(in.good());
  std::vector<ref_case> out;
  for (std::string h, a, g; std::getline(in, h) && std::getline(in, a) && std::getline(in, g);) {
    ref_case c;
    std::string kind;
    std::istringstream(h) >> c.op >> kind >> c.m >> c.n >> c.flag;
    c.cplx = kind == "c";
    c.a = numbers(a);
    c.g = numbers(g);
    out.push_back(std::move(c));
  }
  return out;
}

template <class V>
void check_reference(const ref_case& c) {
  CAPTURE(c.op);
  CAPTURE(c.m);
  CAPTURE(c.n);
  CAPTURE(c.flag);
  constexpr int parts = tl::is_complex_v<V> ? 2 : 1;
  REQUIRE(c.a.size() == static_cast<std::size_t>(parts * c.m * c.n));
  REQUIRE(c.g.size() == c.a.size());
  M3<V> x(tl::shape_t<3>{1, c.m, c.n});
  for (index_t i = 0; i < x.numel(); ++i) {
    if constexpr (tl::is_complex_v<V>) x.data()[i] = V(c.a[2 * i], c.a[2 * i + 1]);
    else x.data()[i] = c.a[i];
  }
  x.requires_grad_();
  ref_loss(c.op, c.flag, x).backward();
  const M3<V> g = x.grad().contiguous();
  double err = 0, scale = 1;
  for (index_t i = 0; i < g.numel(); ++i)
    for (int p = 0; p < parts; ++p) {
      double v;
      if constexpr (tl::is_complex_v<V>) v = p == 0 ? g.data()[i].re : g.data()[i].im;
      else v = g.data()[i];
      const double r = c.g[static_cast<std::size_t>(parts * i + p)];
      err = std::max(err, std::abs(v - r));
      scale = std::max(scale, std::abs(r));
    }
  CHECK(err <= 1e-10 * scale);
}

double re_of(double v) { return v; }
double re_of(cd v) { return v.re; }

template <class V>
bool all_finite(const M3<V>& t) {
  const M3<V> c = t.contiguous();
  for (index_t i = 0; i < c.numel(); ++i) {
    if constexpr (tl::is_complex_v<V>) {
      if (!std::isfinite(c.data()[i].re) || !std::isfinite(c.data()[i].im)) return false;
    } else if (!std::isfinite(c.data()[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE_TEMPLATE("linalg autograd: svd and svdvals (gradcheck, gradgradcheck)", V, double, cd) {
  const auto tall = input<V, 3>({2, 3, 2}, 0, 0.4), wide = input<V, 3>({2, 2, 3}, 0, 1.7),
             square = input<V, 3>({1, 3, 3}, 0.8, 0.9);
  for (const auto* x : {&tall, &wide, &square})
    for (int id : {svd_s, svd_abs_u, svd_abs_vh, svd_u_vh, svd_full_abs, svdvals_s}) check_probe(id, *x, false);
  for (int id : {svd_s, svd_u_vh}) check_probe(id, tall, true);
  check_probe(svd_abs_vh, wide, true);
  check_probe(svdvals_s, square, true);
}

TEST_CASE_TEMPLATE("linalg autograd: eig and eigvals (gradcheck, gradgradcheck)", V, double, cd) {
  // Distinct eigenvalues; for double a real and a complex pair in the first matrix.
  const auto x = input<V, 3>({2, 3, 3}, 0, 0.5);
  for (int id : {eig_l, eig_abs_v, eig_square, eigvals_l}) check_probe(id, x, false);
  const auto x1 = input<V, 3>({1, 3, 3}, 0, 0.5);
  for (int id : {eig_l, eig_abs_v, eig_square, eigvals_l}) check_probe(id, x1, true);
}

TEST_CASE_TEMPLATE("linalg autograd: pinv (gradcheck, gradgradcheck)", V, double, cd) {
  const auto tall = input<V, 3>({2, 3, 2}, 0, 0.4), wide = input<V, 3>({2, 2, 3}, 0, 1.7);
  check_probe(pinv_x, tall, true);
  check_probe(pinv_x, wide, false);
  check_probe(pinv_herm, input<V, 3>({2, 3, 3}, 1.0, 0.6), true);
}

TEST_CASE_TEMPLATE("linalg autograd: gradients of svd, eig, pinv against torch 1.13", V, double, cd) {
  int n = 0;
  for (const auto& c : load_reference())
    if (c.cplx == tl::is_complex_v<V>) {
      check_reference<V>(c);
      ++n;
    }
  CHECK(n == 13);
}

TEST_CASE_TEMPLATE("linalg autograd: losses that depend on the phases of the vectors throw, as torch", V, double, cd) {
  // The first matrix has the complex pair 0.375 +- 0.992i (so complex eigenvectors for real input too).
  M3<V> x = input<V, 3>({2, 3, 3}, 0, 0.5);
  const double first[] = {0.5, -1.0, 0.0, 1.0, 0.25, 0.0, 0.0, 0.0, 2.0};
  for (index_t i = 0; i < 9; ++i) x.data()[i] = V(first[i]);
  x.requires_grad_();
  if constexpr (tl::is_complex_v<V>) {
    const auto r = la::svd(x, false);
    const std::string e = tl_test::error_of([&] { tl::sum(tl::real(r.U)).backward(); });
    CHECK(e.find("tl::linalg::svd: backward") != std::string::npos);
    CHECK(e.find("phase") != std::string::npos);
    CHECK_THROWS_AS(tl::sum(tl::imag(la::svd(x, true).Vh)).backward(), tl::autograd_error);
  } else {
    // Real singular vectors have a sign, not a phase: any loss is differentiable.
    CHECK_NOTHROW(tl::sum(la::svd(x, false).U).backward());
  }
  // The eigenvectors are complex for real input too (this x has a complex pair).
  const auto r = la::eig(x);
  const std::string e = tl_test::error_of([&] { tl::sum(tl::real(r.eigenvectors)).backward(); });
  CHECK(e.find("tl::linalg::eig: backward") != std::string::npos);
  CHECK_THROWS_AS(tl::sum(tl::imag(la::eig(x).eigenvectors)).backward(), tl::autograd_error);
}

TEST_CASE_TEMPLATE("linalg autograd: repeated singular values give non-finite vector gradients, as torch", V, double,
                   cd) {
  M3<V> x = tl::zeros<V>(tl::shape_t<3>{1, 3, 3});
  for (index_t i = 0; i < 3; ++i) x(0, i, i) = V(1.0);
  x.requires_grad_();
  tl::sum(tl::abs(la::svd(x, false).U)).backward();
  CHECK(!all_finite(M3<V>(x.grad())));
  // The singular values alone have the finite gradient U Vh (here the identity).
  M3<V> y = x.detach().clone();
  y.requires_grad_();
  tl::sum(la::svdvals(y)).backward();
  CHECK(all_finite(M3<V>(y.grad())));
  CHECK(re_of(y.grad()(0, 1, 1)) == doctest::Approx(1.0));
}

}  // namespace linalg_autograd_spectral_test
