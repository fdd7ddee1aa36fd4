// Gradients of reductions, scans, softmax, matmul, complex ops and cat/stack/split, checked with
// gradcheck (central finite differences in double) and against closed forms.
#define TL_AUTOGRAD 1
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <tl/tensor.hpp>

#include "sample_util.hpp"

namespace ag = tl::autograd;
using tl_test::sample;

TEST_CASE("gradcheck: reductions over all dims and over chosen dims") {
  const auto x = sample(3, 4, -1.0, 1.0, 4);
  using X = tl::tensor<double, 2>;
  CHECK(ag::gradcheck([](const X& v) { return tl::sum(v * v); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::sum(tl::sin(v), 1); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::mean(v, 0, tl::keepdim); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::prod(v, 1); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::amax(v, 0); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::amin(v); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::max(v, 1).values; }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::var(v, 1); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::var(v, 0, tl::correction{0}); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::std(v, tl::dims{0, 1}); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::norm(v); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::norm(v, 1.0, 1); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::norm(v, 3.0, 0); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::norm(v, std::numeric_limits<double>::infinity(), 1); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::logsumexp(v, 1); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::softmax(v, 1); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::log_softmax(v, 0); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::cumsum(v, 1); }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::cumprod(v, 0); }, x));
}

TEST_CASE("gradcheck: keepdim reductions inside expressions (fused into the rows when not recording)") {
  const auto x = sample(3, 4, -1.0, 1.0, 5);
  using X = tl::tensor<double, 2>;
  CHECK(ag::gradcheck([](const X& v) { return X(v - tl::mean(v, -1, tl::keepdim)); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(v / tl::sum(v * v, 1, tl::keepdim)); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::exp(v - tl::amax(v, -1, tl::keepdim))); }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(v * tl::prod(v, 0, tl::keepdim)); }, x));
  // Backward through a recorded keepdim reduction used inside an expression.
  const X w = x.clone().requires_grad_();
  const auto m = tl::mean(w, -1, tl::keepdim);
  const X y = w - m;
  tl::sum(y * y).backward();
  // d/dw sum((w - mean)^2) = 2 (w - mean) (the deviations of a row sum to zero).
  const X want = 2.0 * (x - tl::mean(x, -1, tl::keepdim));
  CHECK(tl::amax(tl::abs(w.grad() - want)).item() < 1e-12);
  // A reduction of a tensor that does not require grad, beside one that does: recorded as a leaf
  // over its values, which equal the eager reduction's bit for bit.
  const X v = x.clone().requires_grad_();
  const X z = v * 3.0 - tl::sum(x * x, -1, tl::keepdim);
  const tl::tensor<double, 1> rs = tl::sum(x * x, -1);
  for (tl::index_t i = 0; i < 3; ++i)
    for (tl::index_t j = 0; j < 4; ++j) CHECK(z(i, j) == x(i, j) * 3.0 - rs(i));
  tl::sum(z).backward();
  CHECK(tl::amin(v.grad()).item() == 3.0);
  CHECK(tl::amax(v.grad()).item() == 3.0);
}

TEST_CASE("fused backward: a tensor used at several places, some of which no gradient reaches") {
  using X = tl::tensor<double, 2>;
  const auto x0 = sample(3, 40, -3.0, 3.0, 6);
  // floor has no gradient: the first place of x gets none, the second and third do.
  const X x = x0.clone().requires_grad_();
  tl::sum(tl::floor(x) * x + x * x).backward();
  const X want = tl::floor(x0) + 2.0 * x0;
  CHECK(tl::amax(tl::abs(x.grad() - want)).item() < 1e-14);
  // No place is reached: the gradient is zero, not uninitialized memory.
  const X y = x0.clone().requires_grad_();
  const X w = x0.clone().requires_grad_();
  tl::sum(tl::floor(y) * tl::floor(w) + w).backward();
  CHECK(tl::amax(tl::abs(y.grad())).item() == 0.0);
  CHECK(tl::amin(w.grad()).item() == 1.0);
  CHECK(tl::amax(w.grad()).item() == 1.0);
}

