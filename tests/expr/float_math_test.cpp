// tl's float packet kernels (include/tl/expr/simd_math.hpp) through the public ops: exp, sin,
// cos, tanh and sigmoid of float tensors against long double <cmath>, over random arguments and
// dense sets at each kernel's hard points (branch switches, overflow and subnormal thresholds,
// arguments nearest to multiples of pi/2), with NaN, +-inf and signed zeros mixed into the same
// packets as ordinary values. The bounds asserted are the ones simd_math.hpp states.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include <tl/tensor.hpp>

#include "../test_util.hpp"

namespace float_math_test {

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float nan = std::numeric_limits<float>::quiet_NaN();

/// |got - ref| in units of the float spacing at |ref| (the subnormal spacing below FLT_MIN).
double ulps(float got, long double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : 1e30;
  const float rounded = static_cast<float>(ref);  // inf where ref is past the float range
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0 : 1e30;
  int e = 0;
  (void)std::frexp(ref, &e);
  const long double spacing = std::max(std::ldexp(1.0L, e - 24), static_cast<long double>(std::numeric_limits<float>::denorm_min()));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / spacing);
}

/// Adds the 2k + 1 floats centred on v.
void around(std::vector<float>& xs, float v, int k) {
  float lo = v, hi = v;
  xs.push_back(v);
  for (int i = 0; i < k; ++i) {
    lo = std::nextafter(lo, -inf);
    hi = std::nextafter(hi, inf);
    xs.push_back(lo);
    xs.push_back(hi);
  }
}

void uniform(std::vector<float>& xs, int n, double lo, double hi, std::uint64_t seed) {
  tl_test::lcg g{seed};
  for (int i = 0; i < n; ++i) xs.push_back(static_cast<float>(lo + (hi - lo) * (g.next() + 1) / 2));
}

/// Specials spread through the array so that they share packets with ordinary values.
void sprinkle(std::vector<float>& xs, std::initializer_list<float> specials) {
  std::size_t at = 3;
  for (float s : specials) {
    xs.insert(xs.begin() + static_cast<std::ptrdiff_t>(std::min(at, xs.size())), s);
    at += 37;
  }
}

struct range {
  int n;
  double lo, hi;
};
/// Random arguments in each range, the 2k + 1 floats around each hard point, and the specials.
std::vector<float> arguments(std::initializer_list<range> ranges, std::initializer_list<float> hard, int k,
                             std::initializer_list<float> specials, std::uint64_t seed) {
  std::vector<float> xs;
  for (const range& r : ranges) uniform(xs, r.n, r.lo, r.hi, seed++);
  for (float t : hard) around(xs, t, k);
  sprinkle(xs, specials);
  return xs;
}

/// Evaluates op over xs as one float tensor and returns the worst error against ref; checks that
/// every special result (NaN, infinities, zeros) matches exactly, sign included.
template <class Op, class Ref>
double worst_ulps(const std::vector<float>& xs, Op op, Ref ref, const char* name) {
  tl::tensor<float, 1> x(tl::shape_t<1>{static_cast<tl::index_t>(xs.size())});
  for (std::size_t i = 0; i < xs.size(); ++i) x(static_cast<tl::index_t>(i)) = xs[i];
  tl::tensor<float, 1> y = op(x);
  double worst = 0;
  float at = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float got = y(static_cast<tl::index_t>(i));
    const long double r = ref(static_cast<long double>(xs[i]));
    if (std::isnan(r) || std::isinf(static_cast<float>(r)) || r == 0) {
      INFO(std::string(name) << "(" << xs[i] << ") = " << got << ", expected " << static_cast<double>(r));
      CHECK((std::isnan(r) ? std::isnan(got) : (got == static_cast<float>(r) && std::signbit(got) == std::signbit(r))));
      continue;
    }
    const double e = ulps(got, r);
    if (e > worst) {
      worst = e;
      at = xs[i];
    }
  }
  MESSAGE(std::string(name) << ": worst " << worst << " ULP at x = " << at << " over " << xs.size() << " arguments");
  return worst;
}

