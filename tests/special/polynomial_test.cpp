// tl::special orthogonal polynomials against mpmath references (tests/data/special) and torch
// 1.13's conventions (n < 0, |x| = 1, truncated n, the trigonometric forms of the Chebyshev
// polynomials).
#include "special_test_util.hpp"

#include <tl/special/special.hpp>

#include <cstdint>
#include <map>
#include <vector>

using namespace special_test;
namespace ts = tl::special;
using kind = ts::detail::poly_kind;

namespace {
/// The twelve functions: X(name, kind, shifted).
#define TL_POLY_FUNCTIONS(X)                                                                                      \
  X(chebyshev_polynomial_t, t, false) X(chebyshev_polynomial_u, u, false) X(chebyshev_polynomial_v, v, false)     \
  X(chebyshev_polynomial_w, w, false) X(shifted_chebyshev_polynomial_t, t, true)                                  \
  X(shifted_chebyshev_polynomial_u, u, true) X(shifted_chebyshev_polynomial_v, v, true)                           \
  X(shifted_chebyshev_polynomial_w, w, true) X(hermite_polynomial_h, h, false) X(hermite_polynomial_he, he, false) \
  X(laguerre_polynomial_l, l, false) X(legendre_polynomial_p, p, false)

/// The scale of the rounding errors a polynomial evaluation cannot avoid at x: the sum of
/// |c_k| |x|^k for Hermite and Laguerre (the polynomial with every term positive), the maximum
/// on [-1, 1] for Chebyshev and Legendre at |x| <= 1 (0 outside: relative accuracy there).
long double envelope(kind k, bool shifted, long double x, long n) {
  if (n < 0) return 0;
  const long double y = shifted ? 2 * x - 1 : x, a = std::fabs(y);
  const long double nn = static_cast<long double>(n);
  switch (k) {
    case kind::t: return a <= 1 ? 1 : 0;
    case kind::u: return a <= 1 ? nn + 1 : 0;
    case kind::v:
    case kind::w: return a <= 1 ? 2 * nn + 1 : 0;
    case kind::p: return a <= 1 ? 1 : 0;
    default: break;
  }
  long double p = 1, q = k == kind::h ? 2 * a : k == kind::he ? a : 1 + a;
  if (n == 0) return 1;
  for (long j = 1; j < n; ++j) {
    const long double jd = static_cast<long double>(j), r = k == kind::h ? 2 * a * q + 2 * jd * p
                                                         : k == kind::he ? a * q + jd * p
                                                                         : ((2 * jd + 1 + a) * q + jd * p) / (jd + 1);
    p = q;
    q = r;
  }
  return q;
}

/// Largest error over the rows of <name>.txt, packet and scalar paths, in units of
/// ulp(max(|reference|, envelope)); separately the largest over the rows that take the
/// trigonometric forms (Chebyshev, |x| < 1, n > 6 for T and n > 8 for U, V, W).
template <class T, kind K, bool Shifted, class Factory>
std::pair<double, double> max_err_poly(const std::string& name, Factory factory) {
  const auto rows = load<T>(name, 2);
  const auto x = column<T>(rows), n = column<T>(rows, true);
  tl::tensor<T, 1> y = factory(x, n);
  // The same rows with n as a scalar (packets of one degree: the vectorized recurrence).
  std::map<T, std::vector<std::size_t>> by_n;
  for (std::size_t i = 0; i < rows.size(); ++i) by_n[n(static_cast<tl::index_t>(i))].push_back(i);
  std::vector<T> yu(rows.size());
  for (const auto& [nv, idx] : by_n) {
    tl::tensor<T, 1> xg(tl::shape_t<1>{static_cast<tl::index_t>(idx.size())});
    for (std::size_t j = 0; j < idx.size(); ++j) xg(static_cast<tl::index_t>(j)) = x(static_cast<tl::index_t>(idx[j]));
    tl::tensor<T, 1> yg = factory(xg, nv);
    for (std::size_t j = 0; j < idx.size(); ++j) yu[idx[j]] = yg(static_cast<tl::index_t>(j));
  }
  const ts::detail::poly_fn<K, Shifted> fn;
  double worst = 0, worst_trig = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto k = static_cast<tl::index_t>(i);
    const long nn = static_cast<long>(n(k));
    const long double env = std::max(std::fabs(rows[i].ref), envelope(K, Shifted, x(k), nn));
    const long double xs = Shifted ? 2.0L * x(k) - 1 : x(k);
    const bool cheb = K == kind::t || K == kind::u || K == kind::v || K == kind::w;
    const bool trig = cheb && std::fabs(xs) < 1 && nn > (K == kind::t ? 6 : 8);
    for (const T g : {y(k), fn(x(k), n(k)), yu[i]}) {
      double e = ulp_error<T>(g, rows[i].ref);
      if (env > 0 && std::isfinite(g)) e = std::min(e, static_cast<double>(std::fabs(g - rows[i].ref) / ulp_error_unit<T>(env)));
      double& w = trig ? worst_trig : worst;
      if (e > w) {
        w = e;
        MESSAGE(name << ": " << e << " at x = " << static_cast<double>(x(k)) << ", n = " << nn << " (" << static_cast<double>(g)
                     << ", reference " << static_cast<double>(rows[i].ref) << ")");
      }
    }
  }
  return {worst, worst_trig};
}
}  // namespace

