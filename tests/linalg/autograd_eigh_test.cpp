// Autograd of tl::linalg (eigh and eigvalsh): gradcheck (central differences in double, complex
// aware) on Hermitian inputs x + x^H with distinct eigenvalues, gauge-invariant functions of the
// eigenvectors (their absolute values), and gradgradcheck.
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include "autograd_test_util.hpp"

namespace linalg_autograd_eigh_test {

using namespace tl_linalg_ag_test;

namespace {
/// x + x^H: a Hermitian matrix (batch) as a recorded function of an unconstrained x.
template <class X, class V = typename X::value_type, std::size_t R = X::rank>
tl::tensor<V, R> herm(const X& x) {
  return tl::tensor<V, R>(x + x.mH());
}
}  // namespace

TEST_CASE_TEMPLATE("linalg autograd: eigh and eigvalsh", V, double, cd) {
  const auto x = input<V, 3>({2, 3, 3}, 1.0, 0.6);
  CHECK(ag::gradcheck([](const auto& v) { return la::eigvalsh(herm(v)); }, x));
  CHECK(ag::gradcheck([](const auto& v) { return la::eigvalsh(herm(v), "U"); }, x));
  CHECK(ag::gradcheck([](const auto& v) { return la::eigh(herm(v)).eigenvalues; }, x));
  CHECK(ag::gradcheck([](const auto& v) { return tl::tensor<double, 3>(tl::abs(la::eigh(herm(v)).eigenvectors)); }, x));
  CHECK(ag::gradcheck(
      [](const auto& v) {
        // V diag(L^2) V^H = A^2: gauge invariant, checks both outputs together.
        const auto r = la::eigh(herm(v));
        const auto w2 = tl::tensor<V, 2>(tl::astype<V>(r.eigenvalues * r.eigenvalues));
        return tl::tensor<V, 3>(tl::matmul(r.eigenvectors * w2.unsqueeze(-2), r.eigenvectors.mH()));
      },
      x));
  CHECK(ag::gradgradcheck([](const auto& v) { return la::eigvalsh(herm(v)); }, x));
  CHECK(ag::gradgradcheck([](const auto& v) { return tl::tensor<double, 3>(tl::abs(la::eigh(herm(v)).eigenvectors)); },
                          input<V, 3>({1, 3, 3}, 1.0, 0.6)));

  // d lambda_k / dA = v_k v_k^H: for a diagonal matrix, the unit matrices e_k e_k^T.
  auto d = tl::zeros<V>(tl::shape_t<2>{3, 3});
  d(0, 0) = V(1.0);
  d(1, 1) = V(2.0);
  d(2, 2) = V(4.0);
  d.requires_grad_();
  const auto w = la::eigvalsh(d);
  CHECK(w.requires_grad());
  tl::tensor<double, 1> gw = tl::zeros<double>(tl::shape_t<1>{3});
  gw(1) = 1.0;
  w.backward(gw);
  const auto g = d.grad();
  if constexpr (tl::is_complex_v<V>) {
    CHECK(g(1, 1).re == doctest::Approx(1.0));
    CHECK(g(0, 0).re == doctest::Approx(0.0));
  } else {
    CHECK(g(1, 1) == doctest::Approx(1.0));
    CHECK(g(0, 0) == doctest::Approx(0.0));
  }
}

}  // namespace linalg_autograd_eigh_test
