#pragma once
/// @file gemm_pack.hpp
/// @brief Internal header: packing of A and B blocks into the panel layout the micro-kernels read.
///
/// A block (mc x kc) becomes ceil(mc / MR) panels; panel q holds, for each p < kc, the MR values
/// A(q*MR + r, p) (r < MR) next to each other, zero-padded past mc. A B block (kc x nc) becomes
/// ceil(nc / NR) panels holding, for each p, the NR values B(p, q*NR + j). Complex panels store
/// the MR (NR) real parts and then the MR (NR) imaginary parts for each p. Source matrices are
/// read through arbitrary row and column strides, so transposed and sliced views need no copy;
/// the conjugate flag (and, for complex A, alpha) are applied here.
#include <algorithm>

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"

namespace tl::linalg::detail {

/// Packs rows [0, mc) and columns [0, kc) of `a` (strides rs, cs) into MR-row panels at `dst`.
template <int MR, class T>
void gemm_pack_a(index_t mc, index_t kc, const T* a, index_t rs, index_t cs, bool conj, T alpha, real_t<T>* dst) {
  using R = real_t<T>;
  for (index_t i0 = 0; i0 < mc; i0 += MR) {
    const index_t mr = std::min<index_t>(MR, mc - i0);
    const T* src = a + i0 * rs;
    if constexpr (!is_complex_v<T>) {
      (void)conj;
      (void)alpha;
      R* d = dst + i0 * kc;
      if (mr == MR && rs == 1) {
        for (index_t p = 0; p < kc; ++p)
          for (int r = 0; r < MR; ++r) d[p * MR + r] = src[p * cs + r];
      } else if (mr == MR) {
        for (int r = 0; r < MR; ++r) {
          const T* row = src + r * rs;
          for (index_t p = 0; p < kc; ++p) d[p * MR + r] = row[p * cs];
        }
      } else {
        for (index_t p = 0; p < kc; ++p)
          for (int r = 0; r < MR; ++r) d[p * MR + r] = r < mr ? src[r * rs + p * cs] : R(0);
      }
    } else {
      R* d = dst + 2 * i0 * kc;
      const bool one = alpha.re == R(1) && alpha.im == R(0);
      const R s = conj ? R(-1) : R(1);
      for (index_t p = 0; p < kc; ++p) {
        R* dp = d + 2 * p * MR;
        for (int r = 0; r < MR; ++r) {
          T v = r < mr ? src[r * rs + p * cs] : T{};
          v.im *= s;
          if (!one) v = alpha * v;
          dp[r] = v.re;
          dp[MR + r] = v.im;
        }
      }
    }
  }
}

/// Packs rows [0, kc) and columns [j0, j1) of `b` (strides rs, cs) into NR-column panels; panel
/// (j0 / NR) starts at dst + j0 * kc * CF. j0 is a multiple of NR.
template <int NR, class T>
void gemm_pack_b(index_t kc, index_t j0, index_t j1, index_t ncols, const T* b, index_t rs, index_t cs, bool conj,
                 real_t<T>* dst) {
  using R = real_t<T>;
  for (index_t jb = j0; jb < j1; jb += NR) {
    const index_t nr = std::min<index_t>(NR, ncols - jb);
    const T* src = b + jb * cs;
    if constexpr (!is_complex_v<T>) {
      (void)conj;
      R* d = dst + jb * kc;
      if (nr == NR && cs == 1) {
        for (index_t p = 0; p < kc; ++p) std::copy_n(src + p * rs, NR, d + p * NR);
      } else if (nr == NR) {
        for (int j = 0; j < NR; ++j) {
          const T* col = src + j * cs;
          for (index_t p = 0; p < kc; ++p) d[p * NR + j] = col[p * rs];
        }
      } else {
        for (index_t p = 0; p < kc; ++p)
          for (int j = 0; j < NR; ++j) d[p * NR + j] = j < nr ? src[p * rs + j * cs] : R(0);
      }
    } else {
      R* d = dst + 2 * jb * kc;
      const R s = conj ? R(-1) : R(1);
      for (index_t p = 0; p < kc; ++p) {
        R* dp = d + 2 * p * NR;
        for (int j = 0; j < NR; ++j) {
          const T v = j < nr ? src[p * rs + j * cs] : T{};
          dp[j] = v.re;
          dp[NR + j] = s * v.im;
        }
      }
    }
  }
}

}  // namespace tl::linalg::detail
