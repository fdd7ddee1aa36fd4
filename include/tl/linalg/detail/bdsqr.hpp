#pragma once
/// @file bdsqr.hpp
/// @brief Internal header: the singular values (and optionally vectors) of a real upper
/// bidiagonal matrix by implicit-shift QR (LAPACK's bdsqr): Golub-Kahan steps with Wilkinson
/// shifts of B^T B, deflation after Demmel-Kahan's relative test, zero diagonal entries chased out
/// with plain rotations, each sweep's rotations applied to the singular vector rows as it ends.
/// With vectors it serves small orders only (up to bdsdc_crossover, and the leaves of the divide
/// and conquer), whose vectors stay in L1.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"

namespace tl::linalg::detail {

/// x = c x + s y, y = c y - s x on len reals.
template <class Rl>
TL_INLINE void rotate_rows(Rl* __restrict x, Rl* __restrict y, index_t len, Rl c, Rl s) {
  for (index_t i = 0; i < len; ++i) {
    const Rl a = x[i], b = y[i];
    x[i] = c * a + s * b;
    y[i] = c * b - s * a;
  }
}

/// One sweep's rotations, in order, in place: rows (first + j, first + j + 1) of x (row stride
/// ld, len reals per row) by (cs[j], sn[j]) for j < k.
template <class Rl>
void apply_sweep(Rl* x, index_t ld, index_t len, index_t first, const Rl* cs, const Rl* sn, index_t k) {
  for (index_t j = 0; j < k; ++j) rotate_rows(x + (first + j) * ld, x + (first + j + 1) * ld, len, cs[j], sn[j]);
}

template <class Rl>
TL_INLINE void givens(Rl y, Rl z, Rl& c, Rl& s, Rl& r) {
  r = std::hypot(y, z);
  if (r == Rl(0)) {
    c = 1;
    s = 0;
  } else {
    c = y / r;
    s = z / r;
  }
}

/// Singular values of the n x n upper bidiagonal (d, e) by implicit-shift QR. Rotations are applied
/// to the rows 0..n-1 of ut (row stride ldu, ulen reals per row; the left singular vectors as rows)
/// and of vh (the right ones), either of which may be null. Returns false when it did not
/// converge. On return d holds the singular values, unsorted and possibly negative (the caller
/// fixes signs and order).
template <class Rl>
bool bidiagonal_qr(index_t n, Rl* d, Rl* e, Rl* ut, index_t ldu, index_t ulen, Rl* vh, index_t ldv, index_t vlen) {
  if (n <= 1) return true;
  const Rl eps = std::numeric_limits<Rl>::epsilon();
  const Rl tiny = std::numeric_limits<Rl>::min();
  Rl anorm = 0;
  for (index_t i = 0; i < n; ++i) anorm = std::max(anorm, std::abs(d[i]));
  for (index_t i = 0; i + 1 < n; ++i) anorm = std::max(anorm, std::abs(e[i]));
  if (anorm == Rl(0)) return true;
  for (index_t i = 0; i < n; ++i) d[i] /= anorm;
  for (index_t i = 0; i + 1 < n; ++i) e[i] /= anorm;
  std::vector<Rl> rot(static_cast<std::size_t>(4 * n));
  Rl *cu = rot.data(), *su = cu + n, *cv = su + n, *sv = cv + n;
  const auto negligible = [&](index_t i) {
    return std::abs(e[i]) <= eps * (std::abs(d[i]) + std::abs(d[i + 1])) || std::abs(e[i]) <= tiny;
  };
  const long long maxit = 8LL * n * n + 64;
  const Rl zero_tol = static_cast<Rl>(n) * tiny;
  long long iter = 0;
  index_t hi = n - 1;
  while (hi > 0) {
    if (negligible(hi - 1)) {
      e[hi - 1] = 0;
      --hi;
      continue;
    }
    index_t lo = hi - 1;
    while (lo > 0 && !negligible(lo - 1)) --lo;
    if (lo > 0) e[lo - 1] = 0;
    // A zero on the diagonal (where the shifted step would stall): rotate its row (or, at the
    // bottom, its column) out of the block. Small non-zero entries are left to the QR steps, so
    // singular values far below eps * |B| keep their accuracy.
    index_t z = -1;
    for (index_t i = lo; i <= hi; ++i)
      if (std::abs(d[i]) <= zero_tol) {
        d[i] = 0;
        z = i;
        break;
      }
    if (z >= 0) {
      Rl c, s, r;
      if (z < hi) {
        Rl f = e[z];
        e[z] = 0;
        for (index_t j = z + 1; j <= hi; ++j) {
          givens(d[j], f, c, s, r);
          d[j] = r;
          if (ut) rotate_rows(ut + j * ldu, ut + z * ldu, ulen, c, s);
          if (j < hi) {
            f = -s * e[j];
            e[j] = c * e[j];
          }
        }
      } else {
        Rl f = e[hi - 1];
        e[hi - 1] = 0;
        for (index_t j = hi - 1; j >= lo; --j) {
          givens(d[j], f, c, s, r);
          d[j] = r;
          if (vh) rotate_rows(vh + j * ldv, vh + hi * ldv, vlen, c, s);
          if (j > lo) {
            f = -s * e[j - 1];
            e[j - 1] = c * e[j - 1];
          }
        }
      }
      continue;
    }
    if (++iter > maxit) return false;
    // Wilkinson shift: the eigenvalue of the trailing 2 x 2 of B^T B nearer its last entry.
    const Rl dm = d[hi - 1], em = hi - 1 > lo ? e[hi - 2] : Rl(0), fm = e[hi - 1], dn = d[hi];
    const Rl t11 = dm * dm + em * em, t12 = dm * fm, t22 = dn * dn + fm * fm;
    const Rl dl = (t11 - t22) / 2;
    const Rl den = dl + std::copysign(std::hypot(dl, t12), dl);
    const Rl mu = den == Rl(0) ? t22 : t22 - t12 * (t12 / den);
    Rl y = d[lo] * d[lo] - mu, zz = d[lo] * e[lo];
    for (index_t k = lo; k < hi; ++k) {
      Rl c, s, r;
      givens(y, zz, c, s, r);
      if (k > lo) e[k - 1] = r;
      Rl a = d[k], b = e[k];
      d[k] = c * a + s * b;
      e[k] = c * b - s * a;
      const Rl bulge = s * d[k + 1];
      d[k + 1] = c * d[k + 1];
      cv[k - lo] = c;
      sv[k - lo] = s;
      givens(d[k], bulge, c, s, r);
      d[k] = r;
      a = e[k];
      b = d[k + 1];
      e[k] = c * a + s * b;
      d[k + 1] = c * b - s * a;
      if (k + 1 < hi) {
        zz = s * e[k + 1];
        e[k + 1] = c * e[k + 1];
      }
      y = e[k];
      cu[k - lo] = c;
      su[k - lo] = s;
    }
    if (vh) apply_sweep(vh, ldv, vlen, lo, cv, sv, hi - lo);
    if (ut) apply_sweep(ut, ldu, ulen, lo, cu, su, hi - lo);
  }
  for (index_t i = 0; i < n; ++i) d[i] *= anorm;
  return true;
}

}  // namespace tl::linalg::detail
