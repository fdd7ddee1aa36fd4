#pragma once
/// @file pinv.hpp
/// @brief tl::linalg::pinv: the Moore-Penrose pseudo-inverse from the SVD (torch.linalg.pinv,
/// torch 1.13 signature).
///
/// @code
/// auto x = tl::linalg::pinv(a);                       // a: [*, m, n] -> [*, n, m]
/// auto y = tl::linalg::pinv(a, /*atol=*/1e-8);        // rtol then 0
/// auto z = tl::linalg::pinv(h, {}, {}, /*hermitian=*/true);  // reads h's lower triangle only
/// @endcode
#include <optional>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/svd_tolerance.hpp"
#include "tl/linalg/eigh.hpp"
#include "tl/linalg/svd.hpp"

namespace tl::linalg {

namespace detail {
/// X = Q diag(f) Q^H, f = 1 / λ for |λ| above the cutoff (else 0), from eigh of each matrix.
template <class In>
auto pinv_hermitian(const In& in) {
  using W = decltype(in.a);
  using T = typename W::value_type;
  using Rl = real_t<T>;
  const index_t n = in.n;
  auto [w, Q] = eigh(in.a);
  W x(in.a.shape());
  for_each_matrix(batch_count(in.a.shape()), n, [&](index_t b) {
    const Rl* lam = w.data() + b * n;
    T* q = Q.data() + b * n * n;
    const Rl thr = n > 0 ? in.cut.threshold(std::max(std::abs(lam[0]), std::abs(lam[n - 1]))) : Rl(0);
    std::vector<T> y(q, q + n * n);
    for (index_t j = 0; j < n; ++j) {
      const T f = std::abs(lam[j]) > thr ? T(Rl(1) / lam[j]) : T(0);
      for (index_t i = 0; i < n; ++i) y[i * n + j] = y[i * n + j] * f;
    }
    gemm<T>(n, n, n, T(1), mat_ref<T>{y.data(), n, 1}, mat_ref<T>{q, 1, n, true}, T(0), x.data() + b * n * n, n, 1);
  });
  return x;
}
}  // namespace detail

/// @brief Pseudo-inverse A⁺ = V diag(1/σ) Uᴴ over the singular values σ > max(atol, rtol·σ₁)
/// (torch.linalg.pinv). rtol defaults to max(m, n)·eps when neither tolerance is given (or atol
/// <= 0), and to 0 when only a positive atol is. `hermitian` takes A as Hermitian and reads only
/// its lower triangle: A⁺ = Q diag(1/λ) Qᴴ from tl::linalg::eigh over |λ| above the cutoff.
/// [*, m, n] -> [*, n, m]. Differentiable (torch 1.13's pinv_backward, also with `hermitian`).
template <expression E>
auto pinv(E&& A, std::optional<double> atol = std::nullopt, std::optional<double> rtol = std::nullopt,
          bool hermitian = false) {
  using T = detail::value_of_t<E>;
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(A)) return detail::record_pinv(A, atol, rtol, hermitian);
  using Rl = real_t<T>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  auto in = detail::make_svd_cutoff_input("pinv", std::forward<E>(A), atol, rtol, hermitian);
  const index_t m = in.m, n = in.n, k = in.k;
  if (hermitian) return detail::pinv_hermitian(in);
  auto [U, S, Vh] = svd(in.a, false);
  shape_t<R> xs = in.a.shape();
  xs[R - 2] = n;
  xs[R - 1] = m;
  tensor<T, R> x(xs);
  detail::for_each_matrix(detail::batch_count(xs), std::max(m, n), [&](index_t b) {
    const Rl* s = S.data() + b * k;
    T* w = Vh.data() + b * k * n;  // rows scaled by 1 / s (0 beyond the cutoff)
    const index_t kept = in.cut.kept(s, k);
    for (index_t i = 0; i < k; ++i) {
      const T f = i < kept ? T(Rl(1) / s[i]) : T(0);
      for (index_t j = 0; j < n; ++j) w[i * n + j] = w[i * n + j] * f;
    }
    // X = W^H U^H (n x m).
    T* xb = x.data() + b * n * m;
    if (k == 0) {
      std::fill(xb, xb + n * m, T(0));
      return;
    }
    detail::gemm<T>(n, m, k, T(1), detail::mat_ref<T>{w, 1, n, true},
                    detail::mat_ref<T>{U.data() + b * m * k, 1, k, true}, T(0), xb, m, 1);
  });
  return x;
}

}  // namespace tl::linalg
