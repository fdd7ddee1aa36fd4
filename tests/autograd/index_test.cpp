// Gradients of the selecting ops: gather, index_select, sort and topk values, masked_fill, and of
// scatter / scatter_add (out of place and in place).
#define TL_AUTOGRAD 2
#include <doctest/doctest.h>

#include <tl/tensor.hpp>

namespace ag = tl::autograd;
using X = tl::tensor<double, 2>;

namespace {
X sample() {
  tl::manual_seed(21);
  return tl::randn<double>(3, 4);
}
}  // namespace

TEST_CASE("gather and index_select add the gradient back at the selected positions") {
  const X x = sample();
  tl::tensor<std::int64_t, 2> gi(tl::shape_t<2>{3, 2});
  const std::int64_t gv[] = {0, 3, 1, 1, 2, 0};  // a repeated index accumulates
  for (int i = 0; i < 6; ++i) gi(i / 2, i % 2) = gv[i];
  tl::tensor<std::int32_t, 1> si(tl::shape_t<1>{3});
  si(0) = 2;
  si(1) = 0;
  si(2) = 2;
  CHECK(ag::gradcheck([&](const X& v) { return tl::gather(v, 1, gi); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return tl::index_select(v, 1, si); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return tl::index_select(v, 0, si); }, x));
  CHECK(ag::gradgradcheck([&](const X& v) { return X(tl::square(tl::gather(v, 1, gi))); }, x));
  auto w = X(x.clone()).requires_grad_();
  tl::tensor<double, 0> s = tl::sum(tl::gather(w, 1, gi));
  s.backward();
  CHECK(w.grad()(1, 1) == doctest::Approx(2.0));  // index 1 appears twice in row 1
  CHECK(w.grad()(1, 0) == 0.0);
}

TEST_CASE("sort and topk values are differentiable; masked_fill is a fused where") {
  const X x = sample();
  CHECK(ag::gradcheck([](const X& v) { return tl::sort(v, 1).values; }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::sort(v, 0, true).values; }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::topk(v, 2, 1).values; }, x));
  CHECK(ag::gradcheck([](const X& v) { return tl::topk(v, 1, 0, false).values; }, x));
  CHECK(ag::gradcheck([](const X& v) { return X(tl::masked_fill(v, v > 0.0, 0.0)); }, x));
  auto w = X(x.clone()).requires_grad_();
  auto top = tl::topk(w, 1, 1);
  CHECK(top.values.grad_fn_name() == "TopkBackward");
  tl::tensor<double, 0> s = tl::sum(top.values);
  s.backward();
  for (int i = 0; i < 3; ++i) CHECK(w.grad()(i, top.indices(i, 0)) == 1.0);
}

