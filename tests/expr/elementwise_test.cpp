// Elementwise ops against scalar references (<cmath> in long double or exact hand values),
// broadcasting, type promotion, and the fused evaluator's paths (linear, rows, strided, threads).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <tl/tensor.hpp>

namespace {
// Deterministic inputs from a local LCG (independent of tl's RNG).
struct lcg {
  std::uint64_t s;
  double next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) * 0x1.0p-53;
  }
};
template <class T>
tl::tensor<T, 1> vec(std::initializer_list<double> v) {
  tl::tensor<T, 1> t(tl::shape_t<1>{static_cast<tl::index_t>(v.size())});
  tl::index_t i = 0;
  for (double x : v) t(i++) = static_cast<T>(x);
  return t;
}
template <class T>
tl::tensor<T, 1> uniform(tl::index_t n, double lo, double hi, std::uint64_t seed) {
  tl::tensor<T, 1> t(tl::shape_t<1>{n});
  lcg g{seed};
  for (tl::index_t i = 0; i < n; ++i) t(i) = static_cast<T>(lo + (hi - lo) * g.next());
  return t;
}
// Distance in units in the last place between a computed value and a long double reference.
template <class T>
double ulp_error(T got, long double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0.0 : 1e30;
  if (std::isinf(ref)) return got == static_cast<T>(ref) ? 0.0 : 1e30;
  const T r = static_cast<T>(ref);
  if (r == T(0)) return std::abs(static_cast<long double>(got)) < std::numeric_limits<T>::denorm_min() * 4 ? 0 : 1e30;
  const long double ulp = std::nextafter(std::abs(r), std::numeric_limits<T>::infinity()) - std::abs(r);
  return static_cast<double>(std::abs(static_cast<long double>(got) - ref) / ulp);
}
}  // namespace

TEST_CASE_TEMPLATE("transcendental functions are within 2 ULP (float) / 2 ULP (double) of long double <cmath>", T, float,
                   double) {
  // n is not a multiple of the packet width, so the scalar tail is covered too.
  const tl::index_t n = 10007;
  struct fcase {
    const char* name;
    double lo, hi;
  };
  auto check = [&](auto f_tl, auto f_ref, double lo, double hi, const char* name) {
    auto x = uniform<T>(n, lo, hi, 7);
    tl::tensor<T, 1> y = f_tl(x);
    double worst = 0;
    for (tl::index_t i = 0; i < n; ++i) worst = std::max(worst, ulp_error<T>(y(i), f_ref(static_cast<long double>(x(i)))));
    INFO(std::string(name) << " worst ULP " << worst);
    CHECK(worst <= 2.0);
  };
  check([](auto& x) { return tl::exp(x); }, [](long double v) { return std::exp(v); }, -80, 80, "exp");
  check([](auto& x) { return tl::exp2(x); }, [](long double v) { return std::exp2(v); }, -100, 100, "exp2");
  check([](auto& x) { return tl::expm1(x); }, [](long double v) { return std::expm1(v); }, -5, 5, "expm1");
  check([](auto& x) { return tl::log(x); }, [](long double v) { return std::log(v); }, 1e-30, 1e30, "log");
  check([](auto& x) { return tl::log2(x); }, [](long double v) { return std::log2(v); }, 1e-3, 1e6, "log2");
  check([](auto& x) { return tl::log10(x); }, [](long double v) { return std::log10(v); }, 1e-3, 1e6, "log10");
  check([](auto& x) { return tl::log1p(x); }, [](long double v) { return std::log1p(v); }, -0.9, 10, "log1p");
  check([](auto& x) { return tl::sin(x); }, [](long double v) { return std::sin(v); }, -100, 100, "sin");
  check([](auto& x) { return tl::cos(x); }, [](long double v) { return std::cos(v); }, -100, 100, "cos");
  check([](auto& x) { return tl::tan(x); }, [](long double v) { return std::tan(v); }, -1.5, 1.5, "tan");
  check([](auto& x) { return tl::asin(x); }, [](long double v) { return std::asin(v); }, -1, 1, "asin");
  check([](auto& x) { return tl::acos(x); }, [](long double v) { return std::acos(v); }, -1, 1, "acos");
  check([](auto& x) { return tl::atan(x); }, [](long double v) { return std::atan(v); }, -50, 50, "atan");
  check([](auto& x) { return tl::sinh(x); }, [](long double v) { return std::sinh(v); }, -20, 20, "sinh");
  check([](auto& x) { return tl::cosh(x); }, [](long double v) { return std::cosh(v); }, -20, 20, "cosh");
  check([](auto& x) { return tl::tanh(x); }, [](long double v) { return std::tanh(v); }, -10, 10, "tanh");
  check([](auto& x) { return tl::asinh(x); }, [](long double v) { return std::asinh(v); }, -100, 100, "asinh");
  check([](auto& x) { return tl::acosh(x); }, [](long double v) { return std::acosh(v); }, 1, 100, "acosh");
  check([](auto& x) { return tl::atanh(x); }, [](long double v) { return std::atanh(v); }, -0.99, 0.99, "atanh");
  check([](auto& x) { return tl::sqrt(x); }, [](long double v) { return std::sqrt(v); }, 0, 1e6, "sqrt");
  check([](auto& x) { return tl::rsqrt(x); }, [](long double v) { return 1 / std::sqrt(v); }, 1e-6, 1e6, "rsqrt");
  check([](auto& x) { return tl::sigmoid(x); }, [](long double v) { return 1 / (1 + std::exp(-v)); }, -30, 30,
        "sigmoid");
}

