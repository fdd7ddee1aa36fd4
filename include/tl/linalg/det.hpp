#pragma once
/// @file det.hpp
/// @brief tl::linalg::det and slogdet from the LU factorization (torch.linalg.det / slogdet).
///
/// @code
/// auto d = tl::linalg::det(a);                      // a: [*, n, n] -> [*]
/// auto [sign, logabsdet] = tl::linalg::slogdet(a);  // det = sign * exp(logabsdet)
/// @endcode
#include <cmath>
#include <cstdint>
#include <limits>

#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/device.hpp"
#include "tl/linalg/lu_factor.hpp"

namespace tl::linalg {

/// @brief slogdet's result: det(A) = sign * exp(logabsdet). `sign` has A's dtype (a unit complex
/// number for complex A; 0 for a singular A, with logabsdet = -inf); logabsdet is real.
template <class T, std::size_t RB>
struct slogdet_result {
  tensor<T, RB> sign;
  tensor<real_t<T>, RB> logabsdet;
};

namespace detail {
/// Calls f(b, sign, logabsdet, det) for matrix b < nb of an LU factorization given by its diagonal
/// (diag(b, i) = U[i, i]) and its 1-based pivots (pivots(b, i)): sign includes the pivots' parity
/// and the phases of U's diagonal; det is the signed product of U's diagonal.
template <class T, class Diag, class Piv, class F>
void slogdet_from_lu(index_t nb, index_t n, const Diag& diag, const Piv& pivots, F&& f) {
  using Rl = real_t<T>;
  for (index_t b = 0; b < nb; ++b) {
    T sign(1), prod(1);
    Rl logabs = 0;
    for (index_t i = 0; i < n; ++i) {
      if (pivots(b, i) != i + 1) sign = -sign;
      const T d = diag(b, i);
      prod = prod * d;
      Rl ad;
      if constexpr (is_complex_v<T>) ad = std::hypot(d.re, d.im);
      else ad = std::abs(d);
      if (ad == Rl(0)) {
        sign = T(0);
        prod = T(0);
        logabs = -std::numeric_limits<Rl>::infinity();
        break;
      }
      sign = sign * (d / T(ad));
      logabs += std::log(ad);
    }
    // The parity of the interchanges, for the product.
    index_t swaps = 0;
    for (index_t i = 0; i < n; ++i) swaps += pivots(b, i) != i + 1;
    f(b, sign, logabs, swaps % 2 ? -prod : prod);
  }
}

/// Calls f(b, sign, logabsdet, det) for every matrix after factoring it. A CUDA tensor is factored
/// on the device (cuSOLVER's getrf, see lu_factor_ex); only U's diagonal and the pivots come back
/// to the host, which forms the same products as for a host tensor.
template <expression E, class F>
void for_each_slogdet(const char* op, E&& A, F&& f) {
  check_matrix_arg<E>();
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if (tl::detail::expression_device(A).is_cuda()) {
    require_no_device_grad(op, A);
    const tensor<T, R> a(A);
    require_square(op, a.shape());
    const index_t n = a.shape()[R - 1], nb = batch_count(a.shape());
    const auto f_lu = lu_factor_ex(a);
    const auto diag = tensor<T, R - 1>(tensor<T, R - 1>(f_lu.LU.diagonal(0, -2, -1)).clone()).cpu();
    const auto piv = f_lu.pivots.cpu();
    slogdet_from_lu<T>(
        nb, n, [&](index_t b, index_t i) { return diag.data()[b * n + i]; },
        [&](index_t b, index_t i) { return piv.data()[b * n + i]; }, f);
    return;
  }
  auto lu = working_copy(std::forward<E>(A));
  const auto& s = lu.shape();
  require_square(op, s);
  const index_t n = s[R - 1];
  const auto piv = factor_square(lu).pivots;
  slogdet_from_lu<T>(
      batch_count(s), n, [&](index_t b, index_t i) { return lu.data()[b * n * n + i * n + i]; },
      [&](index_t b, index_t i) { return piv.data()[b * n + i]; }, f);
}
}  // namespace detail

/// @brief Sign (phase) and log of the absolute value of the determinant (torch.linalg.slogdet).
/// A 0 x 0 matrix has sign 1 and logabsdet 0.
template <expression E>
auto slogdet(E&& A) {
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  const tl::device dev = tl::detail::expression_device(A);
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(A) && !dev.is_cuda()) return detail::record_slogdet(A);
  const auto s = A.shape();
  shape_t<R - 2> bs{};
  for (std::size_t q = 0; q + 2 < R; ++q) bs[q] = s[q];
  slogdet_result<T, R - 2> r{tensor<T, R - 2>(bs), tensor<real_t<T>, R - 2>(bs)};
  detail::for_each_slogdet("slogdet", std::forward<E>(A), [&](index_t b, T sign, real_t<T> la, T) {
    r.sign.data()[b] = sign;
    r.logabsdet.data()[b] = la;
  });
  if (dev.is_cuda()) return slogdet_result<T, R - 2>{r.sign.to(dev), r.logabsdet.to(dev)};
  return r;
}

/// @brief Determinant of a square matrix or a batch of them (torch.linalg.det): the product of U's
/// diagonal with the pivots' sign. Singular matrices give 0; a 0 x 0 matrix gives 1.
template <expression E>
auto det(E&& A) {
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  const tl::device dev = tl::detail::expression_device(A);
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(A) && !dev.is_cuda()) return detail::record_det(A);
  const auto s = A.shape();
  shape_t<R - 2> bs{};
  for (std::size_t q = 0; q + 2 < R; ++q) bs[q] = s[q];
  tensor<T, R - 2> d(bs);
  // The product of U's diagonal directly (no exp/log round trip).
  detail::for_each_slogdet("det", std::forward<E>(A), [&](index_t b, T, real_t<T>, T det) { d.data()[b] = det; });
  return dev.is_cuda() ? d.to(dev) : d;
}

}  // namespace tl::linalg
