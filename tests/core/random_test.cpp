// Tests for the Philox generator, its stream contract and the random creation functions.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include <tl/tensor.hpp>

namespace {
using u32 = std::uint32_t;

// Word j of the stream (seed, offset), written from the documented contract with the raw Philox function.
u32 ref_word(std::uint64_t seed, std::uint64_t offset, std::uint64_t j) {
  const std::uint64_t a = offset + j, b = a / 4;
  const auto blk = tl::philox4x32_10({static_cast<u32>(b), static_cast<u32>(b >> 32), 0, 0},
                                     {static_cast<u32>(seed), static_cast<u32>(seed >> 32)});
  return blk[a % 4];
}
double ref_uniform_double(std::uint64_t seed, std::uint64_t offset, std::uint64_t q) {
  const std::uint64_t x = (std::uint64_t{ref_word(seed, offset, 2 * q)} << 32) | ref_word(seed, offset, 2 * q + 1);
  return std::ldexp(static_cast<double>(x >> 11), -53);
}

// Restores the thread count on scope exit.
struct thread_guard {
  int saved = tl::get_num_threads();
  ~thread_guard() { tl::set_num_threads(saved); }
};

template <class T, class Ext>
bool same(const tl::basic_tensor<T, Ext>& a, const tl::basic_tensor<T, Ext>& b) {
  if (a.shape() != b.shape()) return false;
  return std::equal(a.data(), a.data() + a.numel(), b.data());
}
}  // namespace

TEST_CASE("philox4x32_10 matches the Random123 known-answer vectors") {
  using A = tl::philox_counter;
  CHECK(tl::philox4x32_10({0, 0, 0, 0}, {0, 0}) == A{{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}});
  CHECK(tl::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        A{{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}});
  CHECK(tl::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        A{{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}});
  // Usable in constant expressions (and hence in device code without host state).
  static_assert(tl::philox4x32_10({0, 0, 0, 0}, {0, 0})[3] == 0x9b00dbd8u);
}

TEST_CASE("rand follows the documented stream contract word for word") {
  const std::uint64_t seed = 0x0123456789abcdefull;
  tl::manual_seed(seed);
  CHECK(tl::initial_seed() == seed);
  CHECK(tl::get_rng_state() == tl::rng_state{seed, 0});
  auto f = tl::rand<float>(7);
  // 7 words, rounded up to 2 whole blocks.
  CHECK(tl::get_rng_state().offset == 8);
  for (int i = 0; i < 7; ++i) CHECK(f(i) == std::ldexp(static_cast<float>(ref_word(seed, 0, i) >> 8), -24));
  auto d = tl::rand<double>(3);
  CHECK(tl::get_rng_state().offset == 16);
  for (int i = 0; i < 3; ++i) CHECK(d(i) == ref_uniform_double(seed, 8, i));
  // An offset that is not a multiple of 4 (set by hand) starts mid-block.
  tl::set_rng_state({seed, 5});
  auto g = tl::rand<float>(3);
  for (int i = 0; i < 3; ++i) CHECK(g(i) == std::ldexp(static_cast<float>(ref_word(seed, 5, i) >> 8), -24));
  CHECK(tl::get_rng_state().offset == 9);
}

TEST_CASE("randn and randint follow the documented stream contract") {
  tl::manual_seed(99);
  auto z = tl::randn<double>(3);  // 2 pairs -> 4 uniforms -> 8 words
  CHECK(tl::get_rng_state().offset == 8);
  for (int p = 0; p < 2; ++p) {
    const long double u1 = ref_uniform_double(99, 0, 2 * p), u2 = ref_uniform_double(99, 0, 2 * p + 1);
    const long double r = std::sqrt(-2.0L * std::log(1.0L - u1)), t = 2.0L * 3.14159265358979323846264338L * u2;
    CHECK(z(2 * p) == doctest::Approx(static_cast<double>(r * std::cos(t))).epsilon(1e-14));
    if (2 * p + 1 < 3) CHECK(z(2 * p + 1) == doctest::Approx(static_cast<double>(r * std::sin(t))).epsilon(1e-14));
  }
  auto k = tl::randint(-5, 1000, 3);
  CHECK(tl::get_rng_state().offset == 16);
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t x = (std::uint64_t{ref_word(99, 8, 2 * i)} << 32) | ref_word(99, 8, 2 * i + 1);
    CHECK(k(i) == -5 + static_cast<std::int64_t>(x % 1005));
  }
}

