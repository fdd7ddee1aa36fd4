// tl::linalg::cholesky / cholesky_ex of CUDA tensors (cuSOLVER potrf) against the CPU
// factorization of the same matrices: every dtype, lower and upper, batched, views and empty
// inputs, and the not-positive-definite paths (info, and the error naming the batch element).
#include "cuda_linalg_util.hpp"

namespace cuda_cholesky_test {

namespace {
using tl::index_t;
using tl_test::cuda0;
using tl_test::random;
using tl_test::rel_rms;

/// B B^H + n I for random B: Hermitian positive-definite, well conditioned.
template <class T, std::size_t R>
tl::tensor<T, R> spd(const tl::shape_t<R>& s, std::uint64_t seed) {
  const auto b = random<T, R>(s, seed);
  const index_t n = s[R - 1];
  return tl::tensor<T, R>(tl::matmul(b, tl::conj(b.mT())) + tl::eye<T>(n) * T(static_cast<double>(n)));
}

template <class T>
double bound(index_t n) {
  return tl_test::n_eps<T>(n, 50);
}
}  // namespace

TEST_CASE_TEMPLATE("cholesky of device tensors matches the CPU", T, float, double, tl::complex<float>,
                   tl::complex<double>) {
  for (index_t n : {1, 2, 7, 64, 130}) {
    CAPTURE(n);
    const auto a = spd<T, 2>({n, n}, 100 + n);
    const auto d = a.to(cuda0);
    for (bool upper : {false, true}) {
      CAPTURE(upper);
      const auto l = tl::linalg::cholesky(d, upper);
      CHECK(l.is_cuda());
      CHECK(rel_rms(l, tl::linalg::cholesky(a, upper)) <= bound<T>(n));
      const auto ex = tl::linalg::cholesky_ex(d, upper);
      CHECK(ex.info.is_cuda());
      CHECK(ex.info.cpu().data()[0] == 0);
    }
  }
  // Batched, and a transposed view (for a Hermitian matrix, its conjugate).
  const auto ab = spd<T, 3>({3, 20, 20}, 7);
  CHECK(rel_rms(tl::linalg::cholesky(ab.to(cuda0)), tl::linalg::cholesky(ab)) <= bound<T>(20));
  CHECK(rel_rms(tl::linalg::cholesky(ab.to(cuda0).mT()), tl::linalg::cholesky(ab.mT())) <= bound<T>(20));
  const auto e = tl::linalg::cholesky(tl::zeros<T>(tl::shape_t<3>{2, 0, 0}, cuda0));
  CHECK(e.is_cuda());
  CHECK(e.shape() == tl::shape_t<3>{2, 0, 0});
}

TEST_CASE("cholesky of device tensors: not positive-definite") {
  auto ab = spd<double, 3>({3, 6, 6}, 11);
  ab(1, 3, 3) = -100.0;  // leading minor of order 4 of batch element 1 is indefinite
  const auto ex = tl::linalg::cholesky_ex(ab.to(cuda0));
  const auto info = ex.info.cpu();
  CHECK(info.data()[0] == 0);
  CHECK(info.data()[1] == 4);
  CHECK(info.data()[2] == 0);
  CHECK_THROWS_WITH_AS(tl::linalg::cholesky(ab.to(cuda0)),
                       tl_test::error_of([&] { (void)tl::linalg::cholesky(ab); }).c_str(), tl::linalg_error);
  CHECK_THROWS_AS(tl::linalg::cholesky(tl::ones<double>(3, 4, cuda0)), tl::shape_error);
}

}  // namespace cuda_cholesky_test
