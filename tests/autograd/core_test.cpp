// Autograd engine: recording, backward, accumulation, graph lifetime, hooks, grad modes, views, errors.
#define TL_AUTOGRAD 1
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <tl/tensor.hpp>

#include "../test_util.hpp"

namespace {
tl::tensor<double, 1> vec(std::initializer_list<double> v) {
  tl::tensor<double, 1> t(tl::shape_t<1>{static_cast<tl::index_t>(v.size())});
  tl::index_t i = 0;
  for (double x : v) t(i++) = x;
  return t;
}
std::int64_t live_nodes() { return tl::detail::thread_tape()->live.load(); }

using tl_test::error_of;
}  // namespace

TEST_CASE("a fused expression records one node and its gradients match the analytic ones") {
  auto x = vec({0.5, -1.25, 2.0}).requires_grad_();
  auto w = vec({1.5, 2.0, -0.75}).requires_grad_();
  const auto before = tl::detail::thread_tape()->recorded.load();
  tl::tensor<double, 1> y = tl::sin(x) * w + tl::exp(-x) * x;
  CHECK(tl::detail::thread_tape()->recorded.load() - before == 1);
  CHECK_FALSE(y.is_leaf());
  CHECK(y.grad_fn_name().rfind("FusedBackward[", 0) == 0);
  y.backward(tl::ones<double>(tl::shape_t<1>{3}));
  for (int i = 0; i < 3; ++i) {
    const double xv = x(i), wv = w(i);
    CHECK(x.grad()(i) == doctest::Approx(std::cos(xv) * wv + std::exp(-xv) - xv * std::exp(-xv)).epsilon(1e-14));
    CHECK(w.grad()(i) == doctest::Approx(std::sin(xv)).epsilon(1e-14));
  }
}

TEST_CASE("a leaf used at several places: all adjoints in one pass, contiguous, strided and broadcast") {
  // f = tanh(sin(x) w + exp(-x^2) - sigmoid(w) x): x at four places, w at two; the backward
  // computes the six adjoints in one pass and sums them per tensor.
  const auto analytic = [](double xv, double wv) {
    const double sg = 1 / (1 + std::exp(-wv));
    const double t = std::tanh(std::sin(xv) * wv + std::exp(-xv * xv) - sg * xv);
    const double dx = (1 - t * t) * (std::cos(xv) * wv - 2 * xv * std::exp(-xv * xv) - sg);
    const double dw = (1 - t * t) * (std::sin(xv) - sg * (1 - sg) * xv);
    return std::make_pair(dx, dw);
  };
  tl::manual_seed(3);
  for (const bool strided : {false, true}) {
    CAPTURE(strided);
    tl::tensor<double, 2> xs = tl::randn<double>(70, 50), ws = tl::randn<double>(70, 50);
    auto x = (strided ? tl::tensor<double, 2>(xs.t()) : xs).requires_grad_();
    auto w = (strided ? tl::tensor<double, 2>(ws.t()) : ws).requires_grad_();
    if (strided) CHECK_FALSE(x.is_contiguous());
    int hook_calls = 0;
    x.register_hook([&](const tl::tensor<double, 2>& g) {
      ++hook_calls;
      return g;
    });
    tl::tensor<double, 2> y = tl::tanh(tl::sin(x) * w + tl::exp(-(x * x)) - tl::sigmoid(w) * x);
    tl::tensor<double, 0> loss = tl::sum(y);  // its gradient reaches y as a broadcast (stride-0) tensor
    loss.backward();
    CHECK(hook_calls == 1);  // the four uses of x arrive summed, as one gradient
    double worst = 0;
    for (tl::index_t i = 0; i < x.shape()[0]; ++i)
      for (tl::index_t j = 0; j < x.shape()[1]; ++j) {
        const auto [dx, dw] = analytic(x(i, j), w(i, j));
        worst = std::max({worst, std::abs(x.grad()(i, j) - dx) / (1 + std::abs(dx)),
                          std::abs(w.grad()(i, j) - dw) / (1 + std::abs(dw))});
      }
    CHECK(worst < 1e-13);
  }
  // A broadcast leaf beside full-shape ones: the full-shape leaves join the pass, b is summed.
  auto m = tl::full<double>(tl::shape_t<2>{4, 3}, 2.0).requires_grad_();
  auto b = vec({1.0, 2.0, 3.0}).requires_grad_();
  tl::tensor<double, 2> z = tl::exp(m) * b + m * m;
  z.backward(tl::ones<double>(tl::shape_t<2>{4, 3}));
  for (int j = 0; j < 3; ++j) {
    CHECK(b.grad()(j) == doctest::Approx(4 * std::exp(2.0)).epsilon(1e-14));
    CHECK(m.grad()(1, j) == doctest::Approx(std::exp(2.0) * (j + 1) + 4.0).epsilon(1e-14));
  }
}