TEST_CASE("random ops are deterministic across seeds, calls and thread counts") {
  thread_guard g;
  const tl::index_t n = 100003;  // several chunks, odd (a trailing half Box-Muller pair)
  auto run = [&](int threads) {
    tl::set_num_threads(threads);
    tl::manual_seed(1234);
    auto a = tl::rand<float>(n);
    auto b = tl::randn<double>(n);
    auto c = tl::randint(0, 1 << 20, n);
    auto d = tl::bernoulli<float>(0.5, n);
    auto e = tl::randn<tl::complex<float>>(n);
    return std::tuple{a, b, c, d, e};
  };
  auto [a1, b1, c1, d1, e1] = run(1);
  auto [a2, b2, c2, d2, e2] = run(2);
  auto [a3, b3, c3, d3, e3] = run(3);
  CHECK(same(a1, a2));
  CHECK(same(b1, b2));
  CHECK(same(c1, c2));
  CHECK(same(d1, d2));
  CHECK(same(e1, e2));
  CHECK(same(a1, a3));
  CHECK(same(b1, b3));
  CHECK(same(e1, e3));

  // Successive calls give fresh numbers; a different seed gives different numbers.
  tl::manual_seed(1234);
  auto x = tl::rand<float>(100);
  auto y = tl::rand<float>(100);
  tl::manual_seed(1235);
  auto w = tl::rand<float>(100);
  CHECK_FALSE(same(x, y));
  CHECK_FALSE(same(x, w));
  int equal = 0;
  for (int i = 0; i < 100; ++i) equal += x(i) == w(i);
  CHECK(equal < 3);

  // Saving and restoring the state repeats the numbers.
  const auto st = tl::get_rng_state();
  auto p = tl::randn<float>(10, 10);
  tl::set_rng_state(st);
  auto q = tl::randn<float>(10, 10);
  CHECK(same(p, q));
}

TEST_CASE_TEMPLATE("rand is uniform on [0, 1)", T, float, double) {
  tl::manual_seed(2024);
  const tl::index_t n = 1000000;
  auto u = tl::rand<T>(n);
  long double s = 0, s2 = 0;
  T lo = 1, hi = 0;
  for (tl::index_t i = 0; i < n; ++i) {
    const long double v = u(i);
    s += v;
    s2 += (v - 0.5L) * (v - 0.5L);
    lo = std::min(lo, u(i));
    hi = std::max(hi, u(i));
  }
  CHECK(lo >= T(0));
  CHECK(hi < T(1));
  CHECK(lo < T(1e-4));  // 1e6 draws: P(min > 1e-4) = (1 - 1e-4)^1e6 ~ e^-100
  CHECK(hi > T(1 - 1e-4));
  // Mean: sd = sqrt(1/12 / n) = 2.9e-4; 5 sigma = 1.44e-3.
  CHECK(std::fabs(static_cast<double>(s / n) - 0.5) < 1.44e-3);
  // Variance about 1/2: Var[(U - 1/2)^2] = 1/80 - 1/144 = 1/180, sd of the mean = 7.45e-5; 5 sigma = 3.7e-4.
  CHECK(std::fabs(static_cast<double>(s2 / n) - 1.0 / 12) < 3.7e-4);
}

TEST_CASE("rand for complex dtypes fills real and imaginary parts from the real stream") {
  tl::manual_seed(5);
  auto c = tl::rand<tl::complex<double>>(2, 3);
  tl::manual_seed(5);
  auto r = tl::rand<double>(12);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      CHECK(c(i, j).re == r(2 * (3 * i + j)));
      CHECK(c(i, j).im == r(2 * (3 * i + j) + 1));
    }
}

