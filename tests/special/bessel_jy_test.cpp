// tl::special Bessel functions of the first and second kind (bessel_j0, bessel_j1, bessel_y0,
// bessel_y1) against mpmath references (tests/data/special), edge values and fusion.
#include "special_test_util.hpp"

#include <utility>

#include <tl/special/special.hpp>

using namespace special_test;
namespace ts = tl::special;

namespace {
/// Largest error over the reference rows, packet and scalar paths, as {relative, absolute}: the
/// ULP error where |f(x)| >= m(x) / 2 or m(x) = 0 (m(x) the size of the oscillation, 0 where the
/// function does not oscillate) and, everywhere, the error in units of ulp(m(x)), the bound that
/// holds next to the zeros of the oscillating functions.
template <class T, class Fn, class Factory, class Env>
std::pair<double, double> max_err_osc(const std::string& name, Fn fn, Factory factory, Env envelope) {
  const auto rows = load<T>(name);
  const auto x = column<T>(rows);
  tl::tensor<T, 1> y = factory(x);
  double rel = 0, abs_err = 0;
  const std::string dt = std::is_same_v<T, float> ? " float" : " double";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto k = static_cast<tl::index_t>(i);
    const double xv = static_cast<double>(x(k));
    const T got[2] = {y(k), fn(x(k))};
    const long double env = envelope(xv);
    for (const T g : got) {
      const double e = ulp_error<T>(g, rows[i].ref);
      double ea = e;
      if (env > 0 && std::isfinite(g) && std::isfinite(static_cast<double>(rows[i].ref)))
        ea = std::min(e, static_cast<double>(std::fabs(g - rows[i].ref) / ulp_error_unit<T>(env)));
      if ((env == 0 || std::fabs(rows[i].ref) >= env / 2) && e > rel) {
        rel = e;
        MESSAGE(name << dt << ": " << e << " ULP at x = " << xv << " (" << static_cast<double>(g) << ", reference "
                     << static_cast<double>(rows[i].ref) << ")");
      }
      if (ea > abs_err) {
        abs_err = ea;
        MESSAGE(name << dt << ": " << ea << " ulp(m(x)) at x = " << xv << " (" << static_cast<double>(g) << ", reference "
                     << static_cast<double>(rows[i].ref) << ")");
      }
    }
  }
  return {rel, abs_err};
}
/// The size of the oscillation of J_n, Y_n for |x| >= 2 (0 below: relative accuracy there).
template <class T, class Fn, class Factory>
std::pair<double, double> max_err_jy(const std::string& name, Fn fn, Factory factory) {
  return max_err_osc<T>(name, fn, factory, [](double x) {
    return std::fabs(x) >= 2 ? std::sqrt(2 / (3.14159265358979323846L * std::fabs(x))) : 0.0L;
  });
}
}  // namespace

