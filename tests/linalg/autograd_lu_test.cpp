// Autograd of tl::linalg (lu_factor, lu and lu_solve, and the cases without a gradient): gradcheck
// (central differences in double, complex aware) for real and complex double inputs, batched and
// broadcast, and gradgradcheck (the backward is itself recorded).
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include <string>

#include "factor_grad_ref.hpp"

namespace linalg_autograd_lu_test {

using namespace tl_linalg_ag_test;

namespace {
/// lu (L and U concatenated, as the generator does) or lu_factor's LU of wide and tall matrices.
template <class V>
tl::tensor<V, 3> lu_case(const std::string& name, const tl::tensor<V, 3>& v) {
  if (name.rfind("lu_factor", 0) == 0) return la::lu_factor(v).LU;
  const auto r = la::lu(v);
  return tl::cat({r.L, r.U}, name == "lu_tall" ? 1 : 2);
}
}  // namespace

TEST_CASE_TEMPLATE("linalg autograd: lu_factor, lu and lu_solve", V, double, cd) {
  const auto a = input<V, 3>({2, 3, 3}, 0.2, 0.4);  // small diagonal: rows are interchanged
  {
    tl::no_grad ng;
    const auto f = la::lu_factor(a);
    bool swapped = false;
    for (index_t i = 0; i < f.pivots.numel(); ++i) swapped = swapped || f.pivots.data()[i] != (i % 3) + 1;
    CHECK(swapped);
  }
  CHECK(ag::gradcheck([](const auto& v) { return la::lu_factor(v).LU; }, a));
  CHECK(ag::gradcheck([](const auto& v) { return la::lu_factor_ex(v).LU; }, a));
  CHECK(ag::gradcheck([](const auto& v) { return la::lu(v).L; }, a));
  CHECK(ag::gradcheck([](const auto& v) { return la::lu(v).U; }, a));
  CHECK(ag::gradcheck(
      [](const auto& v) {
        const auto r = la::lu(v);
        return tl::tensor<V, 3>(r.L * 2.0 + r.U * r.U);
      },
      a));
  CHECK(ag::gradgradcheck([](const auto& v) { return la::lu_factor(v).LU; }, a));
  CHECK(ag::gradgradcheck([](const auto& v) { return la::lu(v).U; }, a));

  const auto b = input<V, 3>({2, 3, 2}, 0, 0.8);
  const auto bt = input<V, 3>({2, 2, 3}, 0, 0.8);
  const auto f = [&] {
    tl::no_grad ng;
    return la::lu_factor(a);
  }();
  for (bool left : {true, false})
    for (bool adjoint : {false, true}) {
      CAPTURE(left);
      CAPTURE(adjoint);
      const auto& rhs = left ? b : bt;
      CHECK(ag::gradcheck([&](const auto& v) { return la::lu_solve(f.LU, f.pivots, v, left, adjoint); }, rhs));
      CHECK(ag::gradcheck([&](const auto& v) { return la::lu_solve(v, f.pivots, rhs, left, adjoint); }, f.LU));
    }
  // Through the factorization: lu_solve(lu_factor(A), B) has solve's gradient.
  CHECK(ag::gradcheck(
      [&](const auto& v) {
        const auto g = la::lu_factor(v);
        return la::lu_solve(g.LU, g.pivots, b);
      },
      a));
  CHECK(ag::gradcheck([&](const auto& v) { return la::lu_solve(v, f.pivots, b); }, f.LU));
  CHECK(ag::gradgradcheck([&](const auto& v) { return la::lu_solve(v, f.pivots, b); }, f.LU));
  CHECK(ag::gradgradcheck([&](const auto& v) { return la::lu_solve(f.LU, f.pivots, v * v, false, true); }, bt));
}

TEST_CASE_TEMPLATE("linalg autograd: lu and lu_factor of wide and tall matrices", V, double, cd) {
  const std::pair<const char*, tl::shape_t<3>> cases[] = {
      {"lu_tall", {2, 4, 3}}, {"lu_wide", {2, 3, 4}}, {"lu_factor_tall", {2, 4, 3}}, {"lu_factor_wide", {2, 3, 4}}};
  for (const auto& [name, shape] : cases) {
    CAPTURE(name);
    const auto a = input<V, 3>(shape, 0.2, 0.4);
    const auto f = [&](const tl::tensor<V, 3>& v) { return lu_case<V>(name, v); };
    CHECK(ag::gradcheck(f, a));
    CHECK(ag::gradgradcheck(f, a));
    check_reference_grad(name, f, a);
  }
}

TEST_CASE("linalg autograd: what has no gradient") {
  auto sq = input<double, 2>({3, 3}, 2.0);
  sq.requires_grad_();
  // Pivots and info are integer tensors: no gradient.
  CHECK_FALSE(la::lu_factor(sq).pivots.requires_grad());
  // Nothing is recorded without requires_grad or under no_grad.
  CHECK_FALSE(la::inv(input<double, 2>({3, 3}, 2.0)).requires_grad());
  {
    tl::no_grad ng;
    CHECK_FALSE(la::inv(sq).requires_grad());
  }
}

}  // namespace linalg_autograd_lu_test
