// tl::special functions of CUDA tensors (the functors' scalar kernels, compiled for the device and
// run in one fused kernel) against the host evaluator on the same points. Both run the same kernel
// source (in double, also for float inputs); they differ only in the elementary functions under it
// (libdevice on the device, xsimd or <cmath> on the host), so they agree to a few double ULPs, and
// for float to one float ULP. The host results themselves are checked against references in
// tests/special/*_test.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <tl/cuda.hpp>

namespace cuda_special_test {

namespace {
using tl::index_t;

const tl::device cuda0 = tl::device::cuda(0);

/// n points spread over [lo, hi] (an irrational step, so the grid avoids integers and other
/// special points unless it is meant to hit them), plus the given extra points.
template <class T>
tl::tensor<T, 1> grid(double lo, double hi, std::initializer_list<double> extra = {}) {
  constexpr index_t n = 1999;
  tl::tensor<T, 1> x(tl::shape_t<1>{n + static_cast<index_t>(extra.size())});
  for (index_t i = 0; i < n; ++i)
    x.data()[i] = static_cast<T>(lo + (hi - lo) * (i + 0.5 * std::numbers::sqrt2 - 0.5) / n);
  index_t k = n;
  for (double e : extra) x.data()[k++] = static_cast<T>(e);
  return x;
}

/// |dev - host| <= ulps * eps * (|host| + floor) elementwise, NaN and infinities matching exactly.
/// `floor` is an absolute scale for functions with zeros or cancellation inside the range.
template <class T>
void check_matches(const std::string& name, const tl::tensor<T, 1>& dev, const tl::tensor<T, 1>& host, double ulps,
                   double floor) {
  CAPTURE(name);
  REQUIRE(dev.is_cuda());
  const auto d = dev.cpu();
  int bad = 0;
  for (index_t i = 0; i < host.numel(); ++i) {
    const double g = d.data()[i], h = host.data()[i];
    bool ok;
    if (std::isnan(h))
      ok = std::isnan(g);
    else if (std::isinf(h))
      ok = g == h;
    else
      ok = std::abs(g - h) <= ulps * std::numeric_limits<T>::epsilon() * (std::abs(h) + floor);
    if (!ok && ++bad <= 3) CHECK_MESSAGE(ok, "at element ", i, ": device ", g, ", host ", h);
  }
  CHECK(bad == 0);
}

/// Evaluates f on x on the host and on the device and compares.
template <class T, class F>
void compare(const std::string& name, const tl::tensor<T, 1>& x, F&& f, double floor = 0.0, double widen = 1.0) {
  const tl::tensor<T, 1> host = f(x);
  const tl::tensor<T, 1> dev = f(x.to(cuda0));
  // float: the functions computed in double round the same double result (≤ 1 ULP apart where it
  // lies near a tie); exp2 and entr compute in float with the float elementary functions (libdevice's
  // within 2 ULP, the host's within 2); double: those underneath differ by a few ULPs.
  check_matches<T>(name, dev, host, widen * (std::is_same_v<T, float> ? 4.0 : 64.0), floor);
}
}  // namespace

TEST_CASE_TEMPLATE("special functions of device tensors match the host evaluator", T, float, double) {
  namespace s = tl::special;
  const auto wide = grid<T>(-8, 8, {0.0, -0.0, 1e300, -1e300, std::nan("")});
  compare<T>("erf", wide, [](const auto& x) { return s::erf(x); });
  compare<T>("erfc", wide, [](const auto& x) { return s::erfc(x); });
  compare<T>("erfcx", wide, [](const auto& x) { return s::erfcx(x); });
  compare<T>("ndtr", wide, [](const auto& x) { return s::ndtr(x); });
  compare<T>("log_ndtr", wide, [](const auto& x) { return s::log_ndtr(x); });
  compare<T>("expit", wide, [](const auto& x) { return s::expit(x); });
  compare<T>("exp2", wide, [](const auto& x) { return s::exp2(x); });
  compare<T>(
      "sinc", wide, [](const auto& x) { return s::sinc(x); }, 1.0);
  compare<T>(
      "entr", grid<T>(0, 8, {0.0, -1.0}), [](const auto& x) { return s::entr(x); }, 1.0);
  const auto unit = grid<T>(-1, 1, {-1.0, 1.0, 0.0});
  compare<T>("erfinv", unit, [](const auto& x) { return s::erfinv(x); });
  const auto prob = grid<T>(0, 1, {0.0, 1.0, 0.5});
  compare<T>(
      "ndtri", prob, [](const auto& x) { return s::ndtri(x); }, 1.0);
  compare<T>(
      "logit", prob, [](const auto& x) { return s::logit(x); }, 1.0);
  // Through the poles of the gamma family (the grid misses the integers; the extras hit them).
  const auto gam = grid<T>(-5.5, 20, {0.0, -1.0, -2.0, 1.0, 2.0});
  compare<T>(
      "gammaln", gam, [](const auto& x) { return s::gammaln(x); }, 1.0);
  compare<T>(
      "digamma", gam, [](const auto& x) { return s::digamma(x); }, 1.0);
  compare<T>("tgamma", grid<T>(-5.5, 30, {0.0, -1.0, 171.7}), [](const auto& x) { return s::tgamma(x); });
  compare<T>("gammasgn", gam, [](const auto& x) { return s::gammasgn(x); });
  const auto bes = grid<T>(-30, 30, {0.0});
  compare<T>("i0", bes, [](const auto& x) { return s::i0(x); });
  compare<T>("i0e", bes, [](const auto& x) { return s::i0e(x); });
  compare<T>("i1", bes, [](const auto& x) { return s::i1(x); });
  compare<T>("i1e", bes, [](const auto& x) { return s::i1e(x); });
  compare<T>(
      "spherical_bessel_j0", bes, [](const auto& x) { return s::spherical_bessel_j0(x); }, 1.0);
  const auto pos = grid<T>(0, 50, {0.0});
  compare<T>("modified_bessel_k0", pos, [](const auto& x) { return s::modified_bessel_k0(x); });
  compare<T>("modified_bessel_k1", pos, [](const auto& x) { return s::modified_bessel_k1(x); });
  compare<T>("scaled_modified_bessel_k0", pos, [](const auto& x) { return s::scaled_modified_bessel_k0(x); });
  compare<T>("scaled_modified_bessel_k1", pos, [](const auto& x) { return s::scaled_modified_bessel_k1(x); });
  // Oscillating: compared on the scale of their amplitude near the zeros.
  compare<T>(
      "bessel_j0", pos, [](const auto& x) { return s::bessel_j0(x); }, 1.0);
  compare<T>(
      "bessel_j1", pos, [](const auto& x) { return s::bessel_j1(x); }, 1.0);
  compare<T>(
      "bessel_y0", pos, [](const auto& x) { return s::bessel_y0(x); }, 1.0);
  compare<T>(
      "bessel_y1", pos, [](const auto& x) { return s::bessel_y1(x); }, 1.0);
  compare<T>(
      "airy_ai", grid<T>(-10, 10, {0.0}), [](const auto& x) { return s::airy_ai(x); }, 1.0);
}

TEST_CASE_TEMPLATE("gammainc, gammaincc and zeta of device tensors match the host evaluator", T, float, double) {
  // Every method of P and Q: the series and the fraction (a = 2.5 + x/2 over x in [0, 30]), Q's
  // small-x series (a = 2x, x <= 1.1), Temme's expansion (a in [10, 40], x = 0.8a and 1.2a) and the
  // edge values (x = 0, a = 0, NaN). The double results carry the prefactor's exponent
  // a log x - x - lgamma(a) (up to about 12 here) in their error on both sides, hence 4x the bound.
  namespace s = tl::special;
  const auto tr = grid<T>(0, 30, {0.0, std::nan("")});
  compare<T>("gammainc (series, fraction)", tr, [](const auto& x) { return s::gammainc(x * T(0.5) + T(2.5), x); }, 1.0, 4.0);
  compare<T>("gammaincc (series, fraction)", tr, [](const auto& x) { return s::gammaincc(x * T(0.5) + T(2.5), x); }, 1.0, 4.0);
  const auto sm = grid<T>(0, 1.1, {0.0});
  compare<T>("gammainc (small x)", sm, [](const auto& x) { return s::gammainc(x * T(2), x); }, 1.0, 4.0);
  compare<T>("gammaincc (small x)", sm, [](const auto& x) { return s::gammaincc(x * T(2), x); }, 1.0, 4.0);
  const auto tm = grid<T>(10, 40);
  compare<T>("gammainc (Temme, x < a)", tm, [](const auto& a) { return s::gammainc(a, a * T(0.8)); }, 1.0, 4.0);
  compare<T>("gammaincc (Temme, x > a)", tm, [](const auto& a) { return s::gammaincc(a, a * T(1.2)); }, 1.0, 4.0);
  compare<T>("zeta(3, q)", grid<T>(0.01, 30), [](const auto& q) { return s::zeta(T(3), q); });
  compare<T>("zeta(2.5, q)", grid<T>(0.01, 30), [](const auto& q) { return s::zeta(T(2.5), q); });
}

}  // namespace cuda_special_test
