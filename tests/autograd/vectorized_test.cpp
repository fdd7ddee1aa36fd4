// jacobian with vectorize = true: one backward pass carrying every output element's cotangent.
// Checked against central differences computed here, against closed forms, and against the
// row-by-row path (one backward pass per row), on functions whose graphs mix nodes with a
// batched rule (fused elementwise expressions of real, complex and mixed dtypes, sum, mean, prod,
// amax / amin, var, std, norm, logsumexp, softmax, log_softmax, cumsum, cumprod, cat, matmul with
// and without batch dims, expand, conj and the other views, max / min with indices, gather,
// index_select, sort, topk, scatter and scatter_add, cumprod of an input with zeros). grad_batched (any batch of grad_outputs) is checked against grad row by row. Nothing here
// records the backward pass, so this file builds at TL_AUTOGRAD 1 (less code to compile); the
// vectorized hessian and jacobian with create_graph are in vectorized_higher_test.cpp.
#define TL_AUTOGRAD 1
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <string>
#include <tl/tensor.hpp>

#include "jacobian_util.hpp"

#include "../test_util.hpp"

namespace ag = tl::autograd;
using V1 = tl::tensor<double, 1>;
using M2 = tl::tensor<double, 2>;

namespace {
constexpr ag::jacobian_options vec_on{.create_graph = false, .vectorize = true};

using tl_test::check_same;

template <class F, class X>
void check_jacobian(F f, const X& x) {
  const auto jv = ag::jacobian(f, x, vec_on);
  const auto jl = ag::jacobian(f, x);
  check_same(jv, jl, 1e-12);
  const M2 num = tl_test::numeric_jacobian(f, x);
  check_same(jv.contiguous().reshape(num.shape()), num, 1e-6);
}
}  // namespace

TEST_CASE("vectorized jacobian of fused elementwise chains (leaves used twice, broadcast leaves)") {
  tl::manual_seed(3);
  const M2 x = tl::randn<double>(3, 4);
  const V1 w = tl::randn<double>(4);
  check_jacobian([&](const M2& v) { return M2(tl::sin(v) * w + tl::exp(-(v * v)) - tl::tanh(v) * v); }, x);
  // x broadcast inside the expression: f(x)[i, j] = x[j] * c[i, j] + x[j]^2
  const M2 c = tl::randn<double>(5, 4);
  check_jacobian([&](const V1& v) { return M2(v * c + tl::square(v)); }, V1(tl::randn<double>(4)));
  // closed form: f = x * x has J = diag(2x)
  const V1 u = tl::randn<double>(6);
  const auto j = ag::jacobian([](const V1& v) { return V1(v * v); }, u, vec_on);
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 6; ++k) CHECK(j(i, k) == doctest::Approx(i == k ? 2 * u(i) : 0.0).epsilon(1e-14));
}

