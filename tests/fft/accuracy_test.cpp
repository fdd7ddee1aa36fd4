// tl::fft accuracy against a long-double reference (a mixed-radix recursive DFT, naive at prime
// lengths) over many lengths: every small length, primes (Bluestein), smooth
// composites and powers of two up to 2^16. Promise: relative RMS error <= 10 eps log2(n) for
// every length and <= 2 eps log2(n) on average.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <tl/fft/fft.hpp>
#include <vector>

#include "../test_util.hpp"

namespace {
using tl::index_t;
using ld = long double;
using cld = std::complex<ld>;
const ld pi_l = 3.141592653589793238462643383279502884L;

// The DFT of x (length m) in long double by recursive decimation in time over the smallest prime
// factor p of m (a naive DFT at prime m): X_k = sum_r w^{rk} DFT(x_{r::p})_{k mod m/p}. w holds
// e^{sign 2 pi i j / n} for j < n, n a multiple of m, each computed directly, so the error stays
// at a few long-double eps times log m.
std::vector<cld> dft_ld(const std::vector<cld>& x, const std::vector<cld>& w) {
  const index_t m = static_cast<index_t>(x.size());
  const index_t s = m ? static_cast<index_t>(w.size()) / m : 1;
  const auto tw = [&](index_t k) { return w[(k % m) * s]; };
  std::vector<cld> y(static_cast<std::size_t>(m));
  index_t p = 2;
  while (p * p <= m && m % p != 0) ++p;
  if (p * p > m) {
    for (index_t k = 0; k < m; ++k) {
      cld acc = 0;
      for (index_t j = 0; j < m; ++j) acc += x[j] * tw(j * k);
      y[k] = acc;
    }
    return y;
  }
  const index_t q = m / p;
  std::vector<std::vector<cld>> sub(static_cast<std::size_t>(p));
  for (index_t r = 0; r < p; ++r) {
    std::vector<cld> xs(static_cast<std::size_t>(q));
    for (index_t i = 0; i < q; ++i) xs[i] = x[i * p + r];
    sub[r] = dft_ld(xs, w);
  }
  for (index_t k = 0; k < m; ++k) {
    cld acc = sub[0][k % q];
    for (index_t r = 1; r < p; ++r) acc += tw(r * k) * sub[r][k % q];
    y[k] = acc;
  }
  return y;
}

std::vector<cld> reference(const std::vector<cld>& x, int sign) {
  const index_t n = static_cast<index_t>(x.size());
  std::vector<cld> w(static_cast<std::size_t>(n));
  for (index_t j = 0; j < n; ++j) w[j] = std::polar(ld(1), sign * 2 * pi_l * ld(j) / ld(n));
  return dft_ld(x, w);
}

using tl_test::lcg;  // uniform in [-1, 1)

std::vector<index_t> lengths() {
  std::vector<index_t> v;
  for (index_t n = 1; n <= 64; ++n) v.push_back(n);
  for (index_t n : {97, 100, 121, 128, 169, 243, 289, 343, 1000, 1024, 1031, 2048, 4096, 4099, 3 * 5 * 7 * 64})
    v.push_back(n);
  for (index_t n = 8192; n <= 65536; n *= 2) v.push_back(n);
  return v;
}

template <class T>
double rel_rms(const tl::tensor<tl::complex<T>, 1>& got, const std::vector<cld>& ref, index_t count) {
  ld num = 0, den = 0;
  for (index_t k = 0; k < count; ++k) {
    const cld g(got.data()[k].re, got.data()[k].im);
    num += std::norm(g - ref[k]);
    den += std::norm(ref[k]);
  }
  return den == 0 ? 0.0 : static_cast<double>(std::sqrt(num / den));
}
}  // namespace

// The four-step decomposition runs on public calls only for lines larger than the last-level
// cache; here the engine is made to use it at lengths the reference can check.
TEST_CASE_TEMPLATE("fft: the four-step decomposition (forced) within 10 eps log2(n) of the reference", T, float,
                   double) {
  using tl::fft::detail::c2c_plan;
  using tl::fft::detail::split_rule;
  const double eps = std::numeric_limits<T>::epsilon();
  for (const index_t n : {4096, 8192, 12288, 3 * 5 * 7 * 64, 46080, 65536}) {
    CAPTURE(n);
    const c2c_plan<T> plan(n, split_rule::always);
    REQUIRE(plan.is_four_step());
    CHECK_FALSE(c2c_plan<T>(n, split_rule::never).is_four_step());
    lcg g{static_cast<std::uint64_t>(n) * 31u + 7};
    tl::fft::detail::scratch<T> sc;
    sc.reserve(static_cast<std::size_t>(n), static_cast<std::size_t>(plan.scratch_size()));
    std::vector<cld> xl(n);
    for (index_t i = 0; i < n; ++i) {
      sc.re[i] = static_cast<T>(g.next());
      sc.im[i] = static_cast<T>(g.next());
      xl[i] = cld(sc.re[i], sc.im[i]);
    }
    const auto [yr, yi] = plan.run(sc.re, sc.im, sc.wre, sc.wim, 1);
    const std::vector<cld> ref = reference(xl, -1);
    ld num = 0, den = 0;
    for (index_t k = 0; k < n; ++k) {
      num += std::norm(cld(yr[k], yi[k]) - ref[k]);
      den += std::norm(ref[k]);
    }
    CHECK(static_cast<double>(std::sqrt(num / den)) <= 10.0 * eps * std::log2(static_cast<double>(n)));
  }
}

