// Gradients of the tl::special Bessel functions against finite differences (gradcheck, double
// precision), and the rules' values at the special points (i1' and i1e' at 0).
#define TL_AUTOGRAD 1
#include "special_test_util.hpp"

#include <cmath>

namespace ts = tl::special;
using tl::autograd::gradcheck;

using special_test::vec;

// One gradcheck instantiation over a runtime choice of function (keeps this file quick to compile).
template <class V>
tl::tensor<double, 1> bessel_apply(int f, const V& v) {
  switch (f) {
    case 0: return tl::eval(ts::i0(v));
    case 1: return tl::eval(ts::i0e(v));
    case 2: return tl::eval(ts::i1(v));
    case 3: return tl::eval(ts::i1e(v));
    case 4: return tl::eval(ts::modified_bessel_k0(tl::abs(v)));
    case 5: return tl::eval(ts::modified_bessel_k1(tl::abs(v)));
    case 6: return tl::eval(ts::scaled_modified_bessel_k0(tl::abs(v)));
    case 7: return tl::eval(ts::scaled_modified_bessel_k1(tl::abs(v)));
    default: return tl::eval(ts::spherical_bessel_j0(v));
  }
}

TEST_CASE("special: gradcheck of i0, i0e, i1, i1e, K0, K1 (plain and scaled), spherical_bessel_j0") {
  const auto x = vec({-12.0, -3.1, -0.4, 0.25, 0.95, 1.7, 7.9, 8.3, 30.0});
  for (int f = 0; f <= 8; ++f) {
    INFO("function " << f);
    CHECK(gradcheck([f](const auto& v) { return bessel_apply(f, v); }, x));
  }
}

TEST_CASE("special: Bessel derivative values") {
  // i1'(0) = 1/2, i1e'(0) = 1/2, i0'(0) = i1(0) = 0, i0e'(0) = i1e(0) - sign(0) i0e(0) = 0, j0'(0) = 0.
  auto z = vec({0.0, 1.0}).requires_grad_();
  tl::tensor<double, 0> s = tl::sum(ts::i1(z) + ts::i1e(z) * 2.0 + ts::i0(z) * 4.0 + ts::i0e(z) * 8.0 + ts::spherical_bessel_j0(z));
  s.backward();
  CHECK(z.grad()(0) == doctest::Approx(0.5 + 1.0));
  const double i0_1 = 1.2660658777520082, i1_1 = 0.5651591039924851, e = std::exp(-1.0);
  CHECK(z.grad()(1) == doctest::Approx((i0_1 - i1_1) + 2 * e * (i0_1 - 2 * i1_1) + 4 * i1_1 + 8 * e * (i1_1 - i0_1) +
                                       (std::cos(1.0) - std::sin(1.0)))
                           .epsilon(1e-12));
}
