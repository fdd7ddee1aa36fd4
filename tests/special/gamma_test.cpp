// tl::special gamma family (gammaln, digamma, polygamma, multigammaln) against mpmath references
// (tests/data/special), poles, infinities, argument errors and fusion.
#include "special_test_util.hpp"

#include <tl/special/special.hpp>

#include <cstdint>
#include <cstring>
#include <map>

using namespace special_test;
namespace ts = tl::special;

namespace {
#ifdef __FMA__
constexpr double slack = 0;
#else
constexpr double slack = 0.5;
#endif

/// Error of got against ref in ULP of T, where the scale of the ULP is at least `floor_scale`:
/// for the reflection formulas (x < 0) the error is bounded relative to the size of the terms
/// that cancel near the zeros of the function, not relative to the (small) result.
template <class T>
double ulp_error_scaled(T got, long double ref, long double floor_scale) {
  if (std::isnan(ref) || std::isinf(ref) || std::fabs(ref) >= floor_scale) return ulp_error<T>(got, ref);
  if (std::isnan(got) || std::isinf(got)) return 1e30;
  int e = 0;
  std::frexp(floor_scale, &e);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / std::ldexp(1.0L, e - std::numeric_limits<T>::digits));
}

/// Largest error of a unary function over its reference rows (packet and scalar path); rows with
/// x < 0 are measured against the scale returned by neg_scale(x).
template <class T, class Fn, class Factory, class Scale>
std::pair<double, double> max_errors(const std::string& name, Fn fn, Factory factory, Scale neg_scale) {
  const auto rows = load<T>(name);
  const auto x = column<T>(rows);
  tl::tensor<T, 1> y = factory(x);
  double worst_pos = 0, worst_neg = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto k = static_cast<tl::index_t>(i);
    const bool neg = x(k) < 0;
    const long double sc = neg ? neg_scale(static_cast<double>(x(k))) : 0.0L;
    const double e = std::max(ulp_error_scaled<T>(y(k), rows[i].ref, sc), ulp_error_scaled<T>(fn(x(k)), rows[i].ref, sc));
    double& w = neg ? worst_neg : worst_pos;
    if (e > w) {
      w = e;
      MESSAGE(name << std::string(std::is_same_v<T, float> ? " float" : " double") << ": " << e << " ULP at x = " << static_cast<double>(x(k))
                   << " (packet " << static_cast<double>(y(k)) << ", reference " << static_cast<double>(rows[i].ref) << ")");
    }
  }
  return {worst_pos, worst_neg};
}

}  // namespace

TEST_CASE_TEMPLATE("gamma family: ULP error against the mpmath reference", T, float, double) {
  const double bound = (std::is_same_v<T, float> ? 2.0 : 4.0) + slack;
  // Reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x) and psi(x) = psi(1 - x) - pi cot(pi x)
  // cancel near the negative zeros; there the error is bounded in ULP of the larger term.
  const auto lg_scale = [](double v) { return std::max(1.0L, std::fabs(static_cast<long double>(std::lgamma(1 - v)))); };
  const auto dg_scale = [](double v) {
    return std::max(1.0L, std::fabs(std::log(1.0L - v)) + std::fabs(3.14159265358979L / std::tan(3.14159265358979L * v)));
  };
  const auto [lg_pos, lg_neg] = max_errors<T>("gammaln", ts::detail::gammaln_fn{}, [](const auto& x) { return ts::gammaln(x); }, lg_scale);
  const auto [dg_pos, dg_neg] = max_errors<T>("digamma", ts::detail::digamma_fn{}, [](const auto& x) { return ts::digamma(x); }, dg_scale);
  MESSAGE("gammaln x > 0: " << lg_pos << ", x < 0: " << lg_neg << "; digamma x > 0: " << dg_pos << ", x < 0: " << dg_neg);
  CHECK(lg_pos <= bound);
  CHECK(lg_neg <= bound);
  CHECK(dg_pos <= bound);
  CHECK(dg_neg <= bound);
}

