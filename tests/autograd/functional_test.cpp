// torch.autograd.functional equivalents and higher-order gradients (create_graph).
#define TL_AUTOGRAD 2
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <tl/tensor.hpp>

namespace ag = tl::autograd;
using V1 = tl::tensor<double, 1>;

namespace {
V1 vec(std::initializer_list<double> v) {
  V1 t(tl::shape_t<1>{static_cast<tl::index_t>(v.size())});
  tl::index_t i = 0;
  for (double x : v) t(i++) = x;
  return t;
}
// f(x) = sum(x^3) + x0 * x1
tl::tensor<double, 0> cubic(const V1& x) {
  return tl::tensor<double, 0>(tl::sum(x * x * x) + tl::sum(x.narrow(0, 0, 1) * x.narrow(0, 1, 1)));
}
}  // namespace

TEST_CASE("autograd::grad returns gradients without touching .grad(), with allow_unused") {
  auto x = vec({0.3, -1.2}).requires_grad_();
  auto u = vec({1.0}).requires_grad_();
  tl::tensor<double, 0> y = tl::sum(tl::sin(x));
  auto [gx] = ag::grad(y, std::tie(x), {true});
  CHECK(gx(0) == doctest::Approx(std::cos(0.3)));
  CHECK_FALSE(x.grad().defined());
  auto [g1, g2] = ag::grad(y, std::tie(x, u), {false, false, true});
  CHECK(g1(1) == doctest::Approx(std::cos(-1.2)));
  CHECK_FALSE(g2.defined());
  tl::tensor<double, 0> y2 = tl::sum(x);
  try {
    ag::grad(y2, std::tie(x, u));
    FAIL("unused input accepted");
  } catch (const tl::autograd_error& e) {
    CHECK(std::string(e.what()).find("allow_unused") != std::string::npos);
  }
}

TEST_CASE("create_graph: second derivatives through a fused expression") {
  auto x = vec({0.7, -0.4}).requires_grad_();
  tl::tensor<double, 0> y = tl::sum(tl::sin(x) * x);
  auto [g] = ag::grad(y, std::tie(x), {true, true});
  CHECK(g.requires_grad());
  tl::tensor<double, 0> s = tl::sum(g);
  s.backward();
  for (int i = 0; i < 2; ++i) {
    const double v = x(i);  // d2/dx2 (x sin x) = 2 cos x - x sin x
    CHECK(x.grad()(i) == doctest::Approx(2 * std::cos(v) - v * std::sin(v)).epsilon(1e-12));
  }
}

TEST_CASE("hessian, hvp, vhp of a cubic") {
  const V1 x = vec({0.5, -1.0, 2.0});
  const auto h = ag::hessian(cubic, x);
  CHECK(h.shape() == tl::shape_t<2>{3, 3});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double want = i == j ? 6 * x(i) : 0.0;
      if ((i == 0 && j == 1) || (i == 1 && j == 0)) want += 1.0;
      CHECK(h(i, j) == doctest::Approx(want).epsilon(1e-12));
    }
  const V1 v = vec({1.0, 2.0, -1.0});
  auto [y, hv] = ag::hvp(cubic, x, v);
  CHECK(y.item() == doctest::Approx(0.125 - 1.0 + 8.0 - 0.5));
  for (int i = 0; i < 3; ++i) {
    double want = 0;
    for (int j = 0; j < 3; ++j) want += h(i, j) * v(j);
    CHECK(hv(i) == doctest::Approx(want).epsilon(1e-12));
  }
  auto [y2, vh] = ag::vhp(cubic, x, v);
  CHECK(vh(2) == doctest::Approx(hv(2)));
}

TEST_CASE("jacobian, vjp and jvp agree with each other and with the closed form") {
  const V1 x = vec({0.1, 0.2, 0.3});
  auto f = [](const V1& v) { return V1(tl::exp(v) * v.flip(0)); };  // f_i = e^{x_i} x_{2-i}
  const auto j = ag::jacobian(f, x);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      double want = 0;
      if (k == i) want += std::exp(x(i)) * x(2 - i);
      if (k == 2 - i) want += std::exp(x(i));
      CHECK(j(i, k) == doctest::Approx(want).epsilon(1e-12));
    }
  const V1 u = vec({1.0, -2.0, 0.5});
  auto [y, vj] = ag::vjp(f, x, u);
  auto [y2, jv] = ag::jvp(f, x, u);
  for (int k = 0; k < 3; ++k) {
    double a = 0, b = 0;
    for (int i = 0; i < 3; ++i) {
      a += u(i) * j(i, k);
      b += j(k, i) * u(i);
    }
    CHECK(vj(k) == doctest::Approx(a).epsilon(1e-12));
    CHECK(jv(k) == doctest::Approx(b).epsilon(1e-12));
  }
}

TEST_CASE("gradgradcheck on elementwise ops, reductions, softmax and matmul") {
  using X = tl::tensor<double, 2>;
  tl::manual_seed(11);
  const X x = tl::tensor<double, 2>(tl::rand<double>(2, 3) * 0.8 + 0.2);
  const X w = tl::randn<double>(3, 2);
  CHECK(ag::gradgradcheck([](const X& v) { return X(tl::sin(v) * tl::exp(v) / (v + 1.0)); }, x));
  CHECK(ag::gradgradcheck([](const X& v) { return X(tl::tanh(v) + tl::sigmoid(v) * tl::log(v)); }, x));
  CHECK(ag::gradgradcheck([](const X& v) { return tl::sum(v * v, 1); }, x));
  CHECK(ag::gradgradcheck([](const X& v) { return tl::var(v, 1); }, x));
  CHECK(ag::gradgradcheck([](const X& v) { return tl::std(v, 0); }, x));
  CHECK(ag::gradgradcheck([](const X& v) { return tl::norm(v); }, x));
  CHECK(ag::gradgradcheck([](const X& v) { return tl::logsumexp(v, 1); }, x));
  CHECK(ag::gradgradcheck([](const X& v) { return tl::softmax(v, 1); }, x));
  CHECK(ag::gradgradcheck([](const X& v) { return tl::log_softmax(v, 0); }, x));
  CHECK(ag::gradgradcheck([&](const X& v) { return tl::matmul(v, w); }, x));
  CHECK(ag::gradgradcheck([](const X& v) { return X(v.t().contiguous() * 2.0).t().contiguous(); }, x));
  CHECK(ag::gradgradcheck([](const X& v) { return tl::cumprod(v, 1); }, x));
}

TEST_CASE("without TL_AUTOGRAD=2 create_graph is refused; here it works") {
  auto x = vec({1.0}).requires_grad_();
  tl::tensor<double, 0> y = tl::sum(x * x);
  auto [g] = ag::grad(y, std::tie(x), {true, true});
  CHECK(g.requires_grad());
}
