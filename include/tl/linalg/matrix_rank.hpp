#pragma once
/// @file matrix_rank.hpp
/// @brief tl::linalg::matrix_rank: the number of singular values above a tolerance
/// (torch.linalg.matrix_rank, torch 1.13 signature).
///
/// @code
/// auto r = tl::linalg::matrix_rank(a);                  // a: [*, m, n] -> int64 [*]
/// auto r2 = tl::linalg::matrix_rank(a, {}, 1e-6);       // rtol = 1e-6
/// @endcode
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "tl/linalg/detail/svd_tolerance.hpp"
#include "tl/linalg/eigh.hpp"
#include "tl/linalg/svd.hpp"

namespace tl::linalg {

/// @brief Numerical rank: the count of singular values σ > max(atol, rtol·σ₁), int64 with the
/// batch shape (torch.linalg.matrix_rank). Tolerance defaults as in pinv; `hermitian` reads only
/// the lower triangle and counts |λ| from tl::linalg::eigvalsh. Empty matrices have rank 0.
template <expression E>
auto matrix_rank(E&& A, std::optional<double> atol = std::nullopt, std::optional<double> rtol = std::nullopt,
                 bool hermitian = false) {
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  no_grad guard;  // an integer result: no gradient, as torch (also for an input that requires grad)
  auto in = detail::make_svd_cutoff_input("matrix_rank", std::forward<E>(A), atol, rtol, hermitian);
  shape_t<R - 2> rs{};
  for (std::size_t q = 0; q + 2 < R; ++q) rs[q] = in.a.shape()[q];
  tensor<std::int64_t, R - 2> r(rs);
  if (hermitian) {
    // |λ| from eigvalsh, sorted descending, in place of the singular values.
    auto w = eigvalsh(in.a);
    const index_t n = in.n;
    for (index_t b = 0; b < r.numel(); ++b) {
      auto* lam = w.data() + b * n;
      for (index_t i = 0; i < n; ++i) lam[i] = std::abs(lam[i]);
      std::sort(lam, lam + n, [](auto x, auto y) { return x > y; });
      r.data()[b] = in.cut.kept(lam, n);
    }
    return r;
  }
  const auto S = svdvals(in.a);
  for (index_t b = 0; b < r.numel(); ++b) r.data()[b] = in.cut.kept(S.data() + b * in.k, in.k);
  return r;
}

}  // namespace tl::linalg
