#pragma once
/// @file ldl_solve.hpp
/// @brief tl::linalg::ldl_solve: solves A X = B from ldl_factor's output (torch.linalg.ldl_solve).
///
/// @code
/// auto [LD, pivots] = tl::linalg::ldl_factor(a);
/// auto x = tl::linalg::ldl_solve(LD, pivots, b);                        // a x = b
/// auto [LDh, ph] = tl::linalg::ldl_factor(h, /*hermitian=*/true);
/// auto y = tl::linalg::ldl_solve(LDh, ph, c, /*hermitian=*/true);        // h y = c
/// @endcode
#include <cstdint>
#include <vector>

#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/sytrf.hpp"
#include "tl/linalg/lu_solve.hpp"

namespace tl::linalg {
namespace detail {

/// Checks ldl pivots (n per matrix, LAPACK's lower sytrf encoding) and returns them as int32:
/// step k holds p in [k + 1, n], or a pair of equal values -p at k, k + 1 with p in [k + 2, n].
template <class P>
std::vector<std::int32_t> checked_ldl_pivots(const char* op, const P* p, index_t count, index_t n) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(count));
  for (index_t b = 0; n > 0 && b < count / n; ++b) {
    for (index_t k = 0; k < n;) {
      const index_t at = b * n + k;
      const auto v = static_cast<long long>(p[at]);
      const bool two = v < 0;
      const bool ok = two ? k + 1 < n && static_cast<long long>(p[at + 1]) == v && -v >= k + 2 && -v <= n
                          : v >= k + 1 && v <= n;
      if (!ok)
        throw value_error(cat_str("tl::linalg::", op, ": pivot ", v, " at position ", k, batch_note(b, count > n),
                                  " is not a valid ldl_factor pivot (step k holds p in [k + 1, ", n,
                                  "], or a pair of equal values -p at k, k + 1 with p in [k + 2, ", n, "])"));
      out[static_cast<std::size_t>(at)] = static_cast<std::int32_t>(v);
      if (two) out[static_cast<std::size_t>(at + 1)] = static_cast<std::int32_t>(v);
      k += two ? 2 : 1;
    }
  }
  return out;
}

}  // namespace detail

/// @brief Solves A X = B for A given by ldl_factor's (LD, pivots) (torch.linalg.ldl_solve).
/// LD: [*, n, n] (only its lower triangle is read); pivots: an integer tensor [*, n] in LAPACK's
/// encoding (as ldl_factor returns; checked, tl::value_error otherwise); B: [*, n, k]. The batch
/// dims of LD and B broadcast; `hermitian` must match the factorization. Inputs that require
/// grad are refused (tl::autograd_error): torch 1.13 defines no derivative for this function.
template <expression EL, expression EP, expression EB>
auto ldl_solve(EL&& LD, EP&& pivots, EB&& B, bool hermitian = false) {
  detail::require_no_grad("ldl_solve", LD, B);
  detail::check_matrix_arg<EL>();
  detail::check_matrix_arg<EB>();
  using T = detail::value_of_t<EL>;
  using P = detail::value_of_t<EP>;
  static_assert(std::is_same_v<T, detail::value_of_t<EB>>,
                "tl: ldl_solve needs LD and B of the same dtype (as torch); convert B with tl::astype<T>(B)");
  static_assert(is_integral_v<P>, "tl: ldl_solve's pivots are an integer tensor (int32 as ldl_factor returns them)");
  constexpr std::size_t RA = std::remove_cvref_t<EL>::rank, RB = std::remove_cvref_t<EB>::rank;
  static_assert(std::remove_cvref_t<EP>::rank == RA - 1, "tl: ldl_solve's pivots have one dim less than LD");
  constexpr std::size_t BA = RA - 2, BB = RB - 2, BR = BA > BB ? BA : BB, RO = BR + 2;
  const auto ld = detail::readable(std::forward<EL>(LD));
  detail::require_host_operand(pivots);
  const auto pv = tensor<P, RA - 1>(std::forward<EP>(pivots)).contiguous();
  const auto b = detail::readable(std::forward<EB>(B));
  const auto& as = ld.shape();
  const auto& bs = b.shape();
  detail::require_square("ldl_solve", as);
  const index_t n = as[RA - 1];
  detail::require_pivots_shape("ldl_solve", "LD", pv.shape(), as);
  if (bs[RB - 2] != n)
    throw shape_error(detail::cat_str("tl::linalg::ldl_solve: LD of shape ", detail::shape_str(as), " and B of shape ",
                                      detail::shape_str(bs), " are incompatible (B.shape[-2] must be ", n, ")"));
  const auto ipiv = detail::checked_ldl_pivots("ldl_solve", pv.data(), pv.numel(), n);
  const auto bc = detail::broadcast_batches<BA, BB>("ldl_solve", as, ld.strides(), bs, b.strides());
  // The same broadcast over the (contiguous) pivots: where each output's pivots start.
  const auto pbc = detail::broadcast_batches<BA, BB>("ldl_solve", pv.shape(), pv.strides(), bs, b.strides());
  tensor<T, RO> x(detail::rhs_out_shape<RO>(bc.shape, bs, false));
  const index_t k = bs[RB - 1];
  detail::copy_rhs<T, RB>(x.data(), b, bc, n, k, false);
  if (n == 0 || k == 0) return x;
  const auto& st = ld.strides();
  const index_t rs = st[RA - 2], cs = st[RA - 1];
  const bool cj = ld.is_conj();
  detail::for_each_matrix(bc.count(), n, [&](index_t q) {
    const index_t aoff = bc.a_offset(q);
    const std::int32_t* pq = ipiv.data() + pbc.a_offset(q);
    T* xq = x.data() + q * n * k;
    if (is_complex_v<T> && hermitian) detail::sytrs<T, is_complex_v<T>>(n, k, ld.data() + aoff, rs, cs, cj, pq, xq, k);
    else detail::sytrs<T, false>(n, k, ld.data() + aoff, rs, cs, cj, pq, xq, k);
  });
  return x;
}

}  // namespace tl::linalg
