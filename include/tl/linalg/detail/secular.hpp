#pragma once
/// @file secular.hpp
/// @brief Internal header: the parts shared by the divide-and-conquer merges of the symmetric
/// tridiagonal eigensolver (D + rho z z^T) and of the bidiagonal SVD (D^2 + z z^T, the poles'
/// differences taken from D): the roots of the secular equation (LAPACK's laed4 / lasd4), Gu and
/// Eisenstat's recomputed z, and the GEMM update of the vectors.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "tl/core/dtype.hpp"
#include "tl/linalg/detail/aligned_buffer.hpp"
#include "tl/linalg/detail/gemm.hpp"

namespace tl::linalg::detail {

/// One root of the secular equation f(x) = 1 + rho sum_j z_j^2 / (p_j - x) (k poles p ascending
/// and apart, z_j != 0, rho > 0, sum z_j^2 = 1): root i lies in (p_i, p_{i+1}), the last one in
/// (p_{k-1}, p_{k-1} + rho]. The poles enter only through their differences gap(j, o) = p_j - p_o,
/// which the caller computes accurately (for squared singular values, (d_j - d_o)(d_j + d_o)).
/// The root is found as p_o + tau from the nearer pole o (chosen by the sign of f at the midpoint),
/// so that delta_j = p_j - root = gap(j, o) - tau is accurate even next to the pole. Iteration: the
/// zero of a model with the two neighbouring poles matching f and f' (Li's "middle way"), kept
/// inside a bracket that f's sign narrows, with bisection as the fallback. Writes delta (k values)
/// and o, and returns tau.
template <class R, class Gap>
R secular_solve(index_t k, index_t i, Gap&& gap, const R* z, R rho, R* delta, index_t& o) {
  const R eps = std::numeric_limits<R>::epsilon();
  const bool last = i + 1 == k;
  o = i;
  R lo = 0, hi = rho;
  if (!last) {
    const R width = gap(i + 1, i), mid = width / 2;
    R f = 1;
    for (index_t j = 0; j < k; ++j) f += rho * z[j] * z[j] / (gap(j, i) - mid);
    if (f >= 0) {
      hi = mid;
    } else {
      o = i + 1;
      lo = -(width - mid);
      hi = 0;
    }
  }
  R tau = (lo + hi) / 2;
  for (index_t j = 0; j < k; ++j) delta[j] = gap(j, o) - tau;
  for (int iter = 0; iter < 100; ++iter) {
    R psi = 0, dpsi = 0, phi = 0, dphi = 0;
    for (index_t j = 0; j <= i; ++j) {
      const R t = z[j] / delta[j];
      psi += z[j] * t;
      dpsi += t * t;
    }
    for (index_t j = i + 1; j < k; ++j) {
      const R t = z[j] / delta[j];
      phi += z[j] * t;
      dphi += t * t;
    }
    psi *= rho, dpsi *= rho, phi *= rho, dphi *= rho;
    const R w = 1 + psi + phi;
    if (std::abs(w) <= eps * (8 * (1 + phi - psi) + std::abs(tau) * (dpsi + dphi))) break;
    if (w < 0)
      lo = tau;
    else
      hi = tau;
    const R di = delta[i];
    R eta;
    if (!last) {
      const R di1 = delta[i + 1];
      const R c = w - di * dpsi - di1 * dphi;
      const R a = c * (di + di1) + di * di * dpsi + di1 * di1 * dphi, b = di * di1 * w;
      if (c == 0) {
        eta = b / a;
      } else {
        const R disc = std::sqrt(std::max(R(0), a * a - 4 * b * c));
        eta = a <= 0 ? (a - disc) / (2 * c) : 2 * b / (a + disc);
      }
    } else {
      const R c = w - di * dpsi;  // the model c + di^2 f' / (di - eta)
      eta = c > 0 ? di + di * di * dpsi / c : std::numeric_limits<R>::quiet_NaN();
    }
    R next = tau + eta;
    if (!(next > lo && next < hi)) next = lo + (hi - lo) / 2;
    if (next == tau) break;
    eta = next - tau;
    tau = next;
    for (index_t j = 0; j < k; ++j) delta[j] -= eta;
  }
  for (index_t j = 0; j < k; ++j) delta[j] = gap(j, o) - tau;
  return tau;
}

/// secular_solve with the poles given (dl, ascending): returns the root itself.
template <class R>
R secular_root(index_t k, index_t i, const R* dl, const R* z, R rho, R* delta) {
  index_t o = 0;
  const R tau = secular_solve(k, i, [dl](index_t a, index_t b) { return dl[a] - dl[b]; }, z, rho, delta, o);
  return dl[o] + tau;
}

/// The deflation of a merge, walking `order` (indices by ascending d): an index with
/// zscale |z_j| <= tol keeps d_j and its vectors; when the rotation that zeroes the z of the
/// previous kept index p against j's changes the matrix by at most tol (|d_j - d_p| |c s| <= tol),
/// rotate(p, j, c, s) rotates their vectors (x_p = c x_p + s x_j, x_j = c x_j - s x_p), d_p and d_j
/// take the rotated diagonal and p is deflated. kind[j] becomes 1 when the rotation mixes two kinds.
/// Appends to kept (ascending d) and deflated.
template <class R, class Rot>
void dc_deflate(const std::vector<index_t>& order, R* d, R* z, R zscale, R tol, int* kind, Rot&& rotate,
                std::vector<index_t>& kept, std::vector<index_t>& deflated) {
  index_t p = -1;
  for (const index_t j : order) {
    if (zscale * std::abs(z[j]) <= tol) {
      deflated.push_back(j);
      continue;
    }
    if (p >= 0) {
      R s = z[p], c = z[j];
      const R r = std::hypot(c, s), t = d[j] - d[p];
      c /= r;
      s = -s / r;
      if (std::abs(t * c * s) <= tol) {
        z[j] = r;
        z[p] = 0;
        rotate(p, j, c, s);
        if (kind[p] != kind[j]) kind[j] = 1;
        const R dp = d[p] * c * c + d[j] * s * s;
        d[j] = d[p] * s * s + d[j] * c * c;
        d[p] = dp;
        deflated.push_back(p);
        p = j;
        continue;
      }
      kept.push_back(p);
    }
    p = j;
  }
  if (p >= 0) kept.push_back(p);
}

/// Gu and Eisenstat's z for k roots from secular_solve (delta[j + i k] = p_j - root_i): the z for
/// which the computed roots are exact, zhat_j^2 ~ -prod_i delta_j(i) / prod_{i != j} gap(j, i) (up
/// to the factor rho, which the normalized vectors do not see), signed like z. Vectors built from
/// zhat are orthogonal to working precision however close the roots are to the poles.
template <class R, class Gap>
void secular_z(index_t k, Gap&& gap, const R* delta, const R* z, R* zh) {
  for (index_t j = 0; j < k; ++j) {
    R w = delta[j + j * k];
    for (index_t i = 0; i < k; ++i)
      if (i != j) w *= delta[j + i * k] / gap(j, i);
    zh[j] = std::copysign(std::sqrt(std::max(R(0), -w)), z[j]);
  }
}

/// The vector update of a merge: out (N x k, column-major, leading dimension N) = q[:, kept] S for
/// the k x k column-major S (column i: vector i over the kept indices). kind[c] tells where column c
/// of q (leading dimension ldq) is nonzero: 0 rows [0, split) only, 2 rows [split, N) only, 1 both;
/// the kept columns are grouped by kind so that two GEMMs skip the zero blocks.
template <class R>
void dc_vector_update(index_t N, index_t split, index_t k, const index_t* kept, const int* kind, const R* q,
                      index_t ldq, const R* S, R* out) {
  const auto sz = [](index_t v) { return static_cast<std::size_t>(v); };
  std::vector<index_t> grp(sz(k));
  for (index_t i = 0; i < k; ++i) grp[sz(i)] = i;
  std::stable_sort(grp.begin(), grp.end(), [&](index_t a, index_t b) { return kind[kept[a]] < kind[kept[b]]; });
  index_t n0 = 0, n2 = 0;
  for (index_t i = 0; i < k; ++i) {
    n0 += kind[kept[i]] == 0;
    n2 += kind[kept[i]] == 2;
  }
  std::unique_ptr<R[]> big;
  R* sg = reusable_scratch<struct dc_update_tag>(sz(k * k + N * k), big);
  R* qg = sg + k * k;
  for (index_t i = 0; i < k; ++i)
    for (index_t g = 0; g < k; ++g) sg[g + i * k] = S[grp[sz(g)] + i * k];
  for (index_t g = 0; g < k; ++g) std::copy_n(q + kept[grp[sz(g)]] * ldq, N, qg + g * N);
  gemm<R>(split, k, k - n2, R(1), mat_ref<R>{qg, 1, N}, mat_ref<R>{sg, 1, k}, R(0), out, 1, N);
  gemm<R>(N - split, k, k - n0, R(1), mat_ref<R>{qg + split + n0 * N, 1, N}, mat_ref<R>{sg + n0, 1, k}, R(0),
          out + split, 1, N);
}

}  // namespace tl::linalg::detail
