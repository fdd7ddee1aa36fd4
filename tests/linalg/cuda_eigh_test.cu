// tl::linalg::eigh / eigvalsh of CUDA tensors (cuSOLVER syevd / heevd) against the CPU results of
// the same matrices: every dtype, both triangles (and only that triangle read), batches, views,
// empty and 1 x 1 inputs, NaN input (NaN results, as on the CPU), and the errors. Eigenvectors are
// unique only up to a phase, so they are checked through the residual A V - V diag(w) and V^H V - I.
#include <cmath>

#include "cuda_linalg_util.hpp"

namespace cuda_eigh_test {

namespace {
using tl::index_t;
using tl_test::cuda0;
using tl_test::random;
using tl_test::rel_rms;

/// (B + B^H) / 2 for random B.
template <class T, std::size_t R>
tl::tensor<T, R> hermitian(const tl::shape_t<R>& s, std::uint64_t seed) {
  const auto b = random<T, R>(s, seed);
  return tl::tensor<T, R>((b + tl::conj(b.mT())) * T(0.5));
}

template <class T>
double bound(index_t n) {
  return tl_test::n_eps<T>(n, 50);
}

/// Sum of squared magnitudes.
template <class T, class Ext>
double norm2(const tl::basic_tensor<T, Ext>& t) {
  const auto c = t.contiguous();
  double s = 0;
  for (index_t i = 0; i < c.numel(); ++i) {
    const T v = c.data()[i];
    if constexpr (tl::is_complex_v<T>) s += static_cast<double>(v.re) * v.re + static_cast<double>(v.im) * v.im;
    else s += static_cast<double>(v) * v;
  }
  return s;
}

/// ||A V - V diag(w)|| / ||A|| and ||V^H V - I|| / sqrt(n) for a device result of the full Hermitian A.
template <class T, class Ext, class Res>
void check_vectors(const tl::basic_tensor<T, Ext>& a, const Res& d, double tol) {
  constexpr std::size_t R = Ext::rank;
  REQUIRE(d.eigenvectors.is_cuda());
  const tl::tensor<T, R> v = d.eigenvectors.cpu();
  const tl::tensor<T, R - 1> w = tl::astype<T>(d.eigenvalues.cpu());
  const index_t n = a.shape()[R - 1];
  const tl::tensor<T, R> res = tl::matmul(a, v) - v * w.unsqueeze(-2);
  CHECK(std::sqrt(norm2(res) / std::max(norm2(a), 1e-300)) <= tol);
  const tl::tensor<T, R> gram = tl::matmul(tl::conj(v.mT()), v) - tl::eye<T>(n);
  CHECK(std::sqrt(norm2(gram) / static_cast<double>(n)) <= tol);
}
}  // namespace

TEST_CASE_TEMPLATE("eigh and eigvalsh of device tensors match the CPU", T, float, double, tl::complex<float>,
                   tl::complex<double>) {
  for (index_t n : {1, 2, 7, 64, 130}) {
    CAPTURE(n);
    const auto a = hermitian<T, 2>({n, n}, 200 + n);
    const auto d = a.to(cuda0);
    for (const char* uplo : {"L", "U"}) {
      CAPTURE(uplo);
      const auto r = tl::linalg::eigh(d, uplo);
      CHECK(r.eigenvalues.is_cuda());
      CHECK(rel_rms(r.eigenvalues, tl::linalg::eigvalsh(a, uplo)) <= bound<T>(n));
      check_vectors(a, r, bound<T>(n));
      const auto w = tl::linalg::eigvalsh(d, uplo);
      CHECK(w.is_cuda());
      CHECK(rel_rms(w, tl::linalg::eigvalsh(a, uplo)) <= bound<T>(n));
    }
  }
}

TEST_CASE_TEMPLATE("eigh of device tensors reads only the UPLO triangle; batches and views", T, double,
                   tl::complex<float>) {
  const index_t n = 33;
  const auto a = hermitian<T, 2>({n, n}, 31);
  // Garbage (and a NaN) in the triangle that is not read.
  auto lower_only = a.clone(), upper_only = a.clone();
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      if (j > i) lower_only(i, j) = T(1e3);
      if (j < i) upper_only(i, j) = T(-1e3);
    }
  lower_only(0, n - 1) = T(std::numeric_limits<double>::quiet_NaN());
  CHECK(rel_rms(tl::linalg::eigvalsh(lower_only.to(cuda0), "L"), tl::linalg::eigvalsh(a)) <= bound<T>(n));
  CHECK(rel_rms(tl::linalg::eigvalsh(upper_only.to(cuda0), "U"), tl::linalg::eigvalsh(a)) <= bound<T>(n));
  check_vectors(a, tl::linalg::eigh(lower_only.to(cuda0), "L"), bound<T>(n));
  check_vectors(a, tl::linalg::eigh(upper_only.to(cuda0), "U"), bound<T>(n));
  // A batch [2, 3, 12, 12], a transposed view and a conjugated view (for Hermitian input, both are conj(A)).
  const auto b = hermitian<T, 4>({2, 3, 12, 12}, 32);
  const auto rb = tl::linalg::eigh(b.to(cuda0));
  CHECK(rel_rms(rb.eigenvalues, tl::linalg::eigvalsh(b)) <= bound<T>(12));
  check_vectors(b, rb, bound<T>(12));
  const tl::tensor<T, 2> ac = tl::conj(a);
  check_vectors(ac, tl::linalg::eigh(a.to(cuda0).mT()), bound<T>(n));
  check_vectors(ac, tl::linalg::eigh(tl::conj(a.to(cuda0))), bound<T>(n));
  CHECK(rel_rms(tl::linalg::eigvalsh(a.to(cuda0).mT(), "U"), tl::linalg::eigvalsh(a)) <= bound<T>(n));
}

