// Gradients of tl::special bessel_j0/j1/y0/y1, tgamma, gammainc, gammaincc and zeta against finite
// differences (gradcheck, double precision); the derivatives torch 1.13 does not implement
// (gammainc and gammaincc in a, zeta in x) throw tl::autograd_error when
// the expression is built; airy_ai, gammasgn and the
// orthogonal polynomials pass no gradient (torch 1.13 marks them non-differentiable).
#define TL_AUTOGRAD 1
#include "special_test_util.hpp"

#include <cmath>

namespace ts = tl::special;
using tl::autograd::gradcheck;

using special_test::vec;

// One gradcheck instantiation over a runtime choice of function (keeps this file quick to compile).
template <class V>
tl::tensor<double, 1> jy_apply(int f, const V& v) {
  const auto a = vec({0.5, 2.0, 3.5, 1.0, 7.0, 12.0, 0.8, 2.5});
  switch (f) {
    case 0: return tl::eval(ts::bessel_j0(v));
    case 1: return tl::eval(ts::bessel_j1(v));
    case 2: return tl::eval(ts::bessel_y0(tl::abs(v)));
    case 3: return tl::eval(ts::bessel_y1(tl::abs(v)));
    case 4: return tl::eval(ts::tgamma(v));
    case 5: return tl::eval(ts::gammainc(a, tl::abs(v)));
    case 6: return tl::eval(ts::gammaincc(a, tl::abs(v)));
    default: return tl::eval(ts::zeta(3.0, tl::abs(v)));
  }
}

TEST_CASE("special: gradcheck of bessel_j0, j1, y0, y1, tgamma, gammainc and gammaincc in x, zeta in q") {
  const auto x = vec({-7.3, -2.6, -0.45, 0.3, 1.2, 2.9, 4.4, 11.5});
  for (int f = 0; f <= 7; ++f) {
    INFO("function " << f);
    if (f == 4) CHECK(gradcheck([f](const auto& v) { return jy_apply(f, v); }, vec({-2.5, -0.3, 0.2, 0.9, 1.46, 2.7, 5.3, 9.1})));
    else CHECK(gradcheck([f](const auto& v) { return jy_apply(f, v); }, x));
  }
}

TEST_CASE("special: derivative values (J1'(0) = 1/2, Gamma'(1) = -gamma, P'(1, x) = e^-x, zeta'(2, 1))") {
  auto z = vec({0.0, 1.0}).requires_grad_();
  tl::tensor<double, 0> s = tl::sum(ts::bessel_j1(z) + ts::bessel_j0(z) * 2.0);
  s.backward();
  CHECK(z.grad()(0) == doctest::Approx(0.5));
  CHECK(z.grad()(1) == doctest::Approx((0.7651976865579666 - 0.44005058574493355) - 2 * 0.44005058574493355).epsilon(1e-12));
  auto o = vec({1.0, 3.0}).requires_grad_();
  tl::tensor<double, 0> g = tl::sum(ts::tgamma(o) + ts::gammainc(1.0, o) + ts::zeta(2.0, o));
  g.backward();
  const double euler = 0.5772156649015329;
  // d/dq zeta(2, q) = -2 zeta(3, q): zeta(3, 1) = 1.2020569031595942, zeta(3, 3) = zeta(3) - 1 - 1/8
  CHECK(o.grad()(0) == doctest::Approx(-euler + std::exp(-1.0) - 2 * 1.2020569031595942).epsilon(1e-12));
  CHECK(o.grad()(1) == doctest::Approx(2 * (1.5 - euler) + std::exp(-3.0) - 2 * (1.2020569031595942 - 1.125)).epsilon(1e-12));
}

TEST_CASE("special: derivatives torch 1.13 does not implement throw; non-differentiable functions pass no gradient") {
  auto a = vec({1.5, 2.0}).requires_grad_();
  const auto x = vec({0.5, 3.0});
  // torch raises at backward; tl when the expression is built
  CHECK_THROWS_AS(ts::gammainc(a, x), tl::autograd_error);
  CHECK_THROWS_AS(ts::gammaincc(a * 2.0, x), tl::autograd_error);
  CHECK_THROWS_AS(ts::zeta(a + 1.0, x), tl::autograd_error);
  CHECK_NOTHROW(ts::zeta(x + 1.0, a));
  // airy_ai, gammasgn and a polynomial: no gradient flows; the exp term's does.
  auto v = vec({0.5, -1.5}).requires_grad_();
  tl::tensor<double, 0> s = tl::sum(ts::airy_ai(v) + ts::gammasgn(v) + ts::chebyshev_polynomial_t(v, 3) + tl::exp(v));
  s.backward();
  CHECK(v.grad()(0) == doctest::Approx(std::exp(0.5)));
  CHECK(v.grad()(1) == doctest::Approx(std::exp(-1.5)));
}
