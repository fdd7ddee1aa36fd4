// tl::special tgamma, gammasgn and lgamma against mpmath references (tests/data/special) and
// <cmath>, with the edge values of std::tgamma.
#include "special_test_util.hpp"

#include <tl/special/special.hpp>

using namespace special_test;
namespace ts = tl::special;

TEST_CASE_TEMPLATE("tgamma: ULP error against the mpmath reference", T, float, double) {
  const double e = max_ulp_unary<T>("tgamma", ts::detail::tgamma_fn{}, [](const auto& x) { return ts::tgamma(x); });
  MESSAGE("tgamma max ULP " << e);
  CHECK(e <= ulp_bound<T>());
}

TEST_CASE_TEMPLATE("tgamma, gammasgn, lgamma: edge values", T, float, double) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double sub = static_cast<double>(std::numeric_limits<T>::denorm_min()) * 4;
  const double over = std::is_same_v<T, float> ? 35.1 : 171.7;
  const auto x = from_list<T>({nan, inf, -inf, 0.0, -0.0, -1.0, -2.0, sub, -sub, over, 1.0, 2.0, 5.0, -0.5, -1.5, -1000.5, nan});
  tl::tensor<T, 1> g = ts::tgamma(x), s = ts::gammasgn(x), l = ts::lgamma(x), gl = ts::gammaln(x);
  CHECK(std::isnan(g(0)));
  CHECK(std::isnan(s(0)));
  CHECK(std::isnan(l(0)));
  CHECK(std::isnan(g(16)));
  CHECK(same(g(1), inf));
  CHECK(std::isnan(g(2)));
  CHECK(same(g(3), inf));
  CHECK(same(g(4), -inf));
  CHECK(std::isnan(g(5)));
  CHECK(std::isnan(g(6)));
  CHECK(same(g(7), inf));   // 1 / x overflows
  CHECK(same(g(8), -inf));
  CHECK(same(g(9), inf));   // overflow
  CHECK(same(g(10), 1.0));
  CHECK(same(g(11), 1.0));
  CHECK(same(g(12), 24.0));
  CHECK(g(13) == doctest::Approx(-3.5449077018110318).epsilon(1e-7));
  CHECK(g(14) == doctest::Approx(2.3632718012073548).epsilon(1e-7));
  CHECK(same(g(15), -0.0));  // underflow, Gamma(-1000.5) < 0
  // gammasgn (scipy.special.gammasgn)
  const double sg[] = {nan, 1, 1, 0, 0, 0, 0, 1, -1, 1, 1, 1, 1, -1, 1, -1};
  for (int i = 1; i < 16; ++i) CHECK(same(s(i), sg[i]));
  // lgamma is gammaln (torch.lgamma): +inf at the poles and +-inf
  for (int i = 0; i < 17; ++i) CHECK(same(l(i), static_cast<double>(gl(i))));
  CHECK(same(l(3), inf));
  CHECK(same(l(5), inf));
  CHECK(same(l(2), inf));
  // Gamma = gammasgn exp(lgamma), against <cmath> on a grid of both signs
  tl::tensor<double, 1> grid(tl::shape_t<1>{200});
  for (tl::index_t i = 0; i < 200; ++i) grid(i) = -20.37 + 0.2113 * static_cast<double>(i);
  tl::tensor<double, 1> gg = ts::tgamma(grid), rebuilt = ts::gammasgn(grid) * tl::exp(ts::lgamma(grid));
  for (tl::index_t i = 0; i < 200; ++i) {
    CHECK(gg(i) == doctest::Approx(std::tgamma(grid(i))).epsilon(1e-14));
    CHECK(rebuilt(i) == doctest::Approx(gg(i)).epsilon(1e-12));
  }
}

TEST_CASE("tgamma: float packets of x >= 0 (exp of the float lgamma kernel) round the exact value once") {
  // Float packets without a negative lane take exp(lgamma(x)) in double, lgamma accurate to 3e-11
  // relative: below 3e-9 relative in Gamma up to float's overflow, so within 1/2 ULP plus about
  // 0.05. Against the mpmath rows with x >= 0 and against the double kernel on 2^20 + 1 float bit
  // patterns over [0, inf] plus 100001 points evenly over [0, 36].
  constexpr double bound = 0.55;
  std::vector<row> pos;
  for (const auto& r : load<float>("tgamma"))
    if (r.x >= 0) pos.push_back(r);
  REQUIRE(pos.size() > 50);
  const auto x = column<float>(pos);
  const tl::tensor<float, 1> y = ts::tgamma(x);
  CHECK(worst_float_error("tgamma float packet against mpmath", x, y, [&](tl::index_t k) { return pos[static_cast<std::size_t>(k)].ref; }) <= bound);
  auto vals = float_bit_patterns();
  for (int i = 0; i <= 100000; ++i) vals.push_back(static_cast<float>(36.0 * i / 100000));
  const tl::tensor<float, 1> z = special_test::from_vector(vals);
  const tl::tensor<float, 1> w = ts::tgamma(z);
  const auto dbl = [&](tl::index_t k) { return static_cast<long double>(ts::detail::tgamma_kernel(static_cast<double>(z(k)))); };
  CHECK(worst_float_error("tgamma float packet against the double kernel", z, w, dbl) <= bound);
  // Special values in a packet without a negative lane (19 values: a full packet and a scalar tail
  // for every SIMD width).
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto s = from_list<float>({0.0, -0.0, inf, nan, 1.0, 2.0, 3.0, 5.0, 0.5, 1.5, 35.0, 35.1, 1e-30, 1e-39, 10.0, 4.0, 2.5, 20.0, 6.0});
  const tl::tensor<float, 1> g = ts::tgamma(s);
  CHECK(same(g(0), inf));
  CHECK(same(g(1), -inf));
  CHECK(same(g(2), inf));
  CHECK(std::isnan(g(3)));
  CHECK(same(g(4), 1.0));
  CHECK(same(g(5), 1.0));
  CHECK(same(g(6), 2.0));
  CHECK(same(g(7), 24.0));
  CHECK(g(8) == doctest::Approx(1.7724538509055159).epsilon(1e-7));  // sqrt(pi)
  CHECK(g(9) == doctest::Approx(0.886226925452758).epsilon(1e-7));
  CHECK(g(10) == doctest::Approx(2.9523279903960414e38).epsilon(1e-6));
  CHECK(same(g(11), inf));  // overflow
  CHECK(g(12) == doctest::Approx(1e30).epsilon(1e-6));
  CHECK(same(g(13), inf));  // 1 / x overflows
  CHECK(same(g(14), 362880.0));
  CHECK(same(g(18), 120.0));
}