TEST_CASE_TEMPLATE("polygamma and multigammaln: ULP error against the mpmath reference", T, float, double) {
  const double bound = (std::is_same_v<T, float> ? 2.0 : 4.0) + slack;
  // trigamma.txt: polygamma(1, x) at the switch points of its own kernel (x = 9, 2^-500, negative lanes).
  for (const char* name : {"polygamma", "trigamma", "multigammaln"}) {
    const auto rows = load<T>(name, 2);
    std::map<int, std::vector<row>> by_order;
    for (const auto& r : rows) by_order[static_cast<int>(r.x)].push_back(r);
    for (const auto& [k, rs] : by_order) {
      std::vector<row> shifted;
      for (const auto& r : rs) shifted.push_back({r.y, 0, r.ref});
      const auto x = column<T>(shifted);
      const bool pg = std::string(name) != "multigammaln";
      tl::tensor<T, 1> y = pg ? tl::tensor<T, 1>(ts::polygamma(k, x)) : tl::tensor<T, 1>(ts::multigammaln(x, k));
      ts::detail::polygamma_fn scalar_pg;
      scalar_pg.n = k;
      double worst = 0;
      for (std::size_t i = 0; i < shifted.size(); ++i) {
        const auto j = static_cast<tl::index_t>(i);
        // x < 0 (polygamma): relative to the sum of the magnitudes n! |x + j|^-(n+1), j = 0, 1, ...
        // (the terms cancel near the zeros of polygamma for even n).
        const double xv = static_cast<double>(x(j));
        long double sc = 0;
        for (int m = 0; xv < 0 && m < 200; ++m) sc += std::tgamma(k + 1.0L) / std::pow(std::fabs(xv + m), k + 1.0L);
        double e = ulp_error_scaled<T>(y(j), shifted[i].ref, sc);
        if (pg) e = std::max(e, ulp_error_scaled<T>(scalar_pg(x(j)), shifted[i].ref, sc));  // the scalar path too
        if (e > worst) {
          worst = e;
          MESSAGE(std::string(name) << " " << k << std::string(std::is_same_v<T, float> ? " float" : " double") << ": " << e << " ULP at x = " << xv << " (got "
                       << static_cast<double>(y(j)) << ", reference " << static_cast<double>(shifted[i].ref) << ")");
        }
      }
      MESSAGE(std::string(name) << " order " << k << std::string(std::is_same_v<T, float> ? " float" : " double") << " max ULP " << worst);
      CHECK(worst <= bound);
    }
  }
}