TEST_CASE_TEMPLATE("fft: relative RMS error within 10 eps log2(n) for every length, 2 eps log2(n) on average", T, float,
                   double) {
  const double eps = std::numeric_limits<T>::epsilon();
  double sum_fwd = 0, sum_inv = 0, sum_real = 0, worst = 0;
  int count = 0;
  for (const index_t n : lengths()) {
    CAPTURE(n);
    if (!tl_test::sweep_case<T>(n)) continue;
    lcg g{static_cast<std::uint64_t>(n) * 7919u + 1};
    tl::tensor<tl::complex<T>, 1> x(tl::shape_t<1>{n});
    tl::tensor<T, 1> xr(tl::shape_t<1>{n});
    std::vector<cld> xl(n), xrl(n);
    for (index_t i = 0; i < n; ++i) {
      x.data()[i] = tl::complex<T>(static_cast<T>(g.next()), static_cast<T>(g.next()));
      xl[i] = cld(x.data()[i].re, x.data()[i].im);
      xr.data()[i] = static_cast<T>(g.next());
      xrl[i] = cld(xr.data()[i], 0);
    }
    const double bound = eps * std::max(1.0, std::log2(static_cast<double>(n)));
    const double e_fwd = rel_rms<T>(tl::fft::fft(x), reference(xl, -1), n) / bound;
    const double e_inv = rel_rms<T>(tl::fft::ifft(x, {}, -1, "forward"), reference(xl, +1), n) / bound;
    const double e_real = rel_rms<T>(tl::fft::rfft(xr), reference(xrl, -1), n / 2 + 1) / bound;
    CHECK(e_fwd <= 10.0);
    CHECK(e_inv <= 10.0);
    CHECK(e_real <= 10.0);
    sum_fwd += e_fwd;
    sum_inv += e_inv;
    sum_real += e_real;
    worst = std::max({worst, e_fwd, e_inv, e_real});
    ++count;
  }
  MESSAGE("mean error / (eps log2 n): forward " << sum_fwd / count << ", inverse " << sum_inv / count << ", real "
                                                << sum_real / count << "; worst " << worst);
  CHECK(sum_fwd / count <= 2.0);
  CHECK(sum_inv / count <= 2.0);
  CHECK(sum_real / count <= 2.0);
}

TEST_CASE_TEMPLATE("fft: irfft and hfft accuracy against the long-double reference", T, float, double) {
  const double eps = std::numeric_limits<T>::epsilon();
  for (const index_t n : {1, 2, 3, 5, 8, 9, 16, 31, 64, 97, 100, 1024, 1031, 4096}) {
    CAPTURE(n);
    // A Hermitian spectrum: the transform of a real signal.
    lcg g{static_cast<std::uint64_t>(n) + 11};
    std::vector<cld> sig(n);
    for (auto& v : sig) v = cld(g.next(), 0);
    const std::vector<cld> spec = reference(sig, -1);
    const index_t m = n / 2 + 1;
    tl::tensor<tl::complex<T>, 1> X(tl::shape_t<1>{m});
    for (index_t k = 0; k < m; ++k)
      X.data()[k] = tl::complex<T>(static_cast<T>(spec[k].real()), static_cast<T>(spec[k].imag()));
    const auto y = tl::fft::irfft(X, n);
    const auto h = tl::fft::hfft(X, n, -1, "forward");  // hfft(X) / n = irfft(conj X)
    ld num = 0, numh = 0, den = 0;
    for (index_t i = 0; i < n; ++i) {
      // The rounded spectrum is the input: compare with its exact inverse.
      num += (ld(y.data()[i]) - sig[i].real()) * (ld(y.data()[i]) - sig[i].real());
      numh += (ld(h.data()[i]) - sig[(n - i) % n].real()) * (ld(h.data()[i]) - sig[(n - i) % n].real());
      den += sig[i].real() * sig[i].real();
    }
    const double bound = eps * std::max(1.0, std::log2(static_cast<double>(n)));
    CHECK(static_cast<double>(std::sqrt(num / den)) <= 10 * bound + eps);
    CHECK(static_cast<double>(std::sqrt(numh / den)) <= 10 * bound + eps);
  }
}
