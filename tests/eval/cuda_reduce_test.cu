// Reductions on a CUDA device against the host evaluator (sum, mean, prod, integer and bool
// sums and counts): every call runs on host tensors and on their device
// copies, and the device result (copied back) must match (see cuda_compare.hpp for the tolerances).
#include "cuda_compare.hpp"

namespace cuda_reduce_test {

TEST_CASE_TEMPLATE("sum, mean and prod over every dim and over chosen dims", T, float, double, tl::complex<float>,
                   tl::complex<double>) {
  tl::manual_seed(1);
  // Positive real parts: a relative tolerance on the sum bounds the error of any summation order.
  const auto x = uniform<T>(tl::shape_t<2>{37, 129});
  const double rt = rtol<T>();
  same_on_device([](const auto& a) { return tl::sum(a); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::sum(a, tl::keepdim); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::sum(a, 0); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::sum(a, 1); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::sum(a, -1, tl::keepdim); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::sum(a, tl::dims{1, 0}); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::mean(a); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::mean(a, 0); }, rt, 0, x);
  same_on_device([](const auto& a) { return tl::mean(a, 1, tl::keepdim); }, rt, 0, x);
  // A keepdim reduction inside an expression (fused into the rows on the host).
  same_on_device([](const auto& a) { return a - tl::mean(a, -1, tl::keepdim); }, rt, rt, x);
  same_on_device([](const auto& a) { return a * tl::sum(a, 0, tl::keepdim); }, rt, rt, x);
  // Factors near 1 keep the products of 37 and 129 elements in range.
  const tl::tensor<T, 2> y = x * 0.2 + 0.9;
  if constexpr (tl::is_complex_v<T>) {
    // The phase turns, so a part of a long product may cancel to near zero: short products only,
    // with an absolute tolerance.
    const auto z = tl::tensor<T, 2>(y.slice(0, 0, 4).slice(1, 0, 10));
    same_on_device([](const auto& a) { return tl::prod(a, 1); }, rt, 1e-5, z);
    same_on_device([](const auto& a) { return tl::prod(a, 0); }, rt, 1e-5, z);
  } else {
    same_on_device([](const auto& a) { return tl::prod(a, 0); }, rt, 0, y);
    same_on_device([](const auto& a) { return tl::prod(a, 1); }, rt, 0, y);
    same_on_device([](const auto& a) { return tl::prod(a); }, 10 * rt, 0, y);
  }
}

TEST_CASE_TEMPLATE("integer and bool sums, products and counts are exact", T, std::int32_t, std::int64_t, bool) {
  tl::manual_seed(2);
  tl::tensor<T, 2> x;
  if constexpr (std::is_same_v<T, bool>) x = tl::randint(0, 2, 37, 129) > 0;
  else x = tl::randint<T>(-1, 3, tl::shape_t<2>{37, 129});  // -1, 0, 1, 2: prod over 37 rows fits int64
  exact_on_device([](const auto& a) { return tl::sum(a); }, x);
  exact_on_device([](const auto& a) { return tl::sum(a, 0); }, x);
  exact_on_device([](const auto& a) { return tl::sum(a, 1, tl::keepdim); }, x);
  exact_on_device([](const auto& a) { return tl::prod(a, 0); }, x);
  exact_on_device([](const auto& a) { return tl::count_nonzero(a); }, x);
  exact_on_device([](const auto& a) { return tl::count_nonzero(a, 1); }, x);
  exact_on_device([](const auto& a) { return tl::all_of(a, 0); }, x);
  exact_on_device([](const auto& a) { return tl::any_of(a, 1); }, x);
  exact_on_device([](const auto& a) { return tl::all_of(a != T(0)); }, x);
  exact_on_device([](const auto& a) { return tl::any_of(a, tl::keepdim); }, x);
  exact_on_device([](const auto& a) { return tl::amax(a, 1); }, x);
  exact_on_device([](const auto& a) { return tl::amin(a, 0); }, x);
}

}  // namespace cuda_reduce_test
