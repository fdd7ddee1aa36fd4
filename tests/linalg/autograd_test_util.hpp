// Shared helpers of the tl::linalg autograd tests: deterministic well-conditioned inputs and
// Hermitian positive-definite matrices built from unconstrained ones.
#pragma once

#include <cmath>

#include <tl/linalg/linalg.hpp>
// after linalg.hpp, which brings the evaluator and the autograd layer gradcheck builds on
#include <tl/autograd/gradcheck.hpp>

namespace tl_linalg_ag_test {
using tl::index_t;
using cd = tl::complex<double>;
namespace ag = tl::autograd;
namespace la = tl::linalg;

/// A deterministic matrix batch of shape s; `shift` is added to the diagonal of the last two dims
/// (square) to keep it well conditioned.
template <class V, std::size_t R>
tl::tensor<V, R> input(const tl::shape_t<R>& s, double shift = 0, double seed = 0.3) {
  tl::tensor<V, R> t(s);
  const index_t n = s[R - 1], m = R >= 2 ? s[R - 2] : 1;
  for (index_t i = 0; i < t.numel(); ++i) {
    const double a = std::sin(0.7 * static_cast<double>(i) + seed), b = std::cos(1.3 * static_cast<double>(i) + seed);
    const index_t r = (i / n) % m, c = i % n;
    const double d = (R >= 2 && r == c) ? shift : 0;
    if constexpr (tl::is_complex_v<V>)
      t.data()[i] = V(a + d, b);
    else
      t.data()[i] = a + d;
  }
  return t;
}

/// Hermitian positive-definite batches from an unconstrained input x: x x^H + n I (a recorded
/// expression, so gradcheck sees cholesky's gradient on Hermitian inputs, as torch's tests do).
template <class X, class V = typename X::value_type, std::size_t R = X::rank>
tl::tensor<V, R> hpd(const X& x) {
  const index_t n = x.shape()[R - 1];
  const auto id = tl::eye<V>(n);
  return tl::tensor<V, R>(tl::matmul(x, x.mH()) + id * V(static_cast<double>(n)));
}

/// Square systems for both sides: A [2, 3, 3] (diagonal shifted by `shift`), B [2, 3, 2] for
/// A X = B and Bt [2, 2, 3] for X A = Bt.
template <class V>
struct systems {
  tl::tensor<V, 3> a, b, bt;
  explicit systems(double shift)
      : a(input<V, 3>({2, 3, 3}, shift)), b(input<V, 3>({2, 3, 2}, 0, 0.8)), bt(input<V, 3>({2, 2, 3}, 0, 0.8)) {}
};
}  // namespace tl_linalg_ag_test