TEST_CASE("eigh of device tensors: empty, NaN input and errors") {
  const auto e = tl::linalg::eigh(tl::zeros<float>(tl::shape_t<3>{2, 0, 0}, cuda0));
  CHECK(e.eigenvalues.is_cuda());
  CHECK(e.eigenvalues.shape() == tl::shape_t<2>{2, 0});
  CHECK(e.eigenvectors.shape() == tl::shape_t<3>{2, 0, 0});
  CHECK(tl::linalg::eigvalsh(tl::zeros<double>(tl::shape_t<3>{0, 4, 4}, cuda0)).shape() == tl::shape_t<2>{0, 4});
  // A NaN in batch element 1: its eigenvalues and eigenvectors are NaN (as on the CPU); element 0 is unaffected.
  auto b = hermitian<double, 3>({2, 9, 9}, 41);
  b(1, 4, 2) = std::numeric_limits<double>::quiet_NaN();
  const auto r = tl::linalg::eigh(b.to(cuda0));
  const auto w = r.eigenvalues.cpu();
  const auto v = r.eigenvectors.cpu();
  const auto host = tl::linalg::eigh(b);
  for (index_t i = 0; i < 9; ++i) {
    CHECK(std::isnan(w(1, i)));
    CHECK(std::isnan(host.eigenvalues(1, i)));
    CHECK(std::isnan(v(1, i, 0)));
    CHECK(std::abs(w(0, i) - host.eigenvalues(0, i)) <= 1e-12);
  }
  CHECK_THROWS_AS(tl::linalg::eigh(tl::ones<double>(3, 4, cuda0)), tl::shape_error);
#if TL_AUTOGRAD != 0
  // Gradients of eigh are not recorded on the device yet: refused, not dropped.
  CHECK_THROWS_AS(tl::linalg::eigh(tl::ones<double>(3, 3, cuda0).requires_grad()), tl::device_error);
  CHECK_THROWS_AS(tl::linalg::eigvalsh(tl::ones<double>(3, 3, cuda0).requires_grad()), tl::device_error);
#endif
  CHECK_THROWS_WITH_AS(tl::linalg::eigvalsh(tl::ones<double>(3, 3, cuda0), "X"),
                       tl_test::error_of([] { (void)tl::linalg::eigvalsh(tl::ones<double>(3, 3), "X"); }).c_str(),
                       tl::value_error);
}

}  // namespace cuda_eigh_test