TEST_CASE_TEMPLATE("randn is standard normal", T, float, double) {
  tl::manual_seed(77);
  const tl::index_t n = 1000000;
  auto z = tl::randn<T>(n);
  long double s = 0, s2 = 0;
  for (tl::index_t i = 0; i < n; ++i) {
    s += z(i);
    s2 += static_cast<long double>(z(i)) * z(i);
  }
  const double mean = static_cast<double>(s / n), var = static_cast<double>(s2 / n);
  // Mean: sd = 1/sqrt(n) = 1e-3; 5 sigma = 5e-3. E[Z^2] = 1 with Var[Z^2] = 2: sd = 1.41e-3; 5 sigma = 7.1e-3.
  CHECK(std::fabs(mean) < 5e-3);
  CHECK(std::fabs(var - 1.0) < 7.1e-3);

  // Kolmogorov-Smirnov on the first 1e5 draws against Phi(x) = (1 + erf(x / sqrt 2)) / 2.
  // P(sqrt(m) D > 1.95) ~ 2 exp(-2 * 1.95^2) = 1e-3 under the null hypothesis.
  const tl::index_t m = 100000;
  std::vector<double> v(z.data(), z.data() + m);
  std::sort(v.begin(), v.end());
  double d = 0;
  for (tl::index_t i = 0; i < m; ++i) {
    const double cdf = 0.5 * (1.0 + std::erf(v[i] / std::sqrt(2.0)));
    d = std::max({d, std::fabs(cdf - static_cast<double>(i) / m), std::fabs(cdf - static_cast<double>(i + 1) / m)});
  }
  CHECK(std::sqrt(static_cast<double>(m)) * d < 1.95);
}

TEST_CASE("randn for complex dtypes has E|z|^2 = 1") {
  tl::manual_seed(8);
  const tl::index_t n = 200000;
  auto z = tl::randn<tl::complex<double>>(n);
  long double sre = 0, sim = 0;
  for (tl::index_t i = 0; i < n; ++i) {
    sre += static_cast<long double>(z(i).re) * z(i).re;
    sim += static_cast<long double>(z(i).im) * z(i).im;
  }
  // Each part has variance 1/2: sd of the mean square = sqrt(2 * 0.25 / n) = 1.6e-3; 5 sigma = 8e-3.
  CHECK(std::fabs(static_cast<double>(sre / n) - 0.5) < 8e-3);
  CHECK(std::fabs(static_cast<double>(sim / n) - 0.5) < 8e-3);
}

TEST_CASE("randint covers [low, high) exactly") {
  tl::manual_seed(3);
  auto k = tl::randint(-3, 7, 10000);
  static_assert(std::is_same_v<decltype(k), tl::tensor<std::int64_t, 1>>);
  std::set<std::int64_t> seen;
  for (tl::index_t i = 0; i < k.numel(); ++i) {
    CHECK(k(i) >= -3);
    CHECK(k(i) < 7);
    seen.insert(k(i));
  }
  CHECK(seen.size() == 10);

  auto m = tl::randint<std::int32_t>(5, tl::shape_t<2>{30, 30});
  static_assert(std::is_same_v<decltype(m), tl::tensor<std::int32_t, 2>>);
  std::set<std::int32_t> seen32(m.data(), m.data() + m.numel());
  CHECK(seen32 == std::set<std::int32_t>{0, 1, 2, 3, 4});

  // The widest range does not overflow.
  constexpr auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  auto w = tl::randint(lo, hi, 1000);
  int negative = 0;
  for (tl::index_t i = 0; i < 1000; ++i) {
    CHECK(w(i) < hi);
    negative += w(i) < 0;
  }
  CHECK(negative > 400);  // binomial(1000, 1/2): sd 15.8, 400 is 6 sigma below
  CHECK(negative < 600);

  // A single value range always gives low.
  auto one = tl::randint(4, 5, 10);
  for (tl::index_t i = 0; i < 10; ++i) CHECK(one(i) == 4);
}

