// tl::linalg::solve / solve_ex, inv / inv_ex, lu_factor / lu_factor_ex, det and slogdet of CUDA
// tensors (cuSOLVER getrf + getrs) against the CPU results for the same inputs: every dtype, left and right, vector
// and matrix right-hand sides, broadcast batches, views, rectangular factorizations, factoring
// without pivoting, empty inputs, singular matrices (info, and the CPU's error) and the errors.
#include <cmath>
#include <utility>
#include <vector>

#include "cuda_linalg_util.hpp"

namespace cuda_solve_test {

namespace {
using tl::index_t;
using tl_test::cuda0;
using tl_test::random;
using tl_test::rel_rms;

/// Random A + n I: well conditioned.
template <class T, std::size_t R>
tl::tensor<T, R> well_conditioned(const tl::shape_t<R>& s, std::uint64_t seed) {
  const index_t n = s[R - 1];
  return tl::tensor<T, R>(random<T, R>(s, seed) + tl::eye<T>(n) * T(static_cast<double>(n)));
}

template <class T>
double bound(index_t n) {
  return tl_test::n_eps<T>(n, 100);
}
}  // namespace

TEST_CASE_TEMPLATE("solve of device tensors matches the CPU", T, float, double, tl::complex<float>,
                   tl::complex<double>) {
  for (index_t n : {1, 2, 7, 64, 130}) {
    CAPTURE(n);
    const auto a = well_conditioned<T, 2>({n, n}, 300 + n);
    const auto b = random<T, 2>({n, 5}, 400 + n);
    const auto c = random<T, 2>({3, n}, 500 + n);
    const auto v = random<T, 1>({n}, 600 + n);
    const auto da = a.to(cuda0);
    const auto x = tl::linalg::solve(da, b.to(cuda0));
    CHECK(x.is_cuda());
    CHECK(rel_rms(x, tl::linalg::solve(a, b)) <= bound<T>(n));
    CHECK(rel_rms(tl::linalg::solve(da, c.to(cuda0), /*left=*/false), tl::linalg::solve(a, c, false)) <= bound<T>(n));
    CHECK(rel_rms(tl::linalg::solve(da, v.to(cuda0)), tl::linalg::solve(a, v)) <= bound<T>(n));
    const auto ex = tl::linalg::solve_ex(da, b.to(cuda0));
    CHECK(ex.info.is_cuda());
    CHECK(ex.info.cpu().item() == 0);
  }
}

TEST_CASE_TEMPLATE("solve of device tensors: broadcast batches, vector batches and views", T, double,
                   tl::complex<float>) {
  const index_t n = 12;
  // A [2, 1, n, n] with B [1, 3, n, 4]: the result is [2, 3, n, 4]; each A is factored once.
  const auto a = well_conditioned<T, 4>({2, 1, n, n}, 71);
  const auto b = random<T, 4>({1, 3, n, 4}, 72);
  CHECK(rel_rms(tl::linalg::solve(a.to(cuda0), b.to(cuda0)), tl::linalg::solve(a, b)) <= bound<T>(n));
  CHECK(rel_rms(tl::linalg::solve(a.to(cuda0), tl::tensor<T, 4>(b.mT()).to(cuda0), false),
                tl::linalg::solve(a, tl::tensor<T, 4>(b.mT()), false)) <= bound<T>(n));
  // A batch of vectors B [2, 1, n] (A's shape without the last dim), and one vector for the whole batch.
  const auto vb = random<T, 3>({2, 1, n}, 73);
  CHECK(rel_rms(tl::linalg::solve(a.to(cuda0), vb.to(cuda0)), tl::linalg::solve(a, vb)) <= bound<T>(n));
  const auto v1 = random<T, 1>({n}, 74);
  CHECK(rel_rms(tl::linalg::solve(a.to(cuda0), v1.to(cuda0)), tl::linalg::solve(a, v1)) <= bound<T>(n));
  // One A for a batch of B; transposed and conjugated views of A and B.
  const auto a2 = well_conditioned<T, 2>({n, n}, 75);
  const auto b3 = random<T, 3>({5, n, 2}, 76);
  CHECK(rel_rms(tl::linalg::solve(a2.to(cuda0), b3.to(cuda0)), tl::linalg::solve(a2, b3)) <= bound<T>(n));
  CHECK(rel_rms(tl::linalg::solve(a2.to(cuda0).mT(), tl::conj(b3.to(cuda0))),
                tl::linalg::solve(a2.mT(), tl::conj(b3))) <= bound<T>(n));
  CHECK(rel_rms(tl::linalg::solve(tl::conj(a2.to(cuda0)), b3.to(cuda0)), tl::linalg::solve(tl::conj(a2), b3)) <=
        bound<T>(n));
}

TEST_CASE("solve of device tensors: empty, singular and errors") {
  const auto e = tl::linalg::solve(tl::zeros<float>(tl::shape_t<3>{2, 0, 0}, cuda0), tl::zeros<float>(2, 0, 3, cuda0));
  CHECK(e.is_cuda());
  CHECK(e.shape() == tl::shape_t<3>{2, 0, 3});
  const auto a = well_conditioned<double, 2>({4, 4}, 81);
  CHECK(tl::linalg::solve(a.to(cuda0), tl::zeros<double>(4, 0, cuda0)).shape() == tl::shape_t<2>{4, 0});
  CHECK(tl::linalg::solve(a.to(cuda0), tl::zeros<double>(0, 4, 2, cuda0)).shape() == tl::shape_t<3>{0, 4, 2});
  // Batch element 1 is the zero matrix: solve throws the CPU's error, solve_ex reports it in info.
  auto s = well_conditioned<double, 3>({3, 5, 5}, 82);
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 5; ++j) s(1, i, j) = 0.0;
  const auto rhs = random<double, 3>({3, 5, 2}, 83);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(s.to(cuda0), rhs.to(cuda0)),
                       tl_test::error_of([&] { (void)tl::linalg::solve(s, rhs); }).c_str(), tl::linalg_error);
  const auto ex = tl::linalg::solve_ex(s.to(cuda0), rhs.to(cuda0));
  const auto info = ex.info.cpu();
  CHECK(info(0) == 0);
  CHECK(info(1) == 1);
  CHECK(info(2) == 0);
  const auto host_ex = tl::linalg::solve_ex(s, rhs);
  CHECK(rel_rms(tl::tensor<double, 2>(ex.result.select(0, 2)), tl::tensor<double, 2>(host_ex.result.select(0, 2))) <=
        bound<double>(5));
  // Errors: shapes (as on the CPU), mixed devices, gradients.
  CHECK_THROWS_AS(tl::linalg::solve(tl::ones<double>(3, 4, cuda0), tl::ones<double>(3, 1, cuda0)), tl::shape_error);
  CHECK_THROWS_AS(tl::linalg::solve(a.to(cuda0), tl::ones<double>(5, 1, cuda0)), tl::shape_error);
  CHECK_THROWS_AS(tl::linalg::solve(a.to(cuda0), tl::ones<double>(4, cuda0), false), tl::value_error);
  CHECK_THROWS_AS(tl::linalg::solve(a.to(cuda0), tl::ones<double>(4, 1)), tl::device_error);
  CHECK_THROWS_AS(tl::linalg::solve(a, tl::ones<double>(4, 1, cuda0)), tl::device_error);
