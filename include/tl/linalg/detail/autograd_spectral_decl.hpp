#pragma once
/// @file autograd_spectral_decl.hpp
/// @brief Internal header: declarations of the functions that record svd, svdvals, eig, eigvals
/// and pinv for autograd (defined in tl/linalg/detail/autograd_spectral.hpp; included by
/// autograd_decl.hpp).
#include <optional>

#include "tl/linalg/detail/autograd_decl.hpp"

namespace tl::linalg {

template <class T, std::size_t R>
struct svd_result;
template <class C, std::size_t R>
struct eig_result;

namespace detail {

/// The complex dtype of eig's results for an input of dtype V.
template <class V>
using eig_complex_t = complex<real_t<V>>;

template <class E>
svd_result<ag_value_t<E>, ag_rank_v<E>> record_svd(const E& a, bool full_matrices);
template <class E>
tensor<real_t<ag_value_t<E>>, ag_rank_v<E> - 1> record_svdvals(const E& a);
template <class E>
eig_result<eig_complex_t<ag_value_t<E>>, ag_rank_v<E>> record_eig(const E& a);
template <class E>
tensor<eig_complex_t<ag_value_t<E>>, ag_rank_v<E> - 1> record_eigvals(const E& a);
template <class E>
tensor<ag_value_t<E>, ag_rank_v<E>> record_pinv(const E& a, std::optional<double> atol, std::optional<double> rtol,
                                                bool hermitian);

}  // namespace detail
}  // namespace tl::linalg
