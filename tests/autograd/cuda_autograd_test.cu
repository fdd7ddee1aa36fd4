// Autograd on CUDA tensors: the same loss on host tensors and on their device copies gives the same
// gradients (within the tolerance of a different but fixed reduction order), the gradients live on
// the device, and the graph semantics (accumulation, retain_graph, zero_grad, detach, no_grad) hold
// there as on the host.
#define TL_AUTOGRAD 1
#include <doctest/doctest.h>

#include <tl/cuda.hpp>

#include <tuple>
#include <utility>

#include "../eval/cuda_compare.hpp"

namespace cuda_autograd_test {

namespace {

template <class D, class H>
void grad_matches(const D& d, const H& h, double rt, double at) {
  REQUIRE(h.grad().defined());
  REQUIRE(d.grad().defined());
  CHECK(d.grad().is_cuda());
  check_near(d.grad(), h.grad(), rt, at);
}

/// Gradients of loss(x...) with respect to each x, computed on the host tensors given and on their
/// device copies: every device gradient is a CUDA tensor close to the host one. `scale`: the size of
/// the terms summed into a gradient element, which bounds the absolute difference that summing in
/// another order makes.
template <class T, class F, class... H, std::size_t... K>
void same_grads_impl(F loss, double scale, std::index_sequence<K...>, const H&... host) {
  const double rt = std::is_same_v<tl::real_t<T>, float> ? 2e-5 : 1e-12;
  const double at = (std::is_same_v<tl::real_t<T>, float> ? 2e-6 : 1e-13) * scale;
  const auto hx = std::make_tuple(tl::tensor<T, H::rank>(host.clone().requires_grad_())...);
  const auto dx = std::make_tuple(tl::tensor<T, H::rank>(host.cuda().requires_grad_())...);
  const auto hl = tl::eval(loss(std::get<K>(hx)...));
  const auto dl = tl::eval(loss(std::get<K>(dx)...));
  REQUIRE(dl.is_cuda());
  check_near(dl, hl, rt, at);
  hl.backward();
  dl.backward();
  (grad_matches(std::get<K>(dx), std::get<K>(hx), rt, at), ...);
}
template <class T, class F, class... H>
void same_grads(F loss, const H&... host) {
  same_grads_impl<T>(loss, 1.0, std::index_sequence_for<H...>{}, host...);
}
template <class T, class F, class... H>
void same_grads_scaled(double scale, F loss, const H&... host) {
  same_grads_impl<T>(loss, scale, std::index_sequence_for<H...>{}, host...);
}

}  // namespace

TEST_CASE_TEMPLATE("a fused elementwise chain differentiates on the device as on the host", T, float, double) {
  tl::manual_seed(31);
  const tl::tensor<T, 1> x = tl::randn<T>(5000);
  same_grads<T>([](const auto& v) { return tl::sum(tl::sin(v) * v + tl::exp(-v * v) - T(3) * tl::tanh(v)); }, x);
  same_grads<T>([](const auto& v) { return tl::sum(tl::sqrt(tl::abs(v) + T(1)) / (T(2) + tl::cos(v))); }, x);
}

TEST_CASE_TEMPLATE("broadcasting: gradients are summed over the broadcast dims on the device", T, float, double) {
  tl::manual_seed(32);
  const tl::tensor<T, 2> x = tl::randn<T>(64, 33);
  const tl::tensor<T, 1> b = tl::randn<T>(33);
  same_grads<T>([](const auto& v, const auto& w) { return tl::sum((v * w + w) * (v - w)); }, x, b);
}

TEST_CASE_TEMPLATE("reductions, softmax and logsumexp differentiate on the device", T, float, double) {
  tl::manual_seed(33);
  const tl::tensor<T, 2> x = tl::randn<T>(40, 700);
  same_grads<T>([](const auto& v) { return tl::sum(tl::mean(v * v, 1) * tl::sum(v, 1)); }, x);
  same_grads<T>([](const auto& v) { return tl::sum(tl::softmax(v, -1) * tl::sin(v)); }, x);
  same_grads<T>([](const auto& v) { return tl::sum(tl::log_softmax(v, 0) * v); }, x);
  same_grads<T>([](const auto& v) { return tl::sum(tl::logsumexp(v, 1)); }, x);
  same_grads<T>([](const auto& v) { return tl::sum(tl::amax(v, 1)); }, x);
  same_grads<T>([](const auto& v) { return tl::var(v); }, x);
}

TEST_CASE_TEMPLATE("views and matmul differentiate on the device", T, float, double) {
  tl::manual_seed(34);
  const tl::tensor<T, 2> a = tl::randn<T>(48, 64);
  const tl::tensor<T, 2> b = tl::randn<T>(64, 24);
  // d/dA sum((AB)^2) = 2 (AB) B^T sums 24 products of size ~8 (entries of AB have variance 64): the
  // float results of two summation orders differ by up to ~1e-5 in absolute terms.
  same_grads_scaled<T>(50.0, [](const auto& u, const auto& w) { return tl::sum(tl::matmul(u, w) * tl::matmul(u, w)); },
                       a, b);
  same_grads<T>([](const auto& u) { return tl::sum(u.t() * T(2) + T(1)) + tl::sum(u.slice(1, 3, 40) * u.slice(1, 3, 40)); },
                a);
}

TEST_CASE("graph semantics on the device: accumulation, retain_graph, zero_grad, detach, no_grad") {
  tl::manual_seed(35);
  const tl::tensor<double, 1> h = tl::randn<double>(100);
  tl::tensor<double, 1> x = h.cuda().requires_grad_();
  auto l = tl::eval(tl::sum(x * x));
  l.backward(true);  // retain_graph
  l.backward();  // accumulates: 2 * (2x)
  check_near(x.grad(), tl::tensor<double, 1>(4.0 * h), 1e-15, 0);
  // Backward twice through freed buffers is an error, as on the host.
  CHECK_THROWS_AS(l.backward(), tl::autograd_error);
  x.zero_grad(false);  // zeros, not none
  check_near(x.grad(), tl::tensor<double, 1>(tl::zeros<double>(100)));
  // A detached operand contributes no gradient.
  auto l2 = tl::eval(tl::sum(x * x.detach()));
  l2.backward();
  check_near(x.grad(), h, 1e-15, 0);
  {
    tl::no_grad guard;
    auto l3 = tl::eval(tl::sum(x * x));
    CHECK_FALSE(l3.requires_grad());
  }
}

TEST_CASE("vectorized jacobian on the device equals the host's (batched fused, matmul, sum rules)") {
  tl::manual_seed(36);
  const tl::tensor<double, 1> h = tl::randn<double>(24);
  const tl::tensor<double, 2> ah = tl::randn<double>(24, 24);
  const tl::tensor<double, 2> ad = ah.cuda();
  const tl::autograd::jacobian_options vec{.create_graph = false, .vectorize = true};
  auto f = [](const tl::tensor<double, 2>& a) {
    return [a](const tl::tensor<double, 1>& v) {
      const tl::tensor<double, 1> av = tl::matmul(a, v);
      return tl::tensor<double, 1>(tl::tanh(av) * v + v * tl::sum(v * v));
    };
  };
  const auto jh = tl::autograd::jacobian(f(ah), h);
  const auto jd = tl::autograd::jacobian(f(ad), h.cuda(), vec);
  REQUIRE(jd.is_cuda());
  check_near(jd, jh, 1e-12, 1e-12);
  // and the row-by-row path on the device
  check_near(tl::autograd::jacobian(f(ad), h.cuda()), jh, 1e-12, 1e-12);
}

}  // namespace cuda_autograd_test
