#pragma once
/// @file lstsq.hpp
/// @brief tl::linalg::lstsq: least-squares (or minimum-norm) solutions of A X = B
/// (torch.linalg.lstsq, CPU drivers gels, gelsy, gelsd and gelss).
///
/// @code
/// auto [X, residuals, rank, sv] = tl::linalg::lstsq(A, B);                  // gelsy
/// auto r = tl::linalg::lstsq(A, B, std::nullopt, "gels");                   // plain QR
/// auto r2 = tl::linalg::lstsq(A, B, 1e-10, "gelsd");                        // SVD, rcond
/// @endcode
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/geqrf.hpp"
#include "tl/linalg/detail/trsm.hpp"
#include "tl/linalg/lu_solve.hpp"
#include "tl/linalg/qr.hpp"
#include "tl/linalg/svd.hpp"

namespace tl::linalg {

/// @brief lstsq's result: `solution` ([*, n, k], or [*, n] for a vector B), `residuals` (squared
/// residual norms of each column, [*, k]; empty unless m > n, every matrix has full rank and the
/// driver is not gelsy), `rank` (int64, [*]) and `singular_values` ([*, min(m, n)] for gelsd and
/// gelss, empty otherwise).
template <class T, std::size_t RX, std::size_t BR>
struct lstsq_result {
  tensor<T, RX> solution;
  tensor<real_t<T>, BR + 1> residuals;
  tensor<std::int64_t, BR> rank;
  tensor<real_t<T>, BR + 1> singular_values;
};

namespace detail {

/// QR with column pivoting of the m x n column-major a (LAPACK's geqpf, unblocked): A P = Q R with
/// |R(0,0)| >= |R(1,1)| >= ...; perm[j] is the column of A moved to position j.
template <class T>
void geqpf_cm(index_t m, index_t n, T* a, index_t lda, T* tau, index_t* perm) {
  using R = real_t<T>;
  const index_t k = std::min(m, n);
  std::vector<R> vn1(static_cast<std::size_t>(n)), vn2(static_cast<std::size_t>(n));
  for (index_t j = 0; j < n; ++j) {
    perm[j] = j;
    vn1[static_cast<std::size_t>(j)] = vn2[static_cast<std::size_t>(j)] = norm2(a + j * lda, m);
  }
  const R tol = std::sqrt(std::numeric_limits<R>::epsilon());
  for (index_t j = 0; j < k; ++j) {
    const index_t p = static_cast<index_t>(std::max_element(vn1.begin() + j, vn1.end()) - vn1.begin());
    if (p != j) {
      std::swap_ranges(a + p * lda, a + p * lda + m, a + j * lda);
      std::swap(perm[p], perm[j]);
      std::swap(vn1[static_cast<std::size_t>(p)], vn1[static_cast<std::size_t>(j)]);
      std::swap(vn2[static_cast<std::size_t>(p)], vn2[static_cast<std::size_t>(j)]);
    }
    tau[j] = householder_step(m, n, j, a, lda);
    // Downdate the partial column norms; recompute those that lost too much to cancellation.
    for (index_t i = j + 1; i < n; ++i) {
      R& v1 = vn1[static_cast<std::size_t>(i)];
      if (v1 == R(0)) continue;
      const R r = std::sqrt(abs2(a[j + i * lda])) / v1;
      const R t = std::max<R>(R(0), (R(1) - r) * (R(1) + r));
      const R ratio = v1 / vn2[static_cast<std::size_t>(i)];
      if (t * ratio * ratio <= tol) {
        v1 = j + 1 < m ? norm2(a + j + 1 + i * lda, m - j - 1) : R(0);
        vn2[static_cast<std::size_t>(i)] = v1;
      } else {
        v1 *= std::sqrt(t);
      }
    }
  }
}

/// Minimum-norm solution of the r x n full-row-rank upper trapezoidal system R y = c (column-major,
/// leading dimension ldr; c: r x k with leading dimension ldc) into y (n x k, leading dimension n):
/// R^H = Z S (QR of R^H), so R = S^H Z^H and y = Z [S^-H c; 0].
template <class T>
void min_norm_trapezoid(index_t r, index_t n, index_t k, const T* rm, index_t ldr, const T* c, index_t ldc, T* y) {
  std::vector<T> rh(static_cast<std::size_t>(n * r)), tau(static_cast<std::size_t>(r));
  for (index_t j = 0; j < r; ++j)
    for (index_t i = 0; i < n; ++i) rh[static_cast<std::size_t>(i + j * n)] = i < j ? T(0) : conj_if(rm[j + i * ldr], true);
  geqrf_cm(n, r, rh.data(), n, tau.data());
  for (index_t j = 0; j < k; ++j)
    for (index_t i = 0; i < n; ++i) y[i + j * n] = i < r ? c[i + j * ldc] : T(0);
  // S^H z = c: S is r x r upper in rh; S^H is read as S with swapped strides, conjugated.
  trsm_left<T>(false, false, r, k, mat_ref<T>{rh.data(), n, 1, true}, mut_ref<T>{y, 1, n});
  ormqr_cm(false, n, k, r, rh.data(), n, tau.data(), y, n);
}

/// Squared 2-norms of the columns of the rows x k column-major block c (leading dimension ldc).
template <class T>
void column_sq_norms(index_t rows, index_t k, const T* c, index_t ldc, real_t<T>* out) {
  for (index_t j = 0; j < k; ++j) {
    real_t<T> s = 0;
    for (index_t i = 0; i < rows; ++i) s += abs2(c[i + j * ldc]);
    out[j] = s;
  }
}

enum class lstsq_driver { gels, gelsy, gelsd, gelss };

inline lstsq_driver parse_lstsq_driver(std::optional<std::string_view> driver) {
  if (!driver || *driver == "gelsy") return lstsq_driver::gelsy;
  if (*driver == "gels") return lstsq_driver::gels;
  if (*driver == "gelsd") return lstsq_driver::gelsd;
  if (*driver == "gelss") return lstsq_driver::gelss;
  throw value_error(cat_str("tl::linalg::lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss), got '",
                            *driver, "'"));
}

/// One least-squares problem: a (m x n column-major, overwritten), x (max(m, n) x k column-major,
/// leading dimension ldx = max(m, n), holding B on entry and X in its first n rows on exit).
/// Returns the rank; writes the squared residual norms (k) for gels when m > n.
template <class T>
index_t lstsq_qr(lstsq_driver drv, index_t m, index_t n, index_t k, T* a, T* x, index_t ldx, real_t<T> rcond,
                 real_t<T>* resid) {
  const index_t mn = std::min(m, n);
  std::vector<T> tau(static_cast<std::size_t>(std::max<index_t>(mn, 1)));
  if (drv == lstsq_driver::gels) {
    if (m >= n) {
      geqrf_cm(m, n, a, m, tau.data());
      ormqr_cm(true, m, k, n, a, m, tau.data(), x, ldx);
      if (m > n && resid) column_sq_norms(m - n, k, x + n, ldx, resid);
      trsm_left<T>(true, false, n, k, mat_ref<T>{a, 1, m, false}, mut_ref<T>{x, 1, ldx});
    } else {
      // A^H = Q R: A = R^H Q^H; R^H y = B (lower), X = Q [y; 0].
      std::vector<T> ah(static_cast<std::size_t>(n * m));
      for (index_t j = 0; j < m; ++j)
        for (index_t i = 0; i < n; ++i) ah[static_cast<std::size_t>(i + j * n)] = conj_if(a[j + i * m], true);
      geqrf_cm(n, m, ah.data(), n, tau.data());
      trsm_left<T>(false, false, m, k, mat_ref<T>{ah.data(), n, 1, true}, mut_ref<T>{x, 1, ldx});
      for (index_t j = 0; j < k; ++j) std::fill(x + m + j * ldx, x + n + j * ldx, T(0));
      ormqr_cm(false, n, k, m, ah.data(), n, tau.data(), x, ldx);
    }
    return mn;
  }
  // gelsy: A P = Q R, rank r from |R(i, i)| > rcond |R(0, 0)|, then the minimum-norm solution of
  // [R11 R12] y = (Q^H B)(0:r), X = P y.
  std::vector<index_t> perm(static_cast<std::size_t>(n));
  geqpf_cm(m, n, a, m, tau.data(), perm.data());
  index_t r = 0;
  if (mn > 0) {
    const real_t<T> r00 = std::sqrt(abs2(a[0]));
    while (r < mn && std::sqrt(abs2(a[r + r * m])) > rcond * r00) ++r;
  }
  ormqr_cm(true, m, k, mn, a, m, tau.data(), x, ldx);
  std::vector<T> y(static_cast<std::size_t>(n * k));
  min_norm_trapezoid(r, n, k, a, m, x, ldx, y.data());
  for (index_t j = 0; j < k; ++j)
    for (index_t i = 0; i < n; ++i) x[perm[static_cast<std::size_t>(i)] + j * ldx] = y[static_cast<std::size_t>(i + j * n)];
  return r;
}

}  // namespace detail

/// @brief Least-squares solution of A X = B (torch.linalg.lstsq): minimizes ‖A X − B‖_F, and for
/// rank-deficient or wide A (gelsy, gelsd, gelss) returns the solution of minimum norm.
///
/// A: [*, m, n]; B: [*, m, k], or [*, m] (a vector right-hand side) when B's rank is one less than
/// A's (B's rank may not exceed A's, as in torch); batch dims broadcast. `rcond`: singular values
/// (gelsd, gelss) or |R(i, i)| of the pivoted QR (gelsy) below rcond times the largest count as
/// zero; default eps(dtype) * max(m, n); negative means eps. `driver`: "gelsy" (default; QR with
/// column pivoting), "gels" (QR, A assumed of full rank), "gelsd" / "gelss" (SVD; both run
/// tl::linalg::svd). Throws value_error for another driver, shape_error for mismatched shapes.
/// With autograd, the solution has the gradient of pinv(A) B in A and B (torch 1.13's rule).
template <expression EA, expression EB>
auto lstsq(EA&& A, EB&& B, std::optional<double> rcond = std::nullopt,
           std::optional<std::string_view> driver = std::nullopt) {
  detail::check_matrix_arg<EA>();
  detail::check_matrix_arg<EB, 1>();
  using T = detail::value_of_t<EA>;
  using RT = real_t<T>;
  static_assert(std::is_same_v<T, detail::value_of_t<EB>>,
                "tl: lstsq needs A and B of the same dtype (as torch); convert one with tl::astype");
  constexpr std::size_t RA = std::remove_cvref_t<EA>::rank, RB = std::remove_cvref_t<EB>::rank;
  static_assert(RB <= RA && RA - RB <= 1,
                "tl: lstsq needs B of A's rank ([*, m, k]) or one less ([*, m], a vector right-hand side), as torch");
  constexpr bool vec = RB + 1 == RA;
  constexpr std::size_t BA = RA - 2, BB = vec ? RB - 1 : RB - 2, BR = BA > BB ? BA : BB;
  constexpr std::size_t RO = vec ? BR + 1 : BR + 2;
  const auto drv = detail::parse_lstsq_driver(driver);
  const auto a = detail::readable(std::forward<EA>(A));
  const auto b = detail::readable(std::forward<EB>(B));
  const auto& as = a.shape();
  const auto& bs = b.shape();
  const index_t m = as[RA - 2], n = as[RA - 1], mn = std::min(m, n);
  if (bs[vec ? RB - 1 : RB - 2] != m)
    throw shape_error(detail::cat_str("tl::linalg::lstsq: input.size(-2) should match other.size(", vec ? "-1" : "-2",
                                      ") (A of shape ", detail::shape_str(as), ", B of shape ", detail::shape_str(bs),
                                      ")"));
  const index_t k = vec ? 1 : bs[RB - 1];
  const auto bc = detail::broadcast_batches<BA, BB>("lstsq", as, a.strides(), bs, b.strides());
  const index_t nb = bc.count();
  RT rc = rcond ? static_cast<RT>(*rcond) : std::numeric_limits<RT>::epsilon() * static_cast<RT>(std::max(m, n));
  if (rc < 0) rc = std::numeric_limits<RT>::epsilon();

  // B, broadcast, contiguous: nb blocks of m x k (row-major).
  shape_t<RO> bshape = detail::rhs_out_shape<RO>(bc.shape, bs, vec);
  tensor<T, RO> bw(bshape);
  detail::copy_rhs<T, RB>(bw.data(), b, bc, m, k, vec);
  shape_t<RO> xshape = bshape;
  xshape[vec ? RO - 1 : RO - 2] = n;
  shape_t<BR + 1> vs{}, es{};
  for (std::size_t q = 0; q < BR; ++q) vs[q] = bc.shape[q];
  const bool svd_drv = drv == detail::lstsq_driver::gelsd || drv == detail::lstsq_driver::gelss;
  vs[BR] = mn;
  lstsq_result<T, RO, BR> out{tensor<T, RO>(xshape), tensor<RT, BR + 1>(es), tensor<std::int64_t, BR>(bc.shape),
                              tensor<RT, BR + 1>(svd_drv ? vs : es)};
  std::vector<RT> resid(static_cast<std::size_t>(nb * k), RT(0));
  const index_t ld = std::max(m, n);

  if (svd_drv) {
    // A = U S Vh (reduced); X = V S_r^-1 U_r^H B on the singular values above rc * s_max.
    const auto f = svd(a, false);
    // Which of A's matrices output q uses: the broadcast with A's contiguous strides.
    shape_t<RA> cst{};
    for (std::size_t q = RA, acc = 1; q-- > 0;) {
      cst[q] = static_cast<index_t>(acc);
      acc *= static_cast<std::size_t>(std::max<index_t>(as[q], 1));
    }
    const auto bcc = detail::broadcast_batches<BA, BB>("lstsq", as, cst, bs, b.strides());
    detail::for_each_matrix(nb, ld, [&](index_t q) {
      const index_t ia = m * n > 0 ? bcc.a_offset(q) / (m * n) : 0;
      const T* u = f.U.data() + ia * m * mn;
      const RT* sv = f.S.data() + ia * mn;
      const T* vh = f.Vh.data() + ia * mn * n;
      std::copy_n(sv, mn, out.singular_values.data() + q * mn);
      index_t r = 0;
      while (r < mn && sv[r] > rc * sv[0]) ++r;
      out.rank.data()[q] = r;
      const T* bq = bw.data() + q * m * k;
      T* xq = out.solution.data() + q * n * k;
      std::fill_n(xq, n * k, T(0));
      if (r == 0 || k == 0) return;
      std::vector<T> t(static_cast<std::size_t>(r * k));
      detail::gemm<T>(r, k, m, T(1), detail::mat_ref<T>{u, 1, mn, true}, detail::mat_ref<T>{bq, k, 1, false}, T(0),
                      t.data(), k, 1);
      for (index_t i = 0; i < r; ++i)
        for (index_t j = 0; j < k; ++j) t[static_cast<std::size_t>(i * k + j)] /= T(sv[i]);
      detail::gemm<T>(n, k, r, T(1), detail::mat_ref<T>{vh, 1, n, true}, detail::mat_ref<T>{t.data(), k, 1, false},
                      T(0), xq, k, 1);
      if (m > n && r == n) {  // ‖B − A X‖² per column
        std::vector<T> res(bq, bq + m * k);
        const index_t ars = a.strides()[RA - 2], acs = a.strides()[RA - 1];
        detail::gemm<T>(m, k, n, T(-1), detail::mat_ref<T>{a.data() + bc.a_offset(q), ars, acs, a.is_conj()},
                        detail::mat_ref<T>{xq, k, 1, false}, T(1), res.data(), k, 1);
        for (index_t i = 0; i < m; ++i)
          for (index_t j = 0; j < k; ++j) resid[static_cast<std::size_t>(q * k + j)] += detail::abs2(res[static_cast<std::size_t>(i * k + j)]);
      }
    });
  } else {
    detail::for_each_matrix(nb, ld, [&](index_t q) {
      std::vector<T> aw(static_cast<std::size_t>(m * n)), xw(static_cast<std::size_t>(ld * k), T(0));
      const index_t ars = a.strides()[RA - 2], acs = a.strides()[RA - 1];
      const T* src = a.data() + bc.a_offset(q);
      for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i < m; ++i) aw[static_cast<std::size_t>(i + j * m)] = detail::conj_if(src[i * ars + j * acs], a.is_conj());
      const T* bq = bw.data() + q * m * k;
      for (index_t j = 0; j < k; ++j)
        for (index_t i = 0; i < m; ++i) xw[static_cast<std::size_t>(i + j * ld)] = bq[i * k + j];
      out.rank.data()[q] = detail::lstsq_qr(drv, m, n, k, aw.data(), xw.data(), ld, rc, resid.data() + q * k);
      detail::colmajor_to_rowmajor(n, k, xw.data(), ld, out.solution.data() + q * n * k);
    });
  }
  // Residuals: m > n, not gelsy, and every matrix of full rank (torch's rule).
  bool full = m > n && drv != detail::lstsq_driver::gelsy;
  if (svd_drv)
    for (index_t q = 0; q < nb && full; ++q) full = out.rank.data()[q] == n;
  if (full) {
    shape_t<BR + 1> rs = vs;
    rs[BR] = k;
    out.residuals = tensor<RT, BR + 1>(rs);
    std::copy_n(resid.data(), nb * k, out.residuals.data());
  }
  if constexpr (detail::records_grad<T>())
    if (tl::detail::must_record(a) || tl::detail::must_record(b)) detail::record_lstsq(out.solution, a, b);
  return out;
}

}  // namespace tl::linalg
