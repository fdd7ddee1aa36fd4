#pragma once
/// @file matrix_exp.hpp
/// @brief tl::linalg::matrix_exp: the exponential of square matrices by scaling and squaring with
/// diagonal Padé approximants (Higham, "The scaling and squaring method for the matrix
/// exponential revisited", SIAM J. Matrix Anal. Appl. 26(4), 2005), torch.linalg.matrix_exp.
///
/// @code
/// auto e = tl::linalg::matrix_exp(a);     // a: [*, n, n] -> [*, n, n]
/// @endcode
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "tl/linalg/matrix_norm.hpp"
#include "tl/linalg/solve.hpp"
#include "tl/ops/matmul.hpp"

namespace tl::linalg {

namespace detail {

/// Coefficients b_0..b_m of the [m/m] Padé approximant of exp, for m = 3, 5, 7, 9, 13.
inline const double* pade_coefficients(int m) {
  static constexpr double b3[] = {120., 60., 12., 1.};
  static constexpr double b5[] = {30240., 15120., 3360., 420., 30., 1.};
  static constexpr double b7[] = {17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.};
  static constexpr double b9[] = {17643225600., 8821612800., 2075673600., 302702400., 30270240.,
                                  2162160.,     110880.,      3960.,        90.,        1.};
  static constexpr double b13[] = {64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
                                   129060195264000.,   10559470521600.,    670442572800.,    33522128640.,
                                   1323241920.,        40840800.,          960960.,          16380.,
                                   182.,               1.};
  switch (m) {
    case 3: return b3;
    case 5: return b5;
    case 7: return b7;
    case 9: return b9;
    default: return b13;
  }
}

/// The largest 1-norms for which the [m/m] approximant (no scaling) has a backward error below
/// the unit roundoff (Higham 2005, tables 2.3 and, for single precision, 4.1 of the same analysis).
template <class R>
struct pade_thresholds;
template <>
struct pade_thresholds<double> {
  static constexpr int degrees[] = {3, 5, 7, 9, 13};
  static constexpr double theta[] = {1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1,
                                     2.097847961257068e0, 5.371920351148152e0};
};
template <>
struct pade_thresholds<float> {
  static constexpr int degrees[] = {3, 5, 7};
  static constexpr double theta[] = {4.258730016922831e-1, 1.880152677804762e0, 3.925724783138660e0};
};

/// exp of one n x n matrix (a: contiguous, overwritten with scratch use), written to `out`.
template <class T>
void expm_one(const tensor<T, 2>& a, T* out) {
  using R = real_t<T>;
  using th = pade_thresholds<R>;
  const index_t n = a.shape()[0];
  std::vector<R> sums;
  const R norm1 = induced_norm<true, true>(a.data(), n, n, sums);
  if (!std::isfinite(norm1)) {
    std::fill(out, out + n * n, T(std::numeric_limits<R>::quiet_NaN()));
    return;
  }
  auto mm = [](const tensor<T, 2>& x, const tensor<T, 2>& y) { return tensor<T, 2>(tl::matmul(x, y)); };
  auto add_diag = [n](tensor<T, 2>& x, double c) {
    for (index_t i = 0; i < n; ++i) x.data()[i * n + i] += T(static_cast<R>(c));
  };
  auto c = [](double v) { return T(static_cast<R>(v)); };
  constexpr std::size_t nd = std::size(th::degrees);
  int m = th::degrees[nd - 1];
  for (std::size_t k = 0; k + 1 < nd; ++k)
    if (norm1 <= th::theta[k]) {
      m = th::degrees[k];
      break;
    }
  int s = 0;
  tensor<T, 2> x = a;
  if (m == th::degrees[nd - 1] && norm1 > th::theta[nd - 1]) {
    s = std::max(0, static_cast<int>(std::ceil(std::log2(static_cast<double>(norm1) / th::theta[nd - 1]))));
    x = tensor<T, 2>(a * c(std::ldexp(1.0, -s)));
  }
  const double* b = pade_coefficients(m);
  tensor<T, 2> u, v;
  const tensor<T, 2> x2 = mm(x, x);
  if (m == 13) {
    const tensor<T, 2> x4 = mm(x2, x2), x6 = mm(x4, x2);
    tensor<T, 2> inner_u = x6 * c(b[13]) + x4 * c(b[11]) + x2 * c(b[9]);
    tensor<T, 2> w = mm(x6, inner_u);
    tensor<T, 2> t = w + x6 * c(b[7]) + x4 * c(b[5]) + x2 * c(b[3]);
    add_diag(t, b[1]);
    u = mm(x, t);
    tensor<T, 2> inner_v = x6 * c(b[12]) + x4 * c(b[10]) + x2 * c(b[8]);
    v = tensor<T, 2>(mm(x6, inner_v) + x6 * c(b[6]) + x4 * c(b[4]) + x2 * c(b[2]));
    add_diag(v, b[0]);
  } else {
    // powers x^2, x^4, ... up to x^(m-1); u = x * sum b_{2j+1} x^{2j}, v = sum b_{2j} x^{2j}
    std::vector<tensor<T, 2>> p{x2};
    for (int k = 4; k < m; k += 2) p.push_back(mm(p.back(), x2));
    tensor<T, 2> t = p[0] * c(b[3]);
    tensor<T, 2> w = p[0] * c(b[2]);
    for (std::size_t j = 1; j < p.size(); ++j) {
      t = t + p[j] * c(b[2 * j + 3]);
      w = w + p[j] * c(b[2 * j + 2]);
    }
    add_diag(t, b[1]);
    add_diag(w, b[0]);
    u = mm(x, t);
    v = std::move(w);
  }
  // r = (v - u)^-1 (v + u), then squared s times
  tensor<T, 2> r = solve(tensor<T, 2>(v - u), tensor<T, 2>(v + u));
  for (int k = 0; k < s; ++k) r = mm(r, r);
  std::copy(r.data(), r.data() + n * n, out);
}

}  // namespace detail

/// @brief The matrix exponential of a square matrix or a batch of them (torch.linalg.matrix_exp).
///
/// Double and complex<double>: Padé degree 3, 5, 7, 9 or 13 chosen from the 1-norm, with
/// scaling by 2^-s and s squarings beyond Higham's theta_13 = 5.37; float and complex<float>:
/// degrees 3, 5, 7 with single-precision thresholds. Each matrix of a batch picks its own degree.
/// A matrix with a non-finite entry gives NaN. A non-square input throws shape_error. With
/// autograd, the gradient is the block of exp([[A^H, G], [0, A^H]]) (torch's), twice differentiable.
template <expression E>
auto matrix_exp(E&& A) {
  detail::check_matrix_arg<E>();
  using T = detail::value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(A)) return detail::record_matrix_exp(A);
  const tensor<T, R> a = detail::readable(std::forward<E>(A)).contiguous();
  detail::require_square("matrix_exp", a.shape());
  const auto& s = a.shape();
  const index_t n = s[R - 1], nb = detail::batch_count(s);
  tensor<T, R> out(s);
  if (n == 0 || nb == 0) return out;
  // matrices as one resolved (no lazy conjugate) contiguous [nb, n, n] block
  const tensor<T, 3> a3 = tensor<T, R>(a.resolve_conj()).contiguous().reshape(shape_t<3>{nb, n, n});
  detail::for_each_matrix(nb, n, [&](index_t b) {
    const tensor<T, 2> ab = tensor<T, 2>(a3.select(0, b)).clone();
    detail::expm_one(ab, out.data() + b * n * n);
  });
  return out;
}

}  // namespace tl::linalg