#if TL_AUTOGRAD != 0
  CHECK_THROWS_AS(tl::linalg::solve(a.to(cuda0).requires_grad(), tl::ones<double>(4, 1, cuda0)), tl::device_error);
#endif
}

namespace {
/// max |P A - L U| / max |A| for lu_factor's (LU, pivots) of A, computed on the host.
template <class T>
double mag(const T& x) {
  if constexpr (tl::is_complex_v<T>) return static_cast<double>(tl::abs(x));
  else return std::abs(static_cast<double>(x));
}

template <class T, class ExtA, class ExtL, class ExtP>
double lu_residual(const tl::basic_tensor<T, ExtA>& a, const tl::basic_tensor<T, ExtL>& lu_in,
                   const tl::basic_tensor<std::int32_t, ExtP>& piv_in) {
  constexpr std::size_t R = ExtA::rank;
  const auto lu = lu_in.cpu().contiguous();
  const auto piv = piv_in.cpu().contiguous();
  const auto ah = a.contiguous();
  const auto& s = ah.shape();
  const index_t m = s[R - 2], n = s[R - 1], k = std::min(m, n), nb = ah.numel() / std::max<index_t>(m * n, 1);
  double worst = 0, scale = 0;
  for (index_t b = 0; b < (m * n > 0 ? nb : 0); ++b) {
    std::vector<T> pa(ah.data() + b * m * n, ah.data() + (b + 1) * m * n);
    for (index_t i = 0; i < k; ++i) {
      const index_t p = piv.data()[b * k + i] - 1;
      for (index_t j = 0; j < n; ++j) std::swap(pa[static_cast<std::size_t>(i * n + j)], pa[static_cast<std::size_t>(p * n + j)]);
    }
    const T* f = lu.data() + b * m * n;
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        T acc = i < n && i <= j ? f[i * n + j] : T(0);  // L's unit diagonal times U(i, j)
        for (index_t q = 0; q < std::min({i, j + 1, k}); ++q) acc = acc + f[i * n + q] * f[q * n + j];
        worst = std::max(worst, mag(acc - pa[static_cast<std::size_t>(i * n + j)]));
        scale = std::max(scale, mag(pa[static_cast<std::size_t>(i * n + j)]));
      }
  }
  return scale == 0 ? worst : worst / scale;
}
}  // namespace

