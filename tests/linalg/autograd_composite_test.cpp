// Autograd of the tl::linalg functions built from differentiable tl operations (vecdot, cross,
// multi_dot, matrix_power, the latter through matmul and inv): gradcheck and gradgradcheck for real and
// complex double inputs; cross (stacked fused components). The vectorized backward through the
// nodes with a batched rule (det, inv, cholesky, solve with one A, solve_triangular, lu_solve, eigh, eigvalsh, svd, svdvals): jacobian with vectorize = true against the
// row-by-row jacobian and central differences, grad_batched with complex cotangents against grad
// row by row.
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include "../autograd/jacobian_util.hpp"
#include "autograd_test_util.hpp"

namespace linalg_autograd_composite_test {

using namespace tl_linalg_ag_test;

/// (v + v^H) / 2, recorded
template <class V>
V ad_sym(const V& v) {
  return V((v + v.mH()) * 0.5);
}

TEST_CASE_TEMPLATE("linalg autograd: vecdot, cross, multi_dot, matrix_power", V, double, cd) {
  const auto x = input<V, 2>({4, 3}, 0, 0.2);
  const auto y = input<V, 2>({4, 3}, 0, 1.4);
  CHECK(ag::gradcheck([&](const auto& v) { return la::vecdot(v, y); }, x));
  CHECK(ag::gradcheck([&](const auto& v) { return la::vecdot(x, v, 0); }, y));
  CHECK(ag::gradcheck([&](const auto& v) { return la::cross(v, y); }, x));
  CHECK(ag::gradcheck([&](const auto& v) { return la::cross(x, v, -1); }, y));
  CHECK(ag::gradgradcheck([&](const auto& v) { return la::cross(v, v); }, x));
  const auto m = input<V, 2>({3, 4}, 0, 2.1);
  CHECK(ag::gradcheck([&](const auto& v) { return la::multi_dot(x, v, x); }, m));
  CHECK(ag::gradcheck([&](const auto& v) { return la::multi_dot(v, m); }, x));
  const auto a = input<V, 3>({2, 3, 3}, 2.0);
  for (std::int64_t n : {0, 1, 3, -2}) {
    CAPTURE(n);
    CHECK(ag::gradcheck([&](const auto& v) { return la::matrix_power(v, n); }, a));
  }
  CHECK(ag::gradgradcheck([&](const auto& v) { return la::matrix_power(v, -2); }, a));
  CHECK(ag::gradgradcheck([&](const auto& v) { return la::vecdot(v, v); }, x));
}

TEST_CASE("linalg autograd: vectorized jacobian through det, inv and cholesky") {
  using M2 = tl::tensor<double, 2>;
  using T3 = tl::tensor<double, 3>;
  constexpr ag::jacobian_options vec_on{.create_graph = false, .vectorize = true};
  const auto check = [&](auto f, const auto& x) {
    const auto jv = ag::jacobian(f, x, vec_on);
    tl_test::check_same(jv, ag::jacobian(f, x), 1e-12);
    const M2 num = tl_test::numeric_jacobian(f, x);
    tl_test::check_same(jv.contiguous().reshape(num.shape()), num, 1e-6);
  };
  const M2 a = input<double, 2>({4, 4}, 2.0);
  const T3 ab = input<double, 3>({2, 3, 3}, 1.5, 0.9);
  check([](const M2& v) { return M2(la::inv(v)); }, a);
  check([](const T3& v) { return T3(la::inv(v) * 2.0); }, ab);
  check([](const M2& v) { return la::det(v); }, a);  // a 0-d output: one cotangent
  check([](const T3& v) { return la::det(v); }, ab);
  check([](const M2& v) { return M2(la::cholesky(hpd(v))); }, a);
  check([](const T3& v) { return T3(la::cholesky(hpd(v), true)); }, ab);  // upper
  // nodes with and without a batched rule in one graph: solve with a batched A declines its rule
  check([](const T3& v) { return T3(tl::matmul(la::inv(v), la::solve(v, tl::sin(v)))); }, ab);
  // solve with one A (its batched rule): through A and through b, matrix and vector rhs, left and
  // right
  using V1 = tl::tensor<double, 1>;
  const M2 bm = input<double, 2>({4, 3}, 0, 0.7);
  const V1 bv = input<double, 1>({4}, 0, 1.1);
  check([&](const M2& v) { return M2(la::solve(v, bm)); }, a);
  check([&](const M2& v) { return M2(la::solve(a, v)); }, bm);
  check([&](const M2& v) { return V1(la::solve(v, bv)); }, a);
  check([&](const V1& v) { return V1(la::solve(a, v)); }, bv);
  check([&](const M2& v) { return M2(la::solve(v, tl::sin(v))); }, a);  // A on both sides
  check([&](const M2& v) { return M2(la::solve(v, M2(bm.mT()), false)); }, a);
  check([&](const M2& v) { return M2(la::solve(a, v, false)); }, M2(bm.mT()));
  // solve_triangular with unbatched A and B (its batched rule): left and right, upper and lower,
  // unit diagonal, through A and through B
  for (const bool upper : {true, false})
    for (const bool lft : {true, false})
      for (const bool unit : {false, true}) {
        CAPTURE(upper);
        CAPTURE(lft);
        CAPTURE(unit);
        const M2 rhs = lft ? bm : M2(bm.mT());
        check([&](const M2& v) { return M2(la::solve_triangular(v, rhs, upper, lft, unit)); }, a);
        check([&](const M2& v) { return M2(la::solve_triangular(a, v, upper, lft, unit)); }, rhs);
      }
  // eigh and eigvalsh (their batched rules), of the symmetric part of the input (eigh reads one
  // triangle): eigenvalues and a sign-invariant function of the eigenvectors, one matrix and a batch
  const auto sym = [](const auto& v) { return ad_sym(v); };
  check([&](const M2& v) {
    const auto r = la::eigh(sym(v));
    return M2(r.eigenvectors * r.eigenvectors * 2.0 + r.eigenvalues.unsqueeze(0));
  }, a);
  check([&](const T3& v) {
    const auto r = la::eigh(sym(v), "U");
    return T3(tl::matmul(r.eigenvectors * r.eigenvectors, r.eigenvectors * r.eigenvectors) + r.eigenvalues.unsqueeze(-2));
  }, ab);
  check([&](const M2& v) { return tl::tensor<double, 1>(la::eigvalsh(sym(v))); }, a);
  check([&](const T3& v) { return tl::tensor<double, 2>(la::eigvalsh(sym(v)) * 3.0); }, ab);
  // svd and svdvals (their batched rules): U Vh and S (invariant to the vectors' signs), square,
  // tall and wide (the branches of the formula), full_matrices, a batch
  // inputs with well separated singular values (input() gives a rank-2 pattern plus a shift)
  const auto separated = [](index_t m, index_t n, double seed) {
    M2 x(tl::shape_t<2>{m, n});
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j)
        x(i, j) = 0.3 * std::sin(0.9 * double(i * i) + 1.7 * double(j) + seed) + (i == j ? 1.0 + 0.7 * double(i) : 0.0);
    return x;
  };
  const M2 sq = separated(4, 4, 0.1), tall = separated(5, 3, 0.45), wide = separated(3, 5, 0.85);
  const T3 sqb = tl::stack({separated(3, 3, 0.2), separated(3, 3, 1.3)});
  const auto usv = [](const auto& v, bool full) {
    using X = std::remove_cvref_t<decltype(v)>;
    const auto r = la::svd(v, full);
    return X(tl::matmul(r.U, r.Vh) + tl::tensor<double, X::rank - 1>(tl::sum(r.S * r.S, -1, tl::keepdim)).unsqueeze(-1));
  };
  for (const M2* x : {&sq, &tall, &wide}) check([&](const M2& v) { return usv(v, false); }, *x);
  check([&](const M2& v) { return usv(v, true); }, sq);
  check([&](const T3& v) { return usv(v, false); }, sqb);
  check([&](const M2& v) { return tl::tensor<double, 1>(la::svdvals(v)); }, tall);
  check([&](const T3& v) { return tl::tensor<double, 2>(la::svdvals(v)); }, sqb);
  // lu_solve with unbatched LU and B (its batched rule): every left/adjoint combination, through
  // the packed factors (pivots fixed), through B, and through lu_factor (a node without a batched
  // rule feeding one with it)
  const auto fa = la::lu_factor(a);
  const tl::tensor<std::int32_t, 1> piv = fa.pivots;
  const M2 lu = fa.LU;
  for (const bool lft : {true, false})
    for (const bool adj : {false, true}) {
      CAPTURE(lft);
      CAPTURE(adj);
      const M2 rhs = lft ? bm : M2(bm.mT());
      check([&](const M2& v) { return M2(la::lu_solve(v, piv, rhs, lft, adj)); }, lu);
      check([&](const M2& v) { return M2(la::lu_solve(lu, piv, v, lft, adj)); }, rhs);
      check(
          [&](const M2& v) {
            const auto f = la::lu_factor(v);
            return M2(la::lu_solve(f.LU, f.pivots, rhs, lft, adj));
          },
          a);
    }
}

