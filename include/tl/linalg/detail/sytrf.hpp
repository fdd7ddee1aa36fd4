#pragma once
/// @file sytrf.hpp
/// @brief Internal header: the LDLᵀ / LDLᴴ factorization of a symmetric or Hermitian matrix with
/// Bunch-Kaufman partial pivoting (LAPACK's sytrf / hetrf, lower), and the solve with its factors
/// (sytrs / hetrs).
///
/// The matrix is held column-major (column j of the lower triangle contiguous), so that the
/// rank-one and rank-two updates of the trailing matrix run down contiguous columns. Step k
/// chooses a 1 x 1 or 2 x 2 pivot block as LAPACK's sytf2 / hetf2 do (alpha = (1 + sqrt(17)) / 8,
/// magnitudes |re| + |im| for complex entries, the first largest entry on ties), interchanges rows
/// and columns of the trailing matrix only (so A = P1 L1 P2 L2 ... D ... L2ᵀ P2ᵀ L1ᵀ P1ᵀ, LAPACK's
/// format), and records 1-based pivots: ipiv[k] = p (rows k and p - 1 swapped, 1 x 1 block) or
/// ipiv[k] = ipiv[k + 1] = -p (2 x 2 block in rows k, k + 1; rows k + 1 and p - 1 swapped). A zero
/// (or NaN) pivot column is recorded in `info` (1-based, the first one) and skipped; the
/// factorization continues.
///
/// The algorithm is unblocked (level 2: one rank-one or rank-two update of the trailing lower
/// triangle per step, down contiguous columns).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"
#include "tl/linalg/detail/gemm.hpp"
#include "tl/linalg/detail/getrf.hpp"