TEST_CASE_TEMPLATE("gamma family: poles, infinities, NaN, signed zeros, subnormals", T, float, double) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double sub = static_cast<double>(std::numeric_limits<T>::denorm_min()) * 3;
  // 19 values: a full packet and a scalar tail for every SIMD width.
  const auto x = from_list<T>({nan, inf, -inf, 0.0, -0.0, 1.0, 2.0, -1.0, -2.0, sub, -sub, 0.5, -0.5, 1e30, -1e30, 3.0, -2.5, 8.0, nan});
  tl::tensor<T, 1> lg = ts::gammaln(x), dg = ts::digamma(x), ps = ts::psi(x), t1 = ts::polygamma(1, x), t2 = ts::polygamma(2, x),
                   p0 = ts::polygamma(0, x);
  for (const auto* t : {&lg, &dg, &t1, &t2}) {
    CHECK(std::isnan((*t)(0)));
    CHECK(std::isnan((*t)(18)));
  }
  // gammaln: +inf at 0, -0, the negative integers and +-inf (torch); exact zeros at 1 and 2.
  for (int i : {1, 2, 3, 4, 7, 8, 14}) CHECK(same(lg(i), inf));
  CHECK(same(lg(5), 0.0));
  CHECK(same(lg(6), 0.0));
  CHECK(lg(9) == doctest::Approx(-std::log(static_cast<double>(static_cast<T>(sub)))).epsilon(1e-6));
  CHECK(lg(11) == doctest::Approx(0.5723649429247001).epsilon(1e-7));   // log sqrt(pi)
  CHECK(lg(12) == doctest::Approx(1.2655121234846454).epsilon(1e-7));   // log(2 sqrt(pi))
  CHECK(lg(16) == doctest::Approx(-0.05624371649767405).epsilon(1e-6));
  CHECK(lg(13) == doctest::Approx(6.807755278982137e31).epsilon(1e-7));
  // digamma: -inf at +0, +inf at -0, NaN at the negative integers and -inf, inf at inf (torch).
  CHECK(same(dg(1), inf));
  CHECK(std::isnan(dg(2)));
  CHECK(same(dg(3), -inf));
  CHECK(same(dg(4), inf));
  CHECK(std::isnan(dg(7)));
  CHECK(std::isnan(dg(8)));
  CHECK(std::isnan(dg(14)));
  CHECK(dg(5) == doctest::Approx(-0.5772156649015329).epsilon(1e-7));
  CHECK(dg(16) == doctest::Approx(1.1031566406452432).epsilon(1e-7));
  for (int i = 0; i < 19; ++i) {
    CHECK(same(ps(i), static_cast<double>(dg(i))));
    CHECK(same(p0(i), static_cast<double>(dg(i))));
  }
  // polygamma n >= 1: poles +inf (odd n) / -inf (even n) at 0 and the negative integers, +-0 at +inf, NaN at -inf.
  for (int i : {3, 4, 7, 8}) {
    CHECK(same(t1(i), inf));
    CHECK(same(t2(i), -inf));
  }
  CHECK(same(t1(1), 0.0));
  CHECK(same(t2(1), -0.0));
  CHECK(std::isnan(t1(2)));
  CHECK(std::isnan(t2(2)));
  CHECK(t1(5) == doctest::Approx(1.6449340668482264).epsilon(1e-7));  // pi^2 / 6
  CHECK(t2(5) == doctest::Approx(-2.404113806319188).epsilon(1e-7));  // -2 zeta(3)
  CHECK(t1(12) == doctest::Approx(8.934802200544704).epsilon(1e-7));   // pi^2 / 2 + 4 (reflection of 1.5)
  CHECK(t1(13) == doctest::Approx(1e-30).epsilon(1e-6));
}

TEST_CASE_TEMPLATE("polygamma(1, x): special values in packets without negative lanes", T, float, double) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double sub = static_cast<double>(std::numeric_limits<T>::denorm_min()) * 3;
  // 19 values >= 0 (or NaN): the trigamma kernel's own path for a full packet of every width, plus a
  // scalar tail. Lanes 0-6 are exact special values; the rest span both sides of x = 9.
  const auto x = from_list<T>({0.0, -0.0, inf, nan, sub, 1e-300, 0x1p-500, 0.25, 1.0, 2.0, 8.999, 9.0, 9.5, 30.0, 1e10,
                               1e30, 0.5, 3.0, 1e-160});
  tl::tensor<T, 1> t = ts::polygamma(1, x);
  CHECK(same(t(0), inf));  // poles at +-0
  CHECK(same(t(1), inf));
  CHECK(same(t(2), 0.0));  // +0 at +inf
  CHECK(std::isnan(t(3)));
  CHECK(same(t(4), inf));  // 1 / x^2 overflows
  CHECK(same(t(5), inf));
  CHECK(same(t(18), inf));
  if constexpr (std::is_same_v<T, double>) CHECK(t(6) == doctest::Approx(0x1p1000).epsilon(1e-15));  // x^2 would underflow
  else CHECK(same(t(6), inf));                                                                           // 2^-500 is 0 in float
  const double eps = std::is_same_v<T, float> ? 3e-7 : 1e-15;
  const auto near = [&](T got, double want) { return std::fabs(static_cast<double>(got) - want) <= eps * std::fabs(want); };
  CHECK(near(t(7), 17.197329154507111));   // pi^2 + 8 G (Catalan's constant)
  CHECK(near(t(8), 1.6449340668482264));   // pi^2 / 6
  CHECK(near(t(9), 0.64493406684822644));  // pi^2 / 6 - 1
  CHECK(near(t(16), 4.9348022005446793));  // pi^2 / 2
  CHECK(near(t(17), 0.39493406684822644)); // pi^2 / 6 - 1 - 1/4
  const double x14 = static_cast<double>(x(14)), x15 = static_cast<double>(x(15));
  CHECK(near(t(14), (1 + 0.5 / x14) / x14));  // 1/x + 1/(2 x^2); the next term is x^-3 / 6
  CHECK(near(t(15), 1 / x15));
  // Each lane agrees with the scalar path (which picks its own number of recurrence steps).
  const ts::detail::polygamma_fn one;
  for (tl::index_t i = 7; i < 18; ++i) CHECK(near(t(i), static_cast<double>(one(x(i)))));
}

