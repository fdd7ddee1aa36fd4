// tl::special modified Bessel functions of the first kind (i0, i0e, i1, i1e) against mpmath
// references (tests/data/special), edge values and fusion.
#include "special_test_util.hpp"

#include <tl/special/special.hpp>

using namespace special_test;
namespace ts = tl::special;

TEST_CASE_TEMPLATE("modified Bessel I0, I1: ULP error against the mpmath reference", T, float, double) {
#ifdef __FMA__
  const double slack = 0;
#else
  const double slack = 0.5;
#endif
  const double bound = (std::is_same_v<T, float> ? 2.0 : 4.0) + slack;
#define TL_CHECK_ULP(NAME)                                                                                      \
  do {                                                                                                          \
    const double e = max_ulp_unary<T>(#NAME, ts::detail::NAME##_fn{}, [](const auto& x) { return ts::NAME(x); }); \
    MESSAGE(#NAME << " max ULP " << e);                                                                         \
    CHECK(e <= bound);                                                                                          \
  } while (0)
  TL_CHECK_ULP(i0);
  TL_CHECK_ULP(i0e);
  TL_CHECK_ULP(i1);
  TL_CHECK_ULP(i1e);
#undef TL_CHECK_ULP
}

TEST_CASE_TEMPLATE("modified Bessel I0, I1: NaN, infinities, signed zeros, subnormals, overflow", T, float, double) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double sub = static_cast<double>(std::numeric_limits<T>::denorm_min()) * 3;
  const double big = std::is_same_v<T, float> ? 100.0 : 720.0;  // I0, I1 overflow
  const auto x = from_list<T>({nan, inf, -inf, 0.0, -0.0, sub, -sub, 8.0, -8.0, big, -big, 1.0, -1.0, 50.0, -50.0, 1e30, -1e30, 2.0, nan});
  tl::tensor<T, 1> a = ts::i0(x), ae = ts::i0e(x), b = ts::i1(x), be = ts::i1e(x), ma = ts::modified_bessel_i0(x),
                   mb = ts::modified_bessel_i1(x);
  for (const auto* t : {&a, &ae, &b, &be}) {
    CHECK(std::isnan((*t)(0)));
    CHECK(std::isnan((*t)(18)));
  }
  // +-inf: I0 -> inf, I1 -> +-inf (torch 1.13 gives NaN there), the scaled forms -> 0, +-0.
  CHECK(same(a(1), inf));
  CHECK(same(a(2), inf));
  CHECK(same(b(1), inf));
  CHECK(same(b(2), -inf));
  CHECK(same(ae(1), 0.0));
  CHECK(same(ae(2), 0.0));
  CHECK(same(be(1), 0.0));
  CHECK(same(be(2), -0.0));
  // zeros, subnormals: I1 is odd, I1(x) ~ x / 2.
  CHECK(same(a(3), 1.0));
  CHECK(same(a(4), 1.0));
  CHECK(same(b(3), 0.0));
  CHECK(same(b(4), -0.0));
  CHECK(same(be(4), -0.0));
  CHECK(b(5) == static_cast<T>(static_cast<T>(sub) * 0.5));
  CHECK(b(6) == -static_cast<T>(static_cast<T>(sub) * 0.5));
  // the switch point, evenness and oddness.
  CHECK(a(7) == doctest::Approx(427.56411572180478).epsilon(1e-7));
  CHECK(a(8) == a(7));
  CHECK(b(8) == -b(7));
  CHECK(ae(7) == doctest::Approx(0.14343178185685031).epsilon(1e-7));
  // overflow to inf, large-argument scaled forms.
  CHECK(same(a(9), inf));
  CHECK(same(b(10), -inf));
  CHECK(same(a(15), inf));  // far beyond: e^(x - 64 ln 2) itself overflows (was NaN in double)
  CHECK(same(b(16), -inf));
  CHECK(ae(15) == doctest::Approx(0.3989422804014327e-15).epsilon(1e-7));
  CHECK(be(16) == doctest::Approx(-0.3989422804014327e-15).epsilon(1e-7));
  if constexpr (std::is_same_v<T, double>) {
    // just below the overflow threshold: e^x 2^-64 2^64 keeps I0(713) finite.
    const auto y = from_list<double>({713.0, 705.0});
    tl::tensor<double, 1> r = ts::i0(y);
    CHECK(r(0) == doctest::Approx(6.705128263670997e307).epsilon(1e-6));
    CHECK(std::isfinite(r(1)));
    const auto z = from_list<double>({760.0, -800.0, 751.0, 1e300});
    tl::tensor<double, 1> i0z = ts::i0(z), i1z = ts::i1(z);
    for (tl::index_t i = 0; i < 4; ++i) {
      CHECK(same(i0z(i), inf));
      CHECK(same(i1z(i), i == 1 ? -inf : inf));
    }
  }
  for (int i = 0; i < 19; ++i) {
    CHECK(same(ma(i), static_cast<double>(a(i))));
    CHECK(same(mb(i), static_cast<double>(b(i))));
  }
}

TEST_CASE("modified Bessel: fuses, strided operands, integer operands compute in float") {
  tl::tensor<double, 2> x(tl::shape_t<2>{50, 3});
  for (tl::index_t i = 0; i < 50; ++i)
    for (tl::index_t j = 0; j < 3; ++j) x(i, j) = -20 + 0.8 * static_cast<double>(i) + 0.1 * static_cast<double>(j);
  auto e = ts::i1e(x) / ts::i0e(x);
  static_assert(tl::expression<decltype(e)>);
  tl::tensor<double, 2> r = e, direct = ts::i1(x) / ts::i0(x), strided = ts::i1e(x.transpose(0, 1));
  for (tl::index_t i = 0; i < 50; ++i)
    for (tl::index_t j = 0; j < 3; ++j) {
      CHECK(r(i, j) == doctest::Approx(direct(i, j)).epsilon(1e-14));
      CHECK(same(strided(j, i), static_cast<double>(tl::tensor<double, 2>(ts::i1e(x))(i, j))));
    }
  tl::tensor<std::int32_t, 1> k(tl::shape_t<1>{2});
  k(0) = 0;
  k(1) = 3;
  auto ke = ts::i0(k);
  static_assert(std::is_same_v<typename decltype(ke)::value_type, float>);
  tl::tensor<float, 1> kf = ke;
  CHECK(kf(0) == 1.0f);
  CHECK(kf(1) == doctest::Approx(4.880792585865024));
}

TEST_CASE_TEMPLATE("modified Bessel K0, K1 (plain and scaled), spherical j0: ULP error and edge values", T, float, double) {
#ifdef __FMA__
  const double slack = 0;
#else
  const double slack = 0.5;
#endif
  const double bound = (std::is_same_v<T, float> ? 2.0 : 4.0) + slack;
  const double ek0 = max_ulp_unary<T>("k0", ts::detail::k0_fn{}, [](const auto& x) { return ts::modified_bessel_k0(x); });
  const double ek1 = max_ulp_unary<T>("k1", ts::detail::k1_fn{}, [](const auto& x) { return ts::modified_bessel_k1(x); });
  const double ek0e = max_ulp_unary<T>("k0e", ts::detail::k0e_fn{}, [](const auto& x) { return ts::scaled_modified_bessel_k0(x); });
  const double ek1e = max_ulp_unary<T>("k1e", ts::detail::k1e_fn{}, [](const auto& x) { return ts::scaled_modified_bessel_k1(x); });
  const double ej0 =
      max_ulp_unary<T>("spherical_bessel_j0", ts::detail::spherical_j0_fn{}, [](const auto& x) { return ts::spherical_bessel_j0(x); });
  MESSAGE("k0 " << ek0 << ", k1 " << ek1 << ", k0e " << ek0e << ", k1e " << ek1e << ", spherical_bessel_j0 " << ej0);
  CHECK(ek0 <= bound);
  CHECK(ek1 <= bound);
  CHECK(ek0e <= bound);
  CHECK(ek1e <= bound);
  CHECK(ej0 <= bound);

  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto x = from_list<T>({nan, inf, -inf, 0.0, -0.0, -1.0, 2.0, 1.0, 800.0, 1e30, 0.5, nan});
  tl::tensor<T, 1> k0 = ts::modified_bessel_k0(x), k1 = ts::modified_bessel_k1(x), k0e = ts::scaled_modified_bessel_k0(x),
                   k1e = ts::scaled_modified_bessel_k1(x), j0 = ts::spherical_bessel_j0(x);
  for (const auto* t : {&k0, &k1, &k0e, &k1e, &j0}) {
    CHECK(std::isnan((*t)(0)));
    CHECK(std::isnan((*t)(11)));
  }
  for (const auto* t : {&k0, &k1, &k0e, &k1e}) {
    CHECK(same((*t)(1), 0.0));       // +inf
    CHECK(std::isnan((*t)(2)));      // x < 0
    CHECK(same((*t)(3), inf));       // 0
    CHECK(same((*t)(4), inf));       // -0
    CHECK(std::isnan((*t)(5)));
  }
  CHECK(k0(6) == doctest::Approx(0.11389387274953344).epsilon(1e-7));
  CHECK(k1(7) == doctest::Approx(0.6019072301972346).epsilon(1e-7));
  CHECK(same(k0(8), 0.0));  // e^-800 underflows
  CHECK(k0e(9) == doctest::Approx(1.2533141373155e-15).epsilon(1e-6));
  CHECK(same(j0(1), 0.0));
  CHECK(same(j0(2), 0.0));
  CHECK(same(j0(3), 1.0));
  CHECK(same(j0(4), 1.0));
  CHECK(j0(10) == doctest::Approx(0.958851077208406).epsilon(1e-7));
}

TEST_CASE("modified Bessel I and K: float packets (the float kernels) round the exact value once") {
  // Float packets evaluate shorter fits in double (about 2e-11 relative), so the float result is
  // within 1/2 ULP plus about 1e-3: against the mpmath rows and against the double kernels on
  // 2^20 + 1 float bit patterns over [0, inf] and their negatives (NaN, the overflow of I, the
  // underflow of K and the switch points at 1 and 8 included).
  constexpr double bound = 0.51;
  auto vals = float_bit_patterns();
  special_test::append_negatives(vals);
  for (float v : {1.0f, 8.0f, -8.0f}) {
    vals.push_back(v);
    vals.push_back(std::nextafter(v, 0.0f));
    vals.push_back(std::nextafter(v, 100.0f * v));
  }
  const tl::tensor<float, 1> z = special_test::from_vector(vals);
  namespace d = ts::detail;
  using tensor = tl::tensor<float, 1>;
  struct fn {
    const char* name;
    tensor (*eval)(const tensor&);
    double (*ref)(double);
  };
  const fn fns[] = {
      {"i0", [](const tensor& v) { return tensor(ts::i0(v)); }, [](double x) { return d::i0_kernel(x); }},
      {"i0e", [](const tensor& v) { return tensor(ts::i0e(v)); }, [](double x) { return d::i0e_kernel(x); }},
      {"i1", [](const tensor& v) { return tensor(ts::i1(v)); }, [](double x) { return d::i1_kernel(x); }},
      {"i1e", [](const tensor& v) { return tensor(ts::i1e(v)); }, [](double x) { return d::i1e_kernel(x); }},
      {"k0", [](const tensor& v) { return tensor(ts::modified_bessel_k0(v)); }, [](double x) { return d::k0_kernel(x); }},
      {"k0e", [](const tensor& v) { return tensor(ts::scaled_modified_bessel_k0(v)); }, [](double x) { return d::k0e_kernel(x); }},
      {"k1", [](const tensor& v) { return tensor(ts::modified_bessel_k1(v)); }, [](double x) { return d::k1_kernel(x); }},
      {"k1e", [](const tensor& v) { return tensor(ts::scaled_modified_bessel_k1(v)); }, [](double x) { return d::k1e_kernel(x); }},
  };
  for (const auto& f : fns) {
    const auto rows = load<float>(f.name);
    const auto x = column<float>(rows);
    const tensor y = f.eval(x);
    const auto ref = [&](tl::index_t k) { return rows[static_cast<std::size_t>(k)].ref; };
    CHECK(worst_float_error(std::string(f.name) + " float packet against mpmath", x, y, ref) <= bound);
    const tensor w = f.eval(z);
    const auto dbl = [&](tl::index_t k) { return static_cast<long double>(f.ref(static_cast<double>(z(k)))); };
    CHECK(worst_float_error(std::string(f.name) + " float packet against the double kernel", z, w, dbl) <= bound);
  }
}

TEST_CASE("spherical_bessel_j0: float packets computed in float stay within 1 ULP") {
  // With a fused multiply-add, float packets of |x| <= 1e5 compute sin(|x|) / |x| in float with
  // the reduction's and the polynomials' rounding errors carried to the last division; checked
  // against the double kernel on 2^20 + 1 float bit patterns over [0, inf] and their negatives
  // (the double path beyond 1e5, infinities and NaN included), an even grid over [-1e5, 1e5], and
  // the floats next to k pi / 2 up to 1e5, where the reduced argument cancels most.
#ifdef __FMA__
  constexpr double bound = 1.0;
#else
  constexpr double bound = 0.51;  // the double kernel, rounded once
#endif
  auto vals = float_bit_patterns();
  for (int i = 0; i <= 200000; ++i) vals.push_back(static_cast<float>(-1e5 + 1e5 * i / 100000.0));
  for (int k = 1; k <= 63661; ++k) {
    const float c = static_cast<float>(k * 1.5707963267948966);
    vals.push_back(c);
    vals.push_back(std::nextafter(c, 0.0f));
    vals.push_back(std::nextafter(c, 2e5f));
  }
  special_test::append_negatives(vals);
  const tl::tensor<float, 1> x = special_test::from_vector(vals);
  const tl::tensor<float, 1> y = ts::spherical_bessel_j0(x);
  const auto ref = [&](tl::index_t k) {
    const double v = static_cast<double>(x(k));
    return static_cast<long double>(std::isnan(v) ? v : ts::detail::spherical_j0_kernel(v));
  };
  CHECK(worst_float_error("spherical_bessel_j0 float packet against the double kernel", x, y, ref) <= bound);
}