TEST_CASE("float exp is within 1 ULP, subnormal results and overflow included") {
  const auto xs = arguments({{120000, -105, 90}, {20000, -1, 1}},
                            {87.0f, -87.0f, 88.7228394f, -87.3365479f, -103.972076f, 0.346573591f, -0.346573591f}, 400,
                            {nan, inf, -inf, 0.0f, -0.0f, 1e30f, -1e30f, 89.0f, -104.0f, -150.0f,
                             std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min()},
                            11);
  CHECK(worst_ulps(xs, [](const auto& x) { return tl::exp(x); }, [](long double v) { return std::exp(v); }, "exp") <=
        1.0);
}

TEST_CASE("float sin and cos are within 1.5 ULP, arguments nearest to multiples of pi/2 included") {
  auto xs = arguments({{100000, -1e5, 1e5}, {50000, -8, 8}}, {1e5f, -1e5f, std::numbers::pi_v<float> / 4}, 200,
                      {nan, inf, -inf, 0.0f, -0.0f, 1e6f, -3e7f, 1e30f, std::numeric_limits<float>::max(),
                       std::numeric_limits<float>::denorm_min(), -1e-30f},
                      21);
  // The float nearest to k pi/2 and its neighbours: where the reduced argument is smallest.
  for (int k = 1; k < 65000; k += (k < 400 ? 1 : 97)) {
    const float v = static_cast<float>(k * (std::numbers::pi_v<long double> / 2));
    around(xs, v, 1);
    around(xs, -v, 1);
  }
  CHECK(worst_ulps(xs, [](const auto& x) { return tl::sin(x); }, [](long double v) { return std::sin(v); }, "sin") <=
        1.5);
  CHECK(worst_ulps(xs, [](const auto& x) { return tl::cos(x); }, [](long double v) { return std::cos(v); }, "cos") <=
        1.5);
}

TEST_CASE("float tanh is within 1 ULP, at the switch between its two forms included") {
  const auto xs = arguments({{100000, -12, 12}, {20000, -1.5, 1.5}}, {0.9f, -0.9f, 9.5f, -9.5f, 9.0f}, 400,
                            {nan, inf, -inf, 0.0f, -0.0f, 1e-30f, -1e-30f, std::numeric_limits<float>::denorm_min(),
                             50.0f, -1e30f},
                            31);
  CHECK(worst_ulps(xs, [](const auto& x) { return tl::tanh(x); }, [](long double v) { return std::tanh(v); },
                   "tanh") <= 1.0);
}

TEST_CASE("float sigmoid is within 1 ULP, subnormal results included") {
  const auto xs = arguments({{100000, -110, 40}, {20000, -2, 2}}, {0.0f, -87.0f, 87.0f, -103.5f, 17.0f}, 400,
                            {nan, inf, -inf, -0.0f, 1e30f, -1e30f, -200.0f}, 41);
  CHECK(worst_ulps(xs, [](const auto& x) { return tl::sigmoid(x); },
                   [](long double v) { return 1 / (1 + std::exp(-v)); }, "sigmoid") <= 1.0);
}

TEST_CASE("float kernels agree with the scalar path on strided and broadcast operands") {
  // A transposed (strided) operand takes the scalar loop: the results agree with the packet path
  // to the kernels' bounds, and exactly on the special values.
  std::vector<float> xs;
  uniform(xs, 64 * 33, -20, 20, 51);
  tl::tensor<float, 2> a(tl::shape_t<2>{64, 33});
  for (tl::index_t i = 0; i < a.numel(); ++i) a.data()[i] = xs[static_cast<std::size_t>(i)];
  a(5, 7) = nan;
  a(9, 1) = -inf;
  tl::tensor<float, 2> at = a.t().contiguous();
  tl::tensor<float, 2> p = tl::exp(a.t()) + tl::sin(a.t()) * tl::tanh(a.t());  // strided: scalar
  tl::tensor<float, 2> q = tl::exp(at) + tl::sin(at) * tl::tanh(at);           // contiguous: packets
  for (tl::index_t i = 0; i < p.extent(0); ++i)
    for (tl::index_t j = 0; j < p.extent(1); ++j) {
      if (std::isnan(p(i, j))) {
        CHECK(std::isnan(q(i, j)));
        continue;
      }
      INFO("i = " << i << ", j = " << j);
      CHECK(std::fabs(p(i, j) - q(i, j)) <= 4e-7f * (std::fabs(p(i, j)) + 1));
    }
}