TEST_CASE("special points: prod with zeros, norm at zero, max ties, cumprod with zeros") {
  using X = tl::tensor<double, 1>;
  X x(tl::shape_t<1>{4});
  x(0) = 2.0;
  x(1) = 0.0;
  x(2) = 3.0;
  x(3) = -1.0;
  {
    auto v = X(x.clone()).requires_grad_();
    tl::tensor<double, 0> p = tl::prod(v);
    p.backward();
    CHECK(v.grad()(1) == doctest::Approx(-6.0));  // product of the others
    CHECK(v.grad()(0) == 0.0);
  }
  {
    X two = x.clone();
    two(3) = 0.0;  // two zeros: every gradient is 0
    auto v = two.requires_grad_();
    tl::tensor<double, 0> p = tl::prod(v);
    p.backward();
    for (int i = 0; i < 4; ++i) CHECK(v.grad()(i) == 0.0);
  }
  {
    auto v = tl::zeros<double>(tl::shape_t<1>{3}).requires_grad_();
    tl::tensor<double, 0> n = tl::norm(v);
    n.backward();
    for (int i = 0; i < 3; ++i) CHECK(v.grad()(i) == 0.0);  // subgradient 0, never NaN
  }
  {
    X t(tl::shape_t<1>{3});
    t(0) = 5.0;
    t(1) = 5.0;
    t(2) = 1.0;
    auto v = t.requires_grad_();
    tl::tensor<double, 0> m = tl::amax(v);
    m.backward();
    CHECK(v.grad()(0) == doctest::Approx(0.5));  // ties share the gradient
    CHECK(v.grad()(2) == 0.0);
    auto w = X(t.detach().clone()).requires_grad_();  // t.clone() would be a non-leaf (t requires grad)
    auto [val, idx] = tl::max(w.unsqueeze(0), 1);
    tl::tensor<double, 0> s = tl::sum(val);
    s.backward();
    CHECK(idx(0) == 0);
    CHECK(w.grad()(0) == 1.0);  // max(dim) sends it to the selected index only
    CHECK(w.grad()(1) == 0.0);
  }
  CHECK(ag::gradcheck([](const X& v) { return tl::cumprod(v, 0); }, x));
}

TEST_CASE_TEMPLATE("cumprod with zeros: the vector-Jacobian product against its definition", V, double, tl::complex<double>) {
  // grad x_k = sum_{j >= k} g_j conj(prod_{i <= j, i != k} x_i) along the scanned dim, from the
  // definition (an O(n^2) loop here); slices with no zero, one zero (first, inner, last) and
  // several, along each dim of a [3, 4, 6] tensor, with a random cotangent.
  using X = tl::tensor<V, 3>;
  const auto mk = [](double re, double im) {
    if constexpr (std::is_same_v<V, double>) return V(re + 0 * im);
    else return V(re, im);
  };
  const auto cj = [](const V& v) {
    if constexpr (std::is_same_v<V, double>) return v;
    else return tl::conj(v);
  };
  X x(tl::shape_t<3>{3, 4, 6}), g(tl::shape_t<3>{3, 4, 6});
  std::uint32_t s = 11;
  const auto u = [&s] {
    s = s * 1664525u + 1013904223u;
    return static_cast<double>(s >> 8) / 16777216.0 * 2 - 1;
  };
  for (tl::index_t a = 0; a < 3; ++a)
    for (tl::index_t b = 0; b < 4; ++b)
      for (tl::index_t c = 0; c < 6; ++c) {
        x(a, b, c) = mk(u() + (u() > 0 ? 0.5 : -0.5), u());
        g(a, b, c) = mk(u(), u());
      }
  for (const auto& [a, b, c] : std::initializer_list<std::array<tl::index_t, 3>>{
           {0, 0, 0}, {0, 1, 3}, {0, 2, 5}, {1, 0, 2}, {1, 0, 4}, {2, 3, 0}, {2, 3, 1}, {2, 3, 5}, {1, 2, 3}})
    x(a, b, c) = mk(0, 0);
  for (int d = 0; d < 3; ++d) {
    auto v = X(x.clone()).requires_grad_();
    X y = tl::cumprod(v, d);
    y.backward(g);
    const tl::index_t n = x.shape()[static_cast<std::size_t>(d)];
    double worst = 0;
    for (tl::index_t a = 0; a < 3; ++a)
      for (tl::index_t b = 0; b < 4; ++b)
        for (tl::index_t c = 0; c < 6; ++c) {
          std::array<tl::index_t, 3> at{a, b, c};
          const tl::index_t k = at[static_cast<std::size_t>(d)];
          V want = mk(0, 0);
          for (tl::index_t j = k; j < n; ++j) {
            V p = mk(1, 0);
            for (tl::index_t i = 0; i <= j; ++i) {
              if (i == k) continue;
              at[static_cast<std::size_t>(d)] = i;
              p = p * x(at[0], at[1], at[2]);
            }
            at[static_cast<std::size_t>(d)] = j;
            want = want + g(at[0], at[1], at[2]) * cj(p);
          }
          const V e = v.grad()(a, b, c) - want;
          if constexpr (std::is_same_v<V, double>) worst = std::max(worst, std::fabs(e));
          else worst = std::max(worst, tl::abs(e));
        }
    CHECK_MESSAGE(worst <= 1e-13, "dim " << d << ": " << worst);
  }
}