TEST_CASE_TEMPLATE("bessel_j0, j1, y0, y1: error against the mpmath reference", T, float, double) {
  const double bound = ulp_bound<T>();
#define TL_CHECK_JY(NAME)                                                                                     \
  do {                                                                                                        \
    const auto e = max_err_jy<T>(#NAME, ts::detail::NAME##_fn{}, [](const auto& x) { return ts::NAME(x); }); \
    MESSAGE(#NAME << " max ULP " << e.first << ", max error in ulp(m(x)) " << e.second);                    \
    CHECK(e.first <= bound);                                                                                  \
    CHECK(e.second <= bound);                                                                                 \
  } while (0)
  TL_CHECK_JY(bessel_j0);
  TL_CHECK_JY(bessel_j1);
  TL_CHECK_JY(bessel_y0);
  TL_CHECK_JY(bessel_y1);
#undef TL_CHECK_JY
}

TEST_CASE("bessel_j0, j1, y0, y1: float packets round the double kernel's value once") {
  // Float packets take zero-factored polynomials below 8, tl's logarithm in Y below 2, and above 8
  // 7-term moduli and 7-term cos and sin of the reduced phase (about 1e-11 relative), with the double
  // phase: the float result is within 1/2 ULP plus about 1e-3 of the double kernel's value, next to
  // the zeros too. On 2^20 + 1 float bit patterns over [0, inf] and their negatives, 100001 points
  // over [0, 40] and the switch points 2, 8, 2^19 and z0 -+ 1/4 (Y0's logarithm next to its zero).
  constexpr double bound = 0.51;
  auto vals = float_bit_patterns();
  for (int i = 0; i <= 100000; ++i) vals.push_back(static_cast<float>(40.0 * i / 100000));
  for (float v : {2.0f, 8.0f, 0x1p19f, 0.64357697f, 1.143577f}) {
    vals.push_back(v);
    vals.push_back(std::nextafter(v, 0.0f));
    vals.push_back(std::nextafter(v, 1e30f));
  }
  special_test::append_negatives(vals);
  using tensor = tl::tensor<float, 1>;
  const tl::tensor<float, 1> z = special_test::from_vector(vals);
  namespace d = ts::detail;
  const auto check = [&](const char* name, const tensor& w, double (*ref)(double)) {
    const auto dbl = [&](tl::index_t k) {
      const double x = static_cast<double>(z(k));
      return static_cast<long double>(std::isnan(x) ? x : ref(x));
    };
    CHECK(worst_float_error(std::string(name) + " float packet against the double kernel", z, w, dbl) <= bound);
  };
  check("bessel_j0", tensor(ts::bessel_j0(z)), [](double x) { return d::bessel_j0_kernel(x); });
  check("bessel_j1", tensor(ts::bessel_j1(z)), [](double x) { return d::bessel_j1_kernel(x); });
  check("bessel_y0", tensor(ts::bessel_y0(z)), [](double x) { return d::bessel_y0_kernel(x); });
  check("bessel_y1", tensor(ts::bessel_y1(z)), [](double x) { return d::bessel_y1_kernel(x); });
}

TEST_CASE_TEMPLATE("bessel_j0, j1, y0, y1: NaN, infinities, signed zeros, subnormals", T, float, double) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double sub = static_cast<double>(std::numeric_limits<T>::denorm_min()) * 4;
  const auto x = from_list<T>({nan, inf, -inf, 0.0, -0.0, sub, -sub, -1.0, 1.0, 2.0, -8.0, 1e30, nan});
  tl::tensor<T, 1> j0 = ts::bessel_j0(x), j1 = ts::bessel_j1(x), y0 = ts::bessel_y0(x), y1 = ts::bessel_y1(x);
  for (const auto* t : {&j0, &j1, &y0, &y1}) {
    CHECK(std::isnan((*t)(0)));
    CHECK(std::isnan((*t)(12)));
  }
  // the limits at +-inf (torch 1.13 returns NaN there)
  CHECK(same(j0(1), 0.0));
  CHECK(same(j0(2), 0.0));
  CHECK(same(j1(1), 0.0));
  CHECK(same(j1(2), -0.0));
  CHECK(same(y0(1), 0.0));
  CHECK(same(y1(1), 0.0));
  CHECK(std::isnan(y0(2)));
  CHECK(std::isnan(y1(2)));
  // zeros and subnormals: J0 = 1, J1 odd ~ x / 2, Y -> -inf, NaN for x < 0
  CHECK(same(j0(3), 1.0));
  CHECK(same(j0(4), 1.0));
  CHECK(same(j1(3), 0.0));
  CHECK(same(j1(4), -0.0));
  CHECK(j1(5) == static_cast<T>(static_cast<T>(sub) * 0.5));
  CHECK(j1(6) == -static_cast<T>(static_cast<T>(sub) * 0.5));
  CHECK(same(y0(3), -inf));
  CHECK(same(y0(4), -inf));
  CHECK(same(y1(3), -inf));
  CHECK(same(y1(4), -inf));
  CHECK(y0(5) < -40);
  CHECK(same(y1(5), -inf));  // -2 / (pi x) overflows
  CHECK(std::isnan(y0(7)));
  CHECK(std::isnan(y1(7)));
  CHECK(j0(7) == j0(8));
  CHECK(j1(7) == -j1(8));
  CHECK(j0(8) == doctest::Approx(0.7651976865579666).epsilon(1e-7));
  CHECK(y1(9) == doctest::Approx(-0.10703243154093754).epsilon(1e-7));
  CHECK(j1(10) == doctest::Approx(-0.23463634685391462).epsilon(1e-7));
  CHECK(j0(11) == doctest::Approx(-7.9784982162396588e-16).epsilon(1e-6));
  CHECK(y0(11) == doctest::Approx(7.4454349897968068e-18).epsilon(1e-4));
}

TEST_CASE("bessel_j0, y1: fuse, strided operands, integer operands compute in float") {
  tl::tensor<double, 2> x(tl::shape_t<2>{40, 3});
  for (tl::index_t i = 0; i < 40; ++i)
    for (tl::index_t j = 0; j < 3; ++j) x(i, j) = 0.05 + 0.7 * static_cast<double>(i) + 0.1 * static_cast<double>(j);
  // Wronskian: J1 Y0 - J0 Y1 = 2 / (pi x)
  tl::tensor<double, 2> w = (ts::bessel_j1(x) * ts::bessel_y0(x) - ts::bessel_j0(x) * ts::bessel_y1(x)) * x;
  tl::tensor<double, 2> strided = ts::bessel_y1(x.transpose(0, 1)), direct = ts::bessel_y1(x);
  for (tl::index_t i = 0; i < 40; ++i)
    for (tl::index_t j = 0; j < 3; ++j) {
      CHECK(w(i, j) == doctest::Approx(2 / 3.14159265358979323846).epsilon(1e-14));
      CHECK(same(strided(j, i), direct(i, j)));
    }
  tl::tensor<std::int32_t, 1> k(tl::shape_t<1>{2});
  k(0) = 0;
  k(1) = 3;
  auto e = ts::bessel_j0(k);
  static_assert(std::is_same_v<typename decltype(e)::value_type, float>);
  tl::tensor<float, 1> kf = e;
  CHECK(kf(0) == 1.0f);
  CHECK(kf(1) == doctest::Approx(-0.2600519549019334));
}

TEST_CASE_TEMPLATE("airy_ai: error against the mpmath reference, edge values", T, float, double) {
  const auto e = max_err_osc<T>("airy_ai", ts::detail::airy_ai_fn{}, [](const auto& x) { return ts::airy_ai(x); }, [](double x) {
    return x <= -2 ? std::pow(std::fabs(x), -0.25L) / std::sqrt(3.14159265358979323846L) : 0.0L;
  });
  MESSAGE("airy_ai max ULP " << e.first << ", max error in ulp(m(x)) " << e.second);
  CHECK(e.first <= ulp_bound<T>());
  CHECK(e.second <= ulp_bound<T>());
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto x = from_list<T>({nan, inf, -inf, 0.0, -0.0, 1e-40, 200.0, -1.0, 2.0});
  tl::tensor<T, 1> ai = ts::airy_ai(x);
  CHECK(std::isnan(ai(0)));
  CHECK(same(ai(1), 0.0));
  CHECK(same(ai(2), 0.0));  // torch 1.13: NaN
  CHECK(ai(3) == doctest::Approx(0.35502805388781724).epsilon(1e-7));
  CHECK(ai(4) == ai(3));
  CHECK(ai(5) == ai(3));
  CHECK(same(ai(6), 0.0));  // underflow
  CHECK(ai(7) == doctest::Approx(0.5355608832923521).epsilon(1e-7));
  CHECK(ai(8) == doctest::Approx(0.03492413042327437).epsilon(1e-7));
}

// A float packet whose lanes fill two double packets runs its kernel once on both as a twin
// (float_via_double_twin). The twin must give each lane exactly what the double packet holding it
// gives: the same operations per lane, with each region's branch taken when either half needs it.
TEST_CASE("twin packets: each lane as in its own double packet") {
  namespace d = ts::detail;
  using D = xsimd::batch<double>;
  using W = d::twin<D>;
  constexpr std::size_t m = D::size;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  tl_test::lcg g{20261129};
  // Lanes from every region of the kernels below (J / Y: below 2, 2-8, beyond 8, beyond 2^19;
  // airy: both signs; the gamma functions: near the poles and far out) and their edge values,
  // drawn per lane so that most twins mix regions within and between their halves.
  const double pick[] = {0.0, -0.0, 1e-300, 0.3, 1.9, 2.0, 5.5, 8.0, 30.0, 0x1p19, 0x1p21, 1e300, inf, -inf, nan, -2.5, -7.0, -40.0};
  const auto draw = [&] {
    const double u = g.next();
    if (u < -0.6) return pick[static_cast<std::size_t>((u + 1) / 0.4 * std::size(pick)) % std::size(pick)];
    return 60 * u;
  };
  const auto agree = [&](const char* name, auto&& kernel) {
    long mismatches = 0;
    for (int rep = 0; rep < 4096; ++rep) {
      alignas(64) double lo[m], hi[m], rt[2 * m], rh[2 * m];
      for (std::size_t i = 0; i < m; ++i) lo[i] = draw();
      for (std::size_t i = 0; i < m; ++i) hi[i] = rep % 3 == 0 ? lo[i] : draw();  // some twins with equal halves
      const W r = kernel(W{D::load_aligned(lo), D::load_aligned(hi)});
      r.a.store_aligned(rt);
      r.b.store_aligned(rt + m);
      kernel(D::load_aligned(lo)).store_aligned(rh);
      kernel(D::load_aligned(hi)).store_aligned(rh + m);
      // (NaN lanes are left to the callers, which pass NaN through whatever the kernel made of it)
      for (std::size_t i = 0; i < 2 * m; ++i) {
        const double x = i < m ? lo[i] : hi[i - m];
        if (!std::isnan(x) && std::memcmp(&rt[i], &rh[i], sizeof(double)) != 0 && !(std::isnan(rt[i]) && std::isnan(rh[i]))) {
          if (++mismatches <= 5) MESSAGE(std::string(name) << ": lane " << i << " of x = " << x << ": twin " << rt[i] << ", packet " << rh[i]);
        }
      }
    }
    CHECK_MESSAGE(mismatches == 0, std::string(name));
  };
  agree("bessel_j0", [](const auto& x) { return d::bessel_j0_kernel<std::decay_t<decltype(x)>, true>(x); });
  agree("bessel_j1", [](const auto& x) { return d::bessel_j1_kernel<std::decay_t<decltype(x)>, true>(x); });
  agree("bessel_y0", [](const auto& x) { return d::bessel_y0_kernel<std::decay_t<decltype(x)>, true>(x); });
  agree("bessel_y1", [](const auto& x) { return d::bessel_y1_kernel<std::decay_t<decltype(x)>, true>(x); });
  agree("airy_ai", [](const auto& x) { return d::airy_ai_kernel(x); });
  agree("tgamma", [](const auto& x) { return d::tgamma_float_kernel(d::vabs(x)); });
  agree("tgamma, reflection", [](const auto& x) { return d::tgamma_kernel(x); });
  agree("digamma", [](const auto& x) { return d::digamma_float_kernel(d::vabs(x)); });
  agree("trigamma", [](const auto& x) { return d::trigamma_float_kernel(d::vabs(x)); });
  // The float packet kernels (float_via_double_twin) against float_via_double, one double
  // packet at a time: the halves and the rounded result keep their lanes' order.
  using B = xsimd::batch<float>;
  for (int rep = 0; rep < 1024; ++rep) {
    alignas(64) float xs[B::size], got[B::size], want[B::size];
    for (auto& v : xs) v = static_cast<float>(draw());
    const B x = B::load_aligned(xs);
    d::bessel_y1_float_packet(x).store_aligned(got);
    tl::detail::float_via_double(x, [](const auto& v) {
      return d::sel(d::visnan(v), v, d::bessel_y1_kernel<std::decay_t<decltype(v)>, true>(v));
    }).store_aligned(want);
    for (std::size_t i = 0; i < B::size; ++i)
      CHECK_MESSAGE((std::memcmp(&got[i], &want[i], sizeof(float)) == 0 || (std::isnan(got[i]) && std::isnan(want[i]))),
                    "bessel_y1 float packet at " << xs[i]);
  }
}
