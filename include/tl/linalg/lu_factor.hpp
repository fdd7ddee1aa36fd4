#pragma once
/// @file lu_factor.hpp
/// @brief tl::linalg::lu_factor and lu_factor_ex: LU with partial pivoting in LAPACK's compact
/// form (torch.linalg.lu_factor / lu_factor_ex).
///
/// @code
/// auto [LU, pivots] = tl::linalg::lu_factor(a);             // a: [*, m, n]
/// auto [LU2, piv2, info] = tl::linalg::lu_factor_ex(a);     // info: 0, or i where U[i-1, i-1] == 0
/// @endcode
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "tl/linalg/detail/aligned_buffer.hpp"
#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/device.hpp"
#include "tl/linalg/detail/getrf.hpp"
#if defined(__CUDACC__)
#include "tl/linalg/cuda/solver.cuh"
#endif

namespace tl::linalg {

/// @brief lu_factor's result: L (unit lower, below the diagonal) and U (upper) packed in `LU`,
/// `pivots` the 1-based rows interchanged at each step (int32, shape [*, min(m, n)]).
template <class T, std::size_t R>
struct lu_factor_result {
  tensor<T, R> LU;
  tensor<std::int32_t, R - 1> pivots;
};

/// @brief lu_factor_ex's result: as lu_factor's plus `info` (int32, shape [*]): 0 where the
/// factorization has no zero pivot, else the 1-based index i of the first zero U[i-1, i-1].
template <class T, std::size_t R>
struct lu_factor_ex_result {
  tensor<T, R> LU;
  tensor<std::int32_t, R - 1> pivots;
  tensor<std::int32_t, R - 2> info;
};

namespace detail {
/// Factors every matrix of `lu` in place; pivots 1-based; info per matrix.
template <class T, class ExtA, class ExtP, class ExtI>
void lu_factor_inplace(basic_tensor<T, ExtA>& lu, basic_tensor<std::int32_t, ExtP>& piv,
                       basic_tensor<std::int32_t, ExtI>& info, bool pivot = true) {
  constexpr std::size_t R = ExtA::rank;
  const auto& s = lu.shape();
  const index_t m = s[R - 2], n = s[R - 1], k = std::min(m, n);
  const index_t nb = batch_count(s);
  // Rows of a multiple of 2 KiB are factored in a copy with padded rows (see padded_ld).
  const index_t ld = m > 1 ? padded_ld<T>(n) : n;
  for_each_matrix(nb, std::max(m, n), [&](index_t b) {
    std::vector<index_t> ip(static_cast<std::size_t>(k));
    T* a = lu.data() + b * m * n;
    T* w = a;
    std::unique_ptr<T[]> big;
    if (ld != n) {
      w = reusable_scratch<struct lu_padded_tag>(static_cast<std::size_t>(m * ld), big);
      for (index_t i = 0; i < m; ++i) std::copy_n(a + i * n, n, w + i * ld);
    }
    const index_t inf = getrf<T>(m, n, mut_ref<T>{w, ld, 1}, ip.data(), pivot);
    if (ld != n)
      for (index_t i = 0; i < m; ++i) std::copy_n(w + i * ld, n, a + i * n);
    for (index_t i = 0; i < k; ++i) piv.data()[b * k + i] = static_cast<std::int32_t>(ip[static_cast<std::size_t>(i)] + 1);
    info.data()[b] = static_cast<std::int32_t>(inf);
  });
}

/// The pivots ([*, n], 1-based) and info ([*]) of lu_factor_inplace on the square matrices of `lu`.
template <class T, class Ext>
auto factor_square(basic_tensor<T, Ext>& lu) {
  constexpr std::size_t R = Ext::rank;
  const auto& s = lu.shape();
  shape_t<R - 1> ps{};
  shape_t<R - 2> is{};
  for (std::size_t q = 0; q + 2 < R; ++q) ps[q] = is[q] = s[q];
  ps[R - 2] = s[R - 1];
  struct factors {
    tensor<std::int32_t, R - 1> pivots;
    tensor<std::int32_t, R - 2> info;
  } f{tensor<std::int32_t, R - 1>(ps), tensor<std::int32_t, R - 2>(is)};
  lu_factor_inplace(lu, f.pivots, f.info);
  return f;
}

/// Throws linalg_error for the first matrix whose info is non-zero (`what` completes the sentence).
template <class Ext>
void throw_on_info(const char* op, const basic_tensor<std::int32_t, Ext>& info, const char* what) {
  constexpr std::size_t RI = Ext::rank;
  for (index_t b = 0; b < info.numel(); ++b)
    if (const std::int32_t i = info.data()[b]; i > 0)
      throw linalg_error(cat_str("tl::linalg::", op, ": ", what, batch_note(b, RI > 0), ": U[", i - 1, ", ", i - 1,
                                 "] of its LU factorization is exactly zero"));
}

/// lu_factor_ex of a CUDA tensor: cuSOLVER's getrf (64-bit API) on a column-major copy of A (the
/// row-major copy of A^T), transposed back; the int64 pivots become int32 (1, 2, ..., k without
/// pivoting, as torch returns them on CUDA).
template <class T, std::size_t R, class E>
lu_factor_ex_result<T, R> device_lu_factor_ex(const E& A, bool pivot, bool check_errors) {
  const char* op = "lu_factor_ex";
  require_no_device_grad(op, A);
  const tensor<T, R> src(A);
  const auto& s = src.shape();
  const index_t m = s[R - 2], n = s[R - 1], k = std::min(m, n), nb = batch_count(s);
  const tl::device dev = src.device();
  tensor<T, R> at(tensor<T, R>(src.mT()).clone());  // column-major A, conjugate resolved
  shape_t<R - 1> ps{};
  shape_t<R - 2> is{};
  for (std::size_t q = 0; q + 2 < R; ++q) ps[q] = is[q] = s[q];
  ps[R - 2] = k;
  tensor<std::int32_t, R - 2> info = tl::zeros<std::int32_t>(is, dev);
  tensor<std::int64_t, 1> ipiv = tl::zeros<std::int64_t>(shape_t<1>{nb * k}, dev);
  if (at.numel() > 0)
    device_getrf<T>(op)(nb, m, n, at.data(), pivot ? ipiv.data() : nullptr, info.data(), dev.index());
  tensor<std::int32_t, R - 1> piv;
  if (pivot) {
    piv = tensor<std::int32_t, R - 1>(tensor<std::int32_t, 1>(tl::astype<std::int32_t>(ipiv)).reshape(ps));
  } else {
    const auto steps = tl::arange<std::int32_t>(std::int32_t{1}, static_cast<std::int32_t>(k) + 1, std::int32_t{1}, dev);
    piv = tensor<std::int32_t, R - 1>(steps.expand(ps).clone());
  }
  lu_factor_ex_result<T, R> r{tensor<T, R>(tensor<T, R>(at.mT()).clone()), std::move(piv), std::move(info)};
  if (check_errors) throw_on_info(op, r.info.cpu(), "the matrix is singular");
  return r;
}
}  // namespace detail

/// @brief LU factorization with partial pivoting, P A = L U, of a matrix or a batch of matrices
/// [*, m, n], without checking for zero pivots (torch.linalg.lu_factor_ex). `pivot = false` factors
/// A = L U without row interchanges (pivots are then 1, 2, ..., k, as torch returns them on CUDA);
/// `check_errors` throws tl::linalg_error where info is non-zero.
template <expression E>
auto lu_factor_ex(E&& a, bool pivot = true, bool check_errors = false) {
  detail::check_matrix_arg<E>();
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if (tl::detail::expression_device(a).is_cuda()) return detail::device_lu_factor_ex<T, R>(a, pivot, check_errors);
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(a)) return detail::record_lu_factor_ex(a, pivot, check_errors);
  lu_factor_ex_result<T, R> r{detail::working_copy(std::forward<E>(a)), {}, {}};
  const auto& s = r.LU.shape();
  shape_t<R - 1> ps{};
  shape_t<R - 2> is{};
  for (std::size_t q = 0; q + 2 < R; ++q) ps[q] = is[q] = s[q];
  ps[R - 2] = std::min(s[R - 2], s[R - 1]);
  r.pivots = tensor<std::int32_t, R - 1>(ps);
  r.info = tensor<std::int32_t, R - 2>(is);
  detail::lu_factor_inplace(r.LU, r.pivots, r.info, pivot);
  if (check_errors) detail::throw_on_info("lu_factor_ex", r.info, "the matrix is singular");
  return r;
}

/// @brief LU factorization with partial pivoting (torch.linalg.lu_factor); throws
/// tl::linalg_error naming the batch element and the zero pivot when U has a zero on its
/// diagonal (lu_solve would divide by it). Use lu_factor_ex or lu to factor singular matrices.
template <expression E>
auto lu_factor(E&& a, bool pivot = true) {
  detail::check_matrix_arg<E>();
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  auto r = lu_factor_ex(std::forward<E>(a), pivot);
  detail::throw_on_info("lu_factor", r.info.cpu(), "the matrix is singular");
  return lu_factor_result<T, R>{std::move(r.LU), std::move(r.pivots)};
}

}  // namespace tl::linalg
