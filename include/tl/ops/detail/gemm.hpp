#pragma once
/// @file gemm.hpp
/// @brief Internal header: the CPU matrix-multiply kernels behind tl::matmul.
///
/// float, double and complex products go to the packed GEMM of tl::linalg (included here);
/// this file keeps the simple kernel used for integer dtypes:
///
/// C[i0:i1, :] = A[i0:i1, :] * B for contiguous row-major A (m x k), B (k x n), C (m x n).
/// Loops are blocked over k (KC) and n (NC) so a KC x NC panel of B stays in L2; the micro-tile
/// keeps 4 rows x 2 SIMD packets of C in registers and streams rows of B (i-k-j order).
/// Integer arithmetic wraps (two's complement) like torch's, without signed-overflow UB.
#include <algorithm>
#include <type_traits>

#include "tl/core/config.hpp"
#include "tl/expr/node.hpp"
#include "tl/linalg/detail/gemm.hpp"

namespace tl::detail {

template <class V>
TL_INLINE V gemm_mac(V c, V a, V b) {
  if constexpr (std::is_integral_v<V>) {
    using U = std::make_unsigned_t<V>;
    return static_cast<V>(static_cast<U>(c) + static_cast<U>(a) * static_cast<U>(b));
  } else {
    return c + a * b;
  }
}

template <class P>
TL_INLINE P gemm_mac_packet(const P& c, const P& a, const P& b) {
  if constexpr (std::is_floating_point_v<typename P::value_type>) return tl::detail::simd_fma(a, b, c);
  else return a * b + c;
}

/// One strip of MR rows of C, columns [jb, je), accumulating k in [kb, ke).
template <int MR, class V>
TL_INLINE void gemm_strip(const V* A, const V* B, V* C, index_t i, index_t kb, index_t ke, index_t jb, index_t je,
                          index_t k, index_t n) {
  using P = batch_t<V>;
  constexpr index_t W = static_cast<index_t>(P::size);
  index_t j = jb;
  for (; j + 2 * W <= je; j += 2 * W) {
    P acc[MR][2];
    for (int r = 0; r < MR; ++r) {
      acc[r][0] = P::load_unaligned(C + (i + r) * n + j);
      acc[r][1] = P::load_unaligned(C + (i + r) * n + j + W);
    }
    for (index_t kk = kb; kk < ke; ++kk) {
      const V* brow = B + kk * n + j;
      const P b0 = P::load_unaligned(brow), b1 = P::load_unaligned(brow + W);
      for (int r = 0; r < MR; ++r) {
        const P a(A[(i + r) * k + kk]);
        acc[r][0] = gemm_mac_packet(acc[r][0], a, b0);
        acc[r][1] = gemm_mac_packet(acc[r][1], a, b1);
      }
    }
    for (int r = 0; r < MR; ++r) {
      acc[r][0].store_unaligned(C + (i + r) * n + j);
      acc[r][1].store_unaligned(C + (i + r) * n + j + W);
    }
  }
  for (; j + W <= je; j += W) {
    P acc[MR];
    for (int r = 0; r < MR; ++r) acc[r] = P::load_unaligned(C + (i + r) * n + j);
    for (index_t kk = kb; kk < ke; ++kk) {
      const P b0 = P::load_unaligned(B + kk * n + j);
      for (int r = 0; r < MR; ++r) acc[r] = gemm_mac_packet(acc[r], P(A[(i + r) * k + kk]), b0);
    }
    for (int r = 0; r < MR; ++r) acc[r].store_unaligned(C + (i + r) * n + j);
  }
  for (; j < je; ++j) {
    V acc[MR];
    for (int r = 0; r < MR; ++r) acc[r] = C[(i + r) * n + j];
    for (index_t kk = kb; kk < ke; ++kk) {
      const V bv = B[kk * n + j];
      for (int r = 0; r < MR; ++r) acc[r] = gemm_mac(acc[r], A[(i + r) * k + kk], bv);
    }
    for (int r = 0; r < MR; ++r) C[(i + r) * n + j] = acc[r];
  }
}

/// Rows [i0, i1) of C = A * B (C's rows are overwritten).
template <class V>
void gemm_rows(const V* A, const V* B, V* C, index_t i0, index_t i1, index_t k, index_t n) {
  std::fill(C + i0 * n, C + i1 * n, V{});
  if constexpr (simd_type_v<V>) {
    constexpr index_t KC = 256;
    constexpr index_t W = static_cast<index_t>(batch_t<V>::size);
    constexpr index_t NC = std::max<index_t>(2 * W, (index_t{1} << 18) / (KC * static_cast<index_t>(sizeof(V))));
    for (index_t kb = 0; kb < k; kb += KC) {
      const index_t ke = std::min(k, kb + KC);
      for (index_t jb = 0; jb < n; jb += NC) {
        const index_t je = std::min(n, jb + NC);
        index_t i = i0;
        for (; i + 4 <= i1; i += 4) gemm_strip<4>(A, B, C, i, kb, ke, jb, je, k, n);
        for (; i < i1; ++i) gemm_strip<1>(A, B, C, i, kb, ke, jb, je, k, n);
      }
    }
  } else {
    for (index_t i = i0; i < i1; ++i) {
      V* c = C + i * n;
      for (index_t kk = 0; kk < k; ++kk) {
        const V a = A[i * k + kk];
        const V* b = B + kk * n;
        for (index_t j = 0; j < n; ++j) c[j] = gemm_mac(c[j], a, b[j]);
      }
    }
  }
}

}  // namespace tl::detail