TEST_CASE("vectorized jacobian through reductions, softmax, matmul, views and cat") {
  tl::manual_seed(5);
  const M2 x = tl::randn<double>(3, 4);
  const M2 a = tl::randn<double>(4, 2);
  check_jacobian([](const M2& v) { return tl::sum(tl::sin(v) * v, 1); }, x);
  check_jacobian([](const M2& v) { return M2(tl::softmax(v * 2.0, 1)); }, x);
  check_jacobian([](const M2& v) { return tl::logsumexp(v, 0); }, x);
  check_jacobian([&](const M2& v) { return M2(tl::tanh(tl::matmul(v, a))); }, x);
  // matmul with x on either side, ranks 1 and 2, and with batch dims (broadcast or not)
  const V1 u = tl::randn<double>(4);
  const M2 c = tl::randn<double>(5, 3);
  check_jacobian([&](const V1& v) { return V1(tl::matmul(a.t(), v) * 2.0); }, u);        // [2, 4] x [4]
  check_jacobian([&](const V1& v) { return V1(tl::matmul(v, a)); }, u);                   // [4] x [4, 2]
  check_jacobian([&](const V1& v) { return tl::matmul(v, tl::sin(v)); }, u);              // dot product
  check_jacobian([&](const M2& v) { return M2(tl::matmul(c, v.narrow(1, 0, 3).t())); }, x);  // x on the right
  check_jacobian([](const M2& v) { return M2(tl::matmul(v, v.t())); }, x);                // both sides
  check_jacobian([&](const M2& v) {
    return tl::tensor<double, 3>(tl::matmul(v.reshape(3, 2, 2), a.narrow(0, 0, 2).unsqueeze(0)));
  }, x);
  using T3 = tl::tensor<double, 3>;
  const M2 e = tl::randn<double>(5, 2);
  const V1 w2 = tl::randn<double>(2);
  check_jacobian([&](const M2& v) { return T3(tl::matmul(v.reshape(3, 2, 2), a.narrow(0, 0, 2))); }, x);  // [3,2,2] x [2,2]
  check_jacobian([&](const M2& v) { return T3(tl::matmul(e, M2(tl::sin(v)).reshape(3, 2, 2))); }, x);  // [5,2] x [3,2,2]
  check_jacobian([&](const M2& v) { return M2(tl::matmul(w2, v.reshape(3, 2, 2))); }, x);          // [2] x [3,2,2]
  check_jacobian([&](const M2& v) { return M2(tl::matmul(v.reshape(3, 2, 2), w2)); }, x);          // [3,2,2] x [2]
  check_jacobian([](const M2& v) {  // [3,1,2,2] x [3,2,2] -> [3,3,2,2]: both operands broadcast
    return tl::tensor<double, 4>(tl::matmul(v.reshape(3, 1, 2, 2), M2(tl::exp(v)).reshape(3, 2, 2)));
  }, x);
  check_jacobian([](const M2& v) { return tl::mean(tl::exp(v), 0); }, x);
  check_jacobian([](const M2& v) { return M2(M2(tl::sum(v, 1, tl::keepdim)).expand(3, 4) * v); }, x);
  check_jacobian([](const M2& v) { return M2(v.t().contiguous() * tl::exp(v.t())); }, x);
  check_jacobian([](const M2& v) { return M2(v.narrow(1, 1, 2).flip(0) * 3.0); }, x);
  check_jacobian([](const M2& v) { return tl::cat({M2(v * v), M2(tl::cos(v))}, 0); }, x);
  check_jacobian([](const M2& v) { return tl::cat({M2(tl::sin(v)), M2(v.narrow(1, 0, 1) * v.narrow(1, 3, 1))}, 1); }, x);
  // softmax, log_softmax, cumsum and cumprod along either dim (batched rules), cumprod with zeros
  check_jacobian([](const M2& v) { return M2(tl::softmax(v, 0) * v); }, x);
  check_jacobian([](const M2& v) { return M2(tl::log_softmax(v * 1.5, 1)); }, x);
  check_jacobian([](const M2& v) { return M2(tl::log_softmax(v, 0) * tl::sin(v)); }, x);
  check_jacobian([](const M2& v) { return M2(tl::cumsum(tl::exp(v), 1) * v); }, x);
  check_jacobian([](const M2& v) { return M2(tl::cumsum(v * v, 0)); }, x);
  check_jacobian([](const M2& v) { return M2(tl::cumprod(v, 1)); }, x);
  check_jacobian([](const M2& v) { return M2(tl::cumprod(tl::sin(v) + 2.0, 0)); }, x);
  M2 xz = x.clone();
  xz(1, 2) = 0.0;
  xz(0, 0) = 0.0;
  check_same(ag::jacobian([](const M2& v) { return M2(tl::cumprod(v, 1)); }, xz, vec_on),
             ag::jacobian([](const M2& v) { return M2(tl::cumprod(v, 1)); }, xz), 1e-14);
  {
    // cumprod with zeros (its batched rule): against the Jacobian's definition, along each dim,
    // with slices of no zero, a leading zero, an inner one and two
    M2 xw = x.clone();
    xw(0, 0) = xw(1, 2) = xw(2, 1) = xw(2, 3) = 0.0;
    for (int d = 0; d < 2; ++d) {
      const auto jv = ag::jacobian([d](const M2& v) { return M2(tl::cumprod(v, d)); }, xw, vec_on);
      const tl::index_t r = xw.shape()[0], c = xw.shape()[1];
      M2 want(tl::shape_t<2>{r * c, r * c});
      want = 0.0;
      for (tl::index_t a = 0; a < r; ++a)
        for (tl::index_t b = 0; b < c; ++b)      // output y(a, b)
          for (tl::index_t k = 0; k <= (d == 0 ? a : b); ++k) {  // input at position k of its slice
            double p = 1;
            for (tl::index_t i = 0; i <= (d == 0 ? a : b); ++i)
              if (i != k) p *= d == 0 ? xw(i, b) : xw(a, i);
            want(a * c + b, d == 0 ? k * c + b : a * c + k) = p;
          }
      check_same(jv.contiguous().reshape(want.shape()), want, 1e-14);
    }
  }
  check_jacobian([](const M2& v) { return M2(tl::prod(v, 1, tl::keepdim) * v); }, x);
  // prod, amax / amin, var, std, norm and logsumexp (batched rule: the batch times a local factor)
  check_jacobian([](const M2& v) { return tl::prod(v, 0); }, x);
  check_same(ag::jacobian([](const M2& v) { return tl::prod(v, 1); }, xz, vec_on),
             ag::jacobian([](const M2& v) { return tl::prod(v, 1); }, xz), 1e-14);
  check_jacobian([](const M2& v) { return M2(tl::amax(v, 1, tl::keepdim) * v); }, x);
  M2 xt = x.clone();
  xt(2, 1) = xt(2, 3);  // a tie: the gradient is shared
  check_same(ag::jacobian([](const M2& v) { return tl::amin(v * v, 1); }, xt, vec_on),
             ag::jacobian([](const M2& v) { return tl::amin(v * v, 1); }, xt), 1e-14);
  check_jacobian([](const M2& v) { return tl::var(v, 1); }, x);
  check_jacobian([](const M2& v) { return M2(tl::std(v, 0, tl::keepdim) * v); }, x);
  check_jacobian([](const M2& v) { return tl::norm(v, 2.0, 1); }, x);
  check_jacobian([](const M2& v) { return tl::norm(v, 3.0, 0); }, x);
  check_jacobian([](const M2& v) { return tl::logsumexp(v * 2.0, 1); }, x);
  // injective views (batched rule: each cotangent added through the view of its zero block)
  check_jacobian([](const M2& v) { return V1(v.select(1, 2) * v.select(0, 1).narrow(0, 0, 3)); }, x);
  check_jacobian([](const M2& v) { return V1(v.narrow(1, 0, 3).diagonal() * 2.0); }, x);
  check_jacobian([](const M2& v) {
    return tl::tensor<double, 3>(v.reshape(2, 3, 2).permute({2, 0, 1}) * tl::sin(v.reshape(2, 2, 3).permute({1, 0, 2}).reshape(2, 3, 2).permute({2, 0, 1})));
  }, x);
  check_jacobian([](const M2& v) { return M2(v.t().narrow(0, 1, 2).flip(1) + v.unsqueeze(0).squeeze(0).narrow(0, 0, 2).narrow(1, 1, 3)); }, x);
  check_jacobian([](const M2& v) { return tl::tensor<double, 3>(v.unsqueeze(1).expand(3, 2, 4) * v.narrow(0, 1, 2)); }, x);
  // max / min with indices and the selecting ops (batched rules: each cotangent written into its
  // block), ties and repeated indices included
  check_jacobian([](const M2& v) { return M2(tl::max(v, 1, tl::keepdim).values * v); }, x);
  check_jacobian([](const M2& v) { return tl::min(tl::sin(v), 0).values; }, x);
  check_same(ag::jacobian([](const M2& v) { return tl::max(v * v, 1).values; }, xt, vec_on),
             ag::jacobian([](const M2& v) { return tl::max(v * v, 1).values; }, xt), 1e-14);
  tl::tensor<std::int64_t, 2> gi(tl::shape_t<2>{3, 3});
  const std::int64_t gv[3][3] = {{3, 0, 0}, {1, 1, 2}, {0, 3, 3}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) gi(i, j) = gv[i][j];
  check_jacobian([&](const M2& v) { return M2(tl::gather(v, 1, gi) * 2.0); }, x);
  tl::tensor<std::int64_t, 1> si(tl::shape_t<1>{4});
  si(0) = 2, si(1) = 0, si(2) = 2, si(3) = 1;
  check_jacobian([&](const M2& v) { return M2(tl::index_select(tl::exp(v), 0, si)); }, x);
  check_jacobian([](const M2& v) { return M2(tl::sort(v * 3.0, 1).values); }, x);
  check_jacobian([](const M2& v) { return M2(tl::topk(v, 2, 0).values * v.narrow(0, 0, 2)); }, x);
  // scatter and scatter_add (batched rules: each cotangent's gradients of self and of src written
  // into their blocks), src of index's shape and larger (its unread elements get 0)
  tl::tensor<std::int64_t, 2> ui(tl::shape_t<2>{3, 2});
  const std::int64_t uv[6] = {0, 3, 1, 2, 2, 0};
  for (int i = 0; i < 6; ++i) ui(i / 2, i % 2) = uv[i];
  const M2 src = tl::randn<double>(3, 2), src_big = tl::randn<double>(4, 3);  // src_big: larger than index
  check_jacobian([&](const M2& v) { return M2(tl::scatter(v * 2.0, 1, ui, src)); }, x);
  check_jacobian([&](const M2& v) { return M2(tl::scatter(tl::sin(v), 1, ui, 0.5)); }, x);
  check_jacobian([&](const M2& v) { return M2(tl::scatter(x, 1, ui, tl::exp(v))); }, src_big);
  check_jacobian([&](const M2& v) { return M2(tl::scatter_add(x * 2.0, 1, gi, v * v)); }, src_big);
  check_jacobian([&](const M2& v) { return M2(tl::scatter_add(v, 1, ui, v.narrow(1, 0, 2)) * v); }, x);
  // a scalar output: the jacobian is the gradient
  check_jacobian([](const M2& v) { return tl::tensor<double, 0>(tl::sum(tl::exp(v) * v)); }, x);
}

