// Reductions on a CUDA device against the host evaluator (min/max/arg, var/std/norm/logsumexp):
// every call runs on host tensors and on their device copies, and the device result (copied back)
// must match (see cuda_compare.hpp for the tolerances).
#include "cuda_compare.hpp"

namespace cuda_extreme_stats_test {

TEST_CASE_TEMPLATE("min, max, argmin and argmax pick the first extreme as on the host", T, float, double,
                   std::int32_t, std::int64_t) {
  tl::manual_seed(3);
  // Seven values over 2310 elements: many ties, resolved to the first position.
  const auto x = tl::randint<T>(-3, 4, tl::shape_t<2>{33, 70});
  exact_on_device([](const auto& a) { return tl::amax(a); }, x);
  exact_on_device([](const auto& a) { return tl::amin(a, 1); }, x);
  exact_on_device([](const auto& a) { return tl::amax(a, tl::dims{0, 1}, tl::keepdim); }, x);
  exact_on_device([](const auto& a) { return tl::max(a); }, x);
  exact_on_device([](const auto& a) { return tl::min(a); }, x);
  exact_on_device([](const auto& a) { return tl::argmax(a); }, x);
  exact_on_device([](const auto& a) { return tl::argmin(a); }, x);
  exact_on_device([](const auto& a) { return tl::argmax(a, 0); }, x);
  exact_on_device([](const auto& a) { return tl::argmin(a, 1, tl::keepdim); }, x);
  pair_on_device([](const auto& a) { return tl::max(a, 1); }, x);
  pair_on_device([](const auto& a) { return tl::min(a, 0, tl::keepdim); }, x);
  // Transposed (strided) input and a column reduction.
  exact_on_device([](const auto& a) { return tl::argmax(a.t(), 1); }, x);
  pair_on_device([](const auto& a) { return tl::max(a.t(), 0); }, x);
  exact_on_device([](const auto& a) { return tl::argmax(a.t()); }, x);
}

TEST_CASE_TEMPLATE("var, std, norm and logsumexp", T, float, double) {
  tl::manual_seed(4);
  const auto x = tl::randn<T>(40, 77);
  const double rt = 10 * rtol<T>();
  const double at = std::is_same_v<T, float> ? 1e-6 : 1e-14;
  same_on_device([](const auto& a) { return tl::var(a); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::var(a, 0); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::std(a, 1, tl::keepdim); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::var(a, 1, tl::correction{0}); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::std(a, tl::correction{2}); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::norm(a); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::norm(a, 1, -1); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::norm(a, inf_d, 0); }, 0, 0, x);
  same_on_device([](const auto& a) { return tl::norm(a, -inf_d); }, 0, 0, x);
  same_on_device([](const auto& a) { return tl::norm(a, 0, 1); }, 0, 0, x);
  same_on_device([](const auto& a) { return tl::norm(a, 3.0, 1); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::logsumexp(a); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::logsumexp(a, 0); }, rt, at, x);
  same_on_device([](const auto& a) { return tl::logsumexp(a, 1, tl::keepdim); }, rt, at, x);
  // One element with correction 1: 0 / 0.
  same_on_device([](const auto& a) { return tl::var(a.slice(0, 0, 1), 0); }, 0, 0, x);
}

}  // namespace cuda_extreme_stats_test
