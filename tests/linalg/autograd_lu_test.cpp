// Autograd of tl::linalg (lu_factor, lu and lu_solve, and the cases without a gradient): gradcheck
// (central differences in double, complex aware) for real and complex double inputs, batched and
// broadcast, and gradgradcheck (the backward is itself recorded).
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include "autograd_test_util.hpp"

using namespace tl_linalg_ag_test;

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

TEST_CASE("linalg autograd: what has no gradient") {
  auto a = input<double, 2>({3, 4}, 2.0);
  a.requires_grad_();
  // Non-square LU: recorded, but its backward is not implemented (an error, not a wrong value).
  const auto f = la::lu_factor(a);
  CHECK(f.LU.requires_grad());
  CHECK_THROWS_AS(tl::sum(f.LU).backward(), tl::linalg_error);
  // Pivots and info are integer tensors: no gradient.
  CHECK_FALSE(f.pivots.requires_grad());
  // lu_solve's gradient with respect to LU for adjoint or right-side systems is not implemented.
  auto sq = input<double, 2>({3, 3}, 2.0);
  sq.requires_grad_();
  const auto g = la::lu_factor(sq);
  const auto x = la::lu_solve(g.LU, g.pivots, input<double, 2>({3, 2}), true, true);
  CHECK_THROWS_AS(tl::sum(x).backward(), tl::linalg_error);
  // Nothing is recorded without requires_grad or under no_grad.
  CHECK_FALSE(la::inv(input<double, 2>({3, 3}, 2.0)).requires_grad());
  {
    tl::no_grad ng;
    CHECK_FALSE(la::inv(sq).requires_grad());
  }
}