TEST_CASE("gradients accumulate across backward calls and zero_grad clears them") {
  auto x = vec({1.0, 2.0}).requires_grad_();
  for (int k = 0; k < 3; ++k) {
    tl::tensor<double, 0> l = tl::sum(x * x);
    l.backward();
  }
  CHECK(x.grad()(0) == doctest::Approx(6.0));
  CHECK(x.grad()(1) == doctest::Approx(12.0));
  x.zero_grad();
  CHECK_FALSE(x.grad().defined());
  tl::tensor<double, 0> l = tl::sum(x);
  l.backward();
  CHECK(x.grad()(1) == doctest::Approx(1.0));
  x.zero_grad(false);
  CHECK(x.grad().defined());
  CHECK(x.grad()(0) == 0.0);
}

TEST_CASE("a tensor used twice gets both contributions; broadcasting sums over broadcast dims") {
  auto a = vec({3.0, -2.0}).requires_grad_();
  tl::tensor<double, 1> y = a * a;  // d/da = 2a
  y.backward(tl::ones<double>(tl::shape_t<1>{2}));
  CHECK(a.grad()(0) == doctest::Approx(6.0));
  CHECK(a.grad()(1) == doctest::Approx(-4.0));

  auto b = vec({1.0, 2.0, 3.0}).requires_grad_();
  auto m = tl::full<double>(tl::shape_t<2>{4, 3}, 2.0).requires_grad_();
  auto s = tl::full<double>(tl::shape_t<0>{}, 0.5).requires_grad_();
  tl::tensor<double, 2> z = m * b + s;
  z.backward(tl::ones<double>(tl::shape_t<2>{4, 3}));
  for (int j = 0; j < 3; ++j) CHECK(b.grad()(j) == doctest::Approx(8.0));  // sum over 4 rows of m
  CHECK(m.grad()(3, 2) == doctest::Approx(3.0));
  CHECK(s.grad().item() == doctest::Approx(12.0));
}

TEST_CASE("mixed dtypes: a float leaf in a double expression gets a float gradient") {
  tl::tensor<float, 1> f(tl::shape_t<1>{2});
  f(0) = 1.5f;
  f(1) = -2.0f;
  f.requires_grad_();
  auto d = vec({2.0, 4.0}).requires_grad_();
  tl::tensor<double, 1> y = f * d;
  y.backward(tl::ones<double>(tl::shape_t<1>{2}));
  CHECK(f.grad()(0) == doctest::Approx(2.0f));
  CHECK(f.grad()(1) == doctest::Approx(4.0f));
  CHECK(d.grad()(1) == doctest::Approx(-2.0));
}

TEST_CASE("the graph is freed after backward unless retained") {
  const auto live0 = live_nodes();
  auto x = vec({1.0, 2.0}).requires_grad_();
  {
    tl::tensor<double, 1> y = tl::exp(x);
    tl::tensor<double, 0> l = tl::sum(y);
    CHECK(live_nodes() - live0 == 2);
    l.backward(true);  // retain_graph
    l.backward();      // allowed: retained
    CHECK(x.grad()(0) == doctest::Approx(2 * std::exp(1.0)));
    const auto msg = error_of([&] { l.backward(); });
    CHECK(msg.find("backward through the graph a second time") != std::string::npos);
    CHECK(msg.find("retain_graph") != std::string::npos);
  }
  CHECK(live_nodes() == live0);  // the graph went away with its tensors
}

