#pragma once
/// @file gemm.hpp
/// @brief Internal header: the blocked, packed, multi-threaded CPU GEMM behind tl::matmul and
/// tl::linalg (float, double, complex<float>, complex<double>).
///
/// C = alpha * op(A) * op(B) + beta * C where op conjugates when asked, and every matrix is read
/// or written through a row stride and a column stride (a transposed view is just swapped
/// strides). The loop nest is Goto's / BLIS's:
///
///     for jc in n step NC:                 B block kc x nc, packed once, shared by all threads
///       for pc in k step KC:
///         pack B(pc, jc)                   (parallel over NR panels)
///         for ic in m step MC (parallel):  A block mc x kc packed per task (L2)
///           for jr in nc step NR:          B micro-panel stays in L1
///             for ir in mc step MR:        micro-kernel: MR x NR tile of C in registers
///
/// Tasks are (block of rows) x (chunk of columns) so that 2 threads have work even when m is
/// small. beta is applied on the first k block only. Tiny products skip packing.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/dtype.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/linalg/detail/aligned_buffer.hpp"
#include "tl/linalg/detail/gemm_kernel.hpp"
#include "tl/linalg/detail/gemm_pack.hpp"

namespace tl::linalg::detail {

/// The dtypes the packed GEMM is instantiated for.
template <class T>
inline constexpr bool gemm_type_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                    std::is_same_v<T, complex<float>> || std::is_same_v<T, complex<double>>;

/// A strided matrix operand: element (i, j) is p[i * rs + j * cs], conjugated when `conj`.
template <class T>
struct mat_ref {
  const T* p;
  index_t rs, cs;
  bool conj = false;
};

using tl::detail::conj_if;
using tl::detail::conj_of;

/// Scales C (m x n) by beta; beta == 0 writes zeros without reading C.
template <class T>
void gemm_scale_c(index_t m, index_t n, T beta, T* c, index_t rsc, index_t csc) {
  if (beta == T(1)) return;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      T& d = c[i * rsc + j * csc];
      d = beta == T(0) ? T(0) : beta * d;
    }
}

/// Dot product of two contiguous real vectors in packets (four partial sums), a scalar tail.
template <class T>
T dot_contiguous(const T* x, const T* y, index_t k) {
  using P = packet_t<T>;
  constexpr index_t W = static_cast<index_t>(P::size);
  P s0(T(0)), s1(T(0)), s2(T(0)), s3(T(0));
  index_t p = 0;
  for (; p + 4 * W <= k; p += 4 * W) {
    s0 = tl::detail::simd_fma(P::load_unaligned(x + p), P::load_unaligned(y + p), s0);
    s1 = tl::detail::simd_fma(P::load_unaligned(x + p + W), P::load_unaligned(y + p + W), s1);
    s2 = tl::detail::simd_fma(P::load_unaligned(x + p + 2 * W), P::load_unaligned(y + p + 2 * W), s2);
    s3 = tl::detail::simd_fma(P::load_unaligned(x + p + 3 * W), P::load_unaligned(y + p + 3 * W), s3);
  }
  for (; p + W <= k; p += W) s0 = tl::detail::simd_fma(P::load_unaligned(x + p), P::load_unaligned(y + p), s0);
  T acc = xsimd::hadd((s0 + s1) + (s2 + s3));
  for (; p < k; ++p) acc += x[p] * y[p];
  return acc;
}

