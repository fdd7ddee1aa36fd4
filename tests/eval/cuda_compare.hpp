#pragma once
// Shared by the CUDA reduction and scan tests: run a computation on host tensors and on their
// device copies and compare (exactly for integer, bool, min/max/arg and sort results, within a
// stated relative tolerance for floating sums: the device combines in a different, but fixed, order).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <tl/cuda.hpp>

namespace {

const tl::device cuda0 = tl::device::cuda(0);
constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_d = std::numeric_limits<double>::infinity();

/// Relative tolerance of floating results for dtype T (float: a few hundred ULP of headroom for
/// sums in a different order; double: the same in double).
template <class T>
double rtol() {
  using R = tl::real_t<T>;
  if constexpr (std::is_same_v<R, float>) return 2e-5;
  else return 1e-12;
}

template <class T>
bool near(const T& x, const T& y, double rt, double at) {
  if constexpr (tl::is_complex_v<T>) {
    return near(x.re, y.re, rt, at) && near(x.im, y.im, rt, at);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(y)) return std::isnan(x);
    if (std::isinf(y)) return x == y;
    return std::abs(static_cast<double>(x) - static_cast<double>(y)) <= at + rt * std::abs(static_cast<double>(y));
  } else {
    return x == y;
  }
}

/// The device result `dev` equals the host result `host` (same shape; within rt / at for floating).
template <class T, class Ext>
void check_near(const tl::basic_tensor<T, Ext>& dev, const tl::basic_tensor<T, Ext>& host, double rt = 0,
                double at = 0) {
  REQUIRE(dev.is_cuda());
  REQUIRE(dev.shape() == host.shape());
  const auto a = dev.cpu().contiguous();
  const auto b = host.contiguous();
  int reported = 0;
  for (tl::index_t i = 0; i < a.numel(); ++i) {
    const T x = a.data()[i], y = b.data()[i];
    const bool ok = near(x, y, rt, at);
    if (!ok && reported++ < 5) CHECK_MESSAGE(ok, "flat index ", i, ": device ", x, " vs host ", y);
  }
  CHECK(reported == 0);
}

/// The same computation on host tensors and on their device copies.
template <class F, class... H>
void same_on_device(F f, double rt, double at, const H&... host) {
  const auto h = tl::eval(f(host...));  // reductions with tl::keepdim are expressions
  const auto d = tl::eval(f(host.cuda()...));
  check_near(d, h, rt, at);
}
template <class F, class... H>
void exact_on_device(F f, const H&... host) {
  same_on_device(f, 0, 0, host...);
}

/// Both results of max(x, dim) / min(x, dim) / sort(x, dim).
template <class F, class... H>
void pair_on_device(F f, const H&... host) {
  const auto h = f(host...);
  const auto d = f(host.cuda()...);
  check_near(d.values, h.values);
  check_near(d.indices, h.indices);
}

/// The bytes of a tensor's elements (bit-identity checks).
template <class T, class Ext>
std::vector<unsigned char> bytes_of(const tl::basic_tensor<T, Ext>& t) {
  const auto h = t.cpu().contiguous();
  std::vector<unsigned char> b(static_cast<std::size_t>(h.numel()) * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), h.data(), b.size());
  return b;
}

template <class T, std::size_t R>
tl::tensor<T, R> uniform(const tl::shape_t<R>& s) {
  return tl::rand<T>(s);
}

}  // namespace