TEST_CASE("vectorized jacobian: hooks, unused inputs, identity, empty shapes, float") {
  const V1 x = V1(tl::linspace<double>(-1.0, 1.0, 5));
  // a hook on an intermediate tensor runs on each cotangent
  auto hooked = [](const V1& v) {
    V1 s = tl::sin(v);
    s.register_hook([](const V1& g) { return V1(g * 3.0); });
    return V1(s * v);
  };
  check_same(ag::jacobian(hooked, x, vec_on), ag::jacobian(hooked, x), 1e-14);
  // f independent of x: zeros
  const auto z = ag::jacobian([](const V1& v) { return V1(tl::ones<double>(v.shape()[0] + 1)); }, x, vec_on);
  CHECK(z.shape() == tl::shape_t<2>{6, 5});
  CHECK(tl::sum(tl::abs(z)).item() == 0.0);
  // identity: the output is the input leaf itself
  const auto id = ag::jacobian([](const V1& v) { return v; }, x, vec_on);
  check_same(id, tl::eye<double>(5), 0.0);
  // outputs only partly reached from x
  check_jacobian([](const V1& v) { return tl::cat({V1(v * 2.0), V1(tl::zeros<double>(3))}, 0); }, x);
  // empty input / output
  const V1 e(tl::shape_t<1>{0});
  CHECK(ag::jacobian([](const V1& v) { return V1(v * 2.0); }, e, vec_on).shape() == tl::shape_t<2>{0, 0});
  CHECK(ag::jacobian([](const V1& v) { return V1(v.narrow(0, 0, 0)); }, x, vec_on).shape() ==
        tl::shape_t<2>{0, 5});
  // float
  using F1 = tl::tensor<float, 1>;
  const F1 xf = F1(tl::linspace<float>(0.1f, 0.9f, 4));
  auto ff = [](const F1& v) { return F1(tl::exp(v) * tl::sum(v)); };
  check_same(ag::jacobian(ff, xf, vec_on), ag::jacobian(ff, xf), 1e-6);
}