TEST_CASE("no_grad and inference_mode record nothing") {
  auto x = vec({1.0, 2.0}).requires_grad_();
  const auto rec0 = tl::detail::thread_tape()->recorded.load();
  {
    tl::no_grad guard;
    CHECK_FALSE(tl::is_grad_enabled());
    tl::tensor<double, 1> y = x * 2.0;
    CHECK_FALSE(y.requires_grad());
    auto v = x.slice(0, 0, 1);
    CHECK_FALSE(v.requires_grad());
    tl::tensor<double, 0> s = tl::sum(x);
    CHECK_FALSE(s.requires_grad());
    {
      tl::enable_grad on;
      tl::tensor<double, 1> z = x * 2.0;
      CHECK(z.requires_grad());
    }
  }
  CHECK(tl::detail::thread_tape()->recorded.load() - rec0 == 1);  // only the enable_grad one
  tl::tensor<double, 1> made_inside;
  {
    tl::inference_mode guard;
    CHECK(tl::is_inference_mode_enabled());
    made_inside = x * 3.0;
    CHECK_FALSE(made_inside.requires_grad());
    CHECK(made_inside.is_inference());
  }
  CHECK(tl::detail::thread_tape()->recorded.load() - rec0 == 1);
  const auto msg = error_of([&] { tl::tensor<double, 1> bad = made_inside * x; });
  CHECK(msg.find("inference tensor") != std::string::npos);
  CHECK(error_of([&] { made_inside.requires_grad_(); }).find("inference_mode") != std::string::npos);
}

TEST_CASE("an in-place change to a saved tensor is detected") {
  auto x = vec({1.0, 2.0}).requires_grad_();
  tl::tensor<double, 1> h = x * 1.0;
  tl::tensor<double, 1> y = h * h;  // saves h
  {
    tl::no_grad guard;
    h += 1.0;
  }
  const auto msg = error_of([&] { y.backward(tl::ones<double>(tl::shape_t<1>{2})); });
  CHECK(msg.find("modified by an in-place operation") != std::string::npos);
  CHECK(msg.find("version") != std::string::npos);
  // a sum does not read its input's values: no error
  auto a = vec({1.0, 2.0}).requires_grad_();
  tl::tensor<double, 1> b = a + 0.0;
  tl::tensor<double, 1> c = b + b;
  {
    tl::no_grad guard;
    b *= 2.0;
  }
  c.backward(tl::ones<double>(tl::shape_t<1>{2}));
  CHECK(a.grad()(0) == doctest::Approx(2.0));
}

TEST_CASE("in-place ops while recording: non-leaf updates are recorded, leaf and view writes are rejected") {
  auto x = vec({1.0, 2.0}).requires_grad_();
  tl::tensor<double, 1> h = x * 3.0;
  h *= x;  // h = 3x^2
  h += 1.0;
  h.backward(tl::ones<double>(tl::shape_t<1>{2}));
  CHECK(x.grad()(0) == doctest::Approx(6.0));
  CHECK(x.grad()(1) == doctest::Approx(12.0));
  CHECK(error_of([&] { x += 1.0; }).find("leaf tensor that requires grad") != std::string::npos);
  tl::tensor<double, 1> buf = tl::zeros<double>(tl::shape_t<1>{4});
  CHECK(error_of([&] { buf.slice(0, 0, 2) = x * 2.0; }).find("in-place write into a view") != std::string::npos);
  {
    tl::no_grad guard;  // optimizer-style update of a leaf
    x -= 0.5 * x.grad();
  }
  CHECK(x(0) == doctest::Approx(-2.0));
}

