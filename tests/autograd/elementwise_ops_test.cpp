// Gradients of elementwise ops (unary, binary, ternary, with broadcasting), checked with gradcheck
// (central finite differences in double) and against closed forms.
#define TL_AUTOGRAD 1
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <tl/tensor.hpp>

#include "sample_util.hpp"

namespace ag = tl::autograd;
using tl_test::sample;

TEST_CASE("gradcheck: unary elementwise ops") {
  const auto x = sample(2, 3, 0.2, 0.9, 1);  // inside every domain below
  using X = tl::tensor<double, 2>;
  CHECK(ag::gradcheck([](const X& v) { return X(-v); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::sqrt(v) + tl::rsqrt(v)); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::exp(v) + tl::exp2(v) + tl::expm1(v)); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::log(v) + tl::log2(v) + tl::log10(v) + tl::log1p(v)); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::sin(v) * tl::cos(v) + tl::tan(v)); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::asin(v) + tl::acos(v) * 2.0 + tl::atan(v)); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::sinh(v) + tl::cosh(v) + tl::tanh(v)); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::asinh(v) + tl::acosh(v + 1.5) + tl::atanh(v * 0.9)); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::sigmoid(v) + tl::gelu(v - 0.5) + tl::softplus(v, 2.0)); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::square(v) + tl::abs(v - 0.5) + tl::relu(v - 0.5)); }, x));
  // a float round trip: finite differences need a larger step than float's resolution
  CHECK(ag::gradcheck([](const X& v) { return X(tl::astype<double>(tl::astype<float>(v)) * v); }, x,
                      {1e-3, 1e-3, 1e-3}));
  auto f = X(x.clone()).requires_grad_();
  tl::tensor<double, 0> fr = tl::sum(tl::frac(f * 3.0));  // d frac(u) / du = 1 between the jumps
  fr.backward();
  CHECK(f.grad()(1, 2) == doctest::Approx(3.0));
}

TEST_CASE("gradcheck: binary and ternary ops, with broadcasting") {
  const auto x = sample(3, 4, 0.5, 1.5, 2);
  const auto y = sample(1, 4, 0.5, 1.5, 3);
  using X = tl::tensor<double, 2>;
  CHECK(ag::gradcheck([&](const X& v) { return X(v * y + v / y - (y - v)); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return X(v * y + v / y - (y - v)); }, y));
  CHECK(ag::gradcheck([&](const X& v) { return X(tl::pow(v, y) + tl::pow(y, v) + tl::pow(v, 3.0)); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return X(tl::pow(v, y) + tl::pow(y, v)); }, y));
  CHECK(ag::gradcheck([&](const X& v) { return X(tl::atan2(v, y) + tl::hypot(v, y)); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return X(tl::atan2(y, v) + tl::hypot(y, v)); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return X(tl::maximum(v, y) + tl::minimum(v, y * 1.1)); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return X(tl::fmod(v * 3.0, y) + tl::remainder(v * 3.0, y)); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return X(tl::where(v > 1.0, v * v, tl::exp(v))); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return X(tl::clamp(v, 0.8, 1.2) + tl::lerp(v, y, 0.3)); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return X(tl::lerp(y, v, v * 0.5)); }, x));
}

TEST_CASE("maximum splits the gradient evenly on ties, as torch does") {
  auto a = tl::full<double>(tl::shape_t<1>{2}, 1.0).requires_grad_();
  auto b = tl::full<double>(tl::shape_t<1>{2}, 1.0).requires_grad_();
  tl::tensor<double, 1> m = tl::maximum(a, b);
  m.backward(tl::ones<double>(tl::shape_t<1>{2}));
  CHECK(a.grad()(0) == doctest::Approx(0.5));
  CHECK(b.grad()(1) == doctest::Approx(0.5));
}
