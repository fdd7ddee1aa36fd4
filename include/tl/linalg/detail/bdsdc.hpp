#pragma once
/// @file bdsdc.hpp
/// @brief Internal header: the SVD of a real upper bidiagonal matrix with its singular vectors by
/// divide and conquer (LAPACK's bdsdc / lasd0 - lasd4).
///
/// An n x (n + sqre) upper bidiagonal B (sqre 0 or 1) is split at its middle row nl:
///   B = [B1 0; alpha e_nl^T beta e_1^T; 0 B2],
/// B1 the nl x (nl + 1) block above, B2 the rest below. With the SVDs of the halves,
/// B = diag(U1, 1, U2) M diag(V1, V2)^T where M is diagonal (the halves' singular values, 0 at
/// column nl) except for its row nl, z = (alpha times the last row of V1, beta times the first row
/// of V2); the columns of the two null vectors (V1's last, V2's last when sqre) are first rotated
/// into one. M^T M = D^2 + z z^T, so its singular values are the square roots of the roots of the
/// secular equation 1 + sum_j z_j^2 / (d_j^2 - s^2) = 0, with the poles' differences formed as
/// (d_j - d_o)(d_j + d_o) so that small singular values keep their relative accuracy. After
/// deflation (negligible z_j; two singular values close enough to rotate one z entry away), the
/// right vectors are v_i ~ zhat_j / (d_j^2 - s_i^2) and the left ones u_i ~ (-1 at row nl,
/// d_j zhat_j / (d_j^2 - s_i^2)) with Gu and Eisenstat's zhat, and the halves' vectors are updated
/// by GEMMs. Subproblems of up to bdsdc_leaf rows are solved by implicit QR (bdsqr.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "tl/core/dtype.hpp"
#include "tl/linalg/detail/aligned_buffer.hpp"
#include "tl/linalg/detail/bdsqr.hpp"
#include "tl/linalg/detail/secular.hpp"