TEST_CASE("hooks, retain_grad, detach and requires_grad errors") {
  auto x = vec({1.0, -1.0}).requires_grad_();
  tl::tensor<double, 1> h = x * 2.0;
  h.retain_grad();
  int calls = 0;
  h.register_hook([&](const tl::tensor<double, 1>& g) {
    ++calls;
    return tl::tensor<double, 1>(g * 10.0);
  });
  x.register_hook([&](const tl::tensor<double, 1>&) { ++calls; });
  tl::tensor<double, 0> l = tl::sum(h * h);
  l.backward();
  CHECK(calls == 2);
  CHECK(h.grad()(0) == doctest::Approx(40.0));   // the hook's result is what h keeps...
  CHECK(x.grad()(0) == doctest::Approx(80.0));   // ...and what flows on: 10 * 2h * 2
  auto d = h.detach();
  CHECK_FALSE(d.requires_grad());
  CHECK(d.data() == h.data());
  tl::tensor<double, 1> plain = vec({1.0});
  CHECK(error_of([&] { plain.backward(); }).find("does not require grad") != std::string::npos);
  CHECK(error_of([&] { h.backward(); }).find("one-element") != std::string::npos);
  CHECK(error_of([&] { h.requires_grad_(false); }).find("only leaf tensors") != std::string::npos);
  CHECK(error_of([&] { plain.register_hook([](const tl::tensor<double, 1>&) {}); }).find("does not require grad") !=
        std::string::npos);
  CHECK(error_of([&] { l.backward(tl::ones<double>(tl::shape_t<0>{}), false); }).find("second time") !=
        std::string::npos);
}

TEST_CASE("views pass gradients to the viewed elements") {
  auto m = tl::arange<double>(0, 12).reshape(3, 4);
  m.requires_grad_();
  CHECK(m.grad_fn_name() == "");
  auto t = m.t();
  CHECK(t.grad_fn_name() == "TransposeBackward");
  tl::tensor<double, 0> l =
      tl::sum(m.slice(1, 1, 3) * 2.0) + tl::sum(m.select(0, 2)) + tl::sum(m.diagonal()) + tl::sum(t.flip(0)) +
      tl::sum(m.reshape(12).narrow(0, 0, 2)) + tl::sum(m.unsqueeze(0).expand(2, 3, 4)) + tl::sum(m(tl::all, 3));
  l.backward();
  const auto g = m.grad();
  // element (0,0): diagonal 1 + transpose 1 + narrow 1 + expand 2 = 5
  CHECK(g(0, 0) == doctest::Approx(5.0));
  // element (2,1): slice 2 + select 1 + t 1 + expand 2 = 6
  CHECK(g(2, 1) == doctest::Approx(6.0));
  // element (1,3): select(0,2)? no; diag? no; slice cols 1..2? no; t 1 + expand 2 + m(:,3) 1 = 4
  CHECK(g(1, 3) == doctest::Approx(4.0));
  // element (0,1): slice 2 + t 1 + narrow 1 + expand 2 = 6
  CHECK(g(0, 1) == doctest::Approx(6.0));
}

TEST_CASE("complex: real/imag/conj views and the conjugate Wirtinger convention") {
  using C = tl::complex<double>;
  tl::tensor<C, 1> z(tl::shape_t<1>{2});
  z(0) = C(1.0, 2.0);
  z(1) = C(-0.5, 0.25);
  z.requires_grad_();
  // L = sum |z|^2 = sum re^2 + im^2: torch's z.grad = dL/dre + i dL/dim = 2 z
  tl::tensor<double, 0> l = tl::sum(tl::real(z * tl::conj(z)));
  l.backward();
  CHECK(z.grad()(0).re == doctest::Approx(2.0));
  CHECK(z.grad()(0).im == doctest::Approx(4.0));
  z.zero_grad();
  // L = sum(3 re(z) + 5 im(z)) through the real/imag views: grad = 3 + 5i
  tl::tensor<double, 0> l2 = tl::sum(z.real() * 3.0) + tl::sum(z.imag() * 5.0);
  l2.backward();
  CHECK(z.grad()(1).re == doctest::Approx(3.0));
  CHECK(z.grad()(1).im == doctest::Approx(5.0));
  // one gradient step along -grad decreases |z|^2
  z.zero_grad();
  tl::tensor<double, 0> l3 = tl::sum(tl::real(z * tl::conj(z)));
  l3.backward();
  tl::tensor<C, 1> stepped = z.detach() - 0.1 * z.grad();
  CHECK(tl::sum(tl::real(stepped * tl::conj(stepped))).item() < l3.item());
}

TEST_CASE("requires_grad_ on integer tensors is a compile-time error; without TL_AUTOGRAD a run-time one") {
  // The compile-time check is a static_assert (see docs/autograd.md); nothing to run here.
  CHECK(TL_AUTOGRAD == 1);
}