TEST_CASE_TEMPLATE("packet fused multiply-add rounds once on every packet width", T, float, double) {
  // (1 + u)(1 - u) - 1 = -u^2 exactly with one rounding; two roundings give 0. The kernels above
  // depend on it, on AVX-512 too (where xsimd 8.1's own fma has two roundings unless
  // tl/core/simd.hpp supplied the fused form).
#if !defined(__FMA__) && !defined(__AVX512F__)
  MESSAGE("this build targets no FMA instruction: nothing to check");
  return;
#endif
  using B = tl::detail::batch_t<T>;
  const T u = std::numeric_limits<T>::epsilon();
  const B a(T(1) + u), b(T(1) - u), one(T(1));
  alignas(64) T r[B::size];
  tl::detail::simd_fma(a, b, -one).store_aligned(r);
  CHECK(r[0] == -u * u);
  CHECK(r[B::size - 1] == -u * u);
  tl::detail::simd_fms(a, b, one).store_aligned(r);
  CHECK(r[0] == -u * u);
  tl::detail::simd_fnma(a, b, one).store_aligned(r);
  CHECK(r[0] == u * u);
  tl::detail::simd_fnms(a, b, -one).store_aligned(r);
  CHECK(r[0] == u * u);
  xsimd::fma(a, b, -one).store_aligned(r);  // tl's headers come first in this file
  CHECK(r[0] == -u * u);
}

TEST_CASE("grouped_lanes runs a packet function on the lanes of a mask first and puts the results back") {
  // f sees lane i of both operands together (y - x = 99.5 in every lane only if the operands' lanes
  // move alike) and tags its result with the position i it saw; each lane's result must come back to
  // the lane it came from, tagged with its place in the grouping: the mask's lanes in order, then the
  // others in order (AVX-512 float packets; elsewhere no reordering).
  using B = tl::detail::batch_t<float>;
  constexpr std::size_t n = B::size;
  alignas(64) float xs[n], ys[n], iota[n], r[n];
  for (std::size_t i = 0; i < n; ++i) {
    xs[i] = static_cast<float>(i) + 0.5f;
    ys[i] = xs[i] + 99.5f;
    iota[i] = static_cast<float>(i);
  }
  const B x = B::load_aligned(xs), y = B::load_aligned(ys), pos = B::load_aligned(iota);
  const auto f = [&](const B& u, const B& v) { return (v - u) + B(1000.0f) * pos; };
#if defined(__AVX512F__)
  const bool groups = n == 16;
#else
  const bool groups = false;
#endif
  std::uint64_t seed = 7;
  for (int trial = 0; trial < 40; ++trial) {
    alignas(64) float keep[n];
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    for (std::size_t i = 0; i < n; ++i) keep[i] = trial == 0 ? 0.0f : trial == 1 ? 1.0f : static_cast<float>((seed >> (20 + i)) & 1u);
    const auto m = B::load_aligned(keep) != B(0.0f);
    tl::detail::grouped_lanes(f, m, x, y).store_aligned(r);
    std::size_t c = 0;
    for (std::size_t i = 0; i < n; ++i) c += keep[i] != 0;
    std::size_t in = 0, out = c;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t place = !groups ? i : keep[i] != 0 ? in++ : out++;
      INFO("trial " << trial << ", lane " << i);
      CHECK(r[i] == 99.5f + 1000.0f * static_cast<float>(place));
    }
  }
}

}  // namespace float_math_test
