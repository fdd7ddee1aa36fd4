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
#include "tl/linalg/detail/device.hpp"
#include "tl/linalg/lu_factor.hpp"
#include "tl/linalg/lu_solve.hpp"
#if defined(__CUDACC__)
#include "tl/linalg/cuda/solver.cuh"
#endif

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

/// Throws for a B that does not fit the square A of shape `as` (value_error for a vector B with
/// left = false, shape_error otherwise).
template <bool Vec, std::size_t RA, std::size_t RB>
void check_solve_shapes(const char* op, const shape_t<RA>& as, const shape_t<RB>& bs, bool left) {
  const index_t n = as[RA - 1];
  if constexpr (Vec) {
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
}

/// solve / solve_ex of CUDA tensors: cuSOLVER's getrf once per matrix of A, then getrs per
/// (broadcast) right-hand side. A row-major matrix read column-major is its transpose, so getrf
/// factors A^T: A X = B is solved as (A^T)^T X = B (getrs with the transpose) on B^T's row-major
/// copy, which is B column-major; X A = B is A^T X^T = B^T, whose column-major B^T is B's
/// row-major copy itself. info is that of A^T's factorization: zero exactly where A's is (A is
/// singular iff A^T is), though the index of the zero pivot may differ.
template <bool Throw, class T, std::size_t RA, std::size_t RB, class EA, class EB>
auto device_solve(const char* op, const EA& A, const EB& B, bool left) {
  constexpr bool vec = solve_vector_rhs_v<RA, RB>;
  constexpr std::size_t BA = RA - 2, BB = vec ? RB - 1 : RB - 2, BR = BA > BB ? BA : BB;
  constexpr std::size_t RO = vec ? BR + 1 : BR + 2;
  const tl::device dev = same_device(op, A, B);
  require_no_device_grad(op, A);
  require_no_device_grad(op, B);
  tensor<T, RA> lu(tensor<T, RA>(A).clone());  // contiguous, conjugate resolved, ours to overwrite
  const tensor<T, RB> b(B);
  const auto& as = lu.shape();
  const auto& bs = b.shape();
  require_square(op, as);
  const index_t n = as[RA - 1];
  check_solve_shapes<vec>(op, as, bs, left);
  const auto bc = broadcast_batches<BA, BB>(op, as, lu.strides(), bs, b.strides());
  shape_t<RA - 2> is{};
  for (std::size_t q = 0; q + 2 < RA; ++q) is[q] = as[q];
  tensor<std::int32_t, RA - 2> info = tl::zeros<std::int32_t>(is, dev);
  // The right-hand sides as [batch..., rows, cols] (a vector is one column).
  shape_t<BR + 2> ms{};
  for (std::size_t q = 0; q < BR; ++q) ms[q] = bc.shape[q];
  ms[BR] = vec ? n : bs[RB - 2];
  ms[BR + 1] = vec ? 1 : bs[RB - 1];
  tensor<T, BR + 2> rhs;
  if constexpr (vec) rhs = tensor<T, BR + 2>(b.unsqueeze(-1).expand(ms));
  else rhs = tensor<T, BR + 2>(b.expand(ms));
  // Column-major right-hand sides: B^T's row-major copy (left) or B's (right).
  tensor<T, BR + 2> x(left ? tensor<T, BR + 2>(rhs.mT()).clone() : rhs.clone());
  if (lu.numel() > 0) {
    const index_t nb = batch_count(as);
    tensor<std::int64_t, 1> ipiv(shape_t<1>{nb * n}, dev);
    device_getrf<T>(op)(nb, n, n, lu.data(), ipiv.data(), info.data(), dev.index());
    if constexpr (Throw) throw_on_info(op, info.cpu(), "the input matrix is singular");
    if (x.numel() > 0) {
      std::vector<index_t> offsets(static_cast<std::size_t>(bc.count()));
      for (index_t q = 0; q < bc.count(); ++q) offsets[static_cast<std::size_t>(q)] = bc.a_offset(q);
      const index_t nrhs = x.numel() / (bc.count() * n);
      device_getrs<T>(op)(bc.count(), n, nrhs, left, lu.data(), offsets.data(), ipiv.data(), x.data(), dev.index());
    }
  }
  if (left) x = tensor<T, BR + 2>(tensor<T, BR + 2>(x.mT()).clone());
  tensor<T, RO> out;
  if constexpr (vec) out = tensor<T, RO>(x.squeeze(-1));
  else out = x;
  return solve_ex_result<T, RO, RA - 2>{std::move(out), std::move(info)};
}

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
  if (tl::detail::expression_device(A).is_cuda() || tl::detail::expression_device(B).is_cuda())
    return device_solve<Throw, T, RA, RB>(op, A, B, left);
  if constexpr (records_grad<T>())
    if (tl::detail::must_record(A) || tl::detail::must_record(B)) return record_solve<Throw>(op, A, B, left);
  auto lu = working_copy(std::forward<EA>(A));
  const auto b = readable(std::forward<EB>(B));
  const auto& as = lu.shape();
  const auto& bs = b.shape();
  require_square(op, as);
  const index_t n = as[RA - 1];
  check_solve_shapes<vec>(op, as, bs, left);
  // Factor every matrix of A once.
  auto [piv, info] = factor_square(lu);
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
