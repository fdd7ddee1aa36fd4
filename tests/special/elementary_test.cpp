// tl::special elementary functions (expit, logit, exp2, expm1, log1p, sinc, entr, xlogy, xlog1py,
// round, and the reduction aliases) against mpmath references and torch's edge conventions.
#include "special_test_util.hpp"

#include <tl/special/special.hpp>

using namespace special_test;
namespace ts = tl::special;

TEST_CASE_TEMPLATE("elementary functions: ULP error against the mpmath reference", T, float, double) {
  const double bound = std::is_same_v<T, float> ? 2.0 : 4.0;
  auto check = [&](const char* name, auto fn, auto factory) {
    const double e = max_ulp_unary<T>(name, fn, factory);
    INFO(name << " max ULP " << e);
    CHECK(e <= bound);
  };
  check("expit", ts::detail::expit_fn{}, [](const auto& x) { return ts::expit(x); });
  check("logit", ts::detail::logit_fn{}, [](const auto& x) { return ts::logit(x); });
  check("exp2", ts::detail::exp2_fn{}, [](const auto& x) { return ts::exp2(x); });
  check("expm1", tl::detail::expm1_fn{}, [](const auto& x) { return ts::expm1(x); });
  check("log1p", tl::detail::log1p_fn{}, [](const auto& x) { return ts::log1p(x); });
  check("sinc", ts::detail::sinc_fn{}, [](const auto& x) { return ts::sinc(x); });
  check("entr", ts::detail::entr_fn{}, [](const auto& x) { return ts::entr(x); });
  auto check2 = [&](const char* name, auto fn, auto factory) {
    const double e = max_ulp_binary<T>(name, fn, factory);
    INFO(name << " max ULP " << e);
    CHECK(e <= bound);
  };
  check2("xlogy", ts::detail::xlogy_fn{}, [](const auto& x, const auto& y) { return ts::xlogy(x, y); });
  check2("xlog1py", ts::detail::xlog1py_fn{}, [](const auto& x, const auto& y) { return ts::xlog1py(x, y); });
}

