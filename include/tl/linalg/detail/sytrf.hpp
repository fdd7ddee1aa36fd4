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
/// Blocking (LAPACK's sytrf with lasyf / lahef): while more than `sytrf_nb` columns remain, a
/// panel of up to nb - 1 columns is factored with the same pivot choices on columns brought up to
/// date from the panel's pending update W = L D, then the trailing lower triangle gets
/// A22 -= L21 W21ᵀ (W21ᴴ) from the packed GEMM; the last columns run the unblocked sytf2.
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

/// A Bunch-Kaufman pivot choice: the pivot row kp and the block size (1 or 2); `zero` when the
/// column is zero or its diagonal NaN (no pivot: info is set and the step is skipped).
struct bk_choice {
  index_t kp = 0;
  index_t kstep = 1;
  bool zero = false;
};

/// The Bunch-Kaufman choice for column k of the (updated) trailing matrix, LAPACK's tests in
/// LAPACK's order. `col(i)` is the current value of entry (i, k), i >= k; `rowmax_of(imax)` the
/// largest magnitude off the diagonal in row / column imax of the trailing matrix (called only when
/// needed); `diag_abs_at(imax)` the magnitude of (imax, imax).
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

/// A 2 x 2 pivot block [[a, tr(c)], [c, b]] inverted in LAPACK's scaled form (sytf2 / hetf2,
/// which avoids overflow): a row (x0, x1) of the columns below the block becomes the row
/// (l0, l1) = (x0, x1) E⁻¹ of L.
template <class T, bool Herm>
struct block2 {
  using ops = ldl_ops<T, Herm>;
  using R = real_t<T>;
  T d11, d22, d21, s;
  block2(const T& a, const T& b, const T& c) {
    if constexpr (ops::herm) {
      const R d = std::hypot(c.re, c.im);
      const R r11 = b.re / d, r22 = a.re / d;
      d11 = T(r11), d22 = T(r22), d21 = c / d;
      s = T((R(1) / (r11 * r22 - R(1))) / d);
    } else {
      d11 = b / c, d22 = a / c, d21 = T(1);
      s = (T(1) / (d11 * d22 - T(1))) / c;
    }
  }
  TL_INLINE T l0(const T& x0, const T& x1) const { return s * (d11 * x0 - d21 * x1); }
  TL_INLINE T l1(const T& x0, const T& x1) const { return s * (d22 * x1 - ops::tr(d21) * x0); }
};

/// Turns column k below a 1 x 1 pivot into L's column: c[i] *= 1 / c[k] for i > k (the reciprocal
/// of the real diagonal for Hermitian matrices), as LAPACK scales it.
template <class T, bool Herm>
void scale_pivot_column(T* c, index_t k, index_t n) {
  if constexpr (ldl_ops<T, Herm>::herm) {
    const real_t<T> r = real_t<T>(1) / c[k].re;
    for (index_t i = k + 1; i < n; ++i) c[i] *= r;
  } else {
    const T r = T(1) / c[k];
    for (index_t i = k + 1; i < n; ++i) c[i] *= r;
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
        } else {
          const T d11 = T(1) / ck[k];
          for (index_t j = k + 1; j < n; ++j) {
            const T t = -d11 * ck[j];
            T* cj = a.col(j);
            for (index_t i = j; i < n; ++i) cj[i] += ck[i] * t;
          }
        }
        scale_pivot_column<T, Herm>(ck, k, n);
      }
      ipiv[k] = static_cast<std::int32_t>(c.kp + 1);
    } else {
      T* ck1 = a.col(k + 1);
      if (k + 2 < n) {
        const block2<T, Herm> d(ck[k], ck1[k + 1], ck[k + 1]);
        for (index_t j = k + 2; j < n; ++j) {
          const T wk = d.l0(ck[j], ck1[j]), wkp1 = d.l1(ck[j], ck1[j]);
          const T twk = ops::tr(wk), twkp1 = ops::tr(wkp1);
          T* cj = a.col(j);
          for (index_t i = j; i < n; ++i) cj[i] = cj[i] - ck[i] * twk - ck1[i] * twkp1;
          ck[j] = wk;
          ck1[j] = wkp1;
          cj[j] = ops::diag(cj[j]);
        }
      }
      ipiv[k] = ipiv[k + 1] = static_cast<std::int32_t>(-(c.kp + 1));
    }
    k += c.kstep;
  }
}

