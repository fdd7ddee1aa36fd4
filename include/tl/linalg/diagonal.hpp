#pragma once
/// @file diagonal.hpp
/// @brief tl::linalg::diagonal: a view of the diagonals of a batch of matrices
/// (torch.linalg.diagonal; the library's diagonal view with the last two dims by default).
///
/// @code
/// auto d = tl::linalg::diagonal(a);          // a: [*, m, n] -> [*, min(m, n)], a view
/// d.fill_(0.0);                              // writes a's diagonal
/// @endcode
#include <utility>

#include "tl/core/tensor.hpp"

namespace tl::linalg {

/// @brief The `offset` diagonal of dims (dim1, dim2), appended as the last dim (torch.linalg.diagonal(A,
/// offset=0, dim1=-2, dim2=-1)). A view of a tensor (writes go through); an expression is
/// evaluated first. Equal dims throw value_error, dims out of range index_error; an offset past
/// the matrix gives an empty diagonal.
template <class T, class Ext>
auto diagonal(const basic_tensor<T, Ext>& A, index_t offset = 0, index_t dim1 = -2, index_t dim2 = -1) {
  static_assert(Ext::rank >= 2, "tl: linalg::diagonal takes a tensor of rank >= 2");
  return A.diagonal(offset, dim1, dim2);
}

template <expression E>
  requires(!is_tensor_v<std::remove_cvref_t<E>>)
auto diagonal(E&& A, index_t offset = 0, index_t dim1 = -2, index_t dim2 = -1) {
  using D = std::remove_cvref_t<E>;
  return diagonal(tensor<typename D::value_type, D::rank>(std::forward<E>(A)), offset, dim1, dim2);
}

}  // namespace tl::linalg
