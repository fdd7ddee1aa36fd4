// Autograd of the tl::linalg functions built from differentiable tl operations (vecdot, cross,
// multi_dot, matrix_power, the latter through matmul and inv): gradcheck and gradgradcheck for real and
// complex double inputs; cross (stacked fused components).
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include "autograd_test_util.hpp"

namespace linalg_autograd_composite_test {

using namespace tl_linalg_ag_test;

TEST_CASE_TEMPLATE("linalg autograd: vecdot, cross, multi_dot, matrix_power", V, double, cd) {
  const auto x = input<V, 2>({4, 3}, 0, 0.2);
  const auto y = input<V, 2>({4, 3}, 0, 1.4);
  CHECK(ag::gradcheck([&](const auto& v) { return la::vecdot(v, y); }, x));
  CHECK(ag::gradcheck([&](const auto& v) { return la::vecdot(x, v, 0); }, y));
  CHECK(ag::gradcheck([&](const auto& v) { return la::cross(v, y); }, x));
  CHECK(ag::gradcheck([&](const auto& v) { return la::cross(x, v, -1); }, y));
  CHECK(ag::gradgradcheck([&](const auto& v) { return la::cross(v, v); }, x));
  const auto m = input<V, 2>({3, 4}, 0, 2.1);
  CHECK(ag::gradcheck([&](const auto& v) { return la::multi_dot(x, v, x); }, m));
  CHECK(ag::gradcheck([&](const auto& v) { return la::multi_dot(v, m); }, x));
  const auto a = input<V, 3>({2, 3, 3}, 2.0);
  for (std::int64_t n : {0, 1, 3, -2}) {
    CAPTURE(n);
    CHECK(ag::gradcheck([&](const auto& v) { return la::matrix_power(v, n); }, a));
  }
  CHECK(ag::gradgradcheck([&](const auto& v) { return la::matrix_power(v, -2); }, a));
  CHECK(ag::gradgradcheck([&](const auto& v) { return la::vecdot(v, v); }, x));
}

}  // namespace linalg_autograd_composite_test
