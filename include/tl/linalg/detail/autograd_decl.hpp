#pragma once
/// @file autograd_decl.hpp
/// @brief Internal header: declarations of the functions that record tl::linalg operations for
/// autograd (defined in tl/linalg/detail/autograd.hpp, which tl/linalg/linalg.hpp includes when
/// TL_AUTOGRAD is on). The operations call them when an input requires grad.
#include <algorithm>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include "tl/core/config.hpp"
#include "tl/core/tensor.hpp"

namespace tl::linalg {

template <class T, std::size_t RB>
struct slogdet_result;
template <class T, std::size_t R>
struct inv_ex_result;
template <class T, std::size_t RX, std::size_t RI>
struct solve_ex_result;
template <class T, std::size_t R>
struct cholesky_ex_result;
template <class T, std::size_t R>
struct lu_factor_ex_result;
template <class T, std::size_t R>
struct lu_result;
template <class T, std::size_t R>
struct eigh_result;

namespace detail {

/// True once the rules are defined (tl/linalg/detail/autograd.hpp specializes it).
template <class V, class = void>
struct grad_rules_included : std::false_type {};

/// Whether an operation on values of type V records autograd (TL_AUTOGRAD on, floating or complex).
template <class V>
constexpr bool records_grad() {
  constexpr bool on = TL_AUTOGRAD != 0 && !std::is_integral_v<V>;
  static_assert(!on || grad_rules_included<V>::value,
                "tl: with TL_AUTOGRAD, the gradients of tl::linalg operations are defined in "
                "<tl/linalg/linalg.hpp>: include it (or <tl/tensor.hpp>) instead of the single operation's header");
  return on;
}

// The record functions have explicit result types: the backward formulas call the operations
// again, so a deduced type would be needed while it is being deduced.
template <class E>
using ag_value_t = typename std::remove_cvref_t<E>::value_type;
template <class E>
inline constexpr std::size_t ag_rank_v = std::remove_cvref_t<E>::rank;
/// solve's result rank: a batch of vectors when B's rank is 1 or one less than A's.
template <std::size_t RA, std::size_t RB>
inline constexpr std::size_t ag_solve_rank_v =
    (RB == 1 || RB + 1 == RA) ? std::max(RA - 2, RB - 1) + 1 : std::max(RA, RB);

template <class E>
tensor<ag_value_t<E>, ag_rank_v<E> - 2> record_det(const E& a);
template <class E>
slogdet_result<ag_value_t<E>, ag_rank_v<E> - 2> record_slogdet(const E& a);
template <bool Throw, class E>
inv_ex_result<ag_value_t<E>, ag_rank_v<E>> record_inv(const char* op, const E& a);
template <bool Throw, class EA, class EB>
solve_ex_result<ag_value_t<EA>, ag_solve_rank_v<ag_rank_v<EA>, ag_rank_v<EB>>, ag_rank_v<EA> - 2> record_solve(
    const char* op, const EA& a, const EB& b, bool left);
template <bool Throw, class E>
cholesky_ex_result<ag_value_t<E>, ag_rank_v<E>> record_cholesky(const char* op, const E& a, bool upper);
template <class EA, class EB>
tensor<ag_value_t<EA>, std::max(ag_rank_v<EA>, ag_rank_v<EB>)> record_solve_triangular(const EA& a, const EB& b,
                                                                                      bool upper, bool left,
                                                                                      bool unitriangular);
template <class EL, class EP, class EB>
tensor<ag_value_t<EL>, std::max(ag_rank_v<EL>, ag_rank_v<EB>)> record_lu_solve(const EL& lu, const EP& pivots,
                                                                              const EB& b, bool left, bool adjoint);
template <class E>
lu_factor_ex_result<ag_value_t<E>, ag_rank_v<E>> record_lu_factor_ex(const E& a, bool pivot, bool check_errors);
template <class E>
lu_result<ag_value_t<E>, ag_rank_v<E>> record_lu(const E& a, bool pivot);
template <class E>
eigh_result<ag_value_t<E>, ag_rank_v<E>> record_eigh(const E& a, std::string_view uplo);
template <class E>
tensor<real_t<ag_value_t<E>>, ag_rank_v<E> - 1> record_eigvalsh(const E& a, std::string_view uplo);

}  // namespace detail
}  // namespace tl::linalg
#include "tl/linalg/detail/autograd_spectral_decl.hpp"
#include "tl/linalg/detail/autograd_factor_decl.hpp"