TEST_CASE("bernoulli frequencies and exact edge probabilities") {
  tl::manual_seed(11);
  const tl::index_t n = 1000000;
  auto b = tl::bernoulli<float>(0.3, n);
  long double s = 0;
  for (tl::index_t i = 0; i < n; ++i) {
    CHECK_UNARY(b(i) == 0.0f || b(i) == 1.0f);
    s += b(i);
  }
  // sd = sqrt(0.3 * 0.7 / n) = 4.58e-4; 5 sigma = 2.3e-3.
  CHECK(std::fabs(static_cast<double>(s / n) - 0.3) < 2.3e-3);

  auto zero = tl::bernoulli<bool>(0.0, 1000);
  auto one = tl::bernoulli<std::int32_t>(1.0, 1000);
  for (tl::index_t i = 0; i < 1000; ++i) {
    CHECK(zero(i) == false);
    CHECK(one(i) == 1);
  }

  // Per-element probabilities from a tensor (and from an expression).
  auto p = tl::zeros<double>(2, 50000);
  p.select(0, 1) = 1.0;
  auto q = tl::bernoulli(p);
  static_assert(std::is_same_v<decltype(q), tl::tensor<double, 2>>);
  for (tl::index_t j = 0; j < 50000; ++j) {
    CHECK(q(0, j) == 0.0);
    CHECK(q(1, j) == 1.0);
  }
  auto h = tl::bernoulli(tl::full<float>(tl::shape_t<1>{400000}, 0.25f) * 2.0f);
  double hs = 0;
  for (tl::index_t i = 0; i < h.numel(); ++i) hs += h(i);
  // p = 0.5: sd = sqrt(0.25 / 4e5) = 7.9e-4; 5 sigma = 4e-3.
  CHECK(std::fabs(hs / h.numel() - 0.5) < 4e-3);
}

TEST_CASE("random ops reject invalid arguments") {
  CHECK_THROWS_WITH_AS(tl::randint(5, 5, 3), doctest::Contains("tl::randint: low must be less than high, got low = 5 and high = 5"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::randint(6, 2, 3), doctest::Contains("low = 6 and high = 2"), tl::value_error);
  CHECK_THROWS_WITH_AS(tl::randint<std::int32_t>(0, std::int64_t{1} << 40, 3),
                       doctest::Contains("tl::randint: the range [0, 1099511627776) does not fit in int32"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::bernoulli<float>(1.5, 3), doctest::Contains("tl::bernoulli: the probability p must be in [0, 1], got 1.5"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::bernoulli<float>(-0.25, 3), doctest::Contains("got -0.25"), tl::value_error);
  CHECK_THROWS_WITH_AS(tl::bernoulli<float>(std::nan(""), 3), doctest::Contains("tl::bernoulli"), tl::value_error);
  auto p = tl::full<float>(tl::shape_t<1>{4}, 0.5f);
  p(2) = 2.0f;
  CHECK_THROWS_WITH_AS(tl::bernoulli(p), doctest::Contains("tl::bernoulli: the probability p must be in [0, 1], got 2 at flat index 2"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::rand<float>(2, -1), doctest::Contains("tl::rand: negative extent in shape [2, -1]"),
                       tl::value_error);
  CHECK_THROWS_WITH_AS(tl::randn<double>(-3), doctest::Contains("tl::randn: negative extent in shape [-3]"),
                       tl::value_error);
}

TEST_CASE("random ops on empty shapes and the *_like forms") {
  tl::manual_seed(0);
  auto e = tl::rand<float>(0, 5);
  CHECK(e.numel() == 0);
  CHECK(tl::get_rng_state().offset == 0);
  auto t = tl::zeros<double>(3, 2);
  auto r = tl::rand_like(t);
  static_assert(std::is_same_v<decltype(r), tl::tensor<double, 2>>);
  CHECK(r.shape() == t.shape());
  auto n = tl::randn_like<float>(t);
  static_assert(std::is_same_v<decltype(n), tl::tensor<float, 2>>);
  auto s = tl::rand<float>();
  static_assert(decltype(s)::rank == 0);
  CHECK(s.item() >= 0.0f);
  CHECK(s.item() < 1.0f);
}