TEST_CASE("gradcheck: matmul with batch broadcasting and 1-D operands") {
  using namespace tl;
  manual_seed(5);
  const tensor<double, 3> a = randn<double>(2, 3, 4);
  const tensor<double, 2> b = randn<double>(4, 5);
  const tensor<double, 1> v = randn<double>(4);
  CHECK(ag::gradcheck([&](const tensor<double, 3>& x) { return tl::matmul(x, b); }, a));
  CHECK(ag::gradcheck([&](const tensor<double, 2>& x) { return tl::matmul(a, x); }, b));
  CHECK(ag::gradcheck([&](const tensor<double, 1>& x) { return tl::matmul(a, x); }, v));
  CHECK(ag::gradcheck([&](const tensor<double, 1>& x) { return tl::matmul(x, b); }, v));
  CHECK(ag::gradcheck([&](const tensor<double, 1>& x) { return tl::matmul(x, x); }, v));
}

TEST_CASE("gradcheck: complex ops, holomorphic and not") {
  using C = tl::complex<double>;
  tl::manual_seed(6);
  tl::tensor<C, 1> z(tl::shape_t<1>{3});
  z(0) = C(0.5, 0.3);
  z(1) = C(-0.7, 0.4);
  z(2) = C(0.2, -0.9);
  using Z = tl::tensor<C, 1>;
  CHECK(ag::gradcheck([](const Z& v) { return Z(v * v + tl::exp(v) - tl::sin(v) / (v + 2.0)); }, z));
  CHECK(ag::gradcheck([](const Z& v) { return Z(tl::conj(v) * v + tl::log(v)); }, z));
  CHECK(ag::gradcheck([](const Z& v) { return tl::tensor<double, 1>(tl::abs(v) + tl::angle(v)); }, z));
  CHECK(ag::gradcheck([](const Z& v) { return tl::tensor<double, 1>(tl::real(v) * tl::imag(v)); }, z));
  CHECK(ag::gradcheck([](const Z& v) { return tl::norm(v); }, z));
  CHECK(ag::gradcheck([](const Z& v) { return tl::sum(v * v); }, z));
  const tl::tensor<double, 1> r = tl::abs(z);
  CHECK(ag::gradcheck([&](const tl::tensor<double, 1>& a) { return Z(tl::polar(a, r)); }, r));
}

