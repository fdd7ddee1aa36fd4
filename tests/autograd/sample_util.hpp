#pragma once
// Shared input helper of the autograd op tests.
#include <cstdint>

#include <tl/tensor.hpp>

namespace tl_test {
/// A seeded r x c double sample, uniform in [lo, hi).
inline tl::tensor<double, 2> sample(tl::index_t r, tl::index_t c, double lo, double hi, std::uint64_t seed) {
  tl::manual_seed(seed);
  tl::tensor<double, 2> u = tl::rand<double>(r, c);
  return tl::tensor<double, 2>(u * (hi - lo) + lo);
}
}  // namespace tl_test
