#pragma once
/// @file gemm_kernel.hpp
/// @brief Internal header: register-blocked GEMM micro-kernels over packed panels (xsimd).
///
/// A micro-kernel multiplies an MR x kc panel of A by a kc x NR panel of B, both packed (see
/// gemm_pack.hpp), keeping the MR x NR tile of C in SIMD registers, and then writes
/// C = alpha * tile + beta * C for the mr x nr corner that exists.
///
/// Real types: MR = 6 rows by NR = 2 packets (6 x 16 floats or 6 x 8 doubles with AVX2): 12
/// accumulators, 2 packets of B and one broadcast of A (15 of 16 AVX2 registers). The shape is
/// written in terms of the packet width W, so an AVX-512 build gets 6 x 32 / 6 x 16 tiles.
///
/// Complex types use split panels (the real parts of a panel row, then the imaginary parts) and
/// 6 rows by 1 packet of complex columns: per row one packet of real and one of imaginary parts,
/// updated with four FMAs (re += ar*br - ai*bi, im += ar*bi + ai*br). Conjugation and alpha are
/// applied while packing, so the kernel is the same for every case.
#include <type_traits>

#include "tl/core/simd.hpp"

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"

namespace tl::linalg::detail {

template <class R>
using packet_t = xsimd::batch<R, xsimd::default_arch>;

/// Blocking parameters for one dtype (R is its real type).
template <class T>
struct gemm_traits {
  using R = real_t<T>;
  static constexpr bool cplx = is_complex_v<T>;
  static constexpr int W = static_cast<int>(packet_t<R>::size);
  static constexpr int MR = 6;
  static constexpr int NV = cplx ? 1 : 2;  // packets per tile row
  static constexpr int NR = NV * W;        // columns of C per tile (complex columns when cplx)
  static constexpr int CF = cplx ? 2 : 1;  // reals per element in a packed panel
  // kc * NR * CF reals of B stay in L1 (<= 16 KiB), an mc x kc block of A in L2, a kc x nc
  // block of B in L3.
  static constexpr index_t KC = cplx ? 128 : 256;
  static constexpr index_t MC = sizeof(R) == 4 ? 144 : 72;
  static constexpr index_t NC = (4096 / NR) * NR;
};

/// C(mr x nr, strides rsc/csc) = alpha * tile + beta * C, tile row-major MR x NR; beta == 0 never
/// reads C (so NaNs in uninitialized output do not propagate).
template <class R, int MR, int NR>
TL_INLINE void gemm_store_tile_scalar(const R* tile, index_t mr, index_t nr, R alpha, R beta, R* c, index_t rsc,
                                      index_t csc) {
  for (index_t r = 0; r < mr; ++r)
    for (index_t j = 0; j < nr; ++j) {
      R& dst = c[r * rsc + j * csc];
      const R v = alpha * tile[r * NR + j];
      dst = beta == R(0) ? v : v + beta * dst;
    }
}

/// Real micro-kernel (see the file comment): 6 rows x 2 packets. The accumulators are named
/// variables rather than an array, and alpha and beta are read through a pointer after the loop,
/// so that GCC keeps all twelve accumulators in registers (scalars live across the loop would
/// take two of the sixteen AVX2 registers).
template <class R>
void gemm_ukernel_real(index_t kc, const R* __restrict a, const R* __restrict b, const R* alpha_beta, R* c,
                       index_t rsc, index_t csc, index_t mr, index_t nr) {
  using P = packet_t<R>;
  constexpr int W = static_cast<int>(P::size);
  constexpr int MR = 6, NR = 2 * W;
  // The tile of C is written after the loop: start fetching it now.
  for (int r = 0; r < MR; ++r) {
    __builtin_prefetch(c + r * rsc, 1);
    __builtin_prefetch(c + r * rsc + NR - 1, 1);
  }
  P c00(R(0)), c01(R(0)), c10(R(0)), c11(R(0)), c20(R(0)), c21(R(0));
  P c30(R(0)), c31(R(0)), c40(R(0)), c41(R(0)), c50(R(0)), c51(R(0));
#pragma GCC unroll 4
  for (index_t p = 0; p < kc; ++p) {
    const P b0 = P::load_aligned(b), b1 = P::load_aligned(b + W);
    P av(a[0]);
    c00 = tl::detail::simd_fma(av, b0, c00);
    c01 = tl::detail::simd_fma(av, b1, c01);
    av = P(a[1]);
    c10 = tl::detail::simd_fma(av, b0, c10);
    c11 = tl::detail::simd_fma(av, b1, c11);
    av = P(a[2]);
    c20 = tl::detail::simd_fma(av, b0, c20);
    c21 = tl::detail::simd_fma(av, b1, c21);
    av = P(a[3]);
    c30 = tl::detail::simd_fma(av, b0, c30);
    c31 = tl::detail::simd_fma(av, b1, c31);
    av = P(a[4]);
    c40 = tl::detail::simd_fma(av, b0, c40);
    c41 = tl::detail::simd_fma(av, b1, c41);
    av = P(a[5]);
    c50 = tl::detail::simd_fma(av, b0, c50);
    c51 = tl::detail::simd_fma(av, b1, c51);
    a += MR;
    b += NR;
  }
  const P acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
  const R alpha = alpha_beta[0], beta = alpha_beta[1];
  if (mr == MR && nr == NR && csc == 1) {
    const P va(alpha);
    if (beta == R(0)) {
      for (int r = 0; r < MR; ++r)
        for (int j = 0; j < 2; ++j) (acc[r][j] * va).store_unaligned(c + r * rsc + j * W);
    } else {
      const P vb(beta);
      for (int r = 0; r < MR; ++r)
        for (int j = 0; j < 2; ++j) {
          R* cp = c + r * rsc + j * W;
          tl::detail::simd_fma(acc[r][j], va, P::load_unaligned(cp) * vb).store_unaligned(cp);
        }
    }
    return;
  }
  alignas(64) R tile[MR * NR];
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < 2; ++j) acc[r][j].store_aligned(tile + r * NR + j * W);
  gemm_store_tile_scalar<R, MR, NR>(tile, mr, nr, alpha, beta, c, rsc, csc);
}