TEST_CASE("polygamma(1, x): float packets of x >= 0 (the float kernel) round the exact value once") {
  // Float packets without a negative lane evaluate 1 / x^2 + t T(t) in double with T accurate to
  // 4e-11 relative, so the float result is within 1/2 ULP plus about 1e-3: against the mpmath rows
  // with x >= 0 (trigamma.txt and polygamma.txt, order 1) and against the double kernel on 2^20 + 1
  // float bit patterns spread evenly over [0, inf] (subnormal x, the poles' overflow, the
  // asymptotic range and +inf included).
  constexpr double bound = 0.51;
  std::vector<row> pos;
  for (const char* name : {"trigamma", "polygamma"})
    for (const auto& r : load<float>(name, 2))
      if (r.x == 1 && r.y >= 0) pos.push_back({r.y, 0, r.ref});
  REQUIRE(pos.size() > 400);
  const auto x = column<float>(pos);
  const tl::tensor<float, 1> y = ts::polygamma(1, x);
  CHECK(worst_float_error("trigamma float packet against mpmath", x, y, [&](tl::index_t k) { return pos[static_cast<std::size_t>(k)].ref; }) <= bound);
  const auto vals = float_bit_patterns();
  const tl::tensor<float, 1> z = special_test::from_vector(vals);
  const tl::tensor<float, 1> w = ts::polygamma(1, z);
  const auto dbl = [&](tl::index_t k) { return static_cast<long double>(ts::detail::trigamma_kernel(static_cast<double>(z(k)))); };
  CHECK(worst_float_error("trigamma float packet against the double kernel", z, w, dbl) <= bound);
  CHECK(std::isinf(w(0)));            // x = +0: the pole
  CHECK(w(z.numel() - 1) == 0.0f);    // x = +inf
  CHECK(std::isinf(w(1)));            // the smallest sampled subnormal: 1 / x^2 overflows
}