TEST_CASE("linalg autograd: grad_batched with complex cotangents through det, inv and cholesky") {
  using C3 = tl::tensor<cd, 3>;
  C3 z = input<cd, 3>({2, 3, 3}, 1.5, 0.4);
  z.requires_grad_();
  // every row of grad_batched equals grad with that row's cotangent
  const auto check = [&](const auto& y) {
    using Y = std::remove_cvref_t<decltype(y)>;
    auto shape = tl::detail::batched_shape(3, y.shape());
    tl::tensor<cd, Y::rank + 1> gys(shape);
    for (index_t i = 0; i < gys.numel(); ++i)
      gys.data()[i] = cd(std::cos(0.37 * static_cast<double>(i) + 1.0), std::sin(0.53 * static_cast<double>(i)));
    auto [gb] = ag::grad_batched(y, std::tie(z), gys, {.retain_graph = true});
    REQUIRE(gb.shape() == tl::detail::batched_shape(3, z.shape()));
    for (index_t b = 0; b < 3; ++b) {
      CAPTURE(b);
      const Y gy = gys.select(0, b).clone();
      auto [r] = ag::grad(y, std::tie(z), gy, {.retain_graph = true});
      tl_test::check_same(gb.select(0, b), r, 1e-12);
    }
  };
  check(C3(la::inv(z)));
  check(la::det(z));
  check(C3(la::cholesky(hpd(z))));
  check(C3(la::cholesky(hpd(z), true)));
  check(C3(la::eigh(ad_sym(z)).eigenvectors));  // eigh's batched rule, complex eigenvectors
  {
    const auto r = la::svd(z);
    check(C3(tl::matmul(r.U, r.Vh)));  // svd's batched rule, a phase-invariant loss
  }
  // solve with one A (left and right) and lu_solve (right, adjoint): complex cotangents through
  // their batched rules, with respect to A (or LU) and B
  using C2 = tl::tensor<cd, 2>;
  C2 z2 = input<cd, 2>({3, 3}, 1.5, 0.6);
  C2 b2 = input<cd, 2>({3, 2}, 0, 0.3);
  C2 b3 = input<cd, 2>({2, 3}, 0, 0.8);
  C2 lu3 = la::lu_factor(z2.detach()).LU;
  const tl::tensor<std::int32_t, 1> piv3 = la::lu_factor(z2.detach()).pivots;
  for (C2* t : {&z2, &b2, &b3, &lu3}) t->requires_grad_();
  const auto check_ab = [&](const C2& y, C2& wrt_a, C2& wrt_b) {
    tl::tensor<cd, 3> gys(tl::detail::batched_shape(5, y.shape()));
    for (index_t i = 0; i < gys.numel(); ++i)
      gys.data()[i] = cd(std::cos(0.23 * static_cast<double>(i) + 0.7), std::sin(0.61 * static_cast<double>(i)));
    auto [ga, gb] = ag::grad_batched(y, std::tie(wrt_a, wrt_b), gys, {.retain_graph = true});
    for (index_t b = 0; b < 5; ++b) {
      CAPTURE(b);
      const C2 gy = gys.select(0, b).clone();
      auto [ra, rb] = ag::grad(y, std::tie(wrt_a, wrt_b), gy, {.retain_graph = true});
      tl_test::check_same(ga.select(0, b), ra, 1e-12);
      tl_test::check_same(gb.select(0, b), rb, 1e-12);
    }
  };
  check_ab(la::solve(z2, b2), z2, b2);
  check_ab(la::solve(z2, b3, false), z2, b3);
  check_ab(la::lu_solve(lu3, piv3, b3, false, true), lu3, b3);
}

}  // namespace linalg_autograd_composite_test
