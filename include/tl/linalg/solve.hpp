#pragma once
/// @file solve.hpp
/// @brief tl::linalg::solve and solve_ex: the solution of a square system A X = B (or X A = B)
/// by LU with partial pivoting (torch.linalg.solve / solve_ex).
///
/// @code
/// auto x = tl::linalg::solve(a, b);                  // a: [*, n, n], b: [*, n, k] or [*, n]
/// auto [y, info] = tl::linalg::solve_ex(a, b);       // never throws for a singular a
/// @endcode
///
/// B is a batch of vectors when its rank is 1 or one less than A's (its shape must then be
/// A.shape[:-1]); otherwise a batch of matrices. (torch decides this from the shapes at run time;
/// tl's result rank is fixed at compile time, so it decides from the ranks.)
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/lu_factor.hpp"
#include "tl/linalg/lu_solve.hpp"

namespace tl::linalg {

/// @brief solve_ex's result: the solution and info (int32, A's batch shape; 0, or the 1-based
/// index of the first zero pivot of A's LU factorization).
template <class T, std::size_t RX, std::size_t RI>
struct solve_ex_result {
  tensor<T, RX> result;
  tensor<std::int32_t, RI> info;
};

namespace detail {
template <std::size_t RA, std::size_t RB>
inline constexpr bool solve_vector_rhs_v = RB == 1 || RB + 1 == RA;

template <bool Throw, expression EA, expression EB>
auto solve_impl(const char* op, EA&& A, EB&& B, bool left) {
  check_matrix_arg<EA>();
  check_matrix_arg<EB, 1>();
  using T = value_of_t<EA>;
  static_assert(std::is_same_v<T, value_of_t<EB>>,
                "tl: linalg::solve needs A and B of the same dtype (as torch); convert one with tl::astype");
  constexpr std::size_t RA = std::remove_cvref_t<EA>::rank, RB = std::remove_cvref_t<EB>::rank;
  constexpr bool vec = solve_vector_rhs_v<RA, RB>;
  constexpr std::size_t BA = RA - 2, BB = vec ? RB - 1 : RB - 2, BR = BA > BB ? BA : BB;
  constexpr std::size_t RO = vec ? BR + 1 : BR + 2;
  if constexpr (records_grad<T>())
    if (tl::detail::must_record(A) || tl::detail::must_record(B)) return record_solve<Throw>(op, A, B, left);
  auto lu = working_copy(std::forward<EA>(A));
  const auto b = readable(std::forward<EB>(B));
  const auto& as = lu.shape();
  const auto& bs = b.shape();
  require_square(op, as);
  const index_t n = as[RA - 1];
  if constexpr (vec) {
    if (!left)
      throw value_error(cat_str("tl::linalg::", op, ": a vector right-hand side (B of shape ", shape_str(bs),
                                ") is not supported with left=false; there the system is B / A"));
    bool ok = bs[RB - 1] == n;
    if constexpr (RB > 1)
      for (std::size_t q = 0; q < RB; ++q) ok = ok && bs[q] == as[q];
    if (!ok)
      throw shape_error(cat_str("tl::linalg::", op, ": A of shape ", shape_str(as), " and a vector (batch) B of shape ",
                                shape_str(bs), " are incompatible: B must have shape A.shape[:-1]",
                                RB > 1 ? " (for a batch of matrices give B the rank of A)" : ""));
  } else {
    if ((left ? bs[RB - 2] : bs[RB - 1]) != n)
      throw shape_error(cat_str("tl::linalg::", op, ": A of shape ", shape_str(as), " and B of shape ", shape_str(bs),
                                " are incompatible (", left ? "B.shape[-2]" : "B.shape[-1]", " must be ", n, ")"));
  }
  // Factor every matrix of A once.
  shape_t<RA - 1> ps{};
  shape_t<RA - 2> is{};
  for (std::size_t q = 0; q + 2 < RA; ++q) ps[q] = is[q] = as[q];
  ps[RA - 2] = n;
  tensor<std::int32_t, RA - 1> piv(ps);
  tensor<std::int32_t, RA - 2> info(is);
  lu_factor_inplace(lu, piv, info);
  if constexpr (Throw) throw_on_info(op, info, "the input matrix is singular");
  std::vector<index_t> ipiv(static_cast<std::size_t>(piv.numel()));
  for (index_t i = 0; i < piv.numel(); ++i) ipiv[static_cast<std::size_t>(i)] = piv.data()[i] - 1;
  // The vector case broadcasts only A's batch dims with B's leading ones.
  const auto bc = broadcast_batches<BA, BB>(op, as, lu.strides(), bs, b.strides());
  tensor<T, RO> x(rhs_out_shape<RO>(bc.shape, bs, vec));
  const index_t k = vec ? 1 : (left ? bs[RB - 1] : bs[RB - 2]);
  copy_rhs<T, RB>(x.data(), b, bc, vec ? n : bs[RB - 2], vec ? 1 : bs[RB - 1], vec);
  lu_solve_inplace(lu.data(), ipiv.data(), n, bc, x.data(), k, left, false);
  return solve_ex_result<T, RO, RA - 2>{std::move(x), std::move(info)};
}
}  // namespace detail

/// @brief Solves A X = B (left) or X A = B (right) for square A [*, n, n] (torch.linalg.solve);
/// batch dims broadcast. Throws tl::linalg_error naming the batch element and the zero pivot when
/// A is singular, shape_error for non-square A or mismatched shapes.
template <expression EA, expression EB>
auto solve(EA&& A, EB&& B, bool left = true) {
  return detail::solve_impl<true>("solve", std::forward<EA>(A), std::forward<EB>(B), left).result;
}

/// @brief As solve, but a singular A is reported in `info` (never thrown unless `check_errors`);
/// the result for such a matrix holds infinities or NaNs (torch.linalg.solve_ex).
template <expression EA, expression EB>
auto solve_ex(EA&& A, EB&& B, bool left = true, bool check_errors = false) {
  if (check_errors) return detail::solve_impl<true>("solve_ex", std::forward<EA>(A), std::forward<EB>(B), left);
  return detail::solve_impl<false>("solve_ex", std::forward<EA>(A), std::forward<EB>(B), left);
}

}  // namespace tl::linalg