/// Complex micro-kernel on split panels; alpha was applied to A while packing, so this writes
/// C = tile + beta * C.
template <class R, int MR, int NV>
void gemm_ukernel_cplx(index_t kc, const R* __restrict a, const R* __restrict b, complex<R> beta, complex<R>* c,
                       index_t rsc, index_t csc, index_t mr, index_t nr) {
  using P = packet_t<R>;
  constexpr int W = static_cast<int>(P::size);
  constexpr int NR = NV * W;
  P re[MR][NV], im[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) re[r][j] = im[r][j] = P(R(0));
#pragma GCC unroll 2
  for (index_t p = 0; p < kc; ++p) {
    P br[NV], bi[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
      br[j] = P::load_aligned(b + j * W);
      bi[j] = P::load_aligned(b + NR + j * W);
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const P ar(a[r]), ai(a[MR + r]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) {
        re[r][j] = tl::detail::simd_fma(ar, br[j], re[r][j]);
        re[r][j] = tl::detail::simd_fnma(ai, bi[j], re[r][j]);
        im[r][j] = tl::detail::simd_fma(ar, bi[j], im[r][j]);
        im[r][j] = tl::detail::simd_fma(ai, br[j], im[r][j]);
      }
    }
    a += 2 * MR;
    b += 2 * NR;
  }
  alignas(64) R tr[MR * NR], ti[MR * NR];
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NV; ++j) {
      re[r][j].store_aligned(tr + r * NR + j * W);
      im[r][j].store_aligned(ti + r * NR + j * W);
    }
  const bool beta0 = beta.re == R(0) && beta.im == R(0);
  const bool beta1 = beta.re == R(1) && beta.im == R(0);
  for (index_t r = 0; r < mr; ++r) {
    complex<R>* crow = c + r * rsc;
    if (beta0) {
      for (index_t j = 0; j < nr; ++j) crow[j * csc] = complex<R>(tr[r * NR + j], ti[r * NR + j]);
    } else if (beta1) {
      for (index_t j = 0; j < nr; ++j) {
        complex<R>& d = crow[j * csc];
        d.re += tr[r * NR + j];
        d.im += ti[r * NR + j];
      }
    } else {
      for (index_t j = 0; j < nr; ++j) {
        complex<R>& d = crow[j * csc];
        d = beta * d + complex<R>(tr[r * NR + j], ti[r * NR + j]);
      }
    }
  }
}

}  // namespace tl::linalg::detail