/// Small products (and matrix-vector ones): plain loops, no packing.
template <class T>
void gemm_small(index_t m, index_t n, index_t k, T alpha, mat_ref<T> a, mat_ref<T> b, T beta, T* c, index_t rsc,
                index_t csc) {
  if (n == 1 || (m != 1 && a.cs == 1)) {
    // Dot products along the rows of A.
    for (index_t i = 0; i < m; ++i) {
      const T* ar = a.p + i * a.rs;
      for (index_t j = 0; j < n; ++j) {
        const T* bc = b.p + j * b.cs;
        T acc{};
        if constexpr (!is_complex_v<T>) {
          if (a.cs == 1 && b.rs == 1) acc = dot_contiguous(ar, bc, k);
          else
            for (index_t p = 0; p < k; ++p) acc += ar[p * a.cs] * bc[p * b.rs];
        } else {
          for (index_t p = 0; p < k; ++p) acc += conj_if(ar[p * a.cs], a.conj) * conj_if(bc[p * b.rs], b.conj);
        }
        T& d = c[i * rsc + j * csc];
        d = beta == T(0) ? alpha * acc : alpha * acc + beta * d;
      }
    }
    return;
  }
  // Row updates: C(i, :) = beta * C(i, :) + alpha * sum_p A(i, p) B(p, :) (vectorizes over j).
  gemm_scale_c(m, n, beta, c, rsc, csc);
  for (index_t i = 0; i < m; ++i) {
    T* cr = c + i * rsc;
    for (index_t p = 0; p < k; ++p) {
      const T av = alpha * conj_if(a.p[i * a.rs + p * a.cs], a.conj);
      const T* br = b.p + p * b.rs;
      if (b.conj) {
        for (index_t j = 0; j < n; ++j) cr[j * csc] += av * conj_if(br[j * b.cs], true);
      } else if (csc == 1 && b.cs == 1) {
        for (index_t j = 0; j < n; ++j) cr[j] += av * br[j];
      } else {
        for (index_t j = 0; j < n; ++j) cr[j * csc] += av * br[j * b.cs];
      }
    }
  }
}

/// One MR x NR tile of a real product: the NV-packet kernel, or for the last panel of a wide tile
/// (nr columns of NR) the narrowest kernel that covers nr (it reads the panel's rows of NR reals),
/// so that a partial panel does not cost a whole tile's FMAs.
template <class R, int MR, int NV, int NR>
TL_INLINE void gemm_real_tile(index_t nr, index_t kc, const R* a, const R* b, const R* alpha_beta, R* c, index_t rsc,
                              index_t csc, index_t mr) {
  constexpr int W = NR / NV;
  if constexpr (NV > 2) {
    if (nr <= W) return gemm_ukernel_real<R, MR, 1, NR>(kc, a, b, alpha_beta, c, rsc, csc, mr, nr);
    if (nr <= 2 * W) return gemm_ukernel_real<R, MR, 2, NR>(kc, a, b, alpha_beta, c, rsc, csc, mr, nr);
  }
  gemm_ukernel_real<R, MR, NV, NR>(kc, a, b, alpha_beta, c, rsc, csc, mr, nr);
}

/// Packed-buffer owners, one per thread and dtype.
template <class R>
aligned_buffer<R>& gemm_a_buffer() {
  static thread_local aligned_buffer<R> buf;
  return buf;
}
template <class R>
aligned_buffer<R>& gemm_b_buffer() {
  static thread_local aligned_buffer<R> buf;
  return buf;
}

