#pragma once
/// @file solve_triangular.hpp
/// @brief tl::linalg::solve_triangular: triangular systems with many right-hand sides
/// (torch.linalg.solve_triangular), on the recursive, GEMM-based TRSM.
///
/// @code
/// auto x = tl::linalg::solve_triangular(L, b, /*upper=*/false);                  // L x = b
/// auto y = tl::linalg::solve_triangular(U, c, /*upper=*/true, /*left=*/false);   // y U = c
/// @endcode
#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/trsm.hpp"
#include "tl/linalg/lu_solve.hpp"

namespace tl::linalg {

/// @brief Solves A X = B (left) or X A = B (right) for triangular A [*, n, n] (upper or lower;
/// only that triangle is read, and with `unitriangular` not even the diagonal, which is taken as
/// 1). B: [*, n, k] (left) or [*, k, n] (right); batch dims broadcast. A is read through its
/// strides (transposed and conjugated views are not copied). A zero on the diagonal is not
/// checked (as in torch): the result then holds infinities or NaNs.
template <expression EA, expression EB>
auto solve_triangular(EA&& A, EB&& B, bool upper, bool left = true, bool unitriangular = false) {
  detail::check_matrix_arg<EA>();
  detail::check_matrix_arg<EB>();
  using T = detail::value_of_t<EA>;
  static_assert(std::is_same_v<T, detail::value_of_t<EB>>,
                "tl: solve_triangular needs A and B of the same dtype (as torch); convert one with tl::astype");
  constexpr std::size_t RA = std::remove_cvref_t<EA>::rank, RB = std::remove_cvref_t<EB>::rank;
  constexpr std::size_t BA = RA - 2, BB = RB - 2, BR = BA > BB ? BA : BB, RO = BR + 2;
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(A) || tl::detail::must_record(B))
      return detail::record_solve_triangular(A, B, upper, left, unitriangular);
  const auto a = detail::readable(std::forward<EA>(A));
  const auto b = detail::readable(std::forward<EB>(B));
  const auto& as = a.shape();
  const auto& bs = b.shape();
  detail::require_square("solve_triangular", as);
  const index_t n = as[RA - 1];
  if ((left ? bs[RB - 2] : bs[RB - 1]) != n)
    throw shape_error(detail::cat_str("tl::linalg::solve_triangular: A of shape ", detail::shape_str(as),
                                      " and B of shape ", detail::shape_str(bs), " are incompatible (",
                                      left ? "B.shape[-2]" : "B.shape[-1]", " must be ", n, ")"));
  const auto bc = detail::broadcast_batches<BA, BB>("solve_triangular", as, a.strides(), bs, b.strides());
  tensor<T, RO> x(detail::rhs_out_shape<RO>(bc.shape, bs, false));
  const index_t rows = bs[RB - 2], cols = bs[RB - 1];
  detail::copy_rhs<T, RB>(x.data(), b, bc, rows, cols, false);
  if (n == 0 || x.numel() == 0) return x;
  const index_t ars = a.strides()[RA - 2], acs = a.strides()[RA - 1];
  detail::for_each_matrix(bc.count(), n, [&](index_t q) {
    const detail::mat_ref<T> am{a.data() + bc.a_offset(q), ars, acs, a.is_conj()};
    const detail::mut_ref<T> xm{x.data() + q * rows * cols, cols, 1};
    if (left) detail::trsm_left<T>(upper, unitriangular, n, cols, am, xm);
    else detail::trsm_right<T>(upper, unitriangular, rows, n, am, xm);
  });
  return x;
}

}  // namespace tl::linalg