TEST_CASE("scatter and scatter_add: gradients for self and src, twice differentiable, in place too") {
  const X x = sample();
  tl::manual_seed(22);
  const X src = tl::randn<double>(3, 2);
  tl::tensor<std::int64_t, 2> unique(tl::shape_t<2>{3, 2}), repeated(tl::shape_t<2>{3, 2});
  const std::int64_t uv[] = {0, 3, 1, 2, 2, 0}, rv[] = {0, 3, 1, 1, 2, 0};
  for (int i = 0; i < 6; ++i) {
    unique(i / 2, i % 2) = uv[i];
    repeated(i / 2, i % 2) = rv[i];
  }
  // scatter: d/dself keeps g off the written positions, d/dsrc gathers g there (indices unique, so
  // the finite differences see every src value).
  CHECK(ag::gradcheck([&](const X& v) { return tl::scatter(v, 1, unique, src); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return tl::scatter(x, 1, unique, v); }, src));
  CHECK(ag::gradcheck([&](const X& v) { return tl::scatter(v, 1, unique, 2.5); }, x));
  tl::tensor<std::int64_t, 2> down(tl::shape_t<2>{2, 4});  // dim 0: unique within each column
  const std::int64_t dv[] = {0, 2, 1, 0, 2, 0, 0, 1};
  for (int i = 0; i < 8; ++i) down(i / 4, i % 4) = dv[i];
  const X src_rows = X(tl::randn<double>(2, 4));
  CHECK(ag::gradcheck([&](const X& v) { return tl::scatter(v * 2.0, 0, down, src_rows); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return tl::scatter(x, 0, down, v); }, src_rows));
  // src larger than index: the elements the op does not read get a zero gradient, in src's shape
  // (a gradient of index's shape would be accumulated into the wrong elements).
  const X src_big = tl::randn<double>(4, 3);
  CHECK(ag::gradcheck([&](const X& v) { return tl::scatter(x, 1, unique, v); }, src_big));
  const X src_wide = tl::randn<double>(3, 5);
  CHECK(ag::gradcheck([&](const X& v) { return tl::scatter_add(x, 0, down, v * v); }, src_wide));
  CHECK(ag::gradgradcheck([&](const X& v) { return X(tl::square(tl::scatter_add(x, 1, repeated, v * v))); }, src_big));
  {
    auto sb = X(src_big.clone()).requires_grad_();
    tl::tensor<double, 0> t = tl::sum(tl::scatter(x, 1, unique, sb) * x);
    t.backward();
    REQUIRE(sb.grad().shape() == src_big.shape());
    CHECK(sb.grad()(1, 1) == x(1, 2));
    CHECK(sb.grad()(0, 2) == 0.0);
    CHECK(sb.grad()(3, 0) == 0.0);
  }
  // scatter_add: repeated positions accumulate.
  CHECK(ag::gradcheck([&](const X& v) { return tl::scatter_add(v, 1, repeated, src); }, x));
  CHECK(ag::gradcheck([&](const X& v) { return tl::scatter_add(x, 1, repeated, v); }, src));
  CHECK(ag::gradgradcheck([&](const X& v) { return X(tl::square(tl::scatter_add(x, 1, repeated, v * v))); }, src));
  CHECK(ag::gradgradcheck([&](const X& v) { return X(tl::exp(tl::scatter(x, 1, unique, v * v))); }, src));
  CHECK(ag::gradgradcheck([&](const X& v) { return X(tl::square(tl::scatter(v * v, 1, unique, src))); }, x));

  // Values: d sum(scatter(w, s)) / dw is 0 at the 6 written positions and 1 elsewhere; d / ds is 1.
  auto w = X(x.clone()).requires_grad_();
  auto s = X(src.clone()).requires_grad_();
  auto r = tl::scatter(w, 1, unique, s);
  CHECK(r.grad_fn_name() == "ScatterBackward");
  tl::tensor<double, 0> total = tl::sum(r * x);
  total.backward();
  CHECK(w.grad()(0, 0) == 0.0);
  CHECK(w.grad()(0, 1) == x(0, 1));
  CHECK(s.grad()(1, 1) == x(1, 2));
  CHECK(tl::sum(w.grad() != 0.0)() == 6);

  // In place on a non-leaf: the result takes the new history.
  auto w2 = X(x.clone()).requires_grad_();
  X y = w2 * 3.0;
  tl::scatter_add_(y, 1, repeated, s);
  CHECK(y.requires_grad());
  tl::tensor<double, 0> t2 = tl::sum(y);
  t2.backward();
  CHECK(w2.grad()(2, 3) == 3.0);
  CHECK(s.grad()(1, 1) == doctest::Approx(x(1, 2) + 1.0));  // accumulated onto the first backward
  // ... and a clear error on a leaf that requires grad, which stays unchanged.
  auto leaf = X(x.clone()).requires_grad_();
  CHECK_THROWS_WITH_AS(tl::scatter_(leaf, 1, unique, 0.0), doctest::Contains("leaf tensor that requires grad"),
                       tl::autograd_error);
  CHECK(leaf(0, 0) == x(0, 0));
  // Nothing is recorded under no_grad.
  {
    tl::no_grad guard;
    CHECK_FALSE(tl::scatter(w, 1, unique, s).requires_grad());
  }
}

TEST_CASE("scatter_add of complex values: the gradient of src is g gathered") {
  using C = tl::tensor<tl::complex<double>, 1>;
  tl::manual_seed(23);
  const C base = tl::astype<tl::complex<double>>(tl::randn<double>(5)) +
                 tl::astype<tl::complex<double>>(tl::randn<double>(5)) * tl::complex<double>(0, 1);
  const C v = tl::astype<tl::complex<double>>(tl::randn<double>(4)) * tl::complex<double>(0.5, -1);
  tl::tensor<std::int64_t, 1> idx(tl::shape_t<1>{4});
  const std::int64_t iv[] = {4, 0, 4, 2};
  for (int i = 0; i < 4; ++i) idx(i) = iv[i];
  CHECK(ag::gradcheck([&](const C& u) { return C(tl::scatter_add(base, 0, idx, u * u)); }, v));
  CHECK(ag::gradcheck([&](const C& u) { return C(tl::scatter(u, 0, idx, v)); }, base));
}