TEST_CASE("vectorized jacobian of complex functions agrees with the row-by-row path") {
  using C1 = tl::tensor<tl::complex<double>, 1>;
  C1 z(tl::shape_t<1>{3});
  z(0) = tl::complex<double>(0.5, -1.0);
  z(1) = tl::complex<double>(-0.25, 0.75);
  z(2) = tl::complex<double>(1.5, 0.1);
  auto f = [](const C1& v) { return C1(v * v + tl::exp(v) * v.flip(0)); };
  // conj views, cumsum and cumprod of complex values (batched rules)
  auto g = [](const C1& v) { return C1(tl::cumprod(v.conj(), 0) + tl::cumsum(v * v, 0) * C1(v.conj())); };
  // real and imag views of complex values, and a narrowed conj view (batched view rules)
  auto h = [](const C1& v) {
    return C1(tl::complex<double>(0.5, 1.0) * C1(v.real() * v.imag()) + v.conj().narrow(0, 0, 3).flip(0) * v);
  };
  for (const auto& jv_jl : {std::make_pair(ag::jacobian(f, z, vec_on), ag::jacobian(f, z)),
                            std::make_pair(ag::jacobian(g, z, vec_on), ag::jacobian(g, z)),
                            std::make_pair(ag::jacobian(h, z, vec_on), ag::jacobian(h, z))}) {
    check_same(jv_jl.first, jv_jl.second, 1e-13);
  }
  // batched complex products, the second operand conjugated: [2, 1, 2] x [2, 2, 1] -> [2, 1, 1]
  C1 z4(tl::shape_t<1>{4});
  for (int i = 0; i < 4; ++i) z4(i) = tl::complex<double>(0.3 * i - 0.5, 1.0 - 0.4 * i);
  auto bm = [](const C1& v) {
    return tl::tensor<tl::complex<double>, 3>(tl::matmul(v.reshape(2, 1, 2), C1(v.conj() * v).reshape(2, 2, 1)));
  };
  check_same(ag::jacobian(bm, z4, vec_on), ag::jacobian(bm, z4), 1e-13);
  // a complex matrix times the input as a matrix, [3, 2] x [2, 2]: grad_B = A^H G for every cotangent
  tl::tensor<tl::complex<double>, 2> ca(tl::shape_t<2>{3, 2});
  for (int i = 0; i < 6; ++i) ca.data()[i] = tl::complex<double>(0.2 * i - 0.4, 0.7 - 0.3 * i);
  auto wm = [&ca](const C1& v) { return tl::tensor<tl::complex<double>, 2>(tl::matmul(ca, v.reshape(2, 2))); };
  check_same(ag::jacobian(wm, z4, vec_on), ag::jacobian(wm, z4), 1e-13);
}