TEST_CASE_TEMPLATE("orthogonal polynomials: error against the mpmath reference", T, float, double) {
  // torch's algorithms evaluated in double: float results round once (<= 2 ULP); in double the
  // recurrences accumulate about one rounding per step for |x| > 1, the shifted forms round
  // 2x - 1 first (its error grows by up to n^2 through T_n'), and the trigonometric forms
  // (cos(n acos x) and the like) multiply the rounding of acos x by up to n + 1/2. The reference
  // set has n <= 50; the measured maxima are 34 ULP (recurrences) and 43 ULP (trigonometric
  // forms) in units of ulp(max(|P_n(x)|, envelope)).
  const double bound = std::is_same_v<T, float> ? ulp_bound<T>() : 48.0;
  const double trig_bound = bound;
#define TL_CHECK_POLY(NAME, K, S)                                                                          \
  do {                                                                                                     \
    const auto e = max_err_poly<T, kind::K, S>(#NAME, [](const auto& x, const auto& n) { return ts::NAME(x, n); }); \
    MESSAGE(#NAME << ": max error " << e.first << " (trigonometric forms " << e.second << ")");           \
    CHECK(e.first <= bound);                                                                               \
    CHECK(e.second <= trig_bound);                                                                         \
  } while (0);
  TL_POLY_FUNCTIONS(TL_CHECK_POLY)
#undef TL_CHECK_POLY
}

TEST_CASE("acos_packet (the trigonometric forms' acos): within 0.75 ULP of acosl, exact at the ends") {
  // 0.61 ULP measured over 16M random points; here a dense grid with its ends, points near 1/2
  // (where the two forms meet) and near +-1 (where s = sqrt((1 - |x|) / 2) is tiny).
  using D = xsimd::batch<double>;
  std::vector<double> xs;
  for (int i = -20000; i <= 20000; ++i) xs.push_back(i / 20000.0);
  for (int i = 1; i <= 2000; ++i) {
    const double d = std::ldexp(1.0, -i % 52 - 1) * (1 + i * 1e-4);
    for (double c : {0.5, 1.0}) {
      xs.push_back(c - d);
      xs.push_back(-(c - d));
      if (c == 0.5) xs.push_back(c + d);
    }
  }
  while (xs.size() % D::size) xs.push_back(0.25);
  double worst = 0, at = 0;
  for (std::size_t i = 0; i < xs.size(); i += D::size) {
    alignas(64) double r[D::size];
    ts::detail::acos_packet(D::load_unaligned(xs.data() + i)).store_aligned(r);
    for (std::size_t j = 0; j < D::size; ++j) {
      const double e = ulp_error<double>(r[j], acosl(static_cast<long double>(xs[i + j])));
      if (e > worst) {
        worst = e;
        at = xs[i + j];
      }
    }
  }
  MESSAGE("acos_packet: " << worst << " ULP at " << at);
#ifdef __FMA__
  CHECK(worst <= 0.75);
#else
  CHECK(worst <= 1.25);  // the square root's residual s^2 - z is not exact without a fused multiply-add (0.82 measured)
#endif
  alignas(64) double ends[D::size];
  ts::detail::acos_packet(D(1.0)).store_aligned(ends);
  CHECK(ends[0] == 0.0);
  ts::detail::acos_packet(D(-1.0)).store_aligned(ends);
  CHECK(ends[0] == std::acos(-1.0));
}

TEST_CASE("orthogonal polynomials: torch 1.13's values at the special points") {
  // torch.special.<f>(x, n) for these (x, n), double: |x| = 1, x = 0, n < 0, a truncated n,
  // |x| > 1, the trigonometric forms (n = 20 at 0.3).
  const auto x = from_list<double>({1.0, -1.0, 1.0, -1.0, 0.0, 0.0, 0.5, 0.5, 2.0, 0.3, 0.3});
  const auto n = from_list<double>({3., 3., 4., 4., 3., 4., -1., 2.5, 3., 20., 7.});
  const double want[12][11] = {
      {1.0, -1.0, 1.0, 1.0, -0.0, 1.0, 0.0, -0.5, 26.0, 0.982130131054892, -0.8461632000000004},
      {4.0, -4.0, 5.0, 5.0, -0.0, 1.0, 0.0, 0.0, 56.0, 1.0413172668589779, -0.6785664},
      {1.0, -7.0, 1.0, 9.0, 1.0, 1.0, 0.0, -1.0, 41.0, 0.8440268141786915, -1.2372224},
      {7.0, -1.0, 9.0, 1.0, -1.0, 1.0, 0.0, 1.0, 71.0, 1.2386077195392642, -0.1199104000000001},
      {1.0, -99.0, 1.0, 577.0, -1.0, 1.0, 0.0, -1.0, 99.0, -0.3675332975472084, 0.25802240000000076},
      {4.0, -204.0, 5.0, 1189.0, -4.0, 5.0, 0.0, -1.0, 204.0, -0.7734230961482506, -0.16363519999999984},
      {1.0, -239.0, 1.0, 1393.0, -7.0, 9.0, 0.0, -1.0, 169.0, -1.7881475926508603, -1.2177792000000005},
      {7.0, -169.0, 9.0, 985.0, -1.0, 1.0, 0.0, -1.0, 239.0, 0.2413014003543526, 0.8905087999999997},
      {-4.0, 4.0, -20.0, -20.0, -0.0, 12.0, 0.0, -1.0, 40.0, -240424854484.41797, -416.5179264},
      {-2.0, 2.0, -2.0, -2.0, -0.0, 3.0, 0.0, -0.75, 2.0, 141288999.73527554, -28.7158113},
      {-0.6666666666666666, 5.666666666666667, -0.625, 8.708333333333334, 1.0, 1.0, 0.0, 0.125, -0.3333333333333333,
       -0.22269164885824236, -0.3011057058928569},
      {1.0, -1.0, 1.0, 1.0, -0.0, 0.375, 0.0, -0.125, 17.0, 0.18028715947998047, -0.22407298125}};
  const tl::tensor<double, 1> got[12] = {
      ts::chebyshev_polynomial_t(x, n), ts::chebyshev_polynomial_u(x, n), ts::chebyshev_polynomial_v(x, n),
      ts::chebyshev_polynomial_w(x, n), ts::shifted_chebyshev_polynomial_t(x, n), ts::shifted_chebyshev_polynomial_u(x, n),
      ts::shifted_chebyshev_polynomial_v(x, n), ts::shifted_chebyshev_polynomial_w(x, n), ts::hermite_polynomial_h(x, n),
      ts::hermite_polynomial_he(x, n), ts::laguerre_polynomial_l(x, n), ts::legendre_polynomial_p(x, n)};
  for (int f = 0; f < 12; ++f)
    for (tl::index_t i = 0; i < 11; ++i) {
      INFO("function " << f << ", element " << i);
      CHECK(got[f](i) == doctest::Approx(want[f][i]).epsilon(1e-13));
    }
}

TEST_CASE("orthogonal polynomials: scalar n, broadcasting, NaN, integer operands") {
  tl::tensor<double, 2> x(tl::shape_t<2>{4, 1});
  for (tl::index_t i = 0; i < 4; ++i) x(i, 0) = 0.1 * static_cast<double>(i);
  const auto n = from_list<double>({0, 1, 2});
  tl::tensor<double, 2> p = ts::legendre_polynomial_p(x, n);  // (4, 1) with (3,) -> (4, 3)
  CHECK(p.shape()[0] == 4);
  CHECK(p.shape()[1] == 3);
  for (tl::index_t i = 0; i < 4; ++i) {
    const double xi = 0.1 * static_cast<double>(i);
    CHECK(p(i, 0) == 1.0);
    CHECK(p(i, 1) == doctest::Approx(xi));
    CHECK(p(i, 2) == doctest::Approx(1.5 * xi * xi - 0.5));
  }
  tl::tensor<double, 2> h = ts::hermite_polynomial_he(x, 3) * 2.0;
  CHECK(h(3, 0) == doctest::Approx(2 * (0.027 - 0.9)));
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  tl::tensor<double, 1> q = ts::chebyshev_polynomial_t(from_list<double>({nan, 0.5, 0.5}), from_list<double>({2, nan, 1e30}));
  CHECK(std::isnan(q(0)));
  CHECK(std::isnan(q(1)));  // torch: 0 (its integer conversion of NaN)
  CHECK(q(2) == doctest::Approx(std::cos(static_cast<double>(0x1p62) * std::acos(0.5))));  // huge n: trigonometric form
  tl::tensor<std::int32_t, 1> k(tl::shape_t<1>{2});
  k(0) = 2;
  k(1) = 3;
  auto e = ts::chebyshev_polynomial_u(k, k);
  static_assert(std::is_same_v<typename decltype(e)::value_type, float>);
  tl::tensor<float, 1> kf = e;
  CHECK(kf(0) == 15.0f);   // U_2(2) = 4x^2 - 1
  CHECK(kf(1) == 204.0f);  // U_3(3) = 8x^3 - 4x
}

TEST_CASE_TEMPLATE("orthogonal polynomials: packets with a degree per lane agree with the scalar path", T, float, double) {
  // Packets whose lanes have different degrees run the recurrence to the largest and keep each
  // lane's own value: it must be the scalar path's value exactly (same steps, same roundings);
  // lanes in the Chebyshev kinds' trigonometric forms (tl's packet acos against libm's) within
  // 1e-12 (float: 2^-23) of the envelope 2n + 1. Also n < 0, n = 0, fractional, NaN and infinite n, |x| = 1,
  // x = 0 and NaN x, every few lanes.
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const double xs_special[] = {1.0, -1.0, 0.0, -0.0, nan, 0.5, -0.5, 2.0, 0.75, 0.25};
  const double ns_special[] = {0, -1, -0.5, 0.7, 1.5, 7, 9, 12, nan, inf, -inf, 50, 3};
  const tl::index_t len = 2053;
  tl::tensor<T, 1> x(tl::shape_t<1>{len}), n(tl::shape_t<1>{len});
  std::uint32_t s = 7;
  for (tl::index_t i = 0; i < len; ++i) {
    s = s * 1664525u + 1013904223u;
    const double u = static_cast<double>(s >> 8) / 16777216.0;
    x(i) = static_cast<T>(i % 7 == 0 ? xs_special[(s >> 3) % 10] : -3 + 6 * u);
    n(i) = static_cast<T>(i % 5 == 0 ? ns_special[(s >> 5) % 13] : std::floor(u * 30) - 2);
  }
  const auto compare = [&](auto fn, const tl::tensor<T, 1>& y, kind k, bool shifted, const char* name) {
    int mismatches = 0;
    for (tl::index_t i = 0; i < len; ++i) {
      const T want = fn(x(i), n(i));
      const double xv = shifted ? 2.0 * static_cast<double>(x(i)) - 1 : static_cast<double>(x(i));
      const bool cheb = k == kind::t || k == kind::u || k == kind::v || k == kind::w;
      const bool trig = cheb && std::fabs(xv) < 1 && std::trunc(static_cast<double>(n(i))) > (k == kind::t ? 6 : 8);
      const double tol = (std::is_same_v<T, float> ? 0x1p-23 : 1e-12) * (2 * static_cast<double>(n(i)) + 1);
      const bool ok = (std::isnan(y(i)) && std::isnan(want)) ||
                      (trig ? std::fabs(static_cast<double>(y(i)) - want) <= tol : y(i) == want && std::signbit(y(i)) == std::signbit(want));
      if (!ok && mismatches++ < 3)
        MESSAGE(std::string(name) << ": x = " << static_cast<double>(x(i)) << ", n = " << static_cast<double>(n(i)) << ": packet "
                     << static_cast<double>(y(i)) << ", scalar " << static_cast<double>(want));
    }
    CHECK(mismatches == 0);
  };
#define TL_CHECK_LANES(NAME, K, S) \
  compare(ts::detail::poly_fn<kind::K, S>{}, tl::tensor<T, 1>(ts::NAME(x, n)), kind::K, S, #NAME);
  TL_POLY_FUNCTIONS(TL_CHECK_LANES)
#undef TL_CHECK_LANES
}

namespace {
/// P_n(y) of kind k by the textbook three-term recurrences in long double (range to 1e4932, so
/// values beyond double's range come out finite here and overflow only when rounded to T).
long double poly_reference(kind k, long double y, long n) {
  if (n == 0) return 1;
  long double p = 1, q = k == kind::t || k == kind::he || k == kind::p ? y
                         : k == kind::u || k == kind::h               ? 2 * y
                         : k == kind::v                               ? 2 * y - 1
                         : k == kind::w                               ? 2 * y + 1
                                                                      : 1 - y;
  for (long j = 1; j < n; ++j) {
    const long double jd = static_cast<long double>(j);
    const long double r = k == kind::h    ? 2 * y * q - 2 * jd * p
                          : k == kind::he ? y * q - jd * p
                          : k == kind::l  ? ((2 * jd + 1 - y) * q - jd * p) / (jd + 1)
                          : k == kind::p  ? ((2 * jd + 1) * y * q - jd * p) / (jd + 1)
                                          : 2 * y * q - p;
    p = q;
    q = r;
  }
  return q;
}
}  // namespace

TEST_CASE_TEMPLATE("orthogonal polynomials: values beyond the range past the largest zero are +-inf", T, float, double) {
  // Past the largest zero every term of the recurrence has the leading term's sign and grows, so
  // once a term overflows the value does too, and the recurrence's next step is inf - inf: the
  // result must be +-inf with the sign of c_n x^n (torch 1.13 returns NaN), and finite values
  // must stay accurate. The reference is a long double recurrence; at x = +-inf it is taken at
  // +-1e310 (finite in long double), which gives the limit's sign.
  const double big[] = {1e20, 1e31, 1e40, 1e100, 1e154, 1e200, 1e300, std::numeric_limits<double>::max(),
                        3.0e38, 3.4028234663852886e38, 1.9e19, std::numeric_limits<double>::infinity()};
  std::vector<double> xs;
  for (const double b : big) xs.insert(xs.end(), {b, -b});
  const tl::index_t len = static_cast<tl::index_t>(xs.size()) * 12;
  tl::tensor<T, 1> x(tl::shape_t<1>{len}), n(tl::shape_t<1>{len});
  for (tl::index_t i = 0; i < len; ++i) {
    x(i) = static_cast<T>(xs[static_cast<std::size_t>(i / 12)]);
    n(i) = static_cast<T>(1 + i % 12);
  }
  const double tol = std::is_same_v<T, float> ? 0x1p-22 : 1e-13;
  const auto check = [&](auto fn, auto factory, kind k, bool shifted, const char* name) {
    tl::tensor<T, 1> lanes = factory(x, n);  // a degree per lane
    int bad = 0, overflowed = 0;
    for (long deg = 1; deg <= 12; ++deg) {
      tl::tensor<T, 1> one = factory(x, static_cast<T>(deg));  // packets of one degree
      for (tl::index_t i = deg - 1; i < len; i += 12) {
        const long double xv = static_cast<long double>(x(i));
        const long double xr = std::isinf(xv) ? std::copysign(1e310L, xv) : xv;
        const T want = static_cast<T>(poly_reference(k, shifted ? 2 * xr - 1 : xr, deg));
        overflowed += std::isinf(want);
        for (const T got : {lanes(i), one(i), static_cast<T>(fn(x(i), n(i)))}) {
          const bool ok = std::isinf(want) ? got == want
                                           : std::fabs(static_cast<long double>(got) - want) <= tol * std::fabs(static_cast<long double>(want));
          if (!ok && bad++ < 3)
            MESSAGE(name << ": x = " << static_cast<double>(x(i)) << ", n = " << deg << ": got " << static_cast<double>(got)
                         << ", reference " << static_cast<double>(want));
        }
      }
    }
    CHECK_MESSAGE(bad == 0, name);
    CHECK(overflowed > 20);  // the cases above do reach the overflow
  };
#define TL_CHECK_OVERFLOW(NAME, K, S) \
  check(ts::detail::poly_fn<kind::K, S>{}, [](const auto& a, const auto& b) { return tl::tensor<T, 1>(ts::NAME(a, b)); }, kind::K, S, #NAME);
  TL_POLY_FUNCTIONS(TL_CHECK_OVERFLOW)
#undef TL_CHECK_OVERFLOW
}
#undef TL_POLY_FUNCTIONS
