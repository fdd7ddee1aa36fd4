#pragma once
/// @file householder_product.hpp
/// @brief tl::linalg::householder_product: the first n columns of a product of Householder
/// reflectors (torch.linalg.householder_product, LAPACK's orgqr / ungqr).
///
/// @code
/// auto [a2, tau] = tl::linalg::detail::geqrf(a);
/// auto Q = tl::linalg::householder_product(a2, tau);   // the reduced Q of a's QR
/// @endcode
#include <algorithm>
#include <vector>

#include "tl/linalg/qr.hpp"

namespace tl::linalg {

/// @brief Q = H(0) H(1) ... H(k-1), first n columns, H(i) = I - tau_i v_i v_i^H with v_i = (0, ...,
/// 0, 1, A[i+1:, i]) (torch.linalg.householder_product). A: [*, m, n] with m >= n; tau: [*, k]
/// with k <= n and the same batch dims (no broadcasting, as torch). Throws shape_error otherwise.
/// With autograd, differentiable in A and tau (through the product of the reflectors).
template <expression EA, expression ET>
auto householder_product(EA&& A, ET&& tau) {
  detail::check_matrix_arg<EA>();
  using T = detail::value_of_t<EA>;
  static_assert(std::is_same_v<T, detail::value_of_t<ET>>,
                "tl: householder_product needs A and tau of the same dtype (as torch); convert one with tl::astype");
  constexpr std::size_t R = std::remove_cvref_t<EA>::rank;
  static_assert(std::remove_cvref_t<ET>::rank + 1 == R,
                "tl: householder_product needs tau of rank A.rank - 1 (A: [*, m, n], tau: [*, k])");
  const auto a = detail::readable(std::forward<EA>(A));
  const auto t = detail::readable(std::forward<ET>(tau));
  const auto& s = a.shape();
  const auto& ts = t.shape();
  const index_t m = s[R - 2], n = s[R - 1], k = ts[R - 2];
  auto fail = [&](const char* why) {
    throw shape_error(detail::cat_str("tl::linalg::householder_product: ", why, " (input of shape ",
                                      detail::shape_str(s), ", tau of shape ", detail::shape_str(ts), ")"));
  };
  if (m < n) fail("input.shape[-2] must be greater than or equal to input.shape[-1]");
  if (n < k) fail("input.shape[-1] must be greater than or equal to tau.shape[-1]");
  for (std::size_t q = 0; q + 2 < R; ++q)
    if (ts[q] != s[q]) fail("the batch dimensions of tau must equal input.shape[:-2]");
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(a) || tl::detail::must_record(t)) return detail::record_householder_product(a, t);
  tensor<T, R> out(s);
  const auto& tst = t.strides();
  detail::for_each_matrix(detail::batch_count(s), m, [&](index_t b) {
    const index_t ld = detail::padded_ld<T>(m);
    std::vector<T> w(static_cast<std::size_t>(ld * n)), tv(static_cast<std::size_t>(k));
    detail::copy_to_colmajor(a, b, w.data(), ld);
    index_t off = 0, rem = b;
    for (std::size_t q = R - 2; q-- > 0;) {
      off += (rem % ts[q]) * tst[q];
      rem /= ts[q];
    }
    for (index_t i = 0; i < k; ++i) tv[static_cast<std::size_t>(i)] = detail::conj_if(t.data()[off + i * tst[R - 2]], t.is_conj());
    detail::orgqr_cm(m, n, k, w.data(), ld, tv.data());
    detail::colmajor_to_rowmajor(m, n, w.data(), ld, out.data() + b * m * n);
  });
  return out;
}

}  // namespace tl::linalg
