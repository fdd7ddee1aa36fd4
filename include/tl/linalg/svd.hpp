#pragma once
/// @file svd.hpp
/// @brief tl::linalg::svd and svdvals (torch.linalg.svd / svdvals): A = U diag(S) Vh with S real,
/// non-negative and descending.
///
/// @code
/// auto [U, S, Vh] = tl::linalg::svd(a, /*full_matrices=*/false);  // a: [*, m, n], k = min(m, n)
/// auto s = tl::linalg::svdvals(a);                                  // [*, k], no vectors formed
/// @endcode
#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/gesvd.hpp"

namespace tl::linalg {

/// @brief svd's result: A = U diag(S) Vh. U is [*, m, m] (full_matrices) or [*, m, k], Vh
/// [*, n, n] or [*, k, n], S real [*, k], k = min(m, n).
template <class T, std::size_t R>
struct svd_result {
  tensor<T, R> U;
  tensor<real_t<T>, R - 1> S;
  tensor<T, R> Vh;
};

namespace detail {

template <class T>
void throw_if_not_finite(const char* op, const T* a, index_t len, index_t b, bool batched) {
  for (index_t i = 0; i < len; ++i) {
    bool fin;
    if constexpr (is_complex_v<T>) fin = std::isfinite(a[i].re) && std::isfinite(a[i].im);
    else fin = std::isfinite(a[i]);
    if (!fin)
      throw linalg_error(cat_str("tl::linalg::", op, ": the algorithm failed to converge because the input matrix",
                                 batch_note(b, batched), " contained non-finite values"));
  }
}

/// Runs the SVD of every matrix of A. With vectors, U (m x uc) and Vh (vr x n) are written per
/// matrix; S always.
template <bool Vectors, class W, class T = typename W::value_type>
void svd_batched(const char* op, W& a, real_t<T>* S, T* U, T* Vh, bool full) {
  constexpr std::size_t R = W::rank;
  const auto& sh = a.shape();
  const index_t m = sh[R - 2], n = sh[R - 1], k = std::min(m, n);
  const index_t nb = batch_count(sh);
  const bool batched = R > 2;
  for (index_t b = 0; b < nb; ++b) throw_if_not_finite(op, a.data() + b * m * n, m * n, b, batched);
  const index_t uc = full ? m : k, vr = full ? n : k;
  std::atomic<index_t> failed{-1};
  for_each_matrix(nb, std::max(m, n), [&](index_t b) {
    T* src = a.data() + b * m * n;
    // Work on the tall one of A and A^H.
    const bool tr = m < n;
    const index_t mt = tr ? n : m, nt = k;
    std::vector<T> at;
    T* w = src;
    if (tr) {
      at.resize(static_cast<std::size_t>(m * n));
      for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < n; ++j) at[j * m + i] = conj_of(src[i * n + j]);
      w = at.data();
    }
    real_t<T>* s = S + b * k;
    if constexpr (!Vectors) {
      if (!svd_tall<T>(mt, nt, w, s, nullptr, 0, nullptr)) failed = b;
    } else {
      // ut: the left vectors of the tall problem as rows; vt: its V^H.
      const index_t utc = tr ? vr : uc;  // columns of the tall problem's U wanted
      std::vector<T> ut(static_cast<std::size_t>(utc * mt)), vt(static_cast<std::size_t>(nt * nt));
      if (!svd_tall<T>(mt, nt, w, s, ut.data(), utc, vt.data())) {
        failed = b;
        return;
      }
      T* u = U + b * m * uc;
      T* vh = Vh + b * vr * n;
      if (!tr) {
        for (index_t i = 0; i < m; ++i)
          for (index_t j = 0; j < uc; ++j) u[i * uc + j] = ut[j * m + i];
        std::copy(vt.begin(), vt.end(), vh);
      } else {
        // A^H = U' S V'^H, so A = V' S U'^H: U = V'^H^H, Vh = U'^H.
        for (index_t i = 0; i < m; ++i)
          for (index_t j = 0; j < m; ++j) u[i * m + j] = conj_of(vt[j * m + i]);
        for (index_t i = 0; i < vr * n; ++i) vh[i] = conj_of(ut[i]);
      }
    }
  });
  if (failed.load() >= 0)
    throw linalg_error(cat_str("tl::linalg::", op, ": the algorithm failed to converge",
                               batch_note(failed.load(), batched), " for the input of shape ", shape_str(sh)));
}

}  // namespace detail

/// @brief Singular value decomposition (torch.linalg.svd). `full_matrices` (default true, as torch)
/// gives square U and Vh; false the reduced ones. Singular vectors are unique only up to a phase
/// per pair (and within repeated singular values). Throws tl::linalg_error for non-finite input
/// (as torch) or if the iteration does not converge. Differentiable (torch 1.13's svd_backward,
/// tl/linalg/detail/autograd_spectral.hpp): with full_matrices the columns beyond min(m, n) get no
/// gradient; for complex input a loss that depends on the singular vectors' phases throws
/// tl::autograd_error from backward; repeated singular values give inf/NaN through U and Vh.
template <expression E>
auto svd(E&& A, bool full_matrices = true) {
  detail::check_matrix_arg<E>();
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(A)) return detail::record_svd(A, full_matrices);
  auto a = detail::working_copy(std::forward<E>(A));
  const auto sh = a.shape();
  const index_t m = sh[R - 2], n = sh[R - 1], k = std::min(m, n);
  shape_t<R> us = sh, vs = sh;
  shape_t<R - 1> ss{};
  for (std::size_t q = 0; q + 2 < R; ++q) ss[q] = sh[q];
  ss[R - 2] = k;
  us[R - 1] = full_matrices ? m : k;
  vs[R - 2] = full_matrices ? n : k;
  svd_result<T, R> r{tensor<T, R>(us), tensor<real_t<T>, R - 1>(ss), tensor<T, R>(vs)};
  detail::svd_batched<true>("svd", a, r.S.data(), r.U.data(), r.Vh.data(), full_matrices);
  return r;
}

/// @brief The singular values of a matrix or a batch of them, descending (torch.linalg.svdvals):
/// [*, m, n] -> [*, min(m, n)], real. Singular vectors are formed only for an input that requires
/// grad (the gradient is U diag(G) Vh, as torch's).
template <expression E>
auto svdvals(E&& A) {
  detail::check_matrix_arg<E>();
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(A)) return detail::record_svdvals(A);
  auto a = detail::working_copy(std::forward<E>(A));
  const auto sh = a.shape();
  shape_t<R - 1> ss{};
  for (std::size_t q = 0; q + 2 < R; ++q) ss[q] = sh[q];
  ss[R - 2] = std::min(sh[R - 2], sh[R - 1]);
  tensor<real_t<T>, R - 1> s(ss);
  detail::svd_batched<false>("svdvals", a, s.data(), static_cast<T*>(nullptr), static_cast<T*>(nullptr), false);
  return s;
}

}  // namespace tl::linalg
