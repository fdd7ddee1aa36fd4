#pragma once
/// @file vander.hpp
/// @brief tl::linalg::vander: Vandermonde matrices of increasing powers (torch.linalg.vander).
///
/// @code
/// auto v = tl::linalg::vander(x);        // x: [*, n] -> [*, n, n], v[..., i, j] = x[..., i]^j
/// auto w = tl::linalg::vander(x, 4);     // [*, n, 4]
/// @endcode
#include <optional>
#include <type_traits>
#include <utility>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/batch.hpp"

namespace tl::linalg {

/// @brief x^0, x^1, ..., x^(N-1) along a new last dim (torch.linalg.vander(x, N=None)); N
/// defaults to x's last extent and must be greater than 1 (else value_error). Floating, complex
/// and integer dtypes (bool is rejected as in torch); powers by repeated multiplication, which
/// autograd differentiates (exactly at x = 0).
template <expression E>
auto vander(E&& x, std::optional<index_t> N = std::nullopt) {
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  static_assert(R >= 1, "tl: linalg::vander takes a tensor of rank >= 1");
  static_assert(!std::is_same_v<T, bool>,
                "tl: linalg::vander supports floating point, complex and integer tensors, not bool (as torch)");
  const tensor<T, R> t = detail::readable(std::forward<E>(x)).contiguous();
  const index_t cols = N ? *N : t.shape()[R - 1];
  if (cols <= 1) throw value_error(detail::cat_str("tl::linalg::vander: N must be greater than 1, got ", cols));
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(t)) return detail::record_vander(t, cols);
  shape_t<R + 1> s{};
  for (std::size_t q = 0; q < R; ++q) s[q] = t.shape()[q];
  s[R] = cols;
  tensor<T, R + 1> v(s);
  const T* xp = t.data();
  T* vp = v.data();
  const bool conj = t.is_conj();
  for (index_t i = 0; i < t.numel(); ++i) {
    T xi = xp[i];
    if constexpr (is_complex_v<T>)
      if (conj) xi = T(xi.re, -xi.im);
    T* row = vp + i * cols;
    row[0] = T(1);
    for (index_t j = 1; j < cols; ++j) row[j] = row[j - 1] * xi;
  }
  return v;
}

}  // namespace tl::linalg
