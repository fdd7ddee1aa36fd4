// Autograd of tl::linalg (solve, solve_ex, inv and inv_ex): gradcheck (central differences in
// double, complex aware) for real and complex double inputs, batched and broadcast, and
// gradgradcheck (the backward is itself recorded).
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include "autograd_test_util.hpp"

namespace linalg_autograd_solve_test {

using namespace tl_linalg_ag_test;

TEST_CASE_TEMPLATE("linalg autograd: solve", V, double, cd) {
  const systems<V> sys(2.0);
  const auto &a = sys.a, &b = sys.b, &bt = sys.bt;
  const auto bv = input<V, 2>({2, 3}, 0, 0.5);
  for (bool left : {true, false}) {
    CAPTURE(left);
    const auto& rhs = left ? b : bt;
    CHECK(ag::gradcheck([&](const auto& v) { return la::solve(v, rhs, left); }, a));
    CHECK(ag::gradcheck([&](const auto& v) { return la::solve(a, v, left); }, rhs));
    CHECK(ag::gradgradcheck([&](const auto& v) { return la::solve(v, rhs, left); }, a));
    CHECK(ag::gradgradcheck([&](const auto& v) { return la::solve(a, v * v, left); }, rhs));
  }
  // A batch of vectors, and a broadcast A (one matrix for a batch of right-hand sides).
  CHECK(ag::gradcheck([&](const auto& v) { return la::solve(v, bv); }, a));
  CHECK(ag::gradcheck([&](const auto& v) { return la::solve(a, v); }, bv));
  const auto a1 = input<V, 2>({3, 3}, 2.0, 1.7);
  CHECK(ag::gradcheck([&](const auto& v) { return la::solve(v, b); }, a1));
  CHECK(ag::gradcheck([&](const auto& v) { return la::solve_ex(v, b).result; }, a1));
  const auto v1 = input<V, 1>({3}, 0, 0.2);
  CHECK(ag::gradcheck([&](const auto& v) { return la::solve(a, v); }, v1));  // B broadcast over A's batch
}

TEST_CASE_TEMPLATE("linalg autograd: inv and inv_ex", V, double, cd) {
  const auto ab = input<V, 3>({2, 3, 3}, 2.0);
  CHECK(ag::gradcheck([](const auto& v) { return la::inv(v); }, ab));
  CHECK(ag::gradcheck([](const auto& v) { return la::inv_ex(v).inverse; }, ab));
  CHECK(ag::gradgradcheck([](const auto& v) { return la::inv(v); }, input<V, 3>({1, 3, 3}, 2.0)));
}

}  // namespace linalg_autograd_solve_test
