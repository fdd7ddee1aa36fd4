#pragma once
// Shared helpers of the tl::special tests: the mpmath reference files of tests/data/special and
// ULP distances.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "../test_util.hpp"

#include <tl/tensor.hpp>

namespace special_test {

inline std::string data_dir() {
  std::string f = __FILE__;  // .../tests/special/special_test_util.hpp
  return f.substr(0, f.rfind('/')) + "/../data/special/";
}

/// One reference row: arguments and the reference value (parsed as long double).
struct row {
  double x, y;
  long double ref;
};

/// The rows of <name>.txt for dtype T ('f' rows for float, 'd' rows for double).
template <class T>
std::vector<row> load(const std::string& name, int arity = 1) {
  std::ifstream in(data_dir() + name + ".txt");
  REQUIRE_MESSAGE(in.good(), "missing reference file " << data_dir() << name << ".txt");
  const char want = std::is_same_v<T, float> ? 'f' : 'd';
  std::vector<row> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string dt, a, b, r;
    s >> dt >> a;
    if (arity == 2) s >> b;
    s >> r;
    if (dt.size() != 1 || dt[0] != want) continue;
    out.push_back({std::strtod(a.c_str(), nullptr), arity == 2 ? std::strtod(b.c_str(), nullptr) : 0.0,
                   std::strtold(r.c_str(), nullptr)});
  }
  REQUIRE(out.size() > 100);
  return out;
}

/// Distance in units in the last place of T between got and the reference; subnormal results are
/// measured in units of the smallest subnormal. Special values must match exactly.
template <class T>
double ulp_error(T got, long double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0.0 : 1e30;
  const long double big = std::numeric_limits<T>::max();
  if (std::isinf(ref) || std::fabs(ref) > big) {
    if (std::isinf(got) && std::signbit(got) == std::signbit(ref)) return 0.0;
    if (std::isinf(ref)) return 1e30;
  }
  if (std::isnan(got) || std::isinf(got)) return 1e30;
  const long double a = std::fabs(ref);
  int e = 0;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  const int emin = std::numeric_limits<T>::min_exponent;  // 2^(emin-1) is the smallest normal
  const int digits = std::numeric_limits<T>::digits;
  const long double ulp = std::ldexp(1.0L, (e < emin ? emin : e) - digits);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

/// The accuracy target in ULP: 4 for double, 2 for float, plus 1/2 without a fused multiply-add
/// (the Horner steps then round twice).
template <class T>
double ulp_bound() {
#ifdef __FMA__
  const double slack = 0;
#else
  const double slack = 0.5;
#endif
  return (std::is_same_v<T, float> ? 2.0 : 4.0) + slack;
}

/// The unit in the last place of T at a (> 0, normal).
template <class T>
long double ulp_error_unit(long double a) {
  int e = 0;
  std::frexp(a, &e);
  return std::ldexp(1.0L, e - std::numeric_limits<T>::digits);
}

template <class T>
tl::tensor<T, 1> column(const std::vector<row>& rows, bool second = false) {
  tl::tensor<T, 1> t(tl::shape_t<1>{static_cast<tl::index_t>(rows.size())});
  for (std::size_t i = 0; i < rows.size(); ++i) t(static_cast<tl::index_t>(i)) = static_cast<T>(second ? rows[i].y : rows[i].x);
  return t;
}

/// Largest ULP error of a unary function over the reference rows, through both the packet path
/// (a contiguous tensor expression) and the scalar functor (the strided / device path).
template <class T, class Fn, class Factory>
double max_ulp_unary(const std::string& name, Fn fn, Factory factory) {
  const auto rows = load<T>(name);
  const auto x = column<T>(rows);
  tl::tensor<T, 1> y = factory(x);
  double worst = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto k = static_cast<tl::index_t>(i);
    const double e = std::max(ulp_error<T>(y(k), rows[i].ref), ulp_error<T>(fn(x(k)), rows[i].ref));
    if (e > worst) {
      worst = e;
      MESSAGE(name << std::string(std::is_same_v<T, float> ? " float" : " double") << ": " << e << " ULP at x = "
                   << static_cast<double>(x(k)) << " (packet " << static_cast<double>(y(k)) << ", scalar "
                   << static_cast<double>(fn(x(k))) << ", reference " << static_cast<double>(rows[i].ref) << ")");
    }
  }
  return worst;
}