TEST_CASE("grad_batched (is_grads_batched): each row equals grad with that row's grad_output") {
  // Two inputs through a fused chain, a matmul, a transpose view and a softmax (nodes with and
  // without a batched rule); three cotangents of the output's shape [2, 3].
  M2 a(tl::shape_t<2>{2, 4}), w(tl::shape_t<2>{4, 3});
  for (tl::index_t i = 0; i < a.numel(); ++i) a.data()[i] = 0.3 * std::sin(1.7 * static_cast<double>(i) + 0.2);
  for (tl::index_t i = 0; i < w.numel(); ++i) w.data()[i] = 0.5 * std::cos(0.9 * static_cast<double>(i));
  a.requires_grad_();
  w.requires_grad_();
  const M2 h = tl::tanh(a) * 2.0 + a * a;
  const M2 y = tl::softmax(tl::matmul(h, w).transpose(0, 1).contiguous(), -1).transpose(0, 1) * 3.0;
  tl::tensor<double, 3> gys(tl::shape_t<3>{3, 2, 3});
  for (tl::index_t i = 0; i < gys.numel(); ++i) gys.data()[i] = std::cos(0.37 * static_cast<double>(i) + 1.0);
  auto [ga, gw] = ag::grad_batched(y, std::tie(a, w), gys, {.retain_graph = true});
  REQUIRE(ga.shape() == tl::shape_t<3>{3, 2, 4});
  REQUIRE(gw.shape() == tl::shape_t<3>{3, 4, 3});
  for (tl::index_t b = 0; b < 3; ++b) {
    CAPTURE(b);
    const M2 gy = gys.select(0, b).clone();
    auto [ra, rw] = ag::grad(y, std::tie(a, w), gy, {.retain_graph = true});
    check_same(ga.select(0, b), ra, 1e-13);
    check_same(gw.select(0, b), rw, 1e-13);
  }
  CHECK(!a.grad().defined());  // nothing accumulated
  // An unused input: an error, or an undefined gradient with allow_unused.
  V1 u = tl::ones<double>(2).requires_grad_();
  const std::string unused = tl_test::error_of([&] { ag::grad_batched(y, std::tie(a, u), gys, {.retain_graph = true}); });
  CHECK(unused.find("tl::autograd::grad_batched: input 1 (shape [2]) was not used") != std::string::npos);
  auto [g0, g1] = ag::grad_batched(y, std::tie(a, u), gys, {.retain_graph = true, .allow_unused = true});
  CHECK(g0.defined());
  CHECK(!g1.defined());
  // An empty batch gives empty gradients.
  auto [e0] = ag::grad_batched(y, std::tie(a), tl::tensor<double, 3>(tl::shape_t<3>{0, 2, 3}), {.retain_graph = true});
  CHECK(e0.shape() == tl::shape_t<3>{0, 2, 4});
  // Errors: a grad_outputs that is not a batch of the output's shape, create_graph, an output
  // without grad.
  const std::string bad = tl_test::error_of([&] { ag::grad_batched(y, std::tie(a), tl::tensor<double, 3>(tl::shape_t<3>{3, 3, 2}), {.retain_graph = true}); });
  CHECK(bad.find("grad_outputs of shape [3, 3, 2] is not a batch of the output's shape [2, 3]") != std::string::npos);
  CHECK_THROWS_AS(ag::grad_batched(y, std::tie(a), gys, {.create_graph = true}), tl::autograd_error);
  const M2 plain = tl::ones<double>(tl::shape_t<2>{2, 3});
  CHECK_THROWS_AS(ag::grad_batched(plain, std::tie(a), gys), tl::autograd_error);
  // The graph is freed without retain_graph: a second pass through it is an error.
  ag::grad_batched(y, std::tie(a), gys);
  CHECK_THROWS_AS(ag::grad_batched(y, std::tie(a), gys), tl::autograd_error);
}

