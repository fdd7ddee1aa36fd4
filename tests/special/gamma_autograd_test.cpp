// Gradients of the tl::special gamma functions against finite differences (gradcheck, double
// precision) and the values of the rules (the Bessel functions: bessel_autograd_test.cpp).
#define TL_AUTOGRAD 1
#include "special_test_util.hpp"

#include <cmath>

namespace ts = tl::special;
using tl::autograd::gradcheck;

using special_test::vec;

// One gradcheck instantiation over a runtime choice of function (keeps this file quick to compile).
template <class V>
tl::tensor<double, 1> gamma_apply(int f, const V& v) {
  switch (f) {
    case 0: return tl::eval(ts::gammaln(v));
    case 1: return tl::eval(ts::digamma(v));
    case 2: return tl::eval(ts::polygamma(1, v));
    case 3: return tl::eval(ts::polygamma(3, v));
    case 4: return tl::eval(ts::multigammaln(v, 1));
    case 5: return tl::eval(ts::multigammaln(v, 2));
    default: return tl::eval(ts::multigammaln(v, 4));
  }
}

TEST_CASE("special: gradcheck of gammaln, digamma, polygamma, multigammaln") {
  const auto x = vec({-2.5, -0.3, 0.2, 0.9, 1.46, 2.7, 9.3, 31.0});
  const auto y = vec({2.3, 3.2, 5.0, 17.5});  // multigammaln: x > (p - 1) / 2
  for (int f = 0; f <= 6; ++f) {
    INFO("function " << f);
    CHECK(gradcheck([f](const auto& v) { return gamma_apply(f, v); }, f < 4 ? x : y));
  }
}

TEST_CASE("special: gamma derivative values") {
  // d gammaln = digamma, d digamma = trigamma, d polygamma(n) = polygamma(n + 1), d multigammaln = sum of digammas.
  auto x = vec({1.0, 2.0}).requires_grad_();
  tl::tensor<double, 0> l = tl::sum(ts::gammaln(x) + ts::digamma(x) + ts::polygamma(2, x) + ts::multigammaln(x + 1.0, 2));
  l.backward();
  const double g = 0.5772156649015329, pi2_6 = 1.6449340668482264;
  // x = 1: -g + pi^2/6 + 6 zeta(4) + psi(2) + psi(1.5)
  CHECK(x.grad()(0) == doctest::Approx(-g + pi2_6 + 6 * 1.0823232337111382 + (1 - g) + (2 - g - 2 * std::log(2.0))).epsilon(1e-12));
}
