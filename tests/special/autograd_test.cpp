// Gradients of tl::special against finite differences (gradcheck, double precision) and torch's
// conventions at the special points (xlogy at x = 0, logit outside [eps, 1 - eps], sinc at 0).
#define TL_AUTOGRAD 1
#include "special_test_util.hpp"

#include <cmath>
#include <numbers>

namespace ts = tl::special;
using tl::autograd::gradcheck;

using special_test::vec;

TEST_CASE("special: gradcheck of the unary functions") {
  const auto x = vec({-2.5, -0.9, -0.3, 0.2, 0.6, 1.4, 3.0});
  const auto p = vec({0.01, 0.2, 0.45, 0.5, 0.7, 0.93, 0.999});
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::erf(v)); }, x));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::erfc(v)); }, x));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::erfcx(v)); }, x));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::ndtr(v)); }, x));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::log_ndtr(v * 4.0)); }, x));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::erfinv(v * 2.0 - 1.0)); }, p));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::ndtri(v)); }, p));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::expit(v)); }, x));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::exp2(v)); }, x));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::logit(v)); }, p));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::logit(v, 0.05)); }, p));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::sinc(v)); }, x));
  CHECK(gradcheck([](const auto& v) { return tl::eval(ts::entr(v)); }, p));
}

TEST_CASE("special: gradcheck of xlogy and xlog1py in both arguments, broadcast") {
  const auto x = vec({-1.5, 0.25, 2.0});
  tl::tensor<double, 2> y(tl::shape_t<2>{2, 3});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) y(i, j) = 0.3 + i + 0.7 * j;
  CHECK(gradcheck([&](const auto& v) { return tl::eval(ts::xlogy(v, y)); }, x));
  CHECK(gradcheck([&](const auto& v) { return tl::eval(ts::xlogy(x, v)); }, y));
  CHECK(gradcheck([&](const auto& v) { return tl::eval(ts::xlog1py(v, y)); }, x));
  CHECK(gradcheck([&](const auto& v) { return tl::eval(ts::xlog1py(x, v)); }, y));
}

TEST_CASE("special: torch's gradient conventions at the special points") {
  // xlogy(x, y) at x = 0: d/dx = 0 (not log 0 = -inf), d/dy = x / y = 0.
  auto x = vec({0.0, 2.0}).requires_grad_();
  auto y = vec({0.0, 3.0}).requires_grad_();
  tl::tensor<double, 0> l = tl::sum(ts::xlogy(x, y));
  l.backward();
  CHECK(x.grad()(0) == 0.0);
  CHECK(x.grad()(1) == doctest::Approx(std::log(3.0)));
  CHECK(std::isnan(y.grad()(0)));  // 0 / 0, as torch
  CHECK(y.grad()(1) == doctest::Approx(2.0 / 3.0));
  // logit with eps: zero gradient where the input was clamped.
  auto p = vec({0.01, 0.5, 0.99}).requires_grad_();
  tl::tensor<double, 0> s = tl::sum(ts::logit(p, 0.1));
  s.backward();
  CHECK(p.grad()(0) == 0.0);
  CHECK(p.grad()(1) == doctest::Approx(4.0));
  CHECK(p.grad()(2) == 0.0);
  // sinc'(0) = 0; erfcx' = 2 x erfcx(x) - 2 / sqrt(pi); d gammaln-style rule of erfinv at 0 = sqrt(pi) / 2.
  auto z = vec({0.0, 1.0}).requires_grad_();
  tl::tensor<double, 0> t = tl::sum(ts::sinc(z) + ts::erfcx(z) + ts::erfinv(z * 0.5));
  t.backward();
  const double erfcx1 = 0.42758357615580700442;
  CHECK(z.grad()(0) == doctest::Approx(0.0 - 2 * std::numbers::inv_sqrtpi + 0.25 / std::numbers::inv_sqrtpi));
  CHECK(z.grad()(1) == doctest::Approx(-1.0 + 2 * erfcx1 - 2 * std::numbers::inv_sqrtpi +
                                       0.25 / std::numbers::inv_sqrtpi * std::exp(std::pow(0.4769362762044699, 2))));
}