TEST_CASE("grad_batched of complex and mixed-dtype fused expressions equals grad row by row") {
  // The batched rule of a complex fused node evaluates its adjoints for g = 1 and g = i (they are
  // real-linear in g: conj, abs and the flipped conj below are not holomorphic); grad_outputs with
  // non-zero imaginary parts see both.
  using C = tl::complex<double>;
  using C1 = tl::tensor<C, 1>;
  C1 z(tl::shape_t<1>{4}), w(tl::shape_t<1>{4});
  for (int i = 0; i < 4; ++i) {
    z(i) = C(0.3 * i - 0.5, 1.0 - 0.4 * i);
    w(i) = C(0.2 + 0.1 * i, -0.3 * i);
  }
  z.requires_grad_();
  w.requires_grad_();
  const C1 y = tl::exp(z) * tl::conj(z.flip(0)) + z * tl::abs(w) + tl::sin(w) * tl::conj(w);
  tl::tensor<C, 2> gys(tl::shape_t<2>{3, 4});
  for (tl::index_t i = 0; i < gys.numel(); ++i) {
    const double t = static_cast<double>(i);
    gys.data()[i] = C(std::cos(0.37 * t + 1.0), std::sin(0.61 * t - 0.4));
  }
  auto [gz, gw] = ag::grad_batched(y, std::tie(z, w), gys, {.retain_graph = true});
  for (tl::index_t b = 0; b < 3; ++b) {
    CAPTURE(b);
    const C1 gy = gys.select(0, b).clone();
    auto [rz, rw] = ag::grad(y, std::tie(z, w), gy, {.retain_graph = true});
    check_same(gz.select(0, b), rz, 1e-13);
    check_same(gw.select(0, b), rw, 1e-13);
  }
  // Leaves of another dtype: a real leaf of the complex expression, and a real expression of a
  // complex leaf (abs, real), a double leaf and a float leaf cast to double.
  V1 x(tl::shape_t<1>{4});
  tl::tensor<float, 1> f(tl::shape_t<1>{4});
  for (int i = 0; i < 4; ++i) {
    x(i) = 0.2 + 0.1 * i;
    f(i) = 0.5f - 0.2f * static_cast<float>(i);
  }
  x.requires_grad_();
  f.requires_grad_();
  const C1 yc = z * x + tl::exp(z) * tl::conj(z);
  auto [cz, cx] = ag::grad_batched(yc, std::tie(z, x), gys, {.retain_graph = true});
  const V1 yr = tl::abs(z) * x + tl::real(z * z) + tl::astype<double>(f) * x;
  tl::tensor<double, 2> gyr(tl::shape_t<2>{3, 4});
  for (tl::index_t i = 0; i < gyr.numel(); ++i) gyr.data()[i] = std::cos(0.37 * static_cast<double>(i) + 1.0);
  auto [rz, rx, rf] = ag::grad_batched(yr, std::tie(z, x, f), gyr, {.retain_graph = true});
  for (tl::index_t b = 0; b < 3; ++b) {
    CAPTURE(b);
    const C1 gy = gys.select(0, b).clone();
    auto [pz, px] = ag::grad(yc, std::tie(z, x), gy, {.retain_graph = true});
    const V1 gr = gyr.select(0, b).clone();
    auto [qz, qx, qf] = ag::grad(yr, std::tie(z, x, f), gr, {.retain_graph = true});
    check_same(cz.select(0, b), pz, 1e-13);
    check_same(cx.select(0, b), px, 1e-13);
    check_same(rz.select(0, b), qz, 1e-13);
    check_same(rx.select(0, b), qx, 1e-13);
    check_same(rf.select(0, b), qf, 1e-6);  // float: the batched product rounds once, in double
  }
}

