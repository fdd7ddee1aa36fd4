// Fitting a cubic to noisy samples with tl::linalg::lstsq: y = 0.5 - 1.2 x + 0.8 x^2 + 0.3 x^3 plus
// Gaussian noise (sigma 0.05) at 200 points in [-2, 2]. The Vandermonde matrix [1, x, x^2, x^3]
// and one least-squares solve give the coefficients back; the QR driver (gels) also returns the
// squared residual norm, which for a good fit is about (points - parameters) * sigma^2. A
// rank-deficient design (a duplicated column) shows what the default gelsy driver does: it
// detects rank 4 of 5 and returns the minimum-norm solution.
//
// The example checks that every coefficient is recovered to within 0.05 and that the residual
// is consistent with the noise level.
#include <cmath>
#include <cstdio>
#include <optional>
#include <tl/tensor.hpp>

int main() {
  const tl::index_t n = 200, p = 4;
  const double truth[p] = {0.5, -1.2, 0.8, 0.3}, sigma = 0.05;

  tl::manual_seed(3);
  const auto x = tl::linspace<double>(-2.0, 2.0, n);
  const tl::tensor<double, 1> noise = sigma * tl::randn<double>(n);
  tl::tensor<double, 2> A(tl::shape_t<2>{n, p});
  tl::tensor<double, 1> y(tl::shape_t<1>{n});
  for (tl::index_t i = 0; i < n; ++i) {
    double xi = 1, yi = 0;
    for (tl::index_t j = 0; j < p; ++j) {
      A(i, j) = xi;
      yi += truth[j] * xi;
      xi *= x(i);
    }
    y(i) = yi + noise(i);
  }

  // y is a vector: its rank is one less than A's, so the solution is a vector too.
  auto [coef, residuals, rank, sv] = tl::linalg::lstsq(A, y, std::nullopt, "gels");
  std::printf("fitted coefficients (true values in brackets):\n");
  bool ok = true;
  for (tl::index_t j = 0; j < p; ++j) {
    std::printf("  c%lld = %+.4f  [%+.2f]\n", static_cast<long long>(j), coef(j), truth[j]);
    ok = ok && std::abs(coef(j) - truth[j]) < 0.05;
  }
  const double rss = residuals(0), expected = static_cast<double>(n - p) * sigma * sigma;
  std::printf("residual sum of squares %.4f (noise alone: about %.4f), rms error %.4f\n", rss, expected,
              std::sqrt(rss / static_cast<double>(n)));
  ok = ok && rss > 0.5 * expected && rss < 2.0 * expected;

  // A design with the x column twice: rank 4, and the minimum-norm solution splits the linear
  // coefficient evenly between the two copies.
  tl::tensor<double, 2> D(tl::shape_t<2>{n, p + 1});
  for (tl::index_t i = 0; i < n; ++i) {
    for (tl::index_t j = 0; j < p; ++j) D(i, j) = A(i, j);
    D(i, p) = A(i, 1);
  }
  auto fit = tl::linalg::lstsq(D, y);  // driver gelsy (QR with column pivoting)
  std::printf("duplicated column: rank %lld, linear coefficients %+.4f and %+.4f (sum %+.4f)\n",
              static_cast<long long>(fit.rank()), fit.solution(1), fit.solution(p), fit.solution(1) + fit.solution(p));
  ok = ok && fit.rank() == p && std::abs(fit.solution(1) - fit.solution(p)) < 1e-8 &&
       std::abs(fit.solution(1) + fit.solution(p) - coef(1)) < 1e-8;

  std::printf(ok ? "ok\n" : "FAILED\n");
  return ok ? 0 : 1;
}
