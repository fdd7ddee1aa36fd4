// jacobian / hessian with vectorize = true where the backward pass is recorded (TL_AUTOGRAD 2): the
// vectorized hessian against the row-by-row one and closed forms, and jacobian with create_graph.
// The first-order vectorized tests are in vectorized_test.cpp (TL_AUTOGRAD 1).
#define TL_AUTOGRAD 2
#include <doctest/doctest.h>

#include <cmath>
#include <tl/tensor.hpp>

#include "jacobian_util.hpp"

namespace vectorized_higher_test {

namespace ag = tl::autograd;
using V1 = tl::tensor<double, 1>;
using M2 = tl::tensor<double, 2>;

constexpr ag::jacobian_options vec_on{.create_graph = false, .vectorize = true};

using tl_test::check_same;

TEST_CASE("vectorized hessian equals the row-by-row hessian and the closed forms") {
  tl::manual_seed(9);
  const V1 x = tl::randn<double>(7);
  // sum(x^3) + sum(sin x) sum(x): H = diag(6x - sin(x) sum(x)) + cos(x_i) + cos(x_j)
  auto f = [](const V1& v) { return tl::tensor<double, 0>(tl::sum(v * v * v) + tl::sum(tl::sin(v)) * tl::sum(v)); };
  const auto hv = ag::hessian(f, x, vec_on);
  const auto hl = ag::hessian(f, x);
  check_same(hv, hl, 1e-12);
  double sx = 0;
  for (int i = 0; i < 7; ++i) sx += x(i);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j) {
      double want = std::cos(x(i)) + std::cos(x(j));
      if (i == j) want += 6 * x(i) - std::sin(x(i)) * sx;
      CHECK(hv(i, j) == doctest::Approx(want).epsilon(1e-12));
    }
  // prod with a zero: H_ij = prod_{k != i, j} x_k (0 on the diagonal)
  V1 p = V1(tl::linspace<double>(0.8, 1.2, 6));
  p(2) = 0.0;
  const auto hp = ag::hessian([](const V1& v) { return tl::tensor<double, 0>(tl::prod(v)); }, p, vec_on);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      double want = 0;
      if (i != j) {
        want = 1;
        for (int k = 0; k < 6; ++k)
          if (k != i && k != j) want *= p(k);
      }
      CHECK(hp(i, j) == doctest::Approx(want).epsilon(1e-12));
    }
  // a matrix input and softmax inside (nodes without a batched rule in the gradient's graph)
  const M2 xm = tl::randn<double>(2, 3);
  auto g = [](const M2& v) { return tl::tensor<double, 0>(tl::sum(tl::softmax(v, 1) * tl::exp(v))); };
  check_same(ag::hessian(g, xm, vec_on), ag::hessian(g, xm), 1e-12);
}

TEST_CASE("jacobian with create_graph is differentiable with respect to x, as torch's") {
  auto x = V1(tl::linspace<double>(0.5, 1.5, 4)).requires_grad_();
  auto cube = [](const V1& v) { return V1(v * v * v); };
  const auto j = ag::jacobian(cube, x, true);
  REQUIRE(j.requires_grad());
  check_same(j, ag::jacobian(cube, V1(x.detach())), 1e-14);
  // J = diag(3 x^2): d/dx_k sum(J) = 6 x_k
  tl::tensor<double, 0> s = tl::sum(j);
  s.backward();
  for (int k = 0; k < 4; ++k) CHECK(x.grad()(k) == doctest::Approx(6 * x(k)).epsilon(1e-14));
  // vectorize with create_graph takes the same (row-by-row, recorded) path
  CHECK(ag::jacobian(cube, x, {.create_graph = true, .vectorize = true}).requires_grad());
}

}  // namespace vectorized_higher_test