TEST_CASE_TEMPLATE("lu_factor and inv of device tensors match the CPU", T, float, double, tl::complex<float>,
                   tl::complex<double>) {
  for (index_t n : {1, 7, 64, 130}) {
    CAPTURE(n);
    const auto a = well_conditioned<T, 2>({n, n}, 700 + n);
    const auto f = tl::linalg::lu_factor(a.to(cuda0));
    CHECK(f.LU.is_cuda());
    CHECK(f.pivots.is_cuda());
    CHECK(lu_residual(a, f.LU, f.pivots) <= bound<T>(n));
    if constexpr (!tl::is_complex_v<T>) {  // the same pivots as the CPU (max |a| in the column)
      const auto h = tl::linalg::lu_factor(a);
      CHECK(rel_rms(f.LU, h.LU) <= bound<T>(n));
      CHECK(rel_rms(tl::tensor<double, 1>(tl::astype<double>(f.pivots)), tl::tensor<double, 1>(tl::astype<double>(h.pivots))) == 0);
    }
    const auto ai = tl::linalg::inv(a.to(cuda0));
    CHECK(ai.is_cuda());
    CHECK(rel_rms(ai, tl::linalg::inv(a)) <= bound<T>(n));
  }
  // Rectangular and batched factorizations, with and without pivoting.
  const auto r = random<T, 3>({2, 4, 6}, 77);
  const auto fr = tl::linalg::lu_factor_ex(r.to(cuda0));
  CHECK(fr.pivots.shape() == tl::shape_t<2>{2, 4});
  CHECK(lu_residual(r, fr.LU, fr.pivots) <= bound<T>(6));
  const auto t = random<T, 2>({6, 3}, 78);
  CHECK(lu_residual(t, tl::linalg::lu_factor_ex(t.to(cuda0)).LU, tl::linalg::lu_factor_ex(t.to(cuda0)).pivots) <=
        bound<T>(6));
  const auto d = well_conditioned<T, 3>({3, 9, 9}, 79);
  const auto np = tl::linalg::lu_factor(d.to(cuda0), /*pivot=*/false);
  const auto piv = np.pivots.cpu();
  for (index_t b = 0; b < 3; ++b)
    for (index_t i = 0; i < 9; ++i) CHECK(piv(b, i) == i + 1);
  CHECK(lu_residual(d, np.LU, np.pivots) <= bound<T>(9));
  CHECK(rel_rms(tl::linalg::inv(d.to(cuda0)), tl::linalg::inv(d)) <= bound<T>(9));
}

