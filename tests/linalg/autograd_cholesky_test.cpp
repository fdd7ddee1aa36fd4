// Autograd of tl::linalg (cholesky and cholesky_ex): gradcheck (central differences in double,
// complex aware) for real and complex double inputs, batched and broadcast, and gradgradcheck (the
// backward is itself recorded).
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include "autograd_test_util.hpp"

namespace linalg_autograd_cholesky_test {

using namespace tl_linalg_ag_test;

TEST_CASE_TEMPLATE("linalg autograd: cholesky", V, double, cd) {
  const auto x = input<V, 3>({2, 3, 3}, 0.5);
  for (bool upper : {false, true}) {
    CAPTURE(upper);
    CHECK(ag::gradcheck([&](const auto& v) { return la::cholesky(hpd(v), upper); }, x));
    CHECK(ag::gradcheck([&](const auto& v) { return la::cholesky_ex(hpd(v), upper).L; }, x));
    CHECK(ag::gradgradcheck([&](const auto& v) { return la::cholesky(hpd(v), upper); }, input<V, 2>({3, 3}, 0.5)));
  }
  // The gradient with respect to A itself is Hermitian (torch's convention).
  auto a = hpd(input<V, 2>({3, 3}, 0.5));
  a.requires_grad_();
  tl::sum(tl::real(la::cholesky(a) * input<V, 2>({3, 3}, 0, 2.0))).backward();
  const auto g = a.grad();
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 3; ++j) {
      const auto gij = g(i, j), gji = g(j, i);
      if constexpr (tl::is_complex_v<V>) {
        CHECK(gij.re == doctest::Approx(gji.re));
        CHECK(gij.im == doctest::Approx(-gji.im));
      } else {
        CHECK(gij == doctest::Approx(gji));
      }
    }
}

}  // namespace linalg_autograd_cholesky_test