template <class T, class Fn, class Factory>
double max_ulp_binary(const std::string& name, Fn fn, Factory factory) {
  const auto rows = load<T>(name, 2);
  const auto x = column<T>(rows), y = column<T>(rows, true);
  tl::tensor<T, 1> z = factory(x, y);
  double worst = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto k = static_cast<tl::index_t>(i);
    const double e = std::max(ulp_error<T>(z(k), rows[i].ref), ulp_error<T>(fn(x(k), y(k)), rows[i].ref));
    if (e > worst) {
      worst = e;
      MESSAGE(name << std::string(std::is_same_v<T, float> ? " float" : " double") << ": " << e << " ULP at (" << static_cast<double>(x(k))
                   << ", " << static_cast<double>(y(k)) << ")");
    }
  }
  return worst;
}

/// A rank-1 tensor of dtype T holding the given values.
template <class T>
tl::tensor<T, 1> from_list(std::initializer_list<double> l) {
  tl::tensor<T, 1> t(tl::shape_t<1>{static_cast<tl::index_t>(l.size())});
  tl::index_t i = 0;
  for (double x : l) t(i++) = static_cast<T>(x);
  return t;
}

/// A double vector from a list (the autograd tests' inputs).
inline tl::tensor<double, 1> vec(std::initializer_list<double> l) { return from_list<double>(l); }

/// Exact equality including NaN == NaN and the sign of zero.
template <class T>
bool same(T got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == static_cast<T>(want) && std::signbit(got) == std::signbit(want);
}

/// The number of steps of the float sweeps: 2^20 (2^20 + 1 points); 2^16 under AddressSanitizer
/// (tl_test::sanitized: the same code paths, the same ranges and switch points, each step 16 times
/// as wide; the release run checks every point).
inline constexpr std::uint32_t float_sweep_steps = tl_test::sanitized ? 1u << 16 : 1u << 20;

/// float_sweep_steps + 1 float bit patterns spread evenly over [0, inf] (subnormals, the overflow
/// range and +inf included).
inline std::vector<float> float_bit_patterns() {
  const std::uint32_t top = 0x7f800000u, n = float_sweep_steps;
  std::vector<float> vals;
  for (std::uint32_t i = 0; i <= n; ++i) {
    const auto bits = static_cast<std::uint32_t>(static_cast<std::uint64_t>(top) * i / n);
    float v = 0;
    std::memcpy(&v, &bits, sizeof v);
    vals.push_back(v);
  }
  return vals;
}

/// Appends the negatives of vals (in their order).
inline void append_negatives(std::vector<float>& vals) {
  const std::size_t half = vals.size();
  for (std::size_t i = 0; i < half; ++i) vals.push_back(-vals[i]);
}
/// A rank-1 tensor of T (float unless named) holding vals, each cast to T.
template <class T = float, class U>
tl::tensor<T, 1> from_vector(const std::vector<U>& vals) {
  tl::tensor<T, 1> x(tl::shape_t<1>{static_cast<tl::index_t>(vals.size())});
  for (std::size_t i = 0; i < vals.size(); ++i) x(static_cast<tl::index_t>(i)) = static_cast<T>(vals[i]);
  return x;
}

/// Largest error in float ULP of got(k) against ref(k) (a long double), reported with `what` and
/// x(k) each time it grows.
template <class Ref>
double worst_float_error(const std::string& what, const tl::tensor<float, 1>& x, const tl::tensor<float, 1>& got, Ref ref) {
  double worst = 0;
  for (tl::index_t k = 0; k < x.numel(); ++k) {
    const double e = ulp_error<float>(got(k), ref(k));
    if (e > worst) {
      worst = e;
      MESSAGE(what << ": " << e << " ULP at x = " << x(k));
    }
  }
  return worst;
}

}  // namespace special_test
