#pragma once
/// @file qr.hpp
/// @brief tl::linalg::qr: A = Q R by blocked Householder reflections (torch.linalg.qr), and
/// tl::linalg::detail::geqrf, the packed factorization as torch.geqrf returns it.
///
/// @code
/// auto [Q, R] = tl::linalg::qr(a);                 // a: [*, m, n] -> Q [*, m, k], R [*, k, n]
/// auto [Qc, Rc] = tl::linalg::qr(a, "complete");   // Q [*, m, m], R [*, m, n]
/// auto [A2, tau] = tl::linalg::detail::geqrf(a);   // LAPACK's packed reflectors and tau
/// @endcode
#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/geqrf.hpp"

namespace tl::linalg {

/// @brief qr's result (structured bindings: `auto [Q, R] = qr(a)`).
template <class T, std::size_t Rank>
struct qr_result {
  tensor<T, Rank> Q, R;
};

/// @brief detail::geqrf's result: R and the reflectors packed in `a`, the scalar factors `tau`
/// ([*, min(m, n)]), as torch.geqrf.
template <class T, std::size_t R>
struct geqrf_result {
  tensor<T, R> a;
  tensor<T, R - 1> tau;
};

namespace detail {

/// Offset of matrix b (leading dims flattened, row-major order) in a tensor of shape s, strides st.
template <std::size_t R>
index_t matrix_offset(index_t b, const shape_t<R>& s, const shape_t<R>& st) {
  index_t off = 0;
  for (std::size_t q = R - 2; q-- > 0;) {
    off += (b % s[q]) * st[q];
    b /= s[q];
  }
  return off;
}

/// Copies matrix b of `a` (m x n, any strides, lazy conjugate resolved) into the column-major
/// buffer w (leading dimension ld).
template <class T, class Ext>
void copy_to_colmajor(const basic_tensor<T, Ext>& a, index_t b, T* w, index_t ld) {
  constexpr std::size_t R = Ext::rank;
  const auto& s = a.shape();
  const auto& st = a.strides();
  const T* src = a.data() + matrix_offset(b, s, st);
  const index_t m = s[R - 2], n = s[R - 1], rs = st[R - 2], cs = st[R - 1];
  const bool cj = a.is_conj();
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < m; ++i) w[i + j * ld] = conj_if(src[i * rs + j * cs], cj);
}

/// Writes the rows x cols column-major block w (leading dimension ld) to the row-major dst.
template <class T>
void colmajor_to_rowmajor(index_t rows, index_t cols, const T* w, index_t ld, T* dst) {
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) dst[i * cols + j] = w[i + j * ld];
}

/// `s` with its last two extents replaced.
template <std::size_t R>
shape_t<R> with_matrix_dims(shape_t<R> s, index_t rows, index_t cols) {
  s[R - 2] = rows;
  s[R - 1] = cols;
  return s;
}

/// Factors every matrix of A; calls f(b, w, ld, tau) with the column-major factored matrix w (m x n,
/// leading dimension ld = padded_ld(m)) and its tau (min(m, n) values).
template <class T, class Ext, class F>
void for_each_qr(const basic_tensor<T, Ext>& a, F&& f) {
  constexpr std::size_t R = Ext::rank;
  const auto& s = a.shape();
  const index_t m = s[R - 2], n = s[R - 1];
  for_each_matrix(batch_count(s), std::max(m, n), [&](index_t b) {
    const index_t ld = padded_ld<T>(m);
    std::unique_ptr<T[]> big;
    T* w = reusable_scratch<struct qr_work_tag>(static_cast<std::size_t>(ld * n), big);
    std::vector<T> tau(static_cast<std::size_t>(std::min(m, n)));
    copy_to_colmajor(a, b, w, ld);
    geqrf_cm(m, n, w, ld, tau.data());
    f(b, static_cast<const T*>(w), ld, static_cast<const T*>(tau.data()));
  });
}

/// @brief Householder QR in LAPACK's packed form (torch.geqrf): R on and above the diagonal of
/// `a`, the reflectors' tails below it, and `tau` [*, min(m, n)]. Q = H(0) ... H(k-1) with
/// H(i) = I - tau_i v_i v_i^H; householder_product(a, tau) forms it.
template <expression E>
auto geqrf(E&& A) {
  check_matrix_arg<E>();
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  const auto a = readable(std::forward<E>(A));
  const auto& s = a.shape();
  const index_t m = s[R - 2], n = s[R - 1], k = std::min(m, n);
  shape_t<R - 1> ts{};
  for (std::size_t q = 0; q + 2 < R; ++q) ts[q] = s[q];
  ts[R - 2] = k;
  geqrf_result<T, R> r{tensor<T, R>(s), tensor<T, R - 1>(ts)};
  for_each_qr(a, [&](index_t b, const T* w, index_t ld, const T* tau) {
    colmajor_to_rowmajor(m, n, w, ld, r.a.data() + b * m * n);
    std::copy_n(tau, k, r.tau.data() + b * k);
  });
  return r;
}

}  // namespace detail

/// @brief QR decomposition A = Q R of a matrix or batch [*, m, n] (torch.linalg.qr), k = min(m, n).
/// `mode`: "reduced" (Q [*, m, k] with orthonormal columns, R [*, k, n] upper triangular),
/// "complete" (Q [*, m, m] unitary, R [*, m, n]) or "r" (R [*, k, n] only; Q is an empty tensor,
/// every extent 0). Signs follow LAPACK's geqrf (R's diagonal is real, of either sign). With
/// autograd, differentiable as in torch 1.13 except for mode "r" and for "complete" with m > n,
/// whose backward throws autograd_error. Throws
/// value_error for another mode.
template <expression E>
auto qr(E&& A, std::string_view mode = "reduced") {
  detail::check_matrix_arg<E>();
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(A)) return detail::record_qr(A, mode);
  const bool complete = mode == "complete", r_only = mode == "r";
  if (!complete && !r_only && mode != "reduced")
    throw value_error(detail::cat_str("tl::linalg::qr: unrecognized mode '", mode,
                                      "'; expected one of 'reduced' (default), 'r' or 'complete'"));
  const auto a = detail::readable(std::forward<E>(A));
  const auto& s = a.shape();
  const index_t m = s[R - 2], n = s[R - 1], k = std::min(m, n);
  const index_t qc = complete ? m : k, rr = complete ? m : k;
  qr_result<T, R> out{tensor<T, R>(r_only ? shape_t<R>{} : detail::with_matrix_dims(s, m, qc)),
                      tensor<T, R>(detail::with_matrix_dims(s, rr, n))};
  detail::for_each_qr(a, [&](index_t b, const T* w, index_t ld, const T* tau) {
    T* rd = out.R.data() + b * rr * n;
    for (index_t i = 0; i < rr; ++i)
      for (index_t j = 0; j < n; ++j) rd[i * n + j] = j >= i && i < k ? w[i + j * ld] : T(0);
    if (r_only) return;
    std::unique_ptr<T[]> big;
    T* q = detail::reusable_scratch<struct qr_q_tag>(static_cast<std::size_t>(ld * qc), big);
    std::copy_n(w, ld * k, q);
    detail::orgqr_cm(m, qc, k, q, ld, tau);
    detail::colmajor_to_rowmajor(m, qc, q, ld, out.Q.data() + b * m * qc);
  });
  return out;
}

}  // namespace tl::linalg