TEST_CASE_TEMPLATE("special values: NaN, +-inf, signed zero", T, float, double) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // 17 elements: one full AVX-512 float packet plus a tail, so both paths see every value.
  auto x = vec<T>({nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, nan, inf, -inf});
  tl::tensor<T, 1> e = tl::exp(x);
  tl::tensor<T, 1> l = tl::log(x);
  tl::tensor<T, 1> s = tl::sqrt(x);
  tl::tensor<T, 1> sg = tl::sign(x);
  tl::tensor<T, 1> r = tl::relu(x);
  tl::tensor<T, 1> sn = tl::sin(x);
  for (tl::index_t i = 0; i < x.numel(); ++i) {
    const long double v = x(i);
    // Special results must match exactly (incl. the sign of zero); finite ones within 2 ULP.
    auto same = [](T got, long double ref) {
      if (std::isnan(ref)) return std::isnan(got);
      if (std::isinf(ref) || ref == 0) return got == static_cast<T>(ref) && std::signbit(got) == std::signbit(ref);
      return ulp_error<T>(got, ref) <= 2.0;
    };
    INFO("i = " << i << ", x = " << static_cast<double>(v) << ", exp = " << e(i));
    CHECK(same(e(i), std::exp(v)));
    CHECK(same(l(i), std::log(v)));
    CHECK(same(s(i), std::sqrt(v)));
    CHECK(same(sn(i), std::sin(v)));
    CHECK(same(sg(i), v > 0 ? 1.0L : v < 0 ? -1.0L : v));  // NaN -> NaN, +-0 kept
    CHECK(same(r(i), std::isnan(v) ? v : v < 0 ? 0.0L : v));  // relu propagates NaN
  }
  tl::tensor<T, 1> nn = tl::nan_to_num(x);
  CHECK(nn(0) == T(0));
  CHECK(nn(1) == std::numeric_limits<T>::max());
  CHECK(nn(2) == std::numeric_limits<T>::lowest());
  tl::tensor<T, 1> nn2 = tl::nan_to_num(x, 5.0, 6.0, -7.0);
  CHECK(nn2(14) == T(5));
  CHECK(nn2(15) == T(6));
  CHECK(nn2(16) == T(-7));
  tl::tensor<bool, 1> isn = tl::isnan(x), isi = tl::isinf(x), isf = tl::isfinite(x);
  CHECK(isn(0));
  CHECK(!isn(1));
  CHECK(isi(2));
  CHECK(isf(3));
  CHECK(!isf(0));
}