TEST_CASE("lu_factor and inv of device tensors: empty, singular and errors") {
  const auto e = tl::linalg::lu_factor(tl::zeros<float>(tl::shape_t<3>{2, 0, 3}, cuda0));
  CHECK(e.LU.shape() == tl::shape_t<3>{2, 0, 3});
  CHECK(e.pivots.shape() == tl::shape_t<2>{2, 0});
  CHECK(tl::linalg::inv(tl::zeros<double>(tl::shape_t<3>{0, 4, 4}, cuda0)).shape() == tl::shape_t<3>{0, 4, 4});
  auto s = well_conditioned<double, 3>({3, 5, 5}, 84);
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 5; ++j) s(2, i, j) = 0.0;
  CHECK_THROWS_WITH_AS(tl::linalg::inv(s.to(cuda0)), tl_test::error_of([&] { (void)tl::linalg::inv(s); }).c_str(),
                       tl::linalg_error);
  CHECK_THROWS_WITH_AS(tl::linalg::lu_factor(s.to(cuda0)),
                       tl_test::error_of([&] { (void)tl::linalg::lu_factor(s); }).c_str(), tl::linalg_error);
  const auto ex = tl::linalg::inv_ex(s.to(cuda0));
  CHECK(ex.info.cpu()(2) == 1);
  CHECK(ex.info.cpu()(0) == 0);
  const auto fx = tl::linalg::lu_factor_ex(s.to(cuda0));
  CHECK(fx.info.cpu()(2) == 1);
  CHECK(lu_residual(tl::tensor<double, 2>(s.select(0, 1)), tl::tensor<double, 2>(fx.LU.select(0, 1)),
                    tl::tensor<std::int32_t, 1>(fx.pivots.select(0, 1))) <= bound<double>(5));
  CHECK_THROWS_AS(tl::linalg::inv(tl::ones<double>(3, 4, cuda0)), tl::shape_error);
#if TL_AUTOGRAD != 0
  CHECK_THROWS_AS(tl::linalg::inv(tl::ones<double>(3, 3, cuda0).requires_grad()), tl::device_error);
  CHECK_THROWS_AS(tl::linalg::lu_factor(tl::ones<double>(3, 3, cuda0).requires_grad()), tl::device_error);
#endif
}

TEST_CASE_TEMPLATE("det and slogdet of device tensors match the CPU", T, float, double, tl::complex<float>,
                   tl::complex<double>) {
  // A batch with a well-conditioned matrix, a permuted one (odd interchanges), a singular one and
  // 1 x 1 and 0 x 0 inputs.
  auto a = well_conditioned<T, 3>({3, 6, 6}, 91);
  for (index_t j = 0; j < 6; ++j) std::swap(a(1, 0, j), a(1, 5, j));
  for (index_t i = 0; i < 6; ++i) a(2, i, 3) = T(0);
  const auto d = tl::linalg::det(a.to(cuda0));
  CHECK(d.is_cuda());
  CHECK(rel_rms(d, tl::linalg::det(a)) <= bound<T>(6));
  const auto sl = tl::linalg::slogdet(a.to(cuda0));
  const auto hs = tl::linalg::slogdet(a);
  CHECK(sl.sign.is_cuda());
  CHECK(rel_rms(sl.sign, hs.sign) <= bound<T>(6));
  const auto la = sl.logabsdet.cpu();
  CHECK(std::abs(la(0) - hs.logabsdet(0)) <= bound<T>(6) * std::abs(hs.logabsdet(0)) + bound<T>(6));
  CHECK(std::isinf(la(2)));
  CHECK(la(2) < 0);
  const auto one = well_conditioned<T, 2>({1, 1}, 92);
  CHECK(rel_rms(tl::linalg::det(one.to(cuda0)), tl::linalg::det(one)) <= bound<T>(1));
  const auto empty = tl::linalg::det(tl::zeros<T>(tl::shape_t<3>{2, 0, 0}, cuda0)).cpu();
  CHECK(empty(0) == T(1));
  CHECK_THROWS_AS(tl::linalg::det(tl::ones<T>(3, 4, cuda0)), tl::shape_error);
#if TL_AUTOGRAD != 0
  CHECK_THROWS_AS(tl::linalg::det(tl::ones<T>(3, 3, cuda0).requires_grad()), tl::device_error);
#endif
}

}  // namespace cuda_solve_test
