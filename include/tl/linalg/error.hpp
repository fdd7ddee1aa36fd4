#pragma once
/// @file error.hpp
/// @brief tl::linalg_error: a numerical failure of a linear-algebra routine (a singular matrix in
/// solve / inv / lu_factor, a matrix that is not positive-definite in cholesky). The message
/// names the op, the batch element and the zero pivot or the failing leading minor. The `_ex`
/// variants report the same failures in an `info` tensor instead of throwing.
#include "tl/core/error.hpp"

namespace tl {

/// @brief A linear-algebra routine failed on the values of its input (singular, not
/// positive-definite); shapes and dtypes were fine.
class linalg_error : public error {
 public:
  using error::error;
};

}  // namespace tl
