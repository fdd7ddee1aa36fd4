#pragma once
// Shared by the CUDA tests of floating results: the relative RMS difference of a device result and
// the host result of the same computation.
#include <doctest/doctest.h>

#include <cmath>
#include <tl/cuda.hpp>
#include <type_traits>

namespace tl_test {

/// ||dev - host|| / ||host|| (||dev - host|| where host is zero), over every element.
template <class A, class B>
double rel_rms(const A& dev, const B& host) {
  REQUIRE(dev.is_cuda());
  REQUIRE(dev.shape() == host.shape());
  const auto a = dev.cpu().contiguous();
  const auto b = host.contiguous();
  double num = 0, den = 0;
  for (tl::index_t i = 0; i < b.numel(); ++i) {
    const auto d = a.data()[i] - b.data()[i];
    const auto v = b.data()[i];
    if constexpr (tl::is_complex_v<std::remove_cvref_t<decltype(v)>>) {
      num += static_cast<double>(d.re) * d.re + static_cast<double>(d.im) * d.im;
      den += static_cast<double>(v.re) * v.re + static_cast<double>(v.im) * v.im;
    } else {
      num += static_cast<double>(d) * d;
      den += static_cast<double>(v) * v;
    }
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

}  // namespace tl_test