namespace tl::linalg::detail {

/// Subproblems up to this many rows are solved by implicit QR.
inline constexpr index_t bdsdc_leaf = 32;

/// A leaf: the n x (n + sqre) bidiagonal (d, e; e has n - 1 + sqre entries) by implicit QR. u
/// (n x n) and v (n + sqre square) are column-major, their columns the singular vectors, and are
/// written whole; d ends ascending. With sqre, column rotations first chase the entry (n - 1, n) up and out of the
/// last column, so that QR runs on a square matrix and V's last column spans the null space.
template <class R>
bool bidiagonal_dc_leaf(index_t n, index_t sqre, R* d, const R* e, R* u, index_t ldu, R* v, index_t ldv) {
  const index_t nc = n + sqre;
  for (index_t j = 0; j < n; ++j) {
    std::fill_n(u + j * ldu, n, R(0));
    u[j + j * ldu] = R(1);
  }
  for (index_t j = 0; j < nc; ++j) {
    std::fill_n(v + j * ldv, nc, R(0));
    v[j + j * ldv] = R(1);
  }
  std::vector<R> ee(static_cast<std::size_t>(n), R(0));
  std::copy_n(e, n - 1, ee.data());
  if (sqre) {
    R f = e[n - 1];
    for (index_t k = n - 1; k >= 0 && f != R(0); --k) {
      R c, s, r;
      givens(d[k], f, c, s, r);
      d[k] = r;
      rotate_rows(v + k * ldv, v + n * ldv, nc, c, s);
      if (k > 0) {
        f = -s * ee[static_cast<std::size_t>(k - 1)];
        ee[static_cast<std::size_t>(k - 1)] *= c;
      }
    }
  }
  if (!bidiagonal_qr<R>(n, d, ee.data(), u, ldu, n, v, ldv, nc)) return false;
  for (index_t i = 0; i < n; ++i)
    if (d[i] < R(0)) {
      d[i] = -d[i];
      for (index_t j = 0; j < nc; ++j) v[j + i * ldv] = -v[j + i * ldv];
    }
  // Ascending (selection sort: at most n - 1 swaps of vector pairs).
  for (index_t i = 0; i + 1 < n; ++i) {
    const index_t j = static_cast<index_t>(std::min_element(d + i, d + n) - d);
    if (j == i) continue;
    std::swap(d[i], d[j]);
    std::swap_ranges(u + i * ldu, u + i * ldu + n, u + j * ldu);
    std::swap_ranges(v + i * ldv, v + i * ldv + nc, v + j * ldv);
  }
  return true;
}

/// Merges the solved halves (LAPACK's lasd1 - lasd3): on entry d[0, nl) and d[nl + 1, n) hold the
/// halves' singular values, u the halves' left vectors in its diagonal blocks [0, nl) and
/// [nl + 1, n), v their right vectors in the blocks [0, nl] and [nl + 1, n + sqre), zeros elsewhere;
/// alpha and beta are B's entries (nl, nl) and (nl, nl + 1). On exit d holds B's singular values
/// (ascending), u and v B's singular vectors (v's column n, when sqre, spanning the null space).
template <class R>
void bidiagonal_dc_merge(index_t n, index_t nl, index_t sqre, R* d, R alpha, R beta, R* u, index_t ldu, R* v,
                         index_t ldv) {
  const auto sz = [](index_t x) { return static_cast<std::size_t>(x); };
  const R eps = std::numeric_limits<R>::epsilon();
  const index_t nc = n + sqre;
  std::vector<R> z(sz(nc));
  for (index_t j = 0; j <= nl; ++j) z[sz(j)] = alpha * v[nl + j * ldv];
  for (index_t j = nl + 1; j < nc; ++j) z[sz(j)] = beta * v[(nl + 1) + j * ldv];
  if (sqre) {
    // One null column: rotate V2's null vector into V1's, whose new z entry takes both.
    R c, s, r;
    givens(z[sz(nl)], z[sz(n)], c, s, r);
    rotate_rows(v + nl * ldv, v + n * ldv, nc, c, s);
    z[sz(nl)] = r;
  }
  u[nl + nl * ldu] = R(1);
  d[nl] = R(0);
  R scale = 0;
  for (index_t j = 0; j < n; ++j) scale = std::max({scale, std::abs(d[j]), std::abs(z[sz(j)])});
  if (scale == R(0)) return;  // B is zero: the halves' vectors stand, all singular values 0
  for (index_t j = 0; j < n; ++j) d[j] /= scale, z[sz(j)] /= scale;
  const R tol = 8 * eps;  // max |d_j|, |z_j| is 1 now
  // Column nl (d = 0) is never deflated; a tiny z there is raised to tol, and singular values below
  // tol / 2 to tol / 2, so that every pole but the first is positive (both perturb B by <= tol).
  if (std::abs(z[sz(nl)]) <= tol) z[sz(nl)] = std::copysign(tol, z[sz(nl)]);
  std::vector<index_t> order;
  order.reserve(sz(n));
  for (index_t j = 0; j < n; ++j)
    if (j != nl) {
      d[j] = std::max(d[j], tol / 2);
      order.push_back(j);
    }
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) { return d[a] < d[b]; });
  // kind: 0 the upper half's rows only ([0, nl] in u and v), 2 the lower half's, 1 both.
  std::vector<int> kind(sz(n));
  for (index_t j = 0; j < n; ++j) kind[sz(j)] = j < nl ? 0 : j == nl ? 1 : 2;
  std::vector<index_t> kept{nl}, deflated;
  dc_deflate(order, d, z.data(), R(1), tol, kind.data(),
             [&](index_t p, index_t j, R c, R s) {
               rotate_rows(u + p * ldu, u + j * ldu, n, c, s);
               rotate_rows(v + p * ldv, v + j * ldv, nc, c, s);
             },
             kept, deflated);
  const index_t k = static_cast<index_t>(kept.size());
  std::vector<R> dk(sz(k)), zk(sz(k)), vals(sz(n));
  // The k x k matrices and the n-column outputs come from per-thread buffers kept between calls.
  std::unique_ptr<R[]> big;
  R* delta = reusable_scratch<struct bdsdc_merge_tag>(sz(2 * k * k + (n + nc) * n), big);
  R* su = delta + k * k;
  R* uo = su + k * k;
  R* vo = uo + n * n;
  for (index_t i = 0; i < k; ++i) dk[sz(i)] = d[kept[sz(i)]], zk[sz(i)] = z[sz(kept[sz(i)])];
  R zz = 0;
  for (index_t i = 0; i < k; ++i) zz += zk[sz(i)] * zk[sz(i)];
  const R zn = std::sqrt(zz);
  for (index_t i = 0; i < k; ++i) zk[sz(i)] /= zn;
  const auto gap = [&](index_t a, index_t b) { return (dk[sz(a)] - dk[sz(b)]) * (dk[sz(a)] + dk[sz(b)]); };
  for (index_t i = 0; i < k; ++i) {
    index_t o = 0;
    const R tau = secular_solve(k, i, gap, zk.data(), zz, delta + i * k, o);
    vals[sz(i)] = std::sqrt(dk[sz(o)] * dk[sz(o)] + tau);
  }
  std::vector<R> zh(sz(k));
  secular_z(k, gap, delta, zk.data(), zh.data());
  // Column i of S_v: zhat_j / (d_j^2 - s_i^2); of S_u: -1 at column nl (kept[0]), d_j times that
  // elsewhere; both normalized.
  for (index_t i = 0; i < k; ++i) {
    R* cv = delta + i * k;
    R* cu = su + i * k;
    R nv = 0, nu = 0;
    for (index_t j = 0; j < k; ++j) {
      cv[j] = zh[sz(j)] / cv[j];
      cu[j] = j == 0 ? R(-1) : dk[sz(j)] * cv[j];
      nv += cv[j] * cv[j];
      nu += cu[j] * cu[j];
    }
    nv = R(1) / std::sqrt(nv);
    nu = R(1) / std::sqrt(nu);
    for (index_t j = 0; j < k; ++j) cv[j] *= nv, cu[j] *= nu;
  }
  // Rows [0, nl] of u and v belong to the upper half (row nl of u only to column nl), the rest to
  // the lower half.
  dc_vector_update(n, nl + 1, k, kept.data(), kind.data(), u, ldu, su, uo);
  dc_vector_update(nc, nl + 1, k, kept.data(), kind.data(), v, ldv, delta, vo);
  for (index_t i = 0; i < n - k; ++i) {
    const index_t j = deflated[sz(i)];
    vals[sz(k + i)] = d[j];
    std::copy_n(u + j * ldu, n, uo + (k + i) * n);
    std::copy_n(v + j * ldv, nc, vo + (k + i) * nc);
  }
  std::vector<index_t> perm(sz(n));
  for (index_t j = 0; j < n; ++j) perm[sz(j)] = j;
  std::stable_sort(perm.begin(), perm.end(), [&](index_t a, index_t b) { return vals[sz(a)] < vals[sz(b)]; });
  for (index_t j = 0; j < n; ++j) {
    const index_t src = perm[sz(j)];
    d[j] = vals[sz(src)] * scale;
    std::copy_n(uo + src * n, n, u + j * ldu);
    std::copy_n(vo + src * nc, nc, v + j * ldv);
  }
}

