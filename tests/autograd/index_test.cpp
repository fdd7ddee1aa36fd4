// Gradients of the selecting ops: gather, index_select, sort and topk values, masked_fill.
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
