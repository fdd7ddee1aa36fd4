#pragma once
/// @file matmul.hpp
/// @brief tl::linalg::matmul: torch.linalg.matmul, the same function as tl::matmul.
///
/// float, double, complex<float> and complex<double> products run on the packed, cache-blocked,
/// multi-threaded GEMM in tl/linalg/detail/gemm.hpp; transposed, sliced and conjugated views are
/// read through their strides without a copy.
///
/// @code
/// auto c = tl::linalg::matmul(a, b.mT());   // [m, k] x [n, k]^T, no transpose copy
/// @endcode
#include <utility>

#include "tl/ops/matmul.hpp"

namespace tl::linalg {

/// @brief Matrix product with torch.linalg.matmul's (= torch.matmul's) rules; see tl::matmul.
template <expression A, expression B>
auto matmul(A&& a, B&& b) {
  return tl::matmul(std::forward<A>(a), std::forward<B>(b));
}

}  // namespace tl::linalg