/// The recursion of bidiagonal_dc on the n x (n + sqre) bidiagonal (d, e).
template <class R>
bool bidiagonal_dc_solve(index_t n, index_t sqre, R* d, const R* e, R* u, index_t ldu, R* v, index_t ldv) {
  if (n <= bdsdc_leaf) return bidiagonal_dc_leaf(n, sqre, d, e, u, ldu, v, ldv);
  const index_t nl = n / 2, nr = n - nl - 1;
  const R alpha = d[nl], beta = e[nl];
  if (!bidiagonal_dc_solve<R>(nl, 1, d, e, u, ldu, v, ldv)) return false;
  if (!bidiagonal_dc_solve<R>(nr, sqre, d + nl + 1, e + nl + 1, u + (nl + 1) * (1 + ldu), ldu, v + (nl + 1) * (1 + ldv),
                              ldv))
    return false;
  bidiagonal_dc_merge(n, nl, sqre, d, alpha, beta, u, ldu, v, ldv);
  return true;
}

/// The SVD B = U diag(d) V^T of the n x n upper bidiagonal B (diagonal d, superdiagonal e, n - 1
/// values) by divide and conquer: on return d holds the singular values in ascending order and the
/// n x n column-major u and v (leading dimensions ldu, ldv) the singular vectors as their columns.
/// Returns false when a QR leaf did not converge.
template <class R>
bool bidiagonal_dc(index_t n, R* d, const R* e, R* u, index_t ldu, R* v, index_t ldv) {
  for (index_t j = 0; j < n; ++j) {
    std::fill_n(u + j * ldu, n, R(0));
    std::fill_n(v + j * ldv, n, R(0));
  }
  if (n <= 0) return true;
  return bidiagonal_dc_solve<R>(n, 0, d, e, u, ldu, v, ldv);
}

}  // namespace tl::linalg::detail