TEST_CASE("gradcheck reports the worst element on failure") {
  const auto x = sample(1, 3, 0.5, 1.0, 7);
  using X = tl::tensor<double, 2>;
  // a function whose "gradient" is wrong: the hook doubles it
  auto bad = [](const X& v) {
    X h = v * 1.0;
    h.register_hook([](const X& g) { return X(g * 2.0); });
    return X(h * h);
  };
  try {
    ag::gradcheck(bad, x);
    FAIL("gradcheck accepted a wrong gradient");
  } catch (const tl::autograd_error& e) {
    const std::string m = e.what();
    CHECK(m.find("Jacobian mismatch") != std::string::npos);
    CHECK(m.find("analytical") != std::string::npos);
    CHECK(m.find("numerical") != std::string::npos);
  }
  CHECK_FALSE(ag::gradcheck(bad, x, {1e-6, 1e-5, 1e-3, false}));
  // Wrong entries of a complex Jacobian: the gradient of input element 2 gains an imaginary part
  // for output 2's cotangents only, so only the derivatives of y_2 with respect to Im(x_2) are
  // off; the error names one of them.
  using Z = tl::tensor<tl::complex<double>, 1>;
  const Z z = tl::astype<tl::complex<double>>(tl::tensor<double, 1>(x.reshape(3)));
  auto bad_at_2 = [](const Z& v) {
    Z h = v * 1.0;
    h.register_hook([](const Z& g) {
      Z r = g.clone();
      r(2) = r(2) + tl::complex<double>(0, 1) * tl::abs(g(2));
      return r;
    });
    return Z(h * 2.0);
  };
  try {
    ag::gradcheck(bad_at_2, z);
    FAIL("gradcheck accepted a wrong gradient");
  } catch (const tl::autograd_error& e) {
    const std::string m = e.what();
    const bool re = m.find("output 2 (real) with respect to input element 2 (imag)") != std::string::npos;
    const bool im = m.find("output 2 (imag) with respect to input element 2 (imag)") != std::string::npos;
    CHECK_MESSAGE((re || im), m);
  }
}

TEST_CASE("cat, stack and split pass gradients to their pieces") {
  using X = tl::tensor<double, 2>;
  const auto a = sample(2, 3, -1.0, 1.0, 8);
  const auto b = sample(2, 2, -1.0, 1.0, 9);
  CHECK(ag::gradcheck([&](const X& v) { return tl::cat({v, b}, 1); }, a));
  CHECK(ag::gradcheck([&](const X& v) { return tl::cat({b, X(v * v), b}, 1); }, a));
  CHECK(ag::gradcheck([&](const X& v) { return tl::stack({v, X(v * 2.0)}, 0); }, a));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::split(v, 2, 1)[1] * 3.0); }, a));
  auto x = X(a.clone()).requires_grad_();
  auto y = tl::cat({x, x}, 0);
  CHECK(y.grad_fn_name() == "CatBackward");
  tl::tensor<double, 0> s = tl::sum(y);
  s.backward();
  CHECK(x.grad()(1, 2) == doctest::Approx(2.0));
}

TEST_CASE("an evaluated lazy conjugate keeps its link to the graph") {
  // Autograd's evaluation of a conjugate view (a temporary or a named view) must keep the view's
  // gradient: the gradient through it equals the gradient through the view itself.
  using C = tl::complex<double>;
  const auto leaf = [] {
    tl::tensor<C, 1> t(tl::shape_t<1>{3});
    for (int i = 0; i < 3; ++i) t(i) = C(1.0 + i, 0.5 * i - 0.25);
    return t.requires_grad_();
  };
  tl::tensor<C, 1> w(tl::shape_t<1>{3});
  for (int i = 0; i < 3; ++i) w(i) = C(0.5 - i, 1.0 + 0.5 * i);
  auto a = leaf(), b = leaf(), c = leaf();
  const auto ma = tl::detail::materialize(tl::conj(a));
  auto view = tl::conj(b);
  const auto mb = tl::detail::materialize(view);
  REQUIRE(ma.requires_grad());
  REQUIRE(mb.requires_grad());
  tl::sum(tl::real(ma * w)).backward();
  tl::sum(tl::real(mb * w)).backward();
  tl::sum(tl::real(tl::conj(c) * w)).backward();
  for (int i = 0; i < 3; ++i) {
    CHECK(a.grad()(i) == c.grad()(i));
    CHECK(b.grad()(i) == c.grad()(i));
  }
}