TEST_CASE("grad_batched of real-valued reductions of complex input (norm, var, std) equals grad row by row") {
  using C = tl::complex<double>;
  tl::tensor<C, 2> z(tl::shape_t<2>{3, 4});
  for (int i = 0; i < 12; ++i) z.data()[i] = C(0.3 * i - 1.5, 1.0 - 0.2 * i);
  z.requires_grad_();
  M2 gys(tl::shape_t<2>{2, 3});
  for (tl::index_t i = 0; i < gys.numel(); ++i) gys.data()[i] = std::cos(0.37 * static_cast<double>(i) + 1.0);
  const auto same_rows = [&](const V1& y) {
    auto [gz] = ag::grad_batched(y, std::tie(z), gys, {.retain_graph = true});
    REQUIRE(gz.shape() == tl::shape_t<3>{2, 3, 4});
    for (tl::index_t b = 0; b < 2; ++b) {
      CAPTURE(b);
      const V1 gy = gys.select(0, b).clone();
      auto [rz] = ag::grad(y, std::tie(z), gy, {.retain_graph = true});
      check_same(gz.select(0, b), rz, 1e-13);
    }
  };
  same_rows(V1(tl::norm(z, 2.0, 1)));
  same_rows(V1(tl::var(z, 1)));
  same_rows(V1(tl::std(z, 1)));
}
