#pragma once
/// @file error.hpp
/// @brief Exception hierarchy. Every error names the operation and the offending shapes or values.
#include <array>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tl/core/config.hpp"

namespace tl {

/// @brief Base of every error thrown by tl.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// @brief Shapes that do not fit an operation (broadcasting, views, matmul, ...).
class shape_error : public error {
 public:
  using error::error;
};
/// @brief An index or dimension out of range.
class index_error : public error {
 public:
  using error::error;
};
/// @brief An argument value outside the domain of an operation.
class value_error : public error {
 public:
  using error::error;
};

/// @brief An operation given tensors on the wrong memory space (e.g. host and CUDA operands mixed),
/// or CUDA work requested where CUDA support is not available.
class device_error : public error {
 public:
  using error::error;
};
/// @brief Misuse of autograd: backward through a freed graph, a saved tensor modified in place,
/// a gradient for a tensor that does not require one, inference tensors in recorded operations.
class autograd_error : public error {
 public:
  using error::error;
};
/// @brief A failed CUDA runtime or library call; the message names the call, the CUDA error and the op.
class cuda_error : public device_error {
 public:
  using device_error::device_error;
};

namespace detail {
template <std::size_t R>
std::string shape_str(const std::array<index_t, R>& s) {
  std::ostringstream os;
  os << '[';
  for (std::size_t i = 0; i < R; ++i) os << (i ? ", " : "") << s[i];
  os << ']';
  return os.str();
}
inline std::string shape_str(const index_t* s, std::size_t r) {
  std::ostringstream os;
  os << '[';
  for (std::size_t i = 0; i < r; ++i) os << (i ? ", " : "") << s[i];
  os << ']';
  return os.str();
}
template <class... Args>
std::string cat_str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
/// Normalizes a possibly negative dimension; throws index_error naming the op.
inline std::size_t wrap_dim(const char* op, index_t dim, std::size_t rank) {
  const index_t r = static_cast<index_t>(rank);
  if (r == 0 ? (dim != 0 && dim != -1) : (dim < -r || dim >= r))
    throw index_error(cat_str("tl::", op, ": dimension ", dim, " is out of range for a tensor of rank ", rank,
                              " (expected a value in [", r == 0 ? -1 : -r, ", ", r == 0 ? 0 : r - 1, "])"));
  return r == 0 ? 0 : static_cast<std::size_t>(dim < 0 ? dim + r : dim);
}
}  // namespace detail
}  // namespace tl
