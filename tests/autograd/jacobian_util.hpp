#pragma once
// Shared helpers of the vectorized jacobian / hessian tests: an elementwise comparison and a
// central-difference jacobian.
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

/// Central differences of f at x: [f(x).numel(), x.numel()], in double.
template <class F, class X>
tl::tensor<double, 2> numeric_jacobian(F f, const X& x) {
  const X x0 = x.clone();
  const auto y0 = tl::eval(f(x0));
  const tl::index_t m = y0.numel(), n = x0.numel();
  tl::tensor<double, 2> j(tl::shape_t<2>{m, n});
  const double h = 1e-6;
  for (tl::index_t k = 0; k < n; ++k) {
    X xp = x0.clone(), xm = x0.clone();
    xp.reshape(n)(k) += h;
    xm.reshape(n)(k) -= h;
    const auto yp = tl::eval(f(xp)), ym = tl::eval(f(xm));
    const auto fp = yp.contiguous().reshape(m), fm = ym.contiguous().reshape(m);
    for (tl::index_t i = 0; i < m; ++i) j(i, k) = (fp(i) - fm(i)) / (2 * h);
  }
  return j;
}
}  // namespace tl_test
