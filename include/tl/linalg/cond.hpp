#pragma once
/// @file cond.hpp
/// @brief tl::linalg::cond: the condition number of a matrix in a given norm (torch.linalg.cond).
///
/// @code
/// auto c = tl::linalg::cond(a);          // 2-norm: σ_max / σ_min, [*, m, n] -> real [*]
/// auto c1 = tl::linalg::cond(a, 1);      // ‖A‖₁ ‖A⁻¹‖₁, square A
/// auto cf = tl::linalg::cond(a, "fro");  // also "nuc", inf, -inf, -1, -2
/// @endcode
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "tl/linalg/inv.hpp"
#include "tl/linalg/matrix_norm.hpp"
#include "tl/linalg/svd.hpp"

namespace tl::linalg {

namespace detail {

enum class cond_norm { two, minus_two, fro, nuc, inf, minus_inf, one, minus_one };

/// The order as matrix_norm takes it.
template <class W>
auto cond_matrix_norm(const W& x, cond_norm p) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (p) {
    case cond_norm::fro: return matrix_norm(x, "fro");
    case cond_norm::nuc: return matrix_norm(x, "nuc");
    case cond_norm::inf: return matrix_norm(x, inf);
    case cond_norm::minus_inf: return matrix_norm(x, -inf);
    case cond_norm::one: return matrix_norm(x, 1.0);
    default: return matrix_norm(x, -1.0);
  }
}

template <expression E>
auto cond_impl(E&& A, cond_norm p, const std::string& pname) {
  check_matrix_arg<E>();
  using T = value_of_t<E>;
  if constexpr (records_grad<T>())
    if (tl::detail::must_record(A)) return record_cond(A, p, pname);
  using Rl = real_t<T>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  auto a = working_copy(std::forward<E>(A));
  const auto sh = a.shape();
  const index_t m = sh[R - 2], n = sh[R - 1], k = std::min(m, n);
  shape_t<R - 2> rs{};
  for (std::size_t q = 0; q + 2 < R; ++q) rs[q] = sh[q];
  tensor<Rl, R - 2> c(rs);
  const index_t nb = c.numel();
  if (p == cond_norm::two || p == cond_norm::minus_two) {
    const auto s = svdvals(a);
    for (index_t b = 0; b < nb; ++b) {
      const Rl* sb = s.data() + b * k;
      c.data()[b] = k == 0 ? Rl(0) : (p == cond_norm::two ? sb[0] / sb[k - 1] : sb[k - 1] / sb[0]);
    }
    return c;
  }
  if (m != n)
    throw shape_error(cat_str("tl::linalg::cond(p = ", pname,
                              "): expected a square matrix or a batch of square matrices, got shape ", shape_str(sh)));
  if (n == 0) {
    for (index_t b = 0; b < nb; ++b) c.data()[b] = 0;
    return c;
  }
  // A singular matrix (an exactly zero pivot) has condition number inf, as in torch.
  auto [ai, info] = inv_ex(a);
  const auto na = cond_matrix_norm(a, p), ni = cond_matrix_norm(ai, p);
  for (index_t b = 0; b < nb; ++b)
    c.data()[b] = info.data()[b] != 0 ? std::numeric_limits<Rl>::infinity() : na.data()[b] * ni.data()[b];
  return c;
}

}  // namespace detail

/// @brief Condition number in the 2-norm, σ_max / σ_min (torch.linalg.cond with p = None); any
/// [*, m, n] shape. Singular matrices give inf, the zero matrix NaN (0 / 0), empty ones 0. With
/// autograd, every order is differentiable through svdvals or ‖A‖ ‖A⁻¹‖ (torch's formulas).
template <expression E>
auto cond(E&& A) {
  return detail::cond_impl(std::forward<E>(A), detail::cond_norm::two, "None");
}

/// @brief Condition number for a numeric p: 2 or -2 (σ_max / σ_min or its inverse, any shape), or
/// inf, -inf, 1, -1: ‖A‖_p ‖A⁻¹‖_p for square A (norms from tl::linalg::matrix_norm) (inf where the LU factorization of A meets an
/// exact zero pivot). Other p throw tl::value_error.
template <expression E>
auto cond(E&& A, double p) {
  using C = detail::cond_norm;
  const double inf = std::numeric_limits<double>::infinity();
  const C k = p == 2 ? C::two : p == -2 ? C::minus_two : p == inf ? C::inf : p == -inf ? C::minus_inf
            : p == 1 ? C::one : p == -1 ? C::minus_one : C::fro;
  if (k == C::fro) throw value_error(detail::cat_str("tl::linalg::cond: invalid norm type ", p));
  return detail::cond_impl(std::forward<E>(A), k, detail::cat_str(p));
}

/// @brief Condition number for p = "fro" or "nuc": ‖A‖ ‖A⁻¹‖ for square A (inf when singular).
/// Other strings throw tl::value_error.
template <expression E>
auto cond(E&& A, std::string_view p) {
  using C = detail::cond_norm;
  if (p != "fro" && p != "nuc")
    throw value_error(detail::cat_str("tl::linalg::cond: invalid norm type '", std::string(p),
                                      "' (expected \"fro\" or \"nuc\" or a number)"));
  return detail::cond_impl(std::forward<E>(A), p == "fro" ? C::fro : C::nuc, std::string(p));
}

}  // namespace tl::linalg