TEST_CASE_TEMPLATE("arithmetic, rounding and binary functions against exact values", T, float, double) {
  auto a = vec<T>({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 7.25, -7.25});
  auto b = vec<T>({2.0, -2.0, 0.5, 3.0, -0.75, 4.0, 2.0, 2.0});
  tl::tensor<T, 1> rd = tl::round(a), fl = tl::floor(a), ce = tl::ceil(a), tr = tl::trunc(a), fr = tl::frac(a);
  const double round_ref[] = {-2, -2, -0, 0, 2, 2, 7, -7};  // half to even
  const double floor_ref[] = {-3, -2, -1, 0, 1, 2, 7, -8};
  const double ceil_ref[] = {-2, -1, -0, 1, 2, 3, 8, -7};
  for (int i = 0; i < 8; ++i) {
    CHECK(rd(i) == T(round_ref[i]));
    CHECK(fl(i) == T(floor_ref[i]));
    CHECK(ce(i) == T(ceil_ref[i]));
    CHECK(tr(i) == std::trunc(a(i)));
    CHECK(fr(i) == a(i) - std::trunc(a(i)));
  }
  tl::tensor<T, 1> fm = tl::fmod(a, b), rm = tl::remainder(a, b);
  const double fmod_ref[] = {-0.5, -1.5, -0.0, 0.5, 0.0, 2.5, 1.25, -1.25};
  const double rem_ref[] = {1.5, -1.5, 0.0, 0.5, 0.0, 2.5, 1.25, 0.75};
  for (int i = 0; i < 8; ++i) {
    CHECK(fm(i) == T(fmod_ref[i]));
    CHECK(rm(i) == T(rem_ref[i]));
  }
  tl::tensor<T, 1> mx = tl::maximum(a, b), mn = tl::minimum(a, b), hy = tl::hypot(a, b), at = tl::atan2(a, b);
  tl::tensor<T, 1> pw = tl::pow(tl::abs(a), b);
  for (int i = 0; i < 8; ++i) {
    CHECK(mx(i) == std::max(a(i), b(i)));
    CHECK(mn(i) == std::min(a(i), b(i)));
    CHECK(hy(i) == doctest::Approx(std::hypot((long double)a(i), (long double)b(i))).epsilon(1e-6));
    CHECK(at(i) == doctest::Approx(std::atan2((long double)a(i), (long double)b(i))).epsilon(1e-6));
    CHECK(pw(i) == doctest::Approx(std::pow(std::abs((long double)a(i)), (long double)b(i))).epsilon(1e-6));
  }
  auto n = vec<T>({std::numeric_limits<double>::quiet_NaN(), 1.0});
  auto m = vec<T>({1.0, std::numeric_limits<double>::quiet_NaN()});
  tl::tensor<T, 1> mxn = tl::maximum(n, m), mnn = tl::minimum(n, m);
  CHECK(std::isnan(mxn(0)));
  CHECK(std::isnan(mxn(1)));
  CHECK(std::isnan(mnn(0)));
  CHECK(std::isnan(mnn(1)));
  tl::tensor<T, 1> cl = tl::clamp(a, -1.0, 2.0);
  const double clamp_ref[] = {-1, -1, -0.5, 0.5, 1.5, 2, 2, -1};
  for (int i = 0; i < 8; ++i) CHECK(cl(i) == T(clamp_ref[i]));
  tl::tensor<T, 1> lo_gt_hi = tl::clamp(a, 3.0, 1.0);  // torch: min(max(x, 3), 1) = 1
  CHECK(lo_gt_hi(0) == T(1));
  tl::tensor<T, 1> lp = tl::lerp(a, b, 0.25);
  for (int i = 0; i < 8; ++i) CHECK(lp(i) == doctest::Approx(a(i) + 0.25 * (b(i) - a(i))));
  tl::tensor<T, 1> lp1 = tl::lerp(a, b, 1.0);  // exact at the end point
  for (int i = 0; i < 8; ++i) CHECK(lp1(i) == b(i));
}

TEST_CASE("activations: gelu, softplus") {
  auto x = vec<double>({-30, -3, -0.5, 0, 0.5, 3, 25});
  tl::tensor<double, 1> g = tl::gelu(x), sp = tl::softplus(x), sp2 = tl::softplus(x, 2.0, 5.0);
  for (int i = 0; i < 7; ++i) {
    const long double v = x(i);
    CHECK(g(i) == doctest::Approx(0.5L * v * (1 + std::erf(v / std::sqrt(2.0L)))).epsilon(1e-12));
    const long double spr = v > 20 ? v : std::log1p(std::exp(v));
    CHECK(sp(i) == doctest::Approx(spr).epsilon(1e-12));
    const long double sp2r = 2 * v > 5 ? v : std::log1p(std::exp(2 * v)) / 2;
    CHECK(sp2(i) == doctest::Approx(sp2r).epsilon(1e-12));
  }
}

