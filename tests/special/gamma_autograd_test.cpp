// Gradients of the tl::special gamma and Bessel functions against finite differences (gradcheck,
// double precision), and the rules' values at the special points (i1' and i1e' at 0).
#define TL_AUTOGRAD 1
#include "special_test_util.hpp"

#include <cmath>

namespace ts = tl::special;
using tl::autograd::gradcheck;

namespace {
tl::tensor<double, 1> vec(std::initializer_list<double> v) { return special_test::from_list<double>(v); }
}  // namespace

// One gradcheck instantiation over a runtime choice of function (keeps this file quick to compile).
template <class V>
tl::tensor<double, 1> apply(int f, const V& v) {
  switch (f) {
    case 0: return tl::eval(ts::gammaln(v));
    case 1: return tl::eval(ts::digamma(v));
    case 2: return tl::eval(ts::polygamma(1, v));
    case 3: return tl::eval(ts::polygamma(3, v));
    case 4: return tl::eval(ts::multigammaln(v, 1));
    case 5: return tl::eval(ts::multigammaln(v, 2));
    case 6: return tl::eval(ts::multigammaln(v, 4));
    case 7: return tl::eval(ts::i0(v));
    case 8: return tl::eval(ts::i0e(v));
    case 9: return tl::eval(ts::i1(v));
    default: return tl::eval(ts::i1e(v));
  }
}

TEST_CASE("special: gradcheck of gammaln, digamma, polygamma, multigammaln, i0, i0e, i1, i1e") {
  const auto x = vec({-2.5, -0.3, 0.2, 0.9, 1.46, 2.7, 9.3, 31.0});
  const auto y = vec({2.3, 3.2, 5.0, 17.5});  // multigammaln: x > (p - 1) / 2
  const auto b = vec({-12.0, -3.1, -0.4, 0.25, 1.7, 7.9, 8.3, 30.0});
  for (int f = 0; f <= 10; ++f) {
    INFO("function " << f);
    CHECK(gradcheck([f](const auto& v) { return apply(f, v); }, f < 4 ? x : f < 7 ? y : b));
  }
}

TEST_CASE("special: gamma and Bessel derivative values") {
  // d gammaln = digamma, d digamma = trigamma, d polygamma(n) = polygamma(n + 1), d multigammaln = sum of digammas.
  auto x = vec({1.0, 2.0}).requires_grad_();
  tl::tensor<double, 0> l = tl::sum(ts::gammaln(x) + ts::digamma(x) + ts::polygamma(2, x) + ts::multigammaln(x + 1.0, 2));
  l.backward();
  const double g = 0.5772156649015329, z3 = 1.2020569031595943, pi2_6 = 1.6449340668482264;
  // x = 1: -g + pi^2/6 + 6 zeta(4) + psi(2) + psi(1.5)
  CHECK(x.grad()(0) == doctest::Approx(-g + pi2_6 + 6 * 1.0823232337111382 + (1 - g) + (2 - g - 2 * std::log(2.0))).epsilon(1e-12));
  (void)z3;
  // i1'(0) = 1/2, i1e'(0) = 1/2, i0'(0) = i1(0) = 0, i0e'(0) = i1e(0) - sign(0) i0e(0) = 0.
  auto z = vec({0.0, 1.0}).requires_grad_();
  tl::tensor<double, 0> s = tl::sum(ts::i1(z) + ts::i1e(z) * 2.0 + ts::i0(z) * 4.0 + ts::i0e(z) * 8.0);
  s.backward();
  CHECK(z.grad()(0) == doctest::Approx(0.5 + 1.0));
  const double i0_1 = 1.2660658777520082, i1_1 = 0.5651591039924851, e = std::exp(-1.0);
  CHECK(z.grad()(1) == doctest::Approx((i0_1 - i1_1) + 2 * e * (i0_1 - 2 * i1_1) + 4 * i1_1 + 8 * e * (i1_1 - i0_1)).epsilon(1e-12));
}
