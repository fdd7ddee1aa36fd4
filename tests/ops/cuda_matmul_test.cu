// tl::matmul of CUDA tensors (cuBLAS) against the CPU product of the same data: every floating
// dtype, the 1-D cases, batch broadcasting (including a broadcast dim between batched ones),
// transposed, sliced and conjugated operands, empty and k = 0 products, and the errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <tl/cuda.hpp>
#include <type_traits>

#include "../cuda_rel_rms.hpp"
#include "../test_util.hpp"

namespace cuda_matmul_test {

namespace {
using tl::index_t;
using tl_test::random;
using tl_test::rel_rms;

const tl::device cuda0 = tl::device::cuda(0);

/// Relative RMS bound for sums of k products in a different order: a few eps times k.
template <class V>
double bound(index_t k) {
  return 8.0 * std::numeric_limits<tl::real_t<V>>::epsilon() * static_cast<double>(std::max<index_t>(k, 1));
}
}  // namespace

TEST_CASE_TEMPLATE("matmul of device tensors matches the CPU: 2-D, 1-D and batched", V, float, double,
                   tl::complex<float>, tl::complex<double>) {
  for (auto [m, k, n] : {std::array<index_t, 3>{1, 1, 1}, {3, 5, 7}, {64, 64, 64}, {129, 70, 33}, {1, 300, 1}}) {
    CAPTURE(m);
    CAPTURE(k);
    CAPTURE(n);
    const auto a = random<V, 2>({m, k}, 11 + m);
    const auto b = random<V, 2>({k, n}, 13 + n);
    CHECK(rel_rms(tl::matmul(a.to(cuda0), b.to(cuda0)), tl::matmul(a, b)) <= bound<V>(k));
    const auto v = random<V, 1>({k}, 17 + k);
    const auto w = random<V, 1>({k}, 19 + k);
    CHECK(rel_rms(tl::matmul(a.to(cuda0), v.to(cuda0)), tl::matmul(a, v)) <= bound<V>(k));
    CHECK(rel_rms(tl::matmul(v.to(cuda0), b.to(cuda0)), tl::matmul(v, b)) <= bound<V>(k));
    CHECK(rel_rms(tl::matmul(v.to(cuda0), w.to(cuda0)), tl::matmul(v, w)) <= bound<V>(k));
  }
  // Batches: full on both sides, one side shared, and a broadcast dim between batched ones.
  const auto a3 = random<V, 3>({4, 6, 5}, 23);
  const auto b3 = random<V, 3>({4, 5, 3}, 29);
  const auto b2 = random<V, 2>({5, 3}, 31);
  CHECK(rel_rms(tl::matmul(a3.to(cuda0), b3.to(cuda0)), tl::matmul(a3, b3)) <= bound<V>(5));
  CHECK(rel_rms(tl::matmul(a3.to(cuda0), b2.to(cuda0)), tl::matmul(a3, b2)) <= bound<V>(5));
  CHECK(rel_rms(tl::matmul(b2.t().to(cuda0), a3.mT().to(cuda0)), tl::matmul(b2.t(), a3.mT())) <= bound<V>(5));
  const auto a4 = random<V, 4>({2, 1, 6, 5}, 37);
  const auto b4 = random<V, 3>({3, 5, 4}, 41);
  const auto mixed = tl::matmul(a4.to(cuda0), b4.to(cuda0));
  CHECK(mixed.shape() == tl::shape_t<4>{2, 3, 6, 4});
  CHECK(rel_rms(mixed, tl::matmul(a4, b4)) <= bound<V>(5));
  const auto a5 = random<V, 4>({2, 3, 6, 5}, 43);
  const auto b5 = random<V, 4>({1, 3, 5, 4}, 47);  // broadcast outer dim, batched inner one
  CHECK(rel_rms(tl::matmul(a5.to(cuda0), b5.to(cuda0)), tl::matmul(a5, b5)) <= bound<V>(5));
}

TEST_CASE_TEMPLATE("matmul of device views: transposed, sliced, conjugated", V, float, tl::complex<double>) {
  const auto a = random<V, 2>({40, 30}, 53);
  const auto b = random<V, 2>({40, 20}, 59);
  const auto ad = a.to(cuda0), bd = b.to(cuda0);
  CHECK(rel_rms(tl::matmul(ad.t(), bd), tl::matmul(a.t(), b)) <= bound<V>(40));
  CHECK(rel_rms(tl::matmul(ad.slice(0, 1, 31, 2), bd.slice(0, 0, 30).slice(1, 0, 20, 3)),
                tl::matmul(a.slice(0, 1, 31, 2), b.slice(0, 0, 30).slice(1, 0, 20, 3))) <= bound<V>(30));
  if constexpr (tl::is_complex_v<V>) {
    CHECK(rel_rms(tl::matmul(ad.t().conj(), bd), tl::matmul(a.t().conj(), b)) <= bound<V>(40));
  }
  // An expression operand is evaluated once on the device.
  CHECK(rel_rms(tl::matmul(ad.t() * V(2), bd), tl::matmul(a.t() * V(2), b)) <= bound<V>(40));
}

TEST_CASE("matmul of device tensors: promotion, empty products, k = 0") {
  const auto a = random<float, 2>({3, 4}, 61);
  const auto b = random<double, 2>({4, 2}, 67);
  const auto p = tl::matmul(a.to(cuda0), b.to(cuda0));
  static_assert(std::is_same_v<typename decltype(p)::value_type, double>);
  CHECK(rel_rms(p, tl::matmul(a, b)) <= bound<double>(4));
  const auto e = tl::matmul(tl::zeros<float>(0, 4, cuda0), tl::zeros<float>(4, 5, cuda0));
  CHECK(e.is_cuda());
  CHECK(e.shape() == tl::shape_t<2>{0, 5});
  const auto z = tl::matmul(tl::ones<float>(3, 0, cuda0), tl::ones<float>(0, 2, cuda0)).cpu();
  CHECK(z.shape() == tl::shape_t<2>{3, 2});
  for (index_t i = 0; i < z.numel(); ++i) CHECK(z.data()[i] == 0.0f);
}

TEST_CASE("matmul of device tensors: errors") {
  const auto a = tl::ones<float>(3, 4, cuda0);
  CHECK_THROWS_WITH_AS(tl::matmul(a, tl::ones<float>(4, 2)),
                       "tl::matmul: expected both operands on the same device, got cuda:0 and cpu", tl::device_error);
  CHECK_THROWS_WITH_AS(tl::matmul(a, tl::ones<float>(5, 2, cuda0)),
                       doctest::Contains("cannot be multiplied (inner extents 4 and 5 differ)"), tl::shape_error);
  CHECK_THROWS_WITH_AS(tl::matmul(tl::ones<std::int64_t>(3, 4, cuda0), tl::ones<std::int64_t>(4, 2, cuda0)),
                       doctest::Contains("products of int64 tensors on a CUDA device are not supported"),
                       tl::device_error);
}

}  // namespace cuda_matmul_test