/// Panel width of the blocked factorization; matrices up to this order use sytf2 alone (as
/// LAPACK's sytrf with its default block size of 64).
inline constexpr index_t sytrf_nb = 64;

/// One panel of the blocked factorization (LAPACK's lasyf / lahef, lower): factors up to nb - 1
/// columns of A(k0:n, k0:n) starting at k0 (nb when the last step is a 2 x 2 block ending on
/// the panel's last column), keeping the pending update in W = L D (n x nb, column-major,
/// leading dimension n), then updates the trailing lower triangle by A22 -= L21 W21ᵀ (W21ᴴ when
/// Herm) with the packed GEMM. Returns the first column not factored.
template <class T, bool Herm>
index_t lasyf(colmajor<T> a, index_t n, index_t k0, index_t nb, std::int32_t* ipiv, index_t& info, T* wbuf) {
  using ops = ldl_ops<T, Herm>;
  using R = real_t<T>;
  const colmajor<T> w{wbuf, n};  // W(i, q): rows i in [k0, n) are used, panel column q in [0, nb)
  const auto wcol = [&](index_t q) { return w.col(q); };
  // The panel's pending update of column q of W from row `from` down, for row / column r of A:
  // W(i, q) -= sum_p L(i, p) tr(W(r, p)) over the panel columns p < kq.
  const auto update_col = [&](index_t q, index_t r, index_t from, index_t kq) {
    T* wq = wcol(q);
    index_t p = 0;
    for (; p + 4 <= kq; p += 4) {  // four columns per pass over W(:, q)
      const T t0 = ops::tr(w(r, p)), t1 = ops::tr(w(r, p + 1)), t2 = ops::tr(w(r, p + 2)), t3 = ops::tr(w(r, p + 3));
      const T *l0 = a.col(k0 + p), *l1 = a.col(k0 + p + 1), *l2 = a.col(k0 + p + 2), *l3 = a.col(k0 + p + 3);
      for (index_t i = from; i < n; ++i) wq[i] -= (l0[i] * t0 + l1[i] * t1) + (l2[i] * t2 + l3[i] * t3);
    }
    for (; p < kq; ++p) {
      const T t = ops::tr(w(r, p));
      const T* lp = a.col(k0 + p);
      for (index_t i = from; i < n; ++i) wq[i] -= lp[i] * t;
    }
  };
  index_t k = k0;
  while (k < n && !(k - k0 >= nb - 1)) {
    const index_t q = k - k0;
    T* wk = wcol(q);
    T* wk1 = wcol(q + 1);
    std::copy(a.col(k) + k, a.col(k) + n, wk + k);
    wk[k] = ops::diag(wk[k]);
    update_col(q, k, k, q);
    wk[k] = ops::diag(wk[k]);
    const bk_choice c = bunch_kaufman<T, Herm>(
        k, n, [&](index_t i) { return wk[i]; },
        [&](index_t imax) {
          // Column imax of the updated matrix into W(:, q + 1): row imax left of the diagonal
          // (transposed), then the column from the diagonal down.
          for (index_t j = k; j < imax; ++j) wk1[j] = ops::tr(a(imax, j));
          std::copy(a.col(imax) + imax, a.col(imax) + n, wk1 + imax);
          wk1[imax] = ops::diag(wk1[imax]);
          update_col(q + 1, imax, k, q);
          wk1[imax] = ops::diag(wk1[imax]);
          R v = abs1(wk1[k + iamax(imax - k, wk1 + k, 1)]);
          if (imax + 1 < n) v = std::max(v, abs1(wk1[imax + 1 + iamax(n - imax - 1, wk1 + imax + 1, 1)]));
          return v;
        },
        [&](index_t imax) { return ops::diag_abs(wk1[imax]); });
    if (c.zero) {
      if (info == 0) info = k + 1;
      std::copy(wk + k, wk + n, a.col(k) + k);
      ipiv[k] = static_cast<std::int32_t>(k + 1);
      ++k;
      continue;
    }
    if (c.kstep == 1 && c.kp != k) std::copy(wk1 + k, wk1 + n, wk + k);  // column imax is the pivot
    const index_t kk = k + c.kstep - 1;
    if (c.kp != kk) {
      // Move the not yet updated column kk to column kp (its row kp part transposed), then
      // interchange rows kk and kp in the panel's columns so far, of A and W.
      const index_t kp = c.kp;
      a(kp, kp) = ops::diag(a(kk, kk));
      for (index_t j = kk + 1; j < kp; ++j) a(kp, j) = ops::tr(a(j, kk));
      std::copy(a.col(kk) + kp + 1, a.col(kk) + n, a.col(kp) + kp + 1);
      for (index_t j = k0; j < kk; ++j) std::swap(a(kk, j), a(kp, j));
      for (index_t p = 0; p <= kk - k0; ++p) std::swap(w(kk, p), w(kp, p));
    }
    T* ak = a.col(k);
    if (c.kstep == 1) {
      std::copy(wk + k, wk + n, ak + k);
      scale_pivot_column<T, Herm>(ak, k, n);
      ipiv[k] = static_cast<std::int32_t>(c.kp + 1);
    } else {
      T* ak1 = a.col(k + 1);
      if (k + 2 < n) {
        const block2<T, Herm> d(wk[k], wk1[k + 1], wk[k + 1]);
        for (index_t j = k + 2; j < n; ++j) {
          ak[j] = d.l0(wk[j], wk1[j]);
          ak1[j] = d.l1(wk[j], wk1[j]);
        }
      }
      ak[k] = wk[k];
      ak[k + 1] = wk[k + 1];
      ak1[k + 1] = wk1[k + 1];
      ipiv[k] = ipiv[k + 1] = static_cast<std::int32_t>(-(c.kp + 1));
    }
    k += c.kstep;
  }
  // A22 -= L21 W21ᵀ (ᴴ) on the lower triangle, nb columns at a time: each diagonal block whole (its
  // strict upper part is scratch) together with the rows below it.
  const index_t kw = k - k0;
  for (index_t j = k; j < n; j += nb) {
    const index_t jb = std::min(nb, n - j);
    gemm<T>(n - j, jb, kw, T(-1), mat_ref<T>{&a(j, k0), 1, a.ld, false}, mat_ref<T>{&w(j, 0), n, 1, ops::herm}, T(1),
            &a(j, j), 1, a.ld);
    if constexpr (ops::herm)
      for (index_t i = j; i < j + jb; ++i) a(i, i) = ops::diag(a(i, i));
  }
  // Undo the panel's later interchanges in its earlier columns (LAPACK's format: column j of L
  // carries only the interchanges of steps up to its own).
  for (index_t j = k - 1; j >= k0;) {
    const bool two = ipiv[j] < 0;
    const index_t jj = j, jp = (two ? -ipiv[j] : ipiv[j]) - 1;
    const index_t first = two ? j - 1 : j;
    if (jp != jj)
      for (index_t c = k0; c < first; ++c) std::swap(a(jp, c), a(jj, c));
    j = first - 1;
  }
  return k;
}

/// Bunch-Kaufman LDLᵀ (LDLᴴ when Herm) of the n x n column-major matrix: panels of sytrf_nb
/// columns (lasyf) while more than a panel remains, then sytf2 (LAPACK's sytrf). Returns info.
template <class T, bool Herm>
index_t sytrf(colmajor<T> a, index_t n, std::int32_t* ipiv) {
  index_t info = 0, k = 0;
  if (n > sytrf_nb) {
    std::vector<T> w(static_cast<std::size_t>(n * sytrf_nb));
    while (k <= n - sytrf_nb - 1) k = lasyf<T, Herm>(a, n, k, sytrf_nb, ipiv, info, w.data());
  }
  sytf2<T, Herm>(a, n, k, ipiv, info);
  return info;
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
