// Autograd of tl::linalg (solve_triangular): gradcheck (central differences in double, complex
// aware) for real and complex double inputs, batched and broadcast, and gradgradcheck (the backward
// is itself recorded).
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include "autograd_test_util.hpp"

namespace linalg_autograd_triangular_test {

using namespace tl_linalg_ag_test;

TEST_CASE_TEMPLATE("linalg autograd: solve_triangular", V, double, cd) {
  const systems<V> sys(3.0);
  const auto &a = sys.a, &b = sys.b, &bt = sys.bt;
  for (bool upper : {false, true})
    for (bool left : {true, false})
      for (bool unit : {false, true}) {
        CAPTURE(upper);
        CAPTURE(left);
        CAPTURE(unit);
        const auto& rhs = left ? b : bt;
        CHECK(ag::gradcheck([&](const auto& v) { return la::solve_triangular(v, rhs, upper, left, unit); }, a));
        CHECK(ag::gradcheck([&](const auto& v) { return la::solve_triangular(a, v, upper, left, unit); }, rhs));
      }
  CHECK(ag::gradgradcheck([&](const auto& v) { return la::solve_triangular(v, b, true); }, a));
  CHECK(ag::gradgradcheck([&](const auto& v) { return la::solve_triangular(a, v * v, false, true, true); }, b));
  // A broadcast over B's batch.
  const auto a1 = input<V, 2>({3, 3}, 3.0);
  CHECK(ag::gradcheck([&](const auto& v) { return la::solve_triangular(v, b, false); }, a1));
}

}  // namespace linalg_autograd_triangular_test