TEST_CASE("gammaln and digamma: float packets of x >= 0 (the float kernels) against mpmath and the double kernels") {
  // Float packets without a negative lane evaluate psi in double with one logarithm and fits
  // accurate to 2e-11 (absolute where it is not near its zero), so the float result is within 1/2
  // ULP plus about 1e-3. lgamma: packets whose lanes are all in [0, 1e30] compute in float where
  // the target has a fused multiply-add (lgamma_float_native, promised within 1.5 ULP, 1.17
  // measured over every float in [0, 3] and every 16th beyond), the others in double like psi.
  // Checked against the mpmath rows with x >= 0 and against the double kernels on 2^20 + 1 float
  // bit patterns spread evenly over [0, inf] and an even grid of 2^20 + 1 points over [0, 4]
  // (2^16 + 1 each under AddressSanitizer), plus the 2 x 20000 floats around each of 1 and 2 (the
  // zeros of lgamma), x0 = 1.4616... (the zero of psi, where its float kernel switches to its own
  // fit within 1/32), and lgamma's switch points.
  for (const char* name : {"gammaln", "digamma"}) {
    const bool lg = std::string(name) == "gammaln";
#ifdef __FMA__
    const double bound = lg ? 1.5 : 0.51;
#else
    const double bound = 0.51;
#endif
    const auto eval = [lg](const tl::tensor<float, 1>& v) { return lg ? tl::tensor<float, 1>(ts::gammaln(v)) : tl::tensor<float, 1>(ts::digamma(v)); };
    std::vector<row> pos;
    for (const auto& r : load<float>(name))
      if (r.x >= 0) pos.push_back(r);
    REQUIRE(pos.size() > 100);
    const auto x = column<float>(pos);
    const tl::tensor<float, 1> y = eval(x);
    const auto ref = [&](tl::index_t k) { return pos[static_cast<std::size_t>(k)].ref; };
    CHECK(worst_float_error(std::string(name) + " float packet against mpmath", x, y, ref) <= bound);
    auto vals = float_bit_patterns();
    for (std::uint32_t i = 0; i <= float_sweep_steps; ++i) vals.push_back(static_cast<float>(4.0 * i / float_sweep_steps));
    for (float c : {1.0f, 2.0f, 1.46163214f, 0.5f, 1.5f, 3.0f}) {
      float lo = c, hi = c;
      for (int j = 0; j < 20000; ++j) {
        vals.push_back(lo = std::nextafter(lo, 0.0f));
        vals.push_back(hi = std::nextafter(hi, 4.0f));
      }
      vals.push_back(c);
    }
    const tl::tensor<float, 1> z = special_test::from_vector(vals);
    const tl::tensor<float, 1> w = eval(z);
    const auto dbl = [&](tl::index_t k) {
      const double xd = static_cast<double>(z(k));
      return static_cast<long double>(lg ? ts::detail::lgamma_kernel(xd) : ts::detail::digamma_kernel(xd));
    };
    CHECK(worst_float_error(std::string(name) + " float packet against the double kernel", z, w, dbl) <= bound);
  }
  // Special values in packets without a negative lane (-0 is not negative): 19 values, a full
  // packet and a scalar tail for every SIMD width.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double sub = static_cast<double>(std::numeric_limits<float>::denorm_min()) * 3;
  const auto x = from_list<float>({0.0, -0.0, inf, nan, sub, 1.0, 2.0, 0.5, 1e30, 3.0, 2.5, 8.0, 1e-30, 1.4616321, 3.4e38, 0.25, 1.5, 10.0, 4.0});
  const tl::tensor<float, 1> lg = ts::gammaln(x), dg = ts::digamma(x);
  CHECK(same(lg(0), inf));
  CHECK(same(lg(1), inf));
  CHECK(same(lg(2), inf));
  CHECK(std::isnan(lg(3)));
  CHECK(lg(4) == doctest::Approx(-std::log(static_cast<double>(x(4)))).epsilon(1e-6));
  CHECK(same(lg(5), 0.0));  // the exact zeros
  CHECK(same(lg(6), 0.0));
  CHECK(lg(7) == doctest::Approx(0.5723649429247001).epsilon(1e-7));   // log sqrt(pi)
  CHECK(lg(8) == doctest::Approx(6.807755278982137e31).epsilon(1e-7));
  CHECK(lg(9) == doctest::Approx(std::log(2.0)).epsilon(1e-7));
  CHECK(lg(10) == doctest::Approx(0.2846828704729192).epsilon(1e-7));  // log(3 sqrt(pi) / 4), at the switch
  CHECK(lg(11) == doctest::Approx(std::log(5040.0)).epsilon(1e-7));
  CHECK(lg(12) == doctest::Approx(69.07755278982137).epsilon(1e-7));   // -log(1e-30)
  CHECK(same(lg(14), inf));                                           // x log x overflows float
  CHECK(same(dg(0), -inf));
  CHECK(same(dg(1), inf));
  CHECK(same(dg(2), inf));
  CHECK(std::isnan(dg(3)));
  CHECK(same(dg(4), -inf));  // -1 / x overflows float
  CHECK(dg(5) == doctest::Approx(-0.5772156649015329).epsilon(1e-7));
  CHECK(dg(6) == doctest::Approx(0.42278433509846713).epsilon(1e-7));
  CHECK(dg(7) == doctest::Approx(-1.9635100260214235).epsilon(1e-7));
  CHECK(dg(8) == doctest::Approx(69.07755278982137).epsilon(1e-7));
  CHECK(dg(12) == doctest::Approx(-1e30).epsilon(1e-6));
  CHECK(std::fabs(dg(13)) < 1e-7f);  // the float nearest the zero
  CHECK(dg(14) == doctest::Approx(std::log(3.4e38)).epsilon(1e-7));
}

