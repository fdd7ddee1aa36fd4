#pragma once
// Shared by the CUDA tests of tl::linalg: the device, random inputs, and error bounds in units of
// n eps (the results are compared with the CPU functions' through tl_test::rel_rms).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tl/cuda.hpp>

#include "../cuda_rel_rms.hpp"
#include "../test_util.hpp"

namespace tl_test {

inline const tl::device cuda0 = tl::device::cuda(0);

/// factor * max(n, 1) * eps of T's real type: a backward-stable bound for an n x n computation.
template <class T>
double n_eps(tl::index_t n, double factor) {
  return factor * std::numeric_limits<tl::real_t<T>>::epsilon() * static_cast<double>(std::max<tl::index_t>(n, 1));
}

}  // namespace tl_test
