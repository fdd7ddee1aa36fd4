#pragma once
/// @file lu_solve.hpp
/// @brief tl::linalg::lu_solve: solves A X = B (or X A = B, with A^H) from lu_factor's output
/// (torch.linalg.lu_solve).
///
/// @code
/// auto [LU, piv] = tl::linalg::lu_factor(a);
/// auto x = tl::linalg::lu_solve(LU, piv, b);                       // a x = b
/// auto y = tl::linalg::lu_solve(LU, piv, c, /*left=*/false);       // y a = c
/// @endcode
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/getrf.hpp"

namespace tl::linalg {
namespace detail {

/// Copies every (broadcast) matrix of `b` (rows x cols at its last two strides, or a vector when
/// `vector`) into the contiguous `x`, resolving a lazy conjugate.
template <class T, std::size_t RB, class Ext, std::size_t BR>
void copy_rhs(T* x, const basic_tensor<T, Ext>& b, const batch_bcast<BR>& bc, index_t rows, index_t cols,
              bool vector) {
  const auto& st = b.strides();
  const index_t rs = vector ? st[RB - 1] : st[RB - 2], cs = vector ? 0 : st[RB - 1];
  const bool cj = b.is_conj();
  const index_t nb = bc.count();
  for (index_t q = 0; q < nb; ++q) {
    const T* src = b.data() + bc.b_offset(q);
    T* dst = x + q * rows * cols;
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < cols; ++j) dst[i * cols + j] = conj_if(src[i * rs + j * cs], cj);
  }
}

/// Solves, for every output matrix q, op(A_q) X_q = B_q in place in `x` (which holds B): A_q is
/// the LU-factored matrix at `lu + bc.a_offset(q)` (n x n, contiguous), `ipiv` its 0-based pivots
/// (n per factored matrix). X_q is n x k (left) or k x n (right) row-major.
template <class T, std::size_t BR>
void lu_solve_inplace(const T* lu, const index_t* ipiv, index_t n, const batch_bcast<BR>& bc, T* x, index_t k,
                      bool left, bool adjoint) {
  if (n == 0 || k == 0) return;
  for_each_matrix(bc.count(), n, [&](index_t q) {
    const index_t aoff = bc.a_offset(q);
    const mat_ref<T> a{lu + aoff, n, 1, false};
    const index_t* pv = ipiv + aoff / n;
    T* xq = x + q * n * k;
    const mut_ref<T> xm = left ? mut_ref<T>{xq, k, 1} : mut_ref<T>{xq, 1, n};  // n x k either way
    if (left) getrs<T>(adjoint, adjoint, n, k, a, pv, xm);
    else getrs<T>(!adjoint, adjoint, n, k, a, pv, xm);
  });
}

/// Throws shape_error unless the pivots' shape is the factor's shape without its last dim.
template <std::size_t RA>
void require_pivots_shape(const char* op, const char* factor, const shape_t<RA - 1>& ps, const shape_t<RA>& as) {
  shape_t<RA - 1> want{};
  for (std::size_t q = 0; q + 1 < RA; ++q) want[q] = as[q];
  if (ps != want)
    throw shape_error(cat_str("tl::linalg::", op, ": pivots of shape ", shape_str(ps), " do not match ", factor,
                              " of shape ", shape_str(as), " (expected ", shape_str(want), ")"));
}

/// Output shape for a matrix right-hand side: broadcast batch + B's matrix dims.
template <std::size_t RO, std::size_t BR, std::size_t RB>
shape_t<RO> rhs_out_shape(const shape_t<BR>& batch, const shape_t<RB>& bs, bool vector) {
  shape_t<RO> o{};
  for (std::size_t q = 0; q < BR; ++q) o[q] = batch[q];
  if (vector) {
    o[RO - 1] = bs[RB - 1];
  } else {
    o[RO - 2] = bs[RB - 2];
    o[RO - 1] = bs[RB - 1];
  }
  return o;
}
}  // namespace detail

/// @brief Solves A X = B (left) or X A = B (right), with A^H instead of A when `adjoint`, for
/// A given by lu_factor's (LU, pivots) (torch.linalg.lu_solve). LU: [*, n, n]; pivots: int32
/// [*, n], 1-based; B: [*, n, k] (left) or [*, k, n] (right); batch dims broadcast.
template <expression EL, expression EP, expression EB>
auto lu_solve(EL&& LU, EP&& pivots, EB&& B, bool left = true, bool adjoint = false) {
  detail::check_matrix_arg<EL>();
  detail::check_matrix_arg<EB>();
  using T = detail::value_of_t<EL>;
  static_assert(std::is_same_v<T, detail::value_of_t<EB>>,
                "tl: lu_solve needs LU and B of the same dtype (as torch); convert B with tl::astype<T>(B)");
  static_assert(std::is_same_v<detail::value_of_t<EP>, std::int32_t>, "tl: lu_solve's pivots are an int32 tensor");
  constexpr std::size_t RA = std::remove_cvref_t<EL>::rank, RB = std::remove_cvref_t<EB>::rank;
  static_assert(std::remove_cvref_t<EP>::rank == RA - 1, "tl: lu_solve's pivots have one dim less than LU");
  constexpr std::size_t BA = RA - 2, BB = RB - 2, BR = BA > BB ? BA : BB, RO = BR + 2;
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(LU) || tl::detail::must_record(B))
      return detail::record_lu_solve(LU, pivots, B, left, adjoint);
  const auto lu = detail::working_copy(std::forward<EL>(LU));  // contiguous
  const tensor<std::int32_t, RA - 1> pv = tensor<std::int32_t, RA - 1>(std::forward<EP>(pivots)).contiguous();
  const auto b = detail::readable(std::forward<EB>(B));
  const auto& as = lu.shape();
  const auto& bs = b.shape();
  detail::require_square("lu_solve", as);
  const index_t n = as[RA - 1];
  detail::require_pivots_shape("lu_solve", "LU", pv.shape(), as);
  if ((left ? bs[RB - 2] : bs[RB - 1]) != n)
    throw shape_error(detail::cat_str("tl::linalg::lu_solve: LU of shape ", detail::shape_str(as), " and B of shape ",
                                      detail::shape_str(bs), " are incompatible (", left ? "B.shape[-2]" : "B.shape[-1]",
                                      " must be ", n, ")"));
  // Pivots 1-based -> 0-based, checked (a bad pivot would index out of the matrix).
  std::vector<index_t> ipiv(static_cast<std::size_t>(pv.numel()));
  for (index_t i = 0; i < pv.numel(); ++i) {
    const std::int32_t p = pv.data()[i];
    const index_t row = n > 0 ? i % n : 0;
    if (p < row + 1 || p > n)
      throw value_error(detail::cat_str("tl::linalg::lu_solve: pivot ", p, " at flat position ", i,
                                        " is out of range (pivots of step j are 1-based rows in [j + 1, ", n, "])"));
    ipiv[static_cast<std::size_t>(i)] = p - 1;
  }
  const auto bc = detail::broadcast_batches<BA, BB>("lu_solve", as, lu.strides(), bs, b.strides());
  tensor<T, RO> x(detail::rhs_out_shape<RO>(bc.shape, bs, false));
  const index_t k = left ? bs[RB - 1] : bs[RB - 2];
  detail::copy_rhs<T, RB>(x.data(), b, bc, bs[RB - 2], bs[RB - 1], false);
  detail::lu_solve_inplace(lu.data(), ipiv.data(), n, bc, x.data(), k, left, adjoint);
  return x;
}

}  // namespace tl::linalg