TEST_CASE("gamma family: argument errors, fusion, integer operands, multigammaln domain") {
  const auto x = from_list<double>({0.5, 1.5, 2.5, 7.0});
  CHECK_THROWS_AS((void)ts::polygamma(-1, x), tl::value_error);
  CHECK_THROWS_WITH((void)ts::polygamma(-3, x), doctest::Contains("polygamma"));
  CHECK_THROWS_WITH((void)ts::polygamma(-3, x), doctest::Contains("-3"));
  CHECK_THROWS_AS((void)ts::multigammaln(x, 0), tl::value_error);
  CHECK_THROWS_WITH((void)ts::multigammaln(x, -2), doctest::Contains("multigammaln"));
  // log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b): one fused pass.
  auto e = ts::gammaln(x) + ts::gammaln(x * 2.0) - ts::gammaln(x * 3.0);
  static_assert(tl::expression<decltype(e)>);
  tl::tensor<double, 1> lb = e;
  for (tl::index_t i = 0; i < 4; ++i) {
    const double a = x(i), b = 2 * x(i);
    CHECK(lb(i) == doctest::Approx(std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b)).epsilon(1e-13));
  }
  // multigammaln(x, p) = sum_j lgamma(x - j/2) + p (p - 1) / 4 log(pi); NaN for x <= (p - 1) / 2.
  tl::tensor<double, 1> m = ts::multigammaln(x, 3);
  CHECK(std::isnan(m(0)));
  CHECK(m(1) == doctest::Approx(std::lgamma(1.5) + std::lgamma(0.5) + 1.5 * std::log(M_PI)).epsilon(1e-14));
  CHECK(m(2) == doctest::Approx(std::lgamma(2.5) + std::lgamma(2.0) + std::lgamma(1.5) + 1.5 * std::log(M_PI)).epsilon(1e-14));
  CHECK(m(3) == doctest::Approx(std::lgamma(7.0) + std::lgamma(6.5) + std::lgamma(6.0) + 1.5 * std::log(M_PI)).epsilon(1e-14));
  tl::tensor<std::int32_t, 1> k(tl::shape_t<1>{2});
  k(0) = 3;
  k(1) = -2;
  auto ke = ts::gammaln(k);
  static_assert(std::is_same_v<typename decltype(ke)::value_type, float>);
  tl::tensor<float, 1> kf = ke;
  CHECK(kf(0) == doctest::Approx(std::log(2.0)));
  CHECK(kf(1) == std::numeric_limits<float>::infinity());
  // Strided operands take the scalar path: the same values as the packet path, to within 4 ulp (the
  // compiler may or may not contract the scalar path's a * b + c into an FMA, e.g. at -O0).
  tl::tensor<double, 2> g(tl::shape_t<2>{40, 3});
  for (tl::index_t i = 0; i < 40; ++i)
    for (tl::index_t j = 0; j < 3; ++j) g(i, j) = -9.7 + 0.5 * static_cast<double>(i) + 0.13 * static_cast<double>(j);
  tl::tensor<double, 2> a = ts::polygamma(3, g), b = ts::polygamma(3, g.transpose(0, 1)), c = ts::gammaln(g.transpose(0, 1));
  tl::tensor<double, 2> d = ts::gammaln(g);
  for (tl::index_t i = 0; i < 40; ++i)
    for (tl::index_t j = 0; j < 3; ++j) {
      const auto near = [](double u, double v) {
        return same(u, v) || std::abs(u - v) <= 4 * std::numeric_limits<double>::epsilon() * std::abs(u);
      };
      CHECK(near(a(i, j), b(j, i)));
      CHECK(near(d(i, j), c(j, i)));
    }
}
