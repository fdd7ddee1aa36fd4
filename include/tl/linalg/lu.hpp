#pragma once
/// @file lu.hpp
/// @brief tl::linalg::lu: A = P L U with explicit factors (torch.linalg.lu).
///
/// @code
/// auto [P, L, U] = tl::linalg::lu(a);   // a: [*, m, n] -> P [*, m, m], L [*, m, k], U [*, k, n]
/// @endcode
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/lu_factor.hpp"

namespace tl::linalg {

/// @brief lu's result: A = P L U with P a permutation matrix, L unit lower trapezoidal (m x k),
/// U upper trapezoidal (k x n), k = min(m, n).
template <class T, std::size_t R>
struct lu_result {
  tensor<T, R> P, L, U;
};

/// @brief LU factorization with partial pivoting as three matrices (torch.linalg.lu). Singular
/// matrices are factored without error. `pivot = false` factors without row interchanges (P is
/// the identity).
template <expression E>
auto lu(E&& a, bool pivot = true) {
  detail::check_matrix_arg<E>();
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(a)) return detail::record_lu(a, pivot);
  auto f = lu_factor_ex(std::forward<E>(a), pivot);
  const auto& s = f.LU.shape();
  const index_t m = s[R - 2], n = s[R - 1], k = std::min(m, n);
  shape_t<R> ps = s, ls = s, us = s;
  ps[R - 1] = m;
  ls[R - 1] = k;
  us[R - 2] = k;
  lu_result<T, R> r{tensor<T, R>(ps), tensor<T, R>(ls), tensor<T, R>(us)};
  const index_t nb = detail::batch_count(s);
  detail::for_each_matrix(nb, std::max(m, n), [&](index_t b) {
    const T* lu = f.LU.data() + b * m * n;
    T* P = r.P.data() + b * m * m;
    T* L = r.L.data() + b * m * k;
    T* U = r.U.data() + b * k * n;
    // P^T A = L U where row i of P^T A is row perm[i] of A, so P[perm[i], i] = 1.
    std::vector<index_t> perm(static_cast<std::size_t>(m));
    std::iota(perm.begin(), perm.end(), index_t{0});
    for (index_t i = 0; i < k; ++i)
      std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(f.pivots.data()[b * k + i] - 1)]);
    std::fill(P, P + m * m, T(0));
    for (index_t i = 0; i < m; ++i) P[perm[static_cast<std::size_t>(i)] * m + i] = T(1);
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < k; ++j) L[i * k + j] = j < i ? lu[i * n + j] : (j == i ? T(1) : T(0));
    for (index_t i = 0; i < k; ++i)
      for (index_t j = 0; j < n; ++j) U[i * n + j] = j >= i ? lu[i * n + j] : T(0);
  });
  return r;
}

}  // namespace tl::linalg