TEST_CASE_TEMPLATE("elementary functions: torch's edge conventions", T, float, double) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto v = [](std::initializer_list<double> l) { return from_list<T>(l); };
  // xlogy / xlog1py: x == 0 gives 0 (also for y = 0, inf, and y = -1 in xlog1py), but NaN y gives NaN.
  const auto x = v({0, 0, 0, 0, nan, 2, -0.0, 1, 1, 0, 3, 3, 0, 0, 0, 0, 0});
  const auto y = v({0, nan, inf, -1, 1, 0, 5, -1, nan, -5, inf, 1, 1, 1, 1, 1, nan});
  tl::tensor<T, 1> a = ts::xlogy(x, y), b = ts::xlog1py(x, y);
  CHECK(same(a(0), 0.0));
  CHECK(std::isnan(a(1)));
  CHECK(same(a(2), 0.0));
  CHECK(same(a(3), 0.0));
  CHECK(std::isnan(a(4)));
  CHECK(same(a(5), -inf));
  CHECK(same(a(6), 0.0));
  CHECK(std::isnan(a(7)));  // log(-1)
  CHECK(std::isnan(a(8)));
  CHECK(same(a(9), 0.0));
  CHECK(same(a(10), inf));
  CHECK(same(a(11), 0.0));
  CHECK(std::isnan(a(16)));
  CHECK(same(b(3), 0.0));
  CHECK(same(b(7), -inf));
  CHECK(std::isnan(b(1)));
  CHECK(same(b(0), 0.0));
  CHECK(b(11) == doctest::Approx(3 * std::log(2.0)));
  // logit: ends, outside [0, 1], NaN; eps clamps (torch.special.logit(x, eps)).
  const auto p = v({0, 1, -0.5, 1.5, nan, 0.5, 0.25, 1e-9, 1 - 1e-7, 0, 1, 0.3, 0.9, 0.5, 0.5, 0.5, 0.5});
  tl::tensor<T, 1> l = ts::logit(p), le = ts::logit(p, 0.1);
  CHECK(same(l(0), -inf));
  CHECK(same(l(1), inf));
  CHECK(std::isnan(l(2)));
  CHECK(std::isnan(l(3)));
  CHECK(std::isnan(l(4)));
  CHECK(same(l(5), 0.0));
  CHECK(l(6) == doctest::Approx(-std::log(3.0)));
  CHECK(le(0) == doctest::Approx(std::log(0.1 / 0.9)));
  CHECK(le(1) == doctest::Approx(std::log(0.9 / 0.1)));
  CHECK(le(2) == doctest::Approx(std::log(0.1 / 0.9)));
  CHECK(std::isnan(le(4)));
  CHECK(le(11) == doctest::Approx(std::log(0.3 / 0.7)));
  CHECK(le(12) == doctest::Approx(std::log(0.9 / 0.1)));
  // entr: 0 at 0, -inf below, NaN kept, -inf at inf; sinc: 1 at 0, NaN at +-inf, exact zeros at integers.
  const auto e = v({0, -0.0, -1, nan, inf, 1, 2, 0.5, 3, -4, 1e-30, 1e20, 0, 0, 0, 0, 0});
  tl::tensor<T, 1> en = ts::entr(e), sn = ts::sinc(e);
  CHECK(same(en(0), 0.0));
  CHECK(same(en(1), 0.0));
  CHECK(same(en(2), -inf));
  CHECK(std::isnan(en(3)));
  CHECK(same(en(4), -inf));
  CHECK(same(en(5), -0.0));
  CHECK(same(sn(0), 1.0));
  CHECK(same(sn(1), 1.0));
  CHECK(std::isnan(sn(3)));
  CHECK(std::isnan(sn(4)));
  CHECK(sn(5) == T(0));
  CHECK(sn(6) == T(0));
  CHECK(sn(7) == doctest::Approx(2 / std::numbers::pi));
  CHECK(sn(8) == T(0));
  CHECK(sn(10) == T(1));
  CHECK(sn(11) == T(0));
  // expit / exp2 at the ends of the range, subnormal results included.
  const auto q = v({-inf, inf, nan, 0, -1074.5, -149.5, 1e6, -1e6, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  tl::tensor<T, 1> ex = ts::expit(q), e2 = ts::exp2(q);
  CHECK(same(ex(0), 0.0));
  CHECK(same(ex(1), 1.0));
  CHECK(std::isnan(ex(2)));
  CHECK(same(ex(3), 0.5));
  CHECK(same(e2(0), 0.0));
  CHECK(same(e2(1), inf));
  CHECK(std::isnan(e2(2)));
  CHECK(same(e2(6), inf));
  CHECK(same(e2(7), 0.0));
  if constexpr (std::is_same_v<T, float>) CHECK(e2(5) == std::numeric_limits<float>::denorm_min());  // 2^-149.5 rounds up
  else CHECK(e2(4) == std::numeric_limits<double>::denorm_min());
}

TEST_CASE_TEMPLATE("round(x, decimals) follows torch: half to even at 10^-decimals", T, float, double) {
  tl::tensor<T, 1> x(tl::shape_t<1>{6});
  const double xs[6] = {1.25, -2.5, 1234.5678, 0.5, 15.0, 25.0};
  for (int i = 0; i < 6; ++i) x(i) = static_cast<T>(xs[i]);
  tl::tensor<T, 1> r0 = ts::round(x), r1 = ts::round(x, 1), r2 = ts::round(x, 2), rm1 = ts::round(x, -1);
  CHECK(r0(0) == T(1));
  CHECK(r0(1) == T(-2));
  CHECK(r0(3) == T(0));
  CHECK(r1(0) == T(1.2));  // 12.5 -> 12
  CHECK(r1(2) == static_cast<T>(std::nearbyint(static_cast<T>(1234.5678) * T(10)) / T(10)));
  CHECK(r2(2) == static_cast<T>(std::nearbyint(static_cast<T>(1234.5678) * T(100)) / T(100)));
  CHECK(rm1(2) == T(1230));
  CHECK(rm1(4) == T(20));
  CHECK(rm1(5) == T(20));
}

TEST_CASE("elementary functions: broadcasting, scalars, integer promotion, fusion and the reduction aliases") {
  tl::tensor<double, 2> x(tl::shape_t<2>{3, 1});
  tl::tensor<double, 1> y(tl::shape_t<1>{4});
  for (int i = 0; i < 3; ++i) x(i, 0) = i;
  for (int j = 0; j < 4; ++j) y(j) = 0.5 + j;
  tl::tensor<double, 2> z = ts::xlogy(x, y);
  CHECK(z.extent(0) == 3);
  CHECK(z.extent(1) == 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(z(i, j) == doctest::Approx(i * std::log(0.5 + j)));
  tl::tensor<double, 1> s1 = ts::xlogy(2.0, y), s2 = ts::xlog1py(y, 1.0);
  CHECK(s1(1) == doctest::Approx(2 * std::log(1.5)));
  CHECK(s2(2) == doctest::Approx(2.5 * std::log(2.0)));
  // Integer operands compute in float (torch's promotion); an int with a double gives double.
  tl::tensor<std::int64_t, 1> k(tl::shape_t<1>{3});
  for (int i = 0; i < 3; ++i) k(i) = i;
  auto ki = ts::xlogy(k, k);
  static_assert(std::is_same_v<typename decltype(ki)::value_type, float>);
  static_assert(std::is_same_v<typename decltype(ts::xlogy(k, y))::value_type, double>);
  static_assert(std::is_same_v<typename decltype(ts::entr(k))::value_type, float>);
  tl::tensor<float, 1> kf = ki;
  CHECK(kf(0) == 0.0f);
  CHECK(kf(2) == doctest::Approx(2 * std::log(2.0)));
  // Fusion: one expression, reduced without a temporary.
  tl::tensor<double, 1> p(tl::shape_t<1>{4});
  for (int j = 0; j < 4; ++j) p(j) = 0.1 * (j + 1);
  const double h = tl::sum(ts::entr(p))();
  double want = 0;
  for (int j = 0; j < 4; ++j) want -= p(j) * std::log(p(j));
  CHECK(h == doctest::Approx(want));
  tl::tensor<double, 1> f = ts::expit(ts::logit(p)) - p;
  for (int j = 0; j < 4; ++j) CHECK(std::abs(f(j)) < 1e-15);
  // Aliases are the tl reductions.
  tl::tensor<double, 2> m(tl::shape_t<2>{2, 3});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = i - 0.5 * j;
  tl::tensor<double, 1> a1 = ts::logsumexp(m, 1), a2 = tl::logsumexp(m, 1);
  tl::tensor<double, 2> b1 = ts::softmax(m, 1), c1 = ts::log_softmax(m, 1);
  CHECK(a1(1) == a2(1));
  CHECK(a1(0) == doctest::Approx(std::log(1 + std::exp(-0.5) + std::exp(-1.0))));
  CHECK(b1(0, 0) == doctest::Approx(1 / (1 + std::exp(-0.5) + std::exp(-1.0))));
  CHECK(c1(0, 0) == doctest::Approx(-std::log(1 + std::exp(-0.5) + std::exp(-1.0))));
  tl::tensor<double, 1> em = ts::expm1(y), lp = ts::log1p(y);
  CHECK(em(0) == doctest::Approx(std::expm1(0.5)));
  CHECK(lp(0) == doctest::Approx(std::log1p(0.5)));
}
