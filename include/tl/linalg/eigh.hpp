#pragma once
/// @file eigh.hpp
/// @brief tl::linalg::eigh and eigvalsh: eigenvalues (ascending, real) and eigenvectors of
/// Hermitian (real symmetric) matrices (torch.linalg.eigh / eigvalsh).
///
/// @code
/// auto [w, V] = tl::linalg::eigh(a);           // a: [*, n, n] -> w [*, n] (real), V [*, n, n]
/// auto w2 = tl::linalg::eigvalsh(a, "U");      // reads the upper triangle only
/// @endcode
#include <cstdint>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include "tl/linalg/detail/aligned_buffer.hpp"
#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/device.hpp"
#include "tl/linalg/detail/syev.hpp"
#include "tl/linalg/qr.hpp"
#include "tl/reduce/logical.hpp"
#if defined(__CUDACC__)
#include "tl/linalg/cuda/solver.cuh"
#endif

namespace tl::linalg {

/// @brief eigh's result: `eigenvalues` (real dtype, [*, n], ascending) and `eigenvectors`
/// ([*, n, n], orthonormal columns: A V = V diag(eigenvalues)).
template <class T, std::size_t R>
struct eigh_result {
  tensor<real_t<T>, R - 1> eigenvalues;
  tensor<T, R> eigenvectors;
};

namespace detail {
/// eigh / eigvalsh of a CUDA tensor: cuSOLVER's syevd (heevd) on a contiguous copy, one call per
/// matrix. Read column-major, the row-major copy is A^T = conj(A) (A Hermitian), and its row-major
/// `UPLO` triangle is the other column-major triangle; conj(A) has A's eigenvalues and the
/// conjugated eigenvectors W, so V = conj(W), which read row-major is the copy's transpose,
/// conjugated. Matrices with a NaN or an infinity give NaN results, as on the CPU.
template <bool Vectors, class T, std::size_t R, class E>
eigh_result<T, R> device_eigh(const char* op, const E& A, bool upper) {
  using RT = real_t<T>;
  require_no_device_grad(op, A);
  const tensor<T, R> src(A);
  require_square(op, src.shape());
  tensor<T, R> a(src.clone());  // contiguous, conjugate resolved, ours to overwrite
  const auto& s = a.shape();
  const index_t n = s[R - 1], nb = batch_count(s);
  shape_t<R - 1> ws{};
  shape_t<R - 2> is{};
  for (std::size_t q = 0; q + 1 < R; ++q) ws[q] = s[q];
  for (std::size_t q = 0; q + 2 < R; ++q) is[q] = s[q];
  const tl::device dev = a.device();
  tensor<RT, R - 1> w(ws, dev);
  if (a.numel() == 0) return {w, Vectors ? a : tensor<T, R>(shape_t<R>{}, dev)};
  // Per matrix: does its UPLO triangle hold a NaN or an infinity (then its results are NaN, whatever
  // cuSOLVER says)?
  const auto idx = tl::arange<std::int64_t>(std::int64_t{0}, n, std::int64_t{1}, dev);
  const std::int64_t side = upper ? 1 : -1;  // col - row >= 0 in the upper triangle, <= 0 in the lower
  const auto read = (idx.reshape(1, n) - idx.reshape(n, 1)) * side >= std::int64_t{0};
  const tensor<bool, R - 2> bad =
      tl::any_of(!tl::isfinite(a) && read, tl::dims{static_cast<int>(R) - 2, static_cast<int>(R) - 1});
  tensor<std::int32_t, R - 2> info = tl::zeros<std::int32_t>(is, dev);
  // Row-major UPLO "U" is the column-major lower triangle.
  device_syevd<T>(op)(nb, n, Vectors, /*lower=*/upper, a.data(), w.data(), info.data(), dev.index());
  const auto host_info = info.cpu();
  const auto host_bad = bad.cpu();
  bool any_bad = false;
  for (index_t b = 0; b < nb; ++b) {
    const bool nonfinite = host_bad.data()[b];
    any_bad = any_bad || nonfinite;
    if (const std::int32_t k = host_info.data()[b]; k != 0 && !nonfinite) {
      if (k < 0)
        throw tl::cuda_error(cat_str("tl::linalg::", op, ": cuSOLVER's syevd rejected its argument ", -k));
      throw linalg_error(cat_str("tl::linalg::", op, ": the algorithm failed to converge", batch_note(b, R > 2),
                                 " (cuSOLVER's syevd: ", k, " off-diagonal elements did not converge to zero)"));
    }
  }
  eigh_result<T, R> r{w, Vectors ? tensor<T, R>(tensor<T, R>(a.mT().conj()).clone()) : tensor<T, R>(shape_t<R>{}, dev)};
  if (any_bad) {
    const auto nan = std::numeric_limits<RT>::quiet_NaN();
    r.eigenvalues = tensor<RT, R - 1>(tl::where(bad.unsqueeze(-1), nan, r.eigenvalues));
    if constexpr (Vectors)
      r.eigenvectors = tensor<T, R>(tl::where(bad.unsqueeze(-1).unsqueeze(-1), T(nan), r.eigenvectors));
  }
  return r;
}

template <bool Vectors, expression E>
auto eigh_impl(const char* op, E&& A, std::string_view uplo) {
  check_matrix_arg<E>();
  using T = value_of_t<E>;
  using RT = real_t<T>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if (uplo != "L" && uplo != "U")
    throw value_error(cat_str("tl::linalg::", op, ": expected UPLO to be 'L' or 'U', got '", uplo, "'"));
  const bool upper = uplo == "U";
  if (tl::detail::expression_device(A).is_cuda()) return device_eigh<Vectors, T, R>(op, A, upper);
  const auto a = readable(std::forward<E>(A));
  const auto& s = a.shape();
  require_square(op, s);
  const index_t n = s[R - 1];
  shape_t<R - 1> vs{};
  for (std::size_t q = 0; q + 1 < R; ++q) vs[q] = s[q];
  eigh_result<T, R> r{tensor<RT, R - 1>(vs), tensor<T, R>(Vectors ? s : shape_t<R>{})};
  const index_t nb = batch_count(s);
  std::vector<unsigned char> ok(static_cast<std::size_t>(nb), 1);
  const auto& st = a.strides();
  const bool cj = a.is_conj();
  for_each_matrix(nb, n, [&](index_t b) {
    // The lower triangle, column-major: w(i, j) = A(i, j), or conj(A(j, i)) from the upper one.
    const index_t ld = padded_ld<T>(n);
    std::unique_ptr<T[]> big;
    T* w = reusable_scratch<struct eigh_work_tag>(static_cast<std::size_t>(ld * n), big);
    std::fill_n(w, ld * n, T(0));
    const T* src = a.data() + matrix_offset(b, s, st);
    const index_t rs = st[R - 2], cs = st[R - 1];
    for (index_t j = 0; j < n; ++j)
      for (index_t i = j; i < n; ++i)
        w[i + j * ld] = upper ? conj_if(src[j * rs + i * cs], !cj) : conj_if(src[i * rs + j * cs], cj);
    ok[static_cast<std::size_t>(b)] = heev<T>(n, w, ld, r.eigenvalues.data() + b * n,
                                              Vectors ? r.eigenvectors.data() + b * n * n : nullptr);
  });
  for (index_t b = 0; b < nb; ++b)
    if (!ok[static_cast<std::size_t>(b)])
      throw linalg_error(cat_str("tl::linalg::", op, ": the algorithm failed to converge", batch_note(b, R > 2),
                                 " (an eigenvalue needed more than 30 QL iterations)"));
  return r;
}
}  // namespace detail

/// @brief Eigenvalues (ascending) and orthonormal eigenvectors of a Hermitian matrix or batch
/// [*, n, n] (torch.linalg.eigh). Only the `UPLO` triangle ("L" or "U") is read; the diagonal's
/// imaginary part is ignored. Eigenvectors are unique only up to a phase (sign). Input with NaN
/// or infinity gives NaN eigenvalues and eigenvectors. Throws value_error for another UPLO,
/// shape_error for non-square input, linalg_error (naming the batch element) if the QL iteration
/// does not converge. Differentiable (the gradient of the eigenvectors is infinite or NaN for
/// repeated eigenvalues, as in torch); CUDA input does not record.
template <expression E>
auto eigh(E&& A, std::string_view UPLO = "L") {
  if constexpr (detail::records_grad<detail::value_of_t<E>>())
    if (tl::detail::must_record(A) && !tl::detail::expression_device(A).is_cuda()) return detail::record_eigh(A, UPLO);
  return detail::eigh_impl<true>("eigh", std::forward<E>(A), UPLO);
}

/// @brief Eigenvalues (ascending, real dtype) of a Hermitian matrix or batch (torch.linalg.eigvalsh);
/// as eigh without forming eigenvectors.
template <expression E>
auto eigvalsh(E&& A, std::string_view UPLO = "L") {
  if constexpr (detail::records_grad<detail::value_of_t<E>>())
    if (tl::detail::must_record(A) && !tl::detail::expression_device(A).is_cuda())
      return detail::record_eigvalsh(A, UPLO);
  return detail::eigh_impl<false>("eigvalsh", std::forward<E>(A), UPLO).eigenvalues;
}

}  // namespace tl::linalg
