// Autograd of tl::linalg (det and slogdet): gradcheck (central differences in double, complex
// aware) for real and complex double inputs, batched and broadcast, and gradgradcheck (the backward
// is itself recorded).
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include "autograd_test_util.hpp"

namespace linalg_autograd_det_test {

using namespace tl_linalg_ag_test;

TEST_CASE_TEMPLATE("linalg autograd: det", V, double, cd) {
  const auto ab = input<V, 3>({2, 3, 3}, 1.5, 0.9);
  CHECK(ag::gradcheck([](const auto& v) { return la::det(v); }, ab));
  CHECK(ag::gradcheck([](const auto& v) { return la::det(v * 2.0); }, input<V, 3>({1, 4, 4}, 0.5)));  // an expression
  CHECK(ag::gradgradcheck([](const auto& v) { return la::det(v); }, ab));
  auto leaf = input<V, 3>({2, 3, 3}, 2.0);
  leaf.requires_grad_();
  const auto d = la::det(leaf);
  CHECK(d.grad_fn_name() == "LinalgDetBackward");
}

TEST_CASE("linalg autograd: det gradient values and singular matrices") {
  // d det / dA = det(A) A^-T: for A = diag(2, 3, 5) the gradient is diag(15, 10, 6).
  tl::tensor<double, 2> a = tl::zeros<double>(tl::shape_t<2>{3, 3});
  a(0, 0) = 2;
  a(1, 1) = 3;
  a(2, 2) = 5;
  a(0, 2) = 7;  // upper triangular: det unchanged, gradient entry (2, 0) = -7 * 3 = -21
  a.requires_grad_();
  la::det(a).backward();
  const auto g = a.grad();
  CHECK(g(0, 0) == doctest::Approx(15));
  CHECK(g(1, 1) == doctest::Approx(10));
  CHECK(g(2, 2) == doctest::Approx(6));
  CHECK(g(2, 0) == doctest::Approx(-21));
  CHECK(g(0, 2) == doctest::Approx(0));

  // An exactly singular matrix: a clear error instead of NaNs.
  tl::tensor<double, 3> s = input<double, 3>({2, 2, 2}, 2.0);
  s(1, 1, 0) = s(1, 0, 0);
  s(1, 1, 1) = s(1, 0, 1);
  s.requires_grad_();
  const auto ds = la::det(s);
  CHECK_THROWS_AS(tl::sum(ds).backward(), tl::linalg_error);
  const auto ls = la::slogdet(s).logabsdet;
  CHECK_THROWS_AS(ls.backward(tl::ones<double>(tl::shape_t<1>{2})), tl::linalg_error);

  // 0 x 0 matrices: det 1, an empty gradient.
  tl::tensor<double, 2> e = tl::zeros<double>(tl::shape_t<2>{0, 0});
  e.requires_grad_();
  la::det(e).backward();
  CHECK(e.grad().numel() == 0);
}

TEST_CASE_TEMPLATE("linalg autograd: slogdet", V, double, cd) {
  const auto ab = input<V, 3>({2, 3, 3}, 0.4, 1.1);
  CHECK(ag::gradcheck([](const auto& v) { return la::slogdet(v).logabsdet; }, ab));
  CHECK(ag::gradgradcheck([](const auto& v) { return la::slogdet(v).logabsdet; }, ab));
  if constexpr (tl::is_complex_v<V>) {
    CHECK(ag::gradcheck([](const auto& v) { return la::slogdet(v).sign; }, ab));
    CHECK(ag::gradcheck(
        [](const auto& v) {
          const auto r = la::slogdet(v);
          return tl::tensor<V, 1>(r.sign * tl::astype<V>(r.logabsdet));
        },
        ab));
    CHECK(ag::gradgradcheck([](const auto& v) { return la::slogdet(v).sign; }, ab));
  } else {
    // A negative determinant: sign -1 carries no gradient, logabsdet's is A^-T.
    auto a = input<V, 3>({1, 2, 2});
    a(0, 0, 0) = -3;
    a(0, 1, 1) = 1;
    a.requires_grad_();
    const auto r = la::slogdet(a);
    CHECK(r.sign(0) == -1);
    r.logabsdet.backward(tl::ones<double>(tl::shape_t<1>{1}));
    const auto ai = la::inv(a.detach());
    CHECK(a.grad()(0, 0, 1) == doctest::Approx(ai(0, 1, 0)));
    CHECK(a.grad()(0, 1, 1) == doctest::Approx(ai(0, 1, 1)));
  }
}

}  // namespace linalg_autograd_det_test
