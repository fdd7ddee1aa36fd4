#pragma once
/// @file gemm_kernel.hpp
/// @brief Internal header: register-blocked GEMM micro-kernels over packed panels (xsimd).
///
/// A micro-kernel multiplies an MR x kc panel of A by a kc x NR panel of B, both packed (see
/// gemm_pack.hpp), keeping the MR x NR tile of C in SIMD registers, and then writes
/// C = alpha * tile + beta * C for the mr x nr corner that exists.
///
/// Real types: MR = 6 rows by NR = 2 packets (6 x 16 floats or 6 x 8 doubles with AVX2): 12
/// accumulators, 2 packets of B and one broadcast of A (15 of 16 AVX2 registers). With AVX-512's
/// 32 registers the tile is 6 rows by 4 packets (6 x 64 floats, 6 x 32 doubles; see
/// gemm_traits). The shape is written in terms of the packet width W.
///
/// Complex types use split panels (the real parts of a panel row, then the imaginary parts) and
/// 6 rows by 1 packet of complex columns: per row one packet of real and one of imaginary parts,
/// updated with four FMAs (re += ar*br - ai*bi, im += ar*bi + ai*br). Conjugation and alpha are
/// applied while packing, so the kernel is the same for every case. A whole tile is interleaved
/// back into complex values in registers (zip) and stored by packets.
#include <type_traits>

#include "tl/core/simd.hpp"
#include "tl/core/simd_shuffle.hpp"

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"

namespace tl::linalg::detail {

template <class R>
using packet_t = xsimd::batch<R, xsimd::default_arch>;

/// Registers per thread for vectors: 32 with AVX-512, else 16 (AVX2, SSE, NEON builds).
#if defined(__AVX512F__)
inline constexpr int gemm_vector_registers = 32;
#else
inline constexpr int gemm_vector_registers = 16;
#endif

/// Blocking parameters for one dtype (R is its real type).
///
/// Real types take 6 rows by 2 packets with 16 vector registers (12 accumulators) and 6 rows by
/// 4 packets with 32 (24 accumulators, 4 packets of B, one broadcast). The wider tile halves the
/// broadcasts of A per FMA: with an A micro-panel streamed from L2 once per B micro-panel, those
/// loads are what the 6 x 2 tile waited on. It also makes the B micro-panel (kc x NR) larger than
/// L1, so it is read from L2 as well; a longer kc (512) then amortizes the C tile's load and
/// store, and the A block (mc x kc, about 500 KiB) still fits half of a 1 MiB L2.
template <class T>
struct gemm_traits {
  using R = real_t<T>;
  static constexpr bool cplx = is_complex_v<T>;
  static constexpr bool wide = !cplx && gemm_vector_registers >= 32;
  static constexpr int W = static_cast<int>(packet_t<R>::size);
  static constexpr int MR = 6;
  static constexpr int NV = cplx ? 1 : wide ? 4 : 2;  // packets per tile row
  static constexpr int NR = NV * W;                   // columns of C per tile (complex columns when cplx)
  static constexpr int CF = cplx ? 2 : 1;             // reals per element in a packed panel
  // 16 registers: kc * NR * CF reals of B stay in L1 (<= 16 KiB with AVX2), an mc x kc block of A
  // in L2, a kc x nc block of B in L3. 32 registers: see above. MC is a multiple of MR.
  static constexpr index_t KC = cplx ? 128 : wide ? 512 : 256;
  static constexpr index_t MC = wide ? (sizeof(R) == 4 ? 252 : 126) : (sizeof(R) == 4 ? 144 : 72);
  static constexpr index_t NC = ((wide ? 2048 : 4096) / NR) * NR;
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

/// Starts fetching the MR rows of NR elements of a C tile (row stride rsc) for writing: a kernel
/// calls it before its k loop, so the tile is in cache when the loop ends.
template <int MR, int NR, class E>
TL_INLINE void gemm_prefetch_tile(E* c, index_t rsc) {
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    __builtin_prefetch(c + r * rsc, 1);
    __builtin_prefetch(c + r * rsc + NR - 1, 1);
  }
}

/// Real micro-kernel (see the file comment): MR rows x NV packets of C, reading rows of BS reals
/// from the B panel (BS = NV * W, or wider when a narrower kernel serves the last, partial panel
/// of a wide one). alpha and beta are read through a pointer after the loop, so that no scalar
/// lives across it (GCC would keep it in a vector register, which AVX2's sixteen cannot spare).
template <class R, int MR, int NV, int BS = NV * static_cast<int>(packet_t<R>::size)>
void gemm_ukernel_real(index_t kc, const R* __restrict a, const R* __restrict b, const R* alpha_beta, R* c,
                       index_t rsc, index_t csc, index_t mr, index_t nr) {
  using P = packet_t<R>;
  constexpr int W = static_cast<int>(P::size);
  constexpr int NR = NV * W;
  static_assert(NV >= 1 && NV <= 4, "tl: the real GEMM kernel unrolls at most 4 packets per tile row");
  static_assert(BS >= NR, "tl: a GEMM kernel reads B panel rows at least as wide as its tile");
  gemm_prefetch_tile<MR, NR>(c, rsc);  // the tile of C is written after the loop
  P acc[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) acc[r][j] = P(R(0));
#pragma GCC unroll 4
  for (index_t p = 0; p < kc; ++p) {
    P bv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) bv[j] = P::load_aligned(b + j * W);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const P av(a[r]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) acc[r][j] = tl::detail::simd_fma(av, bv[j], acc[r][j]);
    }
    a += MR;
    b += BS;
  }
  const R alpha = alpha_beta[0], beta = alpha_beta[1];
  if (mr == MR && nr == NR && csc == 1) {
    const P va(alpha);
    if (beta == R(0)) {
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) (acc[r][j] * va).store_unaligned(c + r * rsc + j * W);
    } else {
      const P vb(beta);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) {
          R* cp = c + r * rsc + j * W;
          tl::detail::simd_fma(acc[r][j], va, P::load_unaligned(cp) * vb).store_unaligned(cp);
        }
    }
    return;
  }
  alignas(64) R tile[MR * NR];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) acc[r][j].store_aligned(tile + r * NR + j * W);
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
  gemm_prefetch_tile<MR, NR>(c, rsc);  // the tile of C is written after the loop
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
  const bool beta0 = beta.re == R(0) && beta.im == R(0);
  const bool beta1 = beta.re == R(1) && beta.im == R(0);
  if (mr == MR && nr == NR && csc == 1 && (beta0 || beta1)) {
    // A whole tile of contiguous rows with beta 0 or 1 (every k block after the first): the real
    // and imaginary packets are interleaved in registers and stored as complex values.
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) {
        P lo, hi;
        tl::detail::zip(re[r][j], im[r][j], lo, hi);
        R* cp = reinterpret_cast<R*>(c + r * rsc + j * W);  // complex<R> is laid out as R[2]
        if (beta1) {
          lo += P::load_unaligned(cp);
          hi += P::load_unaligned(cp + W);
        }
        lo.store_unaligned(cp);
        hi.store_unaligned(cp + W);
      }
    return;
  }
  alignas(64) R tr[MR * NR], ti[MR * NR];
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NV; ++j) {
      re[r][j].store_aligned(tr + r * NR + j * W);
      im[r][j].store_aligned(ti + r * NR + j * W);
    }
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
