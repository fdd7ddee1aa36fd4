#pragma once
/// @file eig.hpp
/// @brief tl::linalg::eig and eigvals: eigenvalues and right eigenvectors of general square
/// matrices (torch.linalg.eig / eigvals), complex results for every input dtype.
///
/// @code
/// auto [w, V] = tl::linalg::eig(a);  // a: [*, n, n] -> w [*, n], V [*, n, n], complex; A V = V diag(w)
/// auto w2 = tl::linalg::eigvals(a);  // no eigenvectors formed
/// @endcode
#include <atomic>
#include <vector>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/geev.hpp"

namespace tl::linalg {

/// @brief eig's result: eigenvalues [*, n] and eigenvectors [*, n, n] (columns), both complex
/// (complex<float> for float and complex<float> input, complex<double> otherwise).
template <class C, std::size_t R>
struct eig_result {
  tensor<C, R - 1> eigenvalues;
  tensor<C, R> eigenvectors;
};

namespace detail {

template <bool Vectors, expression E>
auto eig_impl(const char* op, E&& A) {
  check_matrix_arg<E>();
  using T = value_of_t<E>;
  using Rl = real_t<T>;
  using C = complex<Rl>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  auto a = working_copy(std::forward<E>(A));
  const auto sh = a.shape();
  require_square(op, sh);
  const index_t n = sh[R - 1], nb = batch_count(sh);
  for (index_t i = 0; i < a.numel(); ++i) {
    const T v = a.data()[i];
    bool fin;
    if constexpr (is_complex_v<T>) fin = std::isfinite(v.re) && std::isfinite(v.im);
    else fin = std::isfinite(v);
    if (!fin)
      throw linalg_error(cat_str("tl::linalg::", op, ": the input", batch_note(i / std::max<index_t>(1, n * n), R > 2),
                                 " contains infinities or NaNs"));
  }
  shape_t<R - 1> ws{};
  for (std::size_t q = 0; q + 2 < R; ++q) ws[q] = sh[q];
  ws[R - 2] = n;
  eig_result<C, R> r{tensor<C, R - 1>(ws), tensor<C, R>(Vectors ? sh : shape_t<R>{})};
  std::atomic<index_t> failed{-1};
  for_each_matrix(nb, n, [&](index_t b) {
    const T* src = a.data() + b * n * n;
    C* w = r.eigenvalues.data() + b * n;
    C* v = Vectors ? r.eigenvectors.data() + b * n * n : nullptr;
    bool ok;
    if constexpr (is_complex_v<T>) {
      std::vector<C> h(src, src + n * n);
      ok = eig_complex<Rl>(n, h.data(), w, v);
    } else {
      std::vector<Rl> h(src, src + n * n);  // real input: real double-shift QR
      ok = eig_real<Rl>(n, h.data(), w, v);
    }
    if (!ok) failed = b;
  });
  if (failed.load() >= 0)
    throw linalg_error(cat_str("tl::linalg::", op, ": the QR algorithm failed to converge", batch_note(failed.load(), R > 2),
                               " for the input of shape ", shape_str(sh)));
  return r;
}

}  // namespace detail

/// @brief Eigenvalues and right eigenvectors of a square matrix or batch [*, n, n]
/// (torch.linalg.eig): A V = V diag(w). Eigenvalues come in the order the QR iteration deflates
/// them (as LAPACK's, not sorted); each eigenvector has unit 2-norm and its largest component
/// real. Both are complex for every input dtype. Throws shape_error for non-square input and
/// linalg_error for input with infinities or NaNs (as torch) or if the iteration does not converge.
/// Differentiable (torch 1.13's linalg_eig_backward; a real input gets the real part): a loss that
/// depends on the eigenvectors' phases throws tl::autograd_error from backward; repeated eigenvalues
/// give inf/NaN through V.
template <expression E>
auto eig(E&& A) {
  if constexpr (detail::records_grad<detail::value_of_t<E>>())
    if (tl::detail::must_record(A)) return detail::record_eig(A);
  return detail::eig_impl<true>("eig", std::forward<E>(A));
}

/// @brief The eigenvalues of a square matrix or batch, complex [*, n] (torch.linalg.eigvals);
/// no eigenvectors are formed (except for an input that requires grad: the gradient is
/// V^-H diag(G) V^H). Non-finite input throws linalg_error as in eig.
template <expression E>
auto eigvals(E&& A) {
  if constexpr (detail::records_grad<detail::value_of_t<E>>())
    if (tl::detail::must_record(A)) return detail::record_eigvals(A);
  return detail::eig_impl<false>("eigvals", std::forward<E>(A)).eigenvalues;
}

}  // namespace tl::linalg
