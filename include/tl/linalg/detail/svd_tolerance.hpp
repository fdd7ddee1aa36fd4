#pragma once
/// @file svd_tolerance.hpp
/// @brief Internal header: what pinv and matrix_rank share: torch's atol / rtol rules and the
/// Hermitian input read from its lower triangle.
#include <algorithm>
#include <limits>
#include <optional>

#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/gesvd.hpp"

namespace tl::linalg::detail {

/// Singular values above max(atol, rtol * smax) count. rtol defaults to max(m, n) * eps when
/// neither is given or atol <= 0, and to 0 when a positive atol is given alone (torch 1.13).
template <class Rl>
struct svd_cutoff {
  Rl atol = 0, rtol = 0;
  svd_cutoff(std::optional<double> at, std::optional<double> rt, index_t m, index_t n) {
    atol = static_cast<Rl>(at.value_or(0.0));
    const Rl def = static_cast<Rl>(std::max(m, n)) * std::numeric_limits<Rl>::epsilon();
    rtol = rt ? static_cast<Rl>(*rt) : (at && *at > 0 ? Rl(0) : def);
  }
  /// How many of the descending singular values s[0..k) lie strictly above the threshold.
  Rl threshold(Rl smax) const { return std::max(atol, rtol * smax); }
  index_t kept(const Rl* s, index_t k) const {
    if (k == 0) return 0;
    const Rl thr = threshold(s[0]);
    index_t c = 0;
    while (c < k && s[c] > thr) ++c;
    return c;
  }
};

/// A working copy of A; with `hermitian`, each matrix rebuilt from its lower triangle (the diagonal's
/// imaginary part dropped), which is all torch reads then.
template <expression E>
auto svd_input(const char* op, E&& A, bool hermitian) {
  check_matrix_arg<E>();
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  auto a = working_copy(std::forward<E>(A));
  if (hermitian) {
    const auto& s = a.shape();
    require_square(op, s);
    const index_t n = s[R - 1], nb = batch_count(s);
    for (index_t b = 0; b < nb; ++b) {
      T* x = a.data() + b * n * n;
      for (index_t i = 0; i < n; ++i) {
        x[i * n + i] = T(real_of(x[i * n + i]));
        for (index_t j = i + 1; j < n; ++j) x[i * n + j] = conj_of(x[j * n + i]);
      }
    }
  }
  return a;
}

/// The working matrices, their m, n, k = min(m, n) and the cutoff, for pinv and matrix_rank.
template <class W>
struct svd_cutoff_input {
  W a;
  index_t m, n, k;
  svd_cutoff<real_t<typename W::value_type>> cut;
};

template <expression E>
auto make_svd_cutoff_input(const char* op, E&& A, std::optional<double> atol, std::optional<double> rtol,
                           bool hermitian) {
  auto a = svd_input(op, std::forward<E>(A), hermitian);
  using W = decltype(a);
  constexpr std::size_t R = W::rank;
  const index_t m = a.shape()[R - 2], n = a.shape()[R - 1];
  svd_cutoff<real_t<typename W::value_type>> cut(atol, rtol, m, n);
  return svd_cutoff_input<W>{std::move(a), m, n, std::min(m, n), cut};
}

}  // namespace tl::linalg::detail