/// The packed GEMM for m, n, k > 0 (see the file comment). `parallel` allows the thread pool.
template <class T>
void gemm_packed(index_t m, index_t n, index_t k, T alpha, mat_ref<T> a, mat_ref<T> b, T beta, T* c, index_t rsc,
                 index_t csc, bool parallel) {
  using tr = gemm_traits<T>;
  using R = typename tr::R;
  constexpr int MR = tr::MR, NR = tr::NR, CF = tr::CF;
  auto& pool = tl::detail::thread_pool::instance();
  const int nt = parallel ? pool.num_threads() : 1;

  const index_t kc_max = std::min<index_t>(tr::KC, k);
  const index_t nc_max = std::min<index_t>(tr::NC, (n + NR - 1) / NR * NR);
  // Row blocks of equal size (a multiple of MR), at most MC rows each.
  const index_t nmb = (m + tr::MC - 1) / tr::MC;
  const index_t mc = ((m + nmb - 1) / nmb + MR - 1) / MR * MR;
  R* bpack = gemm_b_buffer<R>().get(static_cast<std::size_t>(kc_max * nc_max * CF));

  for (index_t jc = 0; jc < n; jc += tr::NC) {
    const index_t nc = std::min<index_t>(tr::NC, n - jc);
    const index_t npanels = (nc + NR - 1) / NR;
    // Columns are split into chunks of whole panels when there are fewer row blocks than threads.
    const index_t nsplit =
        nt > 1 && nmb < 2 * nt ? std::min<index_t>(npanels, (2 * nt + nmb - 1) / nmb) : index_t{1};
    const index_t chunk = (npanels + nsplit - 1) / nsplit;  // panels per chunk
    const index_t ntasks = nmb * ((npanels + chunk - 1) / chunk);
    for (index_t pc = 0; pc < k; pc += tr::KC) {
      const index_t kc = std::min<index_t>(tr::KC, k - pc);
      const T beta_k = pc == 0 ? beta : T(1);
      const T* bsrc = b.p + pc * b.rs + jc * b.cs;
      auto pack_b = [&](index_t p0, index_t p1) {
        gemm_pack_b<NR>(kc, p0 * NR, std::min(nc, p1 * NR), nc, bsrc, b.rs, b.cs, b.conj, bpack);
      };
      if (nt > 1 && npanels > 1) {
        const index_t per = (npanels + nt - 1) / nt;
        pool.parallel_for((npanels + per - 1) / per, [&](index_t t) { pack_b(t * per, std::min(npanels, (t + 1) * per)); });
      } else {
        pack_b(0, npanels);
      }

      auto task = [&](index_t t) {
        const index_t ib = t % nmb, cb = t / nmb;
        const index_t ic = ib * mc;
        if (ic >= m) return;
        const index_t mcur = std::min(mc, m - ic);
        const index_t jp0 = cb * chunk, jp1 = std::min(npanels, jp0 + chunk);
        R* apack = gemm_a_buffer<R>().get(static_cast<std::size_t>(((mcur + MR - 1) / MR * MR) * kc * CF));
        const T alpha_pack = is_complex_v<T> ? alpha : T(1);
        const T alpha_beta[2] = {alpha, beta_k};
        gemm_pack_a<MR>(mcur, kc, a.p + ic * a.rs + pc * a.cs, a.rs, a.cs, a.conj, alpha_pack, apack);
        for (index_t jp = jp0; jp < jp1; ++jp) {
          const index_t jr = jp * NR;
          const index_t nr = std::min<index_t>(NR, nc - jr);
          const R* bp = bpack + jr * kc * CF;
          T* cb0 = c + ic * rsc + (jc + jr) * csc;
          for (index_t ir = 0; ir < mcur; ir += MR) {
            const index_t mr = std::min<index_t>(MR, mcur - ir);
            const R* ap = apack + ir * kc * CF;
            if constexpr (is_complex_v<T>)
              gemm_ukernel_cplx<R, MR, tr::NV>(kc, ap, bp, beta_k, cb0 + ir * rsc, rsc, csc, mr, nr);
            else
              gemm_real_tile<R, MR, tr::NV, NR>(nr, kc, ap, bp, alpha_beta, cb0 + ir * rsc, rsc, csc, mr);
          }
        }
      };
      if (nt > 1 && ntasks > 1) pool.parallel_for(ntasks, task);
      else
        for (index_t t = 0; t < ntasks; ++t) task(t);
    }
  }
}

/// @brief C = alpha * op(A) * op(B) + beta * C for m x k A, k x n B and m x n C given by strides.
/// beta == 0 never reads C. Threads: the tl pool when the product is large enough (and the
/// caller is not itself a pool task).
template <class T>
void gemm(index_t m, index_t n, index_t k, T alpha, mat_ref<T> a, mat_ref<T> b, T beta, T* c, index_t rsc,
          index_t csc) {
  static_assert(gemm_type_v<T>, "tl: the packed GEMM is instantiated for float, double and complex only");
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || alpha == T(0)) {
    gemm_scale_c(m, n, beta, c, rsc, csc);
    return;
  }
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (n == 1 || m == 1 || work <= 4096.0) {
    gemm_small(m, n, k, alpha, a, b, beta, c, rsc, csc);
    return;
  }
  gemm_packed(m, n, k, alpha, a, b, beta, c, rsc, csc, work >= 1.5e5);
}

}  // namespace tl::linalg::detail
