// Autograd of tl::linalg qr, matrix_exp, householder_product, vander, tensorinv, tensorsolve, lstsq
// and the norms (vector_norm, matrix_norm, norm, cond): gradcheck and gradgradcheck (real and complex
// double, batched, rectangular), torch 1.13's gradients (tests/data/linalg/gen_factor_grad.py),
// its subgradients at zeros and ties, and the cases torch does not differentiate.
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "factor_grad_ref.hpp"

namespace linalg_autograd_factor_test {

using namespace tl_linalg_ag_test;

namespace {

template <class V>
using M3 = tl::tensor<V, 3>;
constexpr double inf = INFINITY;

/// The matrix-valued functions under test, selected by name at run time (one gradcheck
/// instantiation per dtype keeps the compile time down). Q and R of qr are concatenated as the
/// generator does.
template <class V>
M3<V> matrix_case(const std::string& name, const M3<V>& v) {
  if (name.rfind("qr_", 0) == 0) {
    const auto r = la::qr(v, name == "qr_complete_wide" ? "complete" : "reduced");
    return tl::cat({r.Q, r.R}, r.Q.shape()[2] != r.R.shape()[2] ? 2 : 1);
  }
  if (name == "matrix_exp") return la::matrix_exp(v);
  if (name == "householder_product") return la::householder_product(v, tl::tensor<V, 2>(v.select(1, 0)));
  if (name == "vander") return la::vander(tl::tensor<V, 2>(v.select(2, 0)));
  if (name == "tensorinv") return la::tensorinv(v.reshape(tl::shape_t<4>{2, 2, 2, 2}), 2).reshape(v.shape());
  if (name == "lstsq_tall") return la::lstsq(v.narrow(2, 0, 2), v.narrow(2, 2, 1)).solution;
  if (name == "lstsq_wide")
    return la::lstsq(v.narrow(2, 0, 3), tl::tensor<V, 2>(v.select(2, 3))).solution.unsqueeze(-1);
  if (name == "tensorsolve") {
    const tl::tensor<V, 1> x = la::tensorsolve(v.select(0, 0), tl::tensor<V, 1>(v.select(0, 1).select(0, 0)));
    return x.reshape(tl::shape_t<3>{1, 1, 3});
  }
  FAIL("unknown case " << name);
  return v;
}

template <class X>
tl::tensor<double, 1> flat(const X& x) {
  return x.reshape(tl::shape_t<1>{x.numel()});
}

/// The real-valued functions under test (norms and condition numbers), flattened.
template <class V>
tl::tensor<double, 1> norm_case(const std::string& name, const M3<V>& v) {
  if (name == "vector_norm_2") return flat(la::vector_norm(v, 2, -1));
  if (name == "vector_norm_1") return flat(la::vector_norm(v, 1, -1));
  if (name == "vector_norm_inf") return flat(la::vector_norm(v, inf, -1));
  if (name == "vector_norm_-inf") return flat(la::vector_norm(v, -inf, -1));
  if (name == "vector_norm_0.5") return flat(la::vector_norm(v, 0.5, tl::dims{0, 2}));
  if (name == "vector_norm_3") return flat(la::vector_norm(v, 3));
  if (name == "matrix_norm_fro") return flat(la::matrix_norm(v, "fro"));
  if (name == "matrix_norm_1") return flat(la::matrix_norm(v, 1.0));
  if (name == "matrix_norm_-1") return flat(la::matrix_norm(v, -1.0));
  if (name == "matrix_norm_inf") return flat(la::matrix_norm(v, inf, tl::dims{0, 2}));
  if (name == "matrix_norm_-inf") return flat(la::matrix_norm(v, -inf));
  if (name == "matrix_norm_2") return flat(la::matrix_norm(v, 2.0));
  if (name == "matrix_norm_-2") return flat(la::matrix_norm(v, -2.0, tl::dims{0, 2}));
  if (name == "matrix_norm_nuc") return flat(la::matrix_norm(v, "nuc", tl::dims{-2, -1}, tl::keepdim));
  if (name == "norm") return flat(la::norm(v));
  if (name == "cond_fro") return flat(la::cond(v, "fro"));
  if (name == "cond_inf") return flat(la::cond(v, inf));
  if (name == "cond_-1") return flat(la::cond(v, -1.0));
  if (name == "cond_nuc") return flat(la::cond(v, "nuc"));
  if (name == "cond_2") return flat(la::cond(v));
  if (name == "cond_-2") return flat(la::cond(tl::tensor<V, 3>(v.narrow(1, 0, 2)), -2.0));
  FAIL("unknown case " << name);
  return {};
}

struct matrix_input {
  std::string name;
  tl::shape_t<3> shape;
  double shift, seed;
  bool second_order;
};

const std::vector<matrix_input> matrix_inputs = {
    {"qr_tall", {2, 4, 3}, 1.0, 0.4, true},
    {"qr_square", {2, 3, 3}, 1.0, 0.4, false},
    {"qr_wide", {2, 3, 5}, 1.0, 0.4, true},
    {"qr_complete_wide", {2, 3, 5}, 1.0, 0.4, false},
    {"matrix_exp", {2, 3, 3}, 0.0, 0.4, true},
    {"householder_product", {2, 4, 3}, 1.0, 0.4, true},
    {"vander", {2, 3, 3}, 0.0, 0.4, true},
    {"tensorinv", {2, 2, 4}, 2.0, 0.4, false},
    {"tensorsolve", {2, 3, 3}, 2.0, 0.4, false},
    {"lstsq_tall", {2, 4, 3}, 1.0, 0.4, true},
    {"lstsq_wide", {2, 2, 4}, 1.0, 0.4, false},
};

const std::vector<std::string> norm_names = {
    "vector_norm_2",  "vector_norm_1",   "vector_norm_inf", "vector_norm_-inf", "vector_norm_0.5",
    "vector_norm_3",  "matrix_norm_fro", "matrix_norm_1",   "matrix_norm_-1",   "matrix_norm_inf",
    "matrix_norm_-inf", "matrix_norm_2", "matrix_norm_-2",  "matrix_norm_nuc",  "norm",
    "cond_fro",       "cond_inf",        "cond_-1",         "cond_nuc",         "cond_2",
    "cond_-2"};

}  // namespace

TEST_CASE_TEMPLATE("linalg autograd: qr, matrix_exp, householder_product, vander, tensorinv, tensorsolve", V,
                   double, cd) {
  for (const auto& c : matrix_inputs) {
    CAPTURE(c.name);
    const auto a = input<V, 3>(c.shape, c.shift, c.seed);
    const auto f = [&](const M3<V>& v) { return matrix_case<V>(c.name, v); };
    CHECK(ag::gradcheck(f, a));
    if (c.second_order) CHECK(ag::gradgradcheck(f, a));
    check_reference_grad(c.name, f, a);
  }
}

TEST_CASE_TEMPLATE("linalg autograd: vector_norm, matrix_norm, norm, cond", V, double, cd) {
  const auto a = input<V, 3>({2, 3, 3}, 2.0, 0.4);
  for (const auto& name : norm_names) {
    CAPTURE(name);
    const auto f = [&](const M3<V>& v) { return norm_case<V>(name, v); };
    CHECK(ag::gradcheck(f, a));
    if (name == "vector_norm_2" || name == "matrix_norm_1" || name == "matrix_norm_nuc" || name == "cond_fro" ||
        name == "cond_2")
      CHECK(ag::gradgradcheck(f, a));
    check_reference_grad(name, f, a);
  }
  // torch's subgradients: 0 at a zero vector (2-norm), ties of the inf / -inf norms share the
  // gradient equally, the zero row of -inf gets 0.
  M3<V> ties(tl::shape_t<3>{1, 3, 3});
  const double tv[] = {1, -3, 3, 0, 0, 0, 2, -2, 1};
  for (index_t i = 0; i < 9; ++i) ties.data()[i] = V(tv[i]);
  for (const char* name : {"vector_norm_2", "vector_norm_inf", "vector_norm_-inf", "matrix_norm_1", "matrix_norm_inf"})
    check_reference_grad(std::string("ties_") + name, [&](const M3<V>& v) { return norm_case<V>(name, v); }, ties);
}

TEST_CASE("linalg autograd: what torch 1.13 does not differentiate") {
  auto tall = input<double, 2>({4, 3}, 1.0);
  tall.requires_grad_();
  auto wide = input<double, 2>({3, 4}, 1.0);
  wide.requires_grad_();
  // qr: mode 'r' and mode 'complete' with more rows than columns record, but their backward throws.
  CHECK_THROWS_AS(tl::sum(la::qr(tall, "r").R).backward(), tl::autograd_error);
  CHECK_THROWS_AS(tl::sum(la::qr(tall, "complete").R).backward(), tl::autograd_error);
  CHECK_NOTHROW(tl::sum(la::qr(wide, "complete").Q).backward());
  // A singular matrix: cond is inf, as without grad (its gradient is not finite).
  auto sing = tl::tensor<double, 2>(tl::ones<double>(3, 3));
  sing.requires_grad_();
  const auto c = la::cond(sing, "fro");
  CHECK(c.requires_grad());
  CHECK(std::isinf(c()));
}

}  // namespace linalg_autograd_factor_test
