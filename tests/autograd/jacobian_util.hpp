#pragma once
// Shared comparison helper of the vectorized jacobian / hessian tests.
#include <doctest/doctest.h>

#include <cmath>

#include <tl/tensor.hpp>

namespace tl_test {
/// |v| of a real or complex value.
template <class T>
double magnitude(const T& v) {
  if constexpr (tl::is_complex_v<T>) return static_cast<double>(tl::abs(v));
  else return static_cast<double>(std::abs(v));
}
/// a and b have one shape and agree elementwise to tol relative to 1 + |b| (real or complex).
template <class A, class B>
void check_same(const A& a, const B& b, double tol) {
  REQUIRE(a.shape() == b.shape());
  const auto fa = tl::tensor<typename A::value_type, 1>(a.contiguous().reshape(a.numel()));
  const auto fb = tl::tensor<typename B::value_type, 1>(b.contiguous().reshape(b.numel()));
  for (tl::index_t i = 0; i < fa.numel(); ++i) {
    const double ref = magnitude(fb(i));
    CHECK(magnitude(fa(i) - fb(i)) <= tol * (1 + ref));
  }
}
}  // namespace tl_test
