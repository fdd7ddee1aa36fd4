#pragma once
/// @file autograd_factor_decl.hpp
/// @brief Internal header: declarations of the record functions of qr, matrix_exp,
/// householder_product, vander and the norms (defined in tl/linalg/detail/autograd_factor.hpp).
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "tl/core/tensor.hpp"
#include "tl/linalg/detail/autograd_decl.hpp"

namespace tl::linalg {

template <class T, std::size_t Rank>
struct qr_result;

namespace detail {

enum class mat_ord;
enum class cond_norm;

template <class E>
qr_result<ag_value_t<E>, ag_rank_v<E>> record_qr(const E& a, std::string_view mode);
template <class E>
tensor<ag_value_t<E>, ag_rank_v<E>> record_matrix_exp(const E& a);
template <class EA, class ET>
tensor<ag_value_t<EA>, ag_rank_v<EA>> record_householder_product(const EA& a, const ET& tau);
template <class E>
tensor<ag_value_t<E>, ag_rank_v<E> + 1> record_vander(const E& x, index_t cols);
template <class Out, class F, class E, class... A>
Out record_vector_norm(F fwd, const E& x, double ord, const A&... args);
template <bool Keep, class E>
tensor<real_t<ag_value_t<E>>, Keep ? ag_rank_v<E> : ag_rank_v<E> - 2> record_matrix_norm(
    const E& a, mat_ord o, std::array<std::size_t, 2> d);
template <class X, class EA, class EB>
void record_lstsq(X& solution, const EA& a, const EB& b);
template <class E>
tensor<real_t<ag_value_t<E>>, ag_rank_v<E> - 2> record_cond(const E& a, cond_norm p, std::string_view pname);

}  // namespace detail
}  // namespace tl::linalg
