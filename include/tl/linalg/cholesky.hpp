#pragma once
/// @file cholesky.hpp
/// @brief tl::linalg::cholesky and cholesky_ex: A = L L^H (or U^H U) for Hermitian
/// positive-definite matrices (torch.linalg.cholesky / cholesky_ex).
///
/// @code
/// auto L = tl::linalg::cholesky(a);                        // reads the lower triangle of a
/// auto U = tl::linalg::cholesky(a, /*upper=*/true);        // reads the upper triangle of a
/// auto [L2, info] = tl::linalg::cholesky_ex(a);            // info: order of the failing minor
/// @endcode
#include <algorithm>
#include <cstdint>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/device.hpp"
#include "tl/linalg/detail/potrf.hpp"
#if defined(__CUDACC__)
#include "tl/linalg/cuda/solver.cuh"
#endif

namespace tl::linalg {

/// @brief cholesky_ex's result: the factor and info (int32, the batch shape; 0, or the order k of
/// the first leading minor that is not positive-definite).
template <class T, std::size_t R>
struct cholesky_ex_result {
  tensor<T, R> L;
  tensor<std::int32_t, R - 2> info;
};

namespace detail {
/// Throws the CPU path's error for the first batch element whose info is positive.
template <class Info>
void throw_not_positive_definite(const char* op, const Info& info, bool batched) {
  for (index_t b = 0; b < info.numel(); ++b)
    if (const std::int32_t k = info.data()[b]; k > 0)
      throw linalg_error(cat_str("tl::linalg::", op, ": the input is not positive-definite", batch_note(b, batched),
                                 ": the leading minor of order ", k, " is not positive-definite"));
}

/// cholesky of a CUDA tensor: cuSOLVER's potrf (potrfBatched for a batch) on a contiguous copy. The
/// launcher factors the copy's upper triangle, C = U^H U: for upper, C is A itself; for lower, the
/// copy is C = A^H (whose upper triangle is A's lower one, conjugated), and L = U^H.
template <bool Throw, class T, std::size_t R, class E>
cholesky_ex_result<T, R> device_cholesky(const char* op, const E& A, bool upper) {
  require_no_device_grad(op, A);
  const tensor<T, R> src(A);
  require_square(op, src.shape());
  // contiguous, conjugate resolved, ours to overwrite
  tensor<T, R> a = upper ? tensor<T, R>(src.clone()) : tensor<T, R>(src.mT().conj().clone());
  const auto& s = a.shape();
  const index_t n = s[R - 1];
  shape_t<R - 2> is{};
  for (std::size_t q = 0; q + 2 < R; ++q) is[q] = s[q];
  tensor<std::int32_t, R - 2> info = tl::zeros<std::int32_t>(is, a.device());
  if (a.numel() == 0) return {a, info};
  device_potrf<T>(op)(batch_count(s), n, a.data(), info.data(), a.device().index());
  cholesky_ex_result<T, R> r{upper ? triangle_of<T, R>(a, true) : triangle_of<T, R>(tensor<T, R>(a.mT().conj()), false),
                             info};
  if constexpr (Throw) throw_not_positive_definite(op, tensor<std::int32_t, R - 2>(info.cpu()), R > 2);
  return r;
}

template <bool Throw, expression E>
auto cholesky_impl(const char* op, E&& A, bool upper) {
  check_matrix_arg<E>();
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if (tl::detail::expression_device(A).is_cuda()) return device_cholesky<Throw, T, R>(op, A, upper);
  if constexpr (records_grad<T>())
    if (tl::detail::must_record(A)) return record_cholesky<Throw>(op, A, upper);
  const auto a = readable(std::forward<E>(A));
  const auto& s = a.shape();
  require_square(op, s);
  const index_t n = s[R - 1];
  shape_t<R - 2> is{};
  for (std::size_t q = 0; q + 2 < R; ++q) is[q] = s[q];
  cholesky_ex_result<T, R> r{tensor<T, R>(s), tensor<std::int32_t, R - 2>(is)};
  const index_t nb = batch_count(s);
  const auto& st = a.strides();
  const bool cj = a.is_conj();
  for_each_matrix(nb, n, [&](index_t b) {
    // Offset of matrix b in a (any strides).
    index_t off = 0, rem = b;
    for (std::size_t q = R - 2; q-- > 0;) {
      off += (rem % s[q]) * st[q];
      rem /= s[q];
    }
    const T* src = a.data() + off;
    const index_t rs = st[R - 2], cs = st[R - 1];
    T* w = r.L.data() + b * n * n;
    // The lower triangle of A, or for upper the lower triangle of A^H (= A's upper triangle);
    // potrf does not read the strict upper triangle.
    for (index_t i = 0; i < n; ++i) {
      T* wr = w + i * n;
      if (!upper && !cj && cs == 1) {
        std::copy_n(src + i * rs, i + 1, wr);
      } else {
        for (index_t j = 0; j <= i; ++j)
          wr[j] = upper ? conj_if(src[j * rs + i * cs], !cj) : conj_if(src[i * rs + j * cs], cj);
      }
    }
    r.info.data()[b] = static_cast<std::int32_t>(potrf<T>(n, mut_ref<T>{w, n, 1}));
    for (index_t i = 0; i < n; ++i)  // the updates use the strict upper triangle as scratch
      std::fill(w + i * n + i + 1, w + (i + 1) * n, T(0));
    if (upper) {  // U = L^H
      for (index_t i = 0; i < n; ++i) {
        for (index_t j = i + 1; j < n; ++j) {
          w[i * n + j] = conj_if(w[j * n + i], true);
          w[j * n + i] = T(0);
        }
        w[i * n + i] = conj_if(w[i * n + i], true);
      }
    }
  });
  if constexpr (Throw) throw_not_positive_definite(op, r.info, R > 2);
  return r;
}
}  // namespace detail

/// @brief Cholesky factor of a Hermitian (symmetric) positive-definite matrix or batch
/// (torch.linalg.cholesky): lower L with A = L L^H reading A's lower triangle, or, with
/// `upper`, U with A = U^H U reading A's upper triangle. The other triangle of the result is 0.
/// Throws tl::linalg_error naming the batch element and the leading minor that is not
/// positive-definite.
template <expression E>
auto cholesky(E&& A, bool upper = false) {
  return detail::cholesky_impl<true>("cholesky", std::forward<E>(A), upper).L;
}

/// @brief As cholesky, but failures are reported in `info` (the order of the first leading minor
/// that is not positive-definite) and not thrown unless `check_errors` (torch.linalg.cholesky_ex).
template <expression E>
auto cholesky_ex(E&& A, bool upper = false, bool check_errors = false) {
  if (check_errors) return detail::cholesky_impl<true>("cholesky_ex", std::forward<E>(A), upper);
  return detail::cholesky_impl<false>("cholesky_ex", std::forward<E>(A), upper);
}

}  // namespace tl::linalg