TEST_CASE("integer ops: exact arithmetic, true division, pow, fmod/remainder by zero") {
  auto a = vec<std::int32_t>({7, -7, 7, -7, 0});
  auto b = vec<std::int32_t>({2, 2, -2, -2, 3});
  tl::tensor<std::int32_t, 1> fm = tl::fmod(a, b), rm = tl::remainder(a, b);
  const int fmod_ref[] = {1, -1, 1, -1, 0}, rem_ref[] = {1, 1, -1, -1, 0};
  for (int i = 0; i < 5; ++i) {
    CHECK(fm(i) == fmod_ref[i]);
    CHECK(rm(i) == rem_ref[i]);
  }
  tl::tensor<float, 1> q = a / b;  // true division gives float
  CHECK(q(0) == 3.5f);
  static_assert(std::is_same_v<decltype(tl::eval(a / b))::value_type, float>);
  tl::tensor<std::int32_t, 1> p = tl::pow(b, vec<std::int32_t>({10, 3, 3, -1, 0}));
  CHECK(p(0) == 1024);
  CHECK(p(1) == 8);
  CHECK(p(2) == -8);
  CHECK(p(3) == 0);  // integer 1 / (-2) truncates to 0
  CHECK(p(4) == 1);
  auto z = vec<std::int32_t>({1, 0, 1, 1, 1});
  CHECK_THROWS_WITH_AS(tl::eval(tl::fmod(a, z)), doctest::Contains("tl::fmod: integer division by zero"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::eval(tl::remainder(a, z)), doctest::Contains("tl::remainder: integer division by zero"),
                       tl::value_error);
  tl::tensor<std::int64_t, 1> big = tl::astype<std::int64_t>(a) * (std::int64_t(1) << 40);
  CHECK(big(1) == -7LL * (1LL << 40));
  tl::tensor<std::int32_t, 1> ab = tl::abs(a);
  CHECK(ab(1) == 7);
}

TEST_CASE("comparisons, logical ops and where") {
  auto a = vec<float>({1, 2, 3, 4});
  auto b = vec<float>({4, 2, 1, 4});
  tl::tensor<bool, 1> lt = a < b, eq = a == b, ge = a >= b, both = (a < b) || (a == b), nb = !(a < b);
  CHECK(lt(0));
  CHECK(!lt(1));
  CHECK(eq(1));
  CHECK(eq(3));
  CHECK(ge(2));
  CHECK(both(1));
  CHECK(!both(2));
  CHECK(nb(2));
  tl::tensor<bool, 1> x = tl::logical_xor(a > 1.5f, b > 1.5f);
  CHECK(x(2));
  CHECK(!x(1));
  tl::tensor<float, 1> w = tl::where(a > 2.0f, a, -b);
  CHECK(w(0) == -4);
  CHECK(w(3) == 4);
  tl::tensor<double, 1> wd = tl::where(a > 2.0f, 1.5, a);  // weak scalar: stays float, stored in double
  CHECK(wd(2) == 1.5);
}

TEST_CASE("type promotion follows torch (compile time)") {
  tl::tensor<std::int32_t, 1> i(tl::shape_t<1>{2});
  tl::tensor<std::int64_t, 1> l(tl::shape_t<1>{2});
  tl::tensor<float, 1> f(tl::shape_t<1>{2});
  tl::tensor<double, 1> d(tl::shape_t<1>{2});
  tl::tensor<bool, 1> bo(tl::shape_t<1>{2});
  tl::tensor<tl::complex<float>, 1> cf(tl::shape_t<1>{2});
  using std::is_same_v;
  static_assert(is_same_v<decltype(i + l)::value_type, std::int64_t>);
  static_assert(is_same_v<decltype(i + f)::value_type, float>);
  static_assert(is_same_v<decltype(f + d)::value_type, double>);
  static_assert(is_same_v<decltype(bo + i)::value_type, std::int32_t>);
  static_assert(is_same_v<decltype(cf + d)::value_type, tl::complex<double>>);
  static_assert(is_same_v<decltype(cf * f)::value_type, tl::complex<float>>);
  static_assert(is_same_v<decltype(i * 2)::value_type, std::int32_t>);      // weak int scalar
  static_assert(is_same_v<decltype(i * 2.0)::value_type, float>);           // float scalar -> default float
  static_assert(is_same_v<decltype(f * 2.0)::value_type, float>);           // double scalar does not widen
  static_assert(is_same_v<decltype(bo + 1)::value_type, std::int64_t>);     // bool + int scalar
  static_assert(is_same_v<decltype(tl::sin(i))::value_type, float>);        // int -> float for math
  static_assert(is_same_v<decltype(tl::abs(cf))::value_type, float>);       // |complex| is real
  static_assert(is_same_v<decltype(i < f)::value_type, bool>);
  static_assert(is_same_v<decltype(tl::astype<double>(i))::value_type, double>);
  static_assert(is_same_v<decltype(tl::polar(f, f))::value_type, tl::complex<float>>);
  CHECK(tl::dtype_name<decltype(cf + d)::value_type>() == "complex128");
}

TEST_CASE("complex arithmetic, abs, angle, real, imag, polar") {
  using C = tl::complex<double>;
  tl::tensor<C, 1> z(tl::shape_t<1>{3});
  z(0) = C(3, 4);
  z(1) = C(-1, 0);
  z(2) = C(0, -2);
  tl::tensor<double, 1> ab = tl::abs(z), an = tl::angle(z), re = tl::real(z), im = tl::imag(z);
  CHECK(ab(0) == 5.0);
  CHECK(an(1) == doctest::Approx(3.14159265358979323846));
  CHECK(an(2) == doctest::Approx(-1.57079632679489661923));
  CHECK(re(0) == 3.0);
  CHECK(im(2) == -2.0);
  tl::tensor<C, 1> q = z / z;
  for (int k = 0; k < 3; ++k) {
    CHECK(q(k).re == doctest::Approx(1.0));
    CHECK(q(k).im == doctest::Approx(0.0));
  }
  tl::tensor<C, 1> prod = z * tl::conj(z);  // |z|^2
  CHECK(prod(0) == C(25, 0));
  tl::tensor<C, 1> ez = tl::exp(z);
  CHECK(ez(1).re == doctest::Approx(std::exp(-1.0)));
  tl::tensor<C, 1> pl = tl::polar(ab, an);
  CHECK(pl(0).re == doctest::Approx(3.0));
  CHECK(pl(0).im == doctest::Approx(4.0));
  auto rl = vec<double>({-2, 0, 2});
  tl::tensor<double, 1> ar = tl::angle(rl);
  CHECK(ar(0) == doctest::Approx(3.14159265358979323846));
  CHECK(ar(2) == 0.0);
}

TEST_CASE("broadcasting: shapes, stride-0 operands, and errors naming both shapes") {
  tl::tensor<float, 2> m(tl::shape_t<2>{3, 4});
  tl::tensor<float, 1> row(tl::shape_t<1>{4});
  tl::tensor<float, 2> col(tl::shape_t<2>{3, 1});
  for (int i = 0; i < 3; ++i) {
    col(i, 0) = 100.0f * i;
    for (int j = 0; j < 4; ++j) m(i, j) = float(10 * i + j);
  }
  for (int j = 0; j < 4; ++j) row(j) = float(j) / 2;
  tl::tensor<float, 2> r = m + row * col - 1.0f;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(r(i, j) == float(10 * i + j) + float(j) / 2 * (100.0f * i) - 1.0f);
  auto outer = col * row;  // [3,1] x [4] -> [3,4]
  CHECK(outer.shape() == tl::shape_t<2>{3, 4});
  CHECK(outer(2, 3) == 300.0f);
  tl::tensor<float, 1> bad(tl::shape_t<1>{3});
  CHECK_THROWS_WITH_AS(m + bad, doctest::Contains("tl::add: shapes [3, 4] and [3] cannot be broadcast together"),
                       tl::shape_error);
  // Destination shape must accept the expression's shape.
  tl::tensor<float, 2> small(tl::shape_t<2>{2, 4});
  CHECK_THROWS_WITH_AS(small.copy_(m), doctest::Contains("tl::assign: an expression of shape [3, 4] cannot be written into a tensor of shape [2, 4]"),
                       tl::shape_error);
  small.copy_(row);  // broadcast on copy_
  CHECK(small(1, 3) == 1.5f);
  // Static extents: mixing static and dynamic keeps the static ones.
  tl::stensor<float, 3, 4> s34;
  using E = decltype(s34 + row)::extents_type;
  static_assert(E::static_values[0] == 3 && E::static_values[1] == 4);
}

TEST_CASE("aliasing: overlapping assignment evaluates through a temporary") {
  tl::tensor<int, 2> a(tl::shape_t<2>{3, 3});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a(i, j) = 3 * i + j;
  auto keep = a;
  a.copy_(a.t());  // in place transpose: needs a temporary
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK(keep(i, j) == 3 * j + i);
  tl::tensor<int, 1> v(tl::shape_t<1>{6});
  for (int i = 0; i < 6; ++i) v(i) = i;
  v.slice(0, 1, 6) = v.slice(0, 0, 5) + 0;  // shifted overlap
  const int ref[] = {0, 0, 1, 2, 3, 4};
  for (int i = 0; i < 6; ++i) CHECK(v(i) == ref[i]);
  tl::tensor<int, 1> w(tl::shape_t<1>{4});
  for (int i = 0; i < 4; ++i) w(i) = i;
  w.copy_(w.flip(0));
  CHECK(w(0) == 3);
  CHECK(w(3) == 0);
  w += w;  // element-for-element: no temporary needed, still correct
  CHECK(w(0) == 6);
}

TEST_CASE("in-place compound assignment and dtype rules") {
  tl::tensor<float, 2> a(tl::shape_t<2>{2, 3});
  a = 1.0f;
  tl::tensor<float, 1> r(tl::shape_t<1>{3});
  for (int j = 0; j < 3; ++j) r(j) = float(j);
  a += r;
  a *= 2.0f;
  a -= 1;
  a /= 2.0;
  CHECK(a(1, 2) == ((1.0f + 2.0f) * 2.0f - 1.0f) / 2.0f);
  a.select(0, 0) *= 0.0f;
  CHECK(a(0, 2) == 0.0f);
  CHECK(a(1, 2) == 2.5f);
  tl::tensor<std::int64_t, 1> iv(tl::shape_t<1>{3});
  iv = 5;
  iv += 2;
  iv *= std::int64_t(3);
  CHECK(iv(0) == 21);
}

TEST_CASE("strided, broadcast and multithreaded evaluation agree with a reference loop") {
  const tl::index_t m = 300, n = 517;  // > parallel chunk in total, odd inner extent
  tl::tensor<double, 2> x(tl::shape_t<2>{m, n}), y(tl::shape_t<2>{n, m});
  tl::tensor<double, 1> c(tl::shape_t<1>{n});
  lcg g{3};
  for (tl::index_t i = 0; i < m; ++i)
    for (tl::index_t j = 0; j < n; ++j) {
      x(i, j) = g.next() - 0.5;
      y(j, i) = g.next() + 0.5;
    }
  for (tl::index_t j = 0; j < n; ++j) c(j) = g.next();
  for (int threads : {1, 2}) {
    tl::set_num_threads(threads);
    tl::tensor<double, 2> r = x * tl::exp(y.t()) + c - tl::sqrt(y.t());  // transposed (strided) operand
    tl::tensor<double, 2> dst(tl::shape_t<2>{n, m});
    dst.t() = x * 2.0 + c;  // strided destination
    for (tl::index_t i = 0; i < m; ++i)
      for (tl::index_t j = 0; j < n; ++j) {
        const double ref = x(i, j) * std::exp(y(j, i)) + c(j) - std::sqrt(y(j, i));
        REQUIRE(r(i, j) == doctest::Approx(ref).epsilon(1e-14));
        REQUIRE(dst(j, i) == x(i, j) * 2.0 + c(j));
      }
  }
  tl::set_num_threads(2);
  CHECK(tl::get_num_threads() == 2);
  CHECK_THROWS_WITH_AS(tl::set_num_threads(0), doctest::Contains("tl::set_num_threads: the thread count must be >= 1"),
                       tl::value_error);
}

TEST_CASE_TEMPLATE("streaming stores write the same values as plain stores", T, float, double, std::int32_t,
                   std::int64_t) {
#if defined(__SSE2__)
  CHECK(tl::detail::has_stream_store<tl::detail::batch_t<T>>);
#endif
  const std::size_t saved = tl::get_streaming_store_threshold();
  CHECK(saved >= (std::size_t{1} << 20));
  const tl::index_t m = 37, n = 1029;  // > parallel chunk in total; odd rows leave most rows unaligned
  tl::tensor<T, 2> a(tl::shape_t<2>{m, n}), b(tl::shape_t<2>{m, n});
  tl::tensor<T, 2> c(tl::shape_t<2>{m, 1});
  lcg g{11};
  for (tl::index_t i = 0; i < m; ++i) {
    c(i, 0) = static_cast<T>(std::floor(100 * g.next()));
    for (tl::index_t j = 0; j < n; ++j) {
      a(i, j) = static_cast<T>(std::floor(100 * g.next()));
      b(i, j) = static_cast<T>(std::floor(100 * g.next()) + 1);
    }
  }
  const auto fa = a.flatten(), fb = b.flatten();
  const tl::index_t total = m * n;
  // Each case writes into fresh buffers: linear path, misaligned linear path, row path with a
  // broadcast operand, the same into a misaligned destination, and += (never streamed).
  auto run_all = [&] {
    std::vector<tl::tensor<T, 2>> out;
    tl::tensor<T, 2> lin(tl::shape_t<2>{m, n});
    lin = a * b + a;
    out.push_back(lin);
    tl::tensor<T, 1> buf(tl::shape_t<1>{total + 1});
    buf.narrow(0, 1, total - 1) = fa.narrow(0, 0, total - 1) - fb.narrow(0, 1, total - 1);
    buf(0) = T(0);
    buf(total) = T(0);
    out.push_back(buf.reshape(tl::shape_t<2>{1, total + 1}));
    tl::tensor<T, 2> row(tl::shape_t<2>{m, n});
    row = a - c;
    out.push_back(row);
    tl::tensor<T, 2> wide(tl::shape_t<2>{m, n + 3});
    wide = T(0);
    wide.narrow(1, 1, n) = b * c;
    out.push_back(wide);
    tl::tensor<T, 2> acc = a.clone();
    acc += b;
    out.push_back(acc);
    return out;
  };
  for (int threads : {1, 2}) {
    tl::set_num_threads(threads);
    tl::set_streaming_store_threshold(std::numeric_limits<std::size_t>::max());
    const auto plain = run_all();
    tl::set_streaming_store_threshold(0);
    CHECK(tl::get_streaming_store_threshold() == 0);
    const auto streamed = run_all();
    REQUIRE(plain.size() == streamed.size());
    for (std::size_t k = 0; k < plain.size(); ++k) {
      CAPTURE(k);
      REQUIRE(plain[k].shape() == streamed[k].shape());
      const T* p = plain[k].data();
      const T* q = streamed[k].data();
      bool same = true;
      for (tl::index_t i = 0; i < plain[k].numel(); ++i) same = same && p[i] == q[i];
      CHECK(same);
    }
    // The reference loop, for the linear case.
    bool ok = true;
    for (tl::index_t i = 0; i < m; ++i)
      for (tl::index_t j = 0; j < n; ++j) ok = ok && streamed[0](i, j) == static_cast<T>(a(i, j) * b(i, j) + a(i, j));
    CHECK(ok);
  }
  tl::set_streaming_store_threshold(saved);
  tl::set_num_threads(2);
}

TEST_CASE("lazy expressions: auto never dangles, element access, eval, empty and rank-0") {
  auto make = [] {
    tl::tensor<float, 1> t(tl::shape_t<1>{3});
    t = 2.0f;
    return tl::sin(std::move(t) + 1.0f);  // the temporary's storage is kept by the expression
  };
  auto e = make();
  CHECK(e(1) == doctest::Approx(std::sin(3.0f)));
  CHECK_THROWS_AS(e(3), tl::index_error);
  auto ev = tl::eval(e * 2.0f);
  CHECK(ev(2) == doctest::Approx(2 * std::sin(3.0f)));
  tl::tensor<float, 2> empty(tl::shape_t<2>{0, 5});
  tl::tensor<float, 2> er = tl::exp(empty) + 1.0f;
  CHECK(er.numel() == 0);
  CHECK(er.shape() == tl::shape_t<2>{0, 5});
  tl::tensor<float, 0> s0(tl::shape_t<0>{});
  s0 = 4.0f;
  tl::tensor<float, 0> s1 = tl::sqrt(s0);
  CHECK(s1.item() == 2.0f);
  tl::tensor<float, 1> v = tl::eval(s0 + ev);  // rank-0 broadcasts
  CHECK(v(0) == doctest::Approx(4 + 2 * std::sin(3.0f)));
  CHECK_THROWS_WITH_AS(v.item(), doctest::Contains("tl::item: a tensor with 3 elements"), tl::value_error);
}