namespace tl::linalg::detail {

/// A column-major n x n matrix (leading dimension ld): element (i, j) is p[i + j * ld].
template <class T>
struct colmajor {
  T* p;
  index_t ld;
  TL_INLINE T& operator()(index_t i, index_t j) const { return p[i + j * ld]; }
  TL_INLINE T* col(index_t j) const { return p + j * ld; }
};

/// Helpers that differ between the symmetric (transpose) and Hermitian (conjugate transpose)
/// factorizations. Real matrices use the symmetric ones.
template <class T, bool Herm>
struct ldl_ops {
  using R = real_t<T>;
  static constexpr bool herm = Herm && is_complex_v<T>;
  /// The transposed partner of an entry: conj for Hermitian, itself for symmetric.
  static TL_INLINE T tr(const T& v) { return conj_if(v, herm); }
  /// The magnitude that pivoting compares for a diagonal entry.
  static TL_INLINE R diag_abs(const T& v) {
    if constexpr (herm) return std::abs(v.re);
    else return abs1(v);
  }
  /// A diagonal entry as stored (real for Hermitian).
  static TL_INLINE T diag(const T& v) {
    if constexpr (herm) return T(v.re);
    else return v;
  }
};

/// Index (relative to p) of the first entry of largest |re| + |im| among p[0], p[s], ...,
/// p[(m - 1) s] (LAPACK's i?amax: a NaN never wins unless it comes first).
template <class T>
index_t iamax(index_t m, const T* p, index_t s) {
  index_t best = 0;
  real_t<T> v = abs1(p[0]);
  for (index_t i = 1; i < m; ++i) {
    const real_t<T> w = abs1(p[i * s]);
    if (w > v) v = w, best = i;
  }
  return best;
}

/// The Bunch-Kaufman choice for column k of the (updated) trailing matrix: the pivot row kp and
/// the block size (1 or 2); `zero` when the column is zero or its diagonal NaN. `col(i)` is the
/// current value of entry (i, k), i >= k; `rowmax_of(imax)` the largest magnitude off the diagonal
/// in row / column imax of the trailing matrix; `diag_imax` the magnitude of (imax, imax).
struct bk_choice {
  index_t kp = 0;
  index_t kstep = 1;
  bool zero = false;
};

template <class T, bool Herm, class Col, class RowMax, class DiagAt>
bk_choice bunch_kaufman(index_t k, index_t n, Col&& col, RowMax&& rowmax_of, DiagAt&& diag_abs_at) {
  using R = real_t<T>;
  using ops = ldl_ops<T, Herm>;
  const R alpha = (R(1) + std::sqrt(R(17))) / R(8);
  bk_choice c;
  c.kp = k;
  const R absakk = ops::diag_abs(col(k));
  index_t imax = k;
  R colmax = 0;
  if (k + 1 < n) {
    R v = abs1(col(k + 1));
    imax = k + 1;
    for (index_t i = k + 2; i < n; ++i) {
      const R w = abs1(col(i));
      if (w > v) v = w, imax = i;
    }
    colmax = v;
  }
  if (std::max(absakk, colmax) == R(0) || std::isnan(absakk)) {
    c.zero = true;
    return c;
  }
  if (absakk >= alpha * colmax) return c;
  const R rowmax = rowmax_of(imax);
  if (absakk >= alpha * colmax * (colmax / rowmax)) return c;
  c.kp = imax;
  if (!(diag_abs_at(imax) >= alpha * rowmax)) c.kstep = 2;
  return c;
}

/// Interchanges rows and columns kk and kp (kk < kp) of the trailing matrix A(k:n, k:n) stored in
/// the lower triangle (for a 2 x 2 block, kk = k + 1 and entry (kk, k) moves with the rows).
template <class T, bool Herm>
void ldl_swap(colmajor<T> a, index_t n, index_t k, index_t kk, index_t kp, index_t kstep) {
  using ops = ldl_ops<T, Herm>;
  T* ck = a.col(kk);
  T* cp = a.col(kp);
  for (index_t i = kp + 1; i < n; ++i) std::swap(ck[i], cp[i]);
  for (index_t j = kk + 1; j < kp; ++j) {
    const T t = ops::tr(ck[j]);
    ck[j] = ops::tr(a(kp, j));
    a(kp, j) = t;
  }
  ck[kp] = ops::tr(ck[kp]);
  const T t = ops::diag(ck[kk]);
  ck[kk] = ops::diag(cp[kp]);
  cp[kp] = t;
  if (kstep == 2) {
    a(k, k) = ops::diag(a(k, k));
    std::swap(a(k + 1, k), a(kp, k));
  }
}

/// Unblocked Bunch-Kaufman LDLᵀ (LDLᴴ when Herm) of the trailing matrix A(k0:n, k0:n): pivots of
/// steps k0... into ipiv (1-based, absolute rows); info set to the first zero column (1-based).
template <class T, bool Herm>
void sytf2(colmajor<T> a, index_t n, index_t k0, std::int32_t* ipiv, index_t& info) {
  using ops = ldl_ops<T, Herm>;
  using R = real_t<T>;
  index_t k = k0;
  while (k < n) {
    const T* ckc = a.col(k);
    const bk_choice c = bunch_kaufman<T, Herm>(
        k, n, [&](index_t i) { return ckc[i]; },
        [&](index_t imax) {
          // Row imax left of the diagonal, then column imax below it (LAPACK's two i?amax calls).
          R v = abs1(a(imax, k + iamax(imax - k, &a(imax, k), a.ld)));
          if (imax + 1 < n) {
            const T* cm = a.col(imax) + imax + 1;
            v = std::max(v, abs1(cm[iamax(n - imax - 1, cm, 1)]));
          }
          return v;
        },
        [&](index_t imax) { return ops::diag_abs(a(imax, imax)); });
    if (c.zero) {
      if (info == 0) info = k + 1;
      a(k, k) = ops::diag(a(k, k));
      ipiv[k] = static_cast<std::int32_t>(k + 1);
      ++k;
      continue;
    }
    const index_t kk = k + c.kstep - 1;
    if (c.kp != kk) {
      ldl_swap<T, Herm>(a, n, k, kk, c.kp, c.kstep);
    } else {
      a(k, k) = ops::diag(a(k, k));
      if (c.kstep == 2) a(k + 1, k + 1) = ops::diag(a(k + 1, k + 1));
    }
    T* ck = a.col(k);
    if (c.kstep == 1) {
      if (k + 1 < n) {
        if constexpr (ops::herm) {
          const R r1 = R(1) / ck[k].re;
          for (index_t j = k + 1; j < n; ++j) {
            const T t = conj(ck[j]) * (-r1);
            T* cj = a.col(j);
            cj[j] = T(cj[j].re + (ck[j] * t).re);
            for (index_t i = j + 1; i < n; ++i) cj[i] += ck[i] * t;
          }
          for (index_t i = k + 1; i < n; ++i) ck[i] *= r1;
        } else {
          const T d11 = T(1) / ck[k];
          for (index_t j = k + 1; j < n; ++j) {
            const T t = -d11 * ck[j];
            T* cj = a.col(j);
            for (index_t i = j; i < n; ++i) cj[i] += ck[i] * t;
          }
          for (index_t i = k + 1; i < n; ++i) ck[i] *= d11;
        }
      }
      ipiv[k] = static_cast<std::int32_t>(c.kp + 1);
    } else {
      T* ck1 = a.col(k + 1);
      if (k + 2 < n) {
        if constexpr (ops::herm) {
          R d = std::hypot(ck[k + 1].re, ck[k + 1].im);
          const R d11 = ck1[k + 1].re / d, d22 = ck[k].re / d;
          const R tt = R(1) / (d11 * d22 - R(1));
          const T d21 = ck[k + 1] / d;
          d = tt / d;
          for (index_t j = k + 2; j < n; ++j) {
            const T wk = (d11 * ck[j] - d21 * ck1[j]) * d;
            const T wkp1 = (d22 * ck1[j] - conj(d21) * ck[j]) * d;
            const T cwk = conj(wk), cwkp1 = conj(wkp1);
            T* cj = a.col(j);
            for (index_t i = j; i < n; ++i) cj[i] = cj[i] - ck[i] * cwk - ck1[i] * cwkp1;
            ck[j] = wk;
            ck1[j] = wkp1;
            cj[j] = T(cj[j].re);
          }
        } else {
          T d21 = ck[k + 1];
          const T d11 = ck1[k + 1] / d21, d22 = ck[k] / d21;
          const T t = T(1) / (d11 * d22 - T(1));
          d21 = t / d21;
          for (index_t j = k + 2; j < n; ++j) {
            const T wk = d21 * (d11 * ck[j] - ck1[j]);
            const T wkp1 = d21 * (d22 * ck1[j] - ck[j]);
            T* cj = a.col(j);
            for (index_t i = j; i < n; ++i) cj[i] = cj[i] - ck[i] * wk - ck1[i] * wkp1;
            ck[j] = wk;
            ck1[j] = wkp1;
          }
        }
      }
      ipiv[k] = ipiv[k + 1] = static_cast<std::int32_t>(-(c.kp + 1));
    }
    k += c.kstep;
  }
}

/// Solves A X = B in place for A = L D Lᵀ (L D Lᴴ when Herm) given by sytrf's lower factors `ld`
/// (element (i, j) = ld[i * rs + j * cs], conjugated when `cj`) and 0-based pivot data `ipiv`
/// (LAPACK's encoding, 1-based values): X is n x nrhs, row-major with row stride ldx.
template <class T, bool Herm>
void sytrs(index_t n, index_t nrhs, const T* ld, index_t rs, index_t cs, bool cj, const std::int32_t* ipiv, T* x,
           index_t ldx) {
  using ops = ldl_ops<T, Herm>;
  const auto L = [&](index_t i, index_t j) { return conj_if(ld[i * rs + j * cs], cj); };
  const auto row = [&](index_t i) { return x + i * ldx; };
  const auto swap_rows = [&](index_t i, index_t p) {
    if (i != p) std::swap_ranges(row(i), row(i) + nrhs, row(p));
  };
  const auto axpy = [&](T* dst, const T* src, T s) {
    for (index_t j = 0; j < nrhs; ++j) dst[j] -= s * src[j];
  };
  // L D Y = P B, column by column of L (LAPACK's forward sweep).
  for (index_t k = 0; k < n;) {
    if (ipiv[k] > 0) {
      swap_rows(k, ipiv[k] - 1);
      const T* xk = row(k);
      for (index_t i = k + 1; i < n; ++i) axpy(row(i), xk, L(i, k));
      const T s = T(1) / ops::diag(L(k, k));
      T* xm = row(k);
      for (index_t j = 0; j < nrhs; ++j) xm[j] *= s;
      ++k;
    } else {
      swap_rows(k + 1, -ipiv[k] - 1);
      const T* x0 = row(k);
      const T* x1 = row(k + 1);
      for (index_t i = k + 2; i < n; ++i) {
        axpy(row(i), x0, L(i, k));
        axpy(row(i), x1, L(i, k + 1));
      }
      // The 2 x 2 block [[a, tr(c)], [c, b]]: divide its rows by tr(c) and c, then solve
      // [[a / tr(c), 1], [1, b / c]].
      const T c = L(k + 1, k), ct = ops::tr(c);
      const T akm1 = ops::diag(L(k, k)) / ct, ak = ops::diag(L(k + 1, k + 1)) / c;
      const T denom = akm1 * ak - T(1);
      T* y0 = row(k);
      T* y1 = row(k + 1);
      for (index_t j = 0; j < nrhs; ++j) {
        const T bkm1 = y0[j] / ct, bk = y1[j] / c;
        y0[j] = (ak * bkm1 - bk) / denom;
        y1[j] = (akm1 * bk - bkm1) / denom;
      }
      k += 2;
    }
  }
  // Lᵀ X = Y (Lᴴ when Herm), last block first; the interchanges undone in reverse.
  for (index_t k = n - 1; k >= 0;) {
    const bool two = ipiv[k] < 0;
    const index_t k1 = two ? k - 1 : k;  // first column of the block
    for (index_t q = k1; q <= k; ++q) {
      T* xq = row(q);
      for (index_t i = k + 1; i < n; ++i) axpy(xq, row(i), ops::tr(L(i, q)));
    }
    swap_rows(k, (two ? -ipiv[k] : ipiv[k]) - 1);
    k = k1 - 1;
  }
}

}  // namespace tl::linalg::detail
