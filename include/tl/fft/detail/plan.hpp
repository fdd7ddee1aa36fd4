#pragma once
/// @file plan.hpp
/// @brief Internal header: immutable FFT plans. A complex plan of length n is a list of
/// Stockham stages (radices 8, 4, 2, 3, 5, 7, 11, 13) with their twiddles, or, when n has a prime
/// factor above 13, Bluestein's chirp-z algorithm over a smooth length. A real plan of even
/// length n runs a complex plan of length n / 2 and a post-processing pass; odd n falls back to a
/// complex plan of length n.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "tl/core/config.hpp"
#include "tl/core/error.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/fft/detail/kernels.hpp"

namespace tl::fft::detail {

/// exp(-2 pi i k / n) computed in long double (k reduced mod n), as a (cos, sin) pair of T.
template <class T>
std::pair<T, T> twiddle(index_t k, index_t n) {
  k %= n;
  if (k < 0) k += n;
  // Reduce to the first quadrant by exact integer symmetry so the argument stays small.
  const long double pi = 3.141592653589793238462643383279502884L;
  long double c, s;
  const index_t k4 = 4 * k;
  if (k4 == 0) {
    c = 1;
    s = 0;
  } else if (k4 == n) {
    c = 0;
    s = -1;
  } else if (k4 == 2 * n) {
    c = -1;
    s = 0;
  } else if (k4 == 3 * n) {
    c = 0;
    s = 1;
  } else {
    // angle = 2 pi k / n; use the nearest multiple of pi/2 as origin.
    const index_t q = (k4 + n / 2) / n;  // quadrant 0..4
    const long double a = 2 * pi * static_cast<long double>(k4 - q * n) / static_cast<long double>(4 * n);
    const long double ca = std::cos(a), sa = std::sin(a);
    switch (q % 4) {
      case 0:
        c = ca;
        s = sa;
        break;
      case 1:
        c = -sa;
        s = ca;
        break;
      case 2:
        c = -ca;
        s = -sa;
        break;
      default:
        c = sa;
        s = -ca;
        break;
    }
    s = -s;  // exp(-i angle)
  }
  return {static_cast<T>(c), static_cast<T>(s)};
}

/// True when every prime factor of n is at most 13 (the Stockham radices handle it).
inline bool is_smooth13(index_t n) {
  for (index_t p : {2, 3, 5, 7, 11, 13})
    while (n % p == 0) n /= p;
  return n == 1;
}

/// The smallest 2^a 3^b 5^c >= n with 2^a >= min_pow2 (Bluestein's convolution length; a factor
/// of 64 (float) or 16 (double) lets the first Stockham stage run over whole packets).
inline index_t next_smooth235(index_t n, index_t min_pow2 = 1) {
  index_t best = min_pow2;
  while (best < n) best *= 2;
  for (index_t p5 = 1; p5 < best; p5 *= 5)
    for (index_t p35 = p5; p35 < best; p35 *= 3) {
      index_t v = p35 * min_pow2;
      while (v < n) v *= 2;
      best = std::min(best, v);
    }
  return best;
}

/// When a plan transforms single lines by the four-step decomposition.
enum class split_rule {
  never,         ///< Stockham passes only
  when_it_pays,  ///< when the line does not fit in the last-level cache (c2c_plan::four_step_pays)
  always,        ///< whenever n has two factors of at least four packets (tests)
};

/// An immutable complex FFT plan of length n (forward; the inverse swaps re and im).
template <class T>
class c2c_plan {
 public:
  /// Plans a length-n transform; `split` says when single lines use the four-step decomposition.
  explicit c2c_plan(index_t n, split_rule split = split_rule::when_it_pays) : m_n(n) {
    if (n <= 0) throw value_error(tl::detail::cat_str("tl::fft: invalid transform length ", n));
    if (!is_smooth13(n))
      build_bluestein();
    else if (!(split != split_rule::never && (split == split_rule::always || four_step_pays(n)) && build_four_step()))
      build_stockham();
  }
  index_t size() const { return m_n; }
  bool is_bluestein() const { return m_blue_n > 0; }
  bool is_four_step() const { return m_n1 > 0; }

  /// Whether a single line of length n is transformed by the four-step decomposition: when the
  /// Stockham passes' working set (data and work arrays, re and im) does not fit in the last-level
  /// cache and each pass would stream from memory. Below that the Stockham passes are faster: on
  /// the AVX-512 Xeon of docs/benchmarks.md by 1.2-2x at every power of two from 4096 to 2^22 and
  /// at most smooth lengths (0.8-1.0x the four-step's time at 12288 and 46080), in AVX-512 and
  /// AVX2 builds.
  static bool four_step_pays(index_t n) {
    const std::size_t llc = tl::detail::last_level_cache_bytes();
    const std::size_t limit = llc > 0 ? llc : std::size_t{32} << 20;
    return static_cast<std::size_t>(n) * 4 * sizeof(T) > limit;
  }
  /// Scratch each of the real and imaginary work arrays needs, in elements per lane.
  index_t scratch_size() const {
    if (m_blue_n > 0) return m_blue_n + m_sub->scratch_size();
    if (m_n1 > 0) return m_four_scratch;
    return m_n;
  }

  /// Forward DFT of L-lane split data (re, im): returns where the result is (re/im or the work
  /// arrays wre/wim, each holding scratch_size() * L elements).
  std::pair<T*, T*> run(T* re, T* im, T* wre, T* wim, index_t L) const {
    if (m_blue_n > 0) {
      run_bluestein(re, im, wre, wim, L);
      return {re, im};
    }
    if (m_n1 > 0) {
      if (L == 1) {
        run_four_step(re, im, wre, wim);
        return {re, im};
      }
      return m_stockham->run(re, im, wre, wim, L);
    }
    T *xr = re, *xi = im, *yr = wre, *yi = wim;
    index_t s = 1, left = m_n;
    for (std::size_t st = 0; st < m_radix.size(); ++st) {
      const int R = m_radix[st];
      left /= R;
      with_radix(R, [&]<int Rc>(std::integral_constant<int, Rc>) {
        stockham_stage<Rc, T>(left, s * L, xr, xi, yr, yi, stage_tw(st));
      });
      s *= R;
      std::swap(xr, yr);
      std::swap(xi, yi);
    }
    return {xr, xi};
  }

  /// Whether run_interleaved takes this plan: Stockham stages (at least two) whose first radix is
  /// a power of two, on a SIMD build.
  bool interleaved_ok() const {
    return packet<T>::size > 1 && m_blue_n == 0 && m_n1 == 0 && m_radix.size() >= 2 &&
           (m_radix[0] & (m_radix[0] - 1)) == 0;
  }
  /// One line from interleaved complex src to interleaved dst (n values each, dst may be src),
  /// times `scale`; `inverse` runs the inverse DFT. The first stage reads src and the last writes
  /// dst directly, so no separate pass splits or joins the parts. Work arrays: (ar, ai) and
  /// (br, bi), n elements each. Needs interleaved_ok().
  void run_interleaved(const T* src, T* dst, T* ar, T* ai, T* br, T* bi, bool inverse, T scale) const {
    const std::size_t ns = m_radix.size();
    index_t left = m_n / m_radix[0];
    with_radix(m_radix[0], [&]<int Rc>(std::integral_constant<int, Rc>) {
      if constexpr ((Rc & (Rc - 1)) == 0)
        first_stage_packets<Rc, T>(left, interleaved_source<T>{src, inverse}, ar, ai, stage_tw(0));
    });
    index_t s = m_radix[0];
    for (std::size_t st = 1; st + 1 < ns; ++st) {
      const int R = m_radix[st];
      left /= R;
      with_radix(R, [&]<int Rc>(std::integral_constant<int, Rc>) {
        stockham_stage<Rc, T>(left, s, ar, ai, br, bi, stage_tw(st));
      });
      s *= R;
      std::swap(ar, br);
      std::swap(ai, bi);
    }
    with_radix(m_radix[ns - 1], [&]<int Rc>(std::integral_constant<int, Rc>) {
      last_stage<Rc, T>(s, ar, ai, interleaved_sink<T>{dst, inverse, scale});
    });
  }

 private:
  /// Calls f(std::integral_constant<int, R>{}) for a radix of the plans.
  template <class F>
  static void with_radix(int R, F&& f) {
    switch (R) {
      case 2: f(std::integral_constant<int, 2>{}); break;
      case 3: f(std::integral_constant<int, 3>{}); break;
      case 4: f(std::integral_constant<int, 4>{}); break;
      case 5: f(std::integral_constant<int, 5>{}); break;
      case 7: f(std::integral_constant<int, 7>{}); break;
      case 8: f(std::integral_constant<int, 8>{}); break;
      case 11: f(std::integral_constant<int, 11>{}); break;
      case 13: f(std::integral_constant<int, 13>{}); break;
      default: f(std::integral_constant<int, 16>{}); break;
    }
  }
  stage_twiddles<T> stage_tw(std::size_t st) const {
    return {m_tw_re[st].data(), m_tw_im[st].data(), st == 0 ? m_tw0_re.data() : nullptr,
            st == 0 ? m_tw0_im.data() : nullptr};
  }

  void build_stockham() {
    index_t n = m_n;
    std::vector<int> f;
    int e = 0;
    while (n % 2 == 0) {
      n /= 2;
      ++e;
    }
    if (wide_registers && e >= 6) {
      // 64-byte registers: mostly radix 8, with the rest of the exponent placed where it
      // measured fastest (a radix 16 second for 2^7 to 2^12, radix-4 stages early on for larger
      // sizes). The first stage is radix 16 for float lengths 2^7 to 2^12 (one 16 x 16 tile
      // transpose per packet of butterflies), else radix 8. A radix-16 butterfly's data fills all
      // 32 registers and spills; radix-8 stages, though one pass more every 12 factors of 2,
      // measured 1.1-1.4x faster per transform for double from 2^8 up and for float from 2^13 up.
      const bool first16 = lanes_w == 16 && e >= 7 && e <= 12;
      f.push_back(first16 ? 16 : 8);
      int r = e - (first16 ? 4 : 3);
      if (r % 3 == 2) {
        f.push_back(4);
        r -= 2;
      } else if (r % 3 == 1 && e >= 13) {
        f.insert(f.end(), {4, 8, 8, 4});
        r -= 10;
      } else if (r % 3 == 1) {
        f.push_back(16);
        r -= 4;
      }
      f.insert(f.end(), r / 3, 8);
    } else {
      // Radix 8 where possible; 2^(3k+1) uses 4 * 4 instead of 8 * 2 when it can. Large radices
      // first: the first stages run with a short inner length.
      int k8 = e / 3, k4 = e % 3 == 2 ? 1 : 0, k2 = 0;
      if (e % 3 == 1) {
        if (k8 > 0) {
          --k8;
          k4 += 2;
        } else {
          k2 = 1;
        }
      }
      f.insert(f.end(), k8, 8);
      f.insert(f.end(), k4, 4);
      f.insert(f.end(), k2, 2);
    }
    for (int p : {3, 5, 7, 11, 13})
      while (n % p == 0) {
        f.push_back(p);
        n /= p;
      }
    m_radix = f;
    index_t L = m_n;
    for (int R : m_radix) {
      const index_t m = L / R;
      std::vector<T> wr(static_cast<std::size_t>(m * (R - 1))), wi(wr.size());
      for (index_t p = 0; p < m; ++p)
        for (int r = 1; r < R; ++r) {
          const auto [c, s] = twiddle<T>(p * r, L);
          wr[p * (R - 1) + r - 1] = c;
          wi[p * (R - 1) + r - 1] = s;
        }
      if (m_tw_re.empty()) {  // the first stage's twiddles again, [r - 1][p], for packets over p
        m_tw0_re.resize(wr.size());
        m_tw0_im.resize(wr.size());
        for (index_t p = 0; p < m; ++p)
          for (int r = 1; r < R; ++r) {
            m_tw0_re[(r - 1) * m + p] = wr[p * (R - 1) + r - 1];
            m_tw0_im[(r - 1) * m + p] = wi[p * (R - 1) + r - 1];
          }
      }
      m_tw_re.push_back(std::move(wr));
      m_tw_im.push_back(std::move(wi));
      L = m;
    }
  }

  void build_bluestein() {
    const index_t n = m_n;
    m_blue_n = next_smooth235(2 * n - 1, sizeof(T) == 4 ? 64 : 16);
    m_sub = std::make_shared<const c2c_plan<T>>(m_blue_n);
    const index_t M = m_blue_n;
    m_chirp_re.resize(n);
    m_chirp_im.resize(n);
    std::vector<T> br(M, T(0)), bi(M, T(0));
    for (index_t k = 0; k < n; ++k) {
      // c_k = exp(-pi i k^2 / n) = exp(-2 pi i (k^2 mod 2n) / 2n)
      const index_t k2 = static_cast<index_t>((static_cast<unsigned __int128>(k) * k) % (2 * n));
      const auto [c, s] = twiddle<T>(k2, 2 * n);
      m_chirp_re[k] = c;
      m_chirp_im[k] = s;
      br[k] = c;  // b_k = conj(c_k)
      bi[k] = -s;
      if (k > 0) {
        br[M - k] = c;
        bi[M - k] = -s;
      }
    }
    std::vector<T> wr(m_sub->scratch_size()), wi(wr.size());
    auto [rr, ri] = m_sub->run(br.data(), bi.data(), wr.data(), wi.data(), 1);
    m_bk_re.resize(M);
    m_bk_im.resize(M);
    const T inv = static_cast<T>(1.0L / static_cast<long double>(M));
    for (index_t k = 0; k < M; ++k) {
      m_bk_re[k] = rr[k] * inv;
      m_bk_im[k] = ri[k] * inv;
    }
  }

  static constexpr index_t lanes_w = lanes_of<packet<T>>;
  /// Builds whose packets are 64 bytes (AVX-512) choose their power-of-two radices by build_stockham's
  /// measured rule.
  static constexpr bool wide_registers = tl::detail::simd_register_bytes<packet<T>>() == 64;
  /// The narrower packets the four-step decomposition takes on AVX-512 builds when a batch of
  /// sub-transforms (lanes x length x re/im, and as much scratch) then fits in 32 KiB of L1 and
  /// a full-width batch would not: 256 bits.
  using narrow_packet = packet256<T>;

  /// n = n1 * n2 with n1 the divisor closest to sqrt(n) and both at least four packets: the line
  /// becomes n2 column transforms of length n1 and n1 row transforms of length n2, each done
  /// a packet of lines at a time (every butterfly is a full SIMD operation and each batch fits in
  /// cache), with a twiddle multiply in between.
  bool build_four_step() {
    const index_t n = m_n;
    index_t W = lanes_w;
    index_t best = 0;
    for (index_t d = 1; d * d <= n; ++d)
      if (n % d == 0 && d >= 4 * W) best = d;
    if (best == 0 || n / best < 4 * W) return false;
    m_n1 = n / best;  // the larger factor runs first, over the columns
    m_n2 = best;
    m_sub1 = std::make_shared<const c2c_plan<T>>(m_n1, split_rule::never);
    m_sub2 = std::make_shared<const c2c_plan<T>>(m_n2, split_rule::never);
    m_stockham = std::make_shared<const c2c_plan<T>>(n, split_rule::never);
    const index_t nmax = std::max(m_n1, m_n2);
    const auto batch_bytes = [&](index_t lanes) { return lanes * nmax * static_cast<index_t>(4 * sizeof(T)); };
    m_narrow = !std::is_same_v<narrow_packet, packet<T>> && batch_bytes(lanes_of<narrow_packet>) <= 32768 &&
               batch_bytes(W) > 32768;
    if (m_narrow) W = lanes_of<narrow_packet>;
    m_four_scratch = n + W * nmax + W * std::max(m_sub1->scratch_size(), m_sub2->scratch_size());
    // Twiddles w^(k1 j2) laid out per block of W columns: [block][k1][lane].
    const index_t nblk = (m_n2 + W - 1) / W;
    m_ftw_re.assign(static_cast<std::size_t>(nblk * m_n1 * W), T(0));
    m_ftw_im.assign(m_ftw_re.size(), T(0));
    for (index_t b = 0; b < nblk; ++b)
      for (index_t k1 = 0; k1 < m_n1; ++k1)
        for (index_t l = 0; l < W && b * W + l < m_n2; ++l) {
          const auto [c, sn] = twiddle<T>(k1 * (b * W + l), n);
          m_ftw_re[(b * m_n1 + k1) * W + l] = c;
          m_ftw_im[(b * m_n1 + k1) * W + l] = sn;
        }
    return true;
  }

  void run_four_step(T* re, T* im, T* wre, T* wim) const {
    if (m_narrow)
      run_four_step_with<narrow_packet>(re, im, wre, wim);
    else
      run_four_step_with<packet<T>>(re, im, wre, wim);
  }

  template <class P>
  void run_four_step_with(T* re, T* im, T* wre, T* wim) const {
    const index_t n1 = m_n1, n2 = m_n2, W = lanes_of<P>, nmax = std::max(n1, n2);
    T* yr = wre;
    T* yi = wim;
    T* br = wre + m_n;
    T* bi = wim + m_n;
    T* sr = br + W * nmax;
    T* si = bi + W * nmax;
    // Columns: x[j1 n2 + j2] -> y[k1 n2 + j2] = w^(k1 j2) DFT_n1(x[. n2 + j2])[k1]
    for (index_t b = 0; b * W < n2; ++b) {
      const index_t j0 = b * W, lanes = std::min(W, n2 - j0);
      for (index_t k = 0; k < n1; ++k) {
        if (lanes == W) {
          P::load_unaligned(re + k * n2 + j0).store_unaligned(br + k * W);
          P::load_unaligned(im + k * n2 + j0).store_unaligned(bi + k * W);
        } else {
          for (index_t l = 0; l < W; ++l) {
            br[k * W + l] = l < lanes ? re[k * n2 + j0 + l] : T(0);
            bi[k * W + l] = l < lanes ? im[k * n2 + j0 + l] : T(0);
          }
        }
      }
      const auto [rr, ri] = m_sub1->run(br, bi, sr, si, W);
      const T* twr = m_ftw_re.data() + b * n1 * W;
      const T* twi = m_ftw_im.data() + b * n1 * W;
      for (index_t k = 0; k < n1; ++k) {
        if (lanes == W) {
          const P a = P::load_unaligned(rr + k * W), c = P::load_unaligned(ri + k * W);
          const P wr = P::load_unaligned(twr + k * W), wi = P::load_unaligned(twi + k * W);
          fmsub(a, wr, c * wi).store_unaligned(yr + k * n2 + j0);
          fmadd(a, wi, c * wr).store_unaligned(yi + k * n2 + j0);
        } else {
          for (index_t l = 0; l < lanes; ++l) {
            const T a = rr[k * W + l], c = ri[k * W + l], wr = twr[k * W + l], wi = twi[k * W + l];
            yr[k * n2 + j0 + l] = a * wr - c * wi;
            yi[k * n2 + j0 + l] = a * wi + c * wr;
          }
        }
      }
    }
    // Rows: X[k1 + n1 k2] = DFT_n2(y[k1 n2 + .])[k2]
    for (index_t b = 0; b * W < n1; ++b) {
      const index_t k0 = b * W, lanes = std::min(W, n1 - k0);
      if (lanes == W && n2 % W == 0) {
        for (index_t j = 0; j < n2; j += W) {
          transpose_tile<P>(yr + k0 * n2 + j, n2, br + j * W, W);
          transpose_tile<P>(yi + k0 * n2 + j, n2, bi + j * W, W);
        }
      } else {
        for (index_t l = 0; l < W; ++l) {
          const T* rowr = yr + (k0 + l) * n2;
          const T* rowi = yi + (k0 + l) * n2;
          for (index_t j = 0; j < n2; ++j) {
            br[j * W + l] = l < lanes ? rowr[j] : T(0);
            bi[j * W + l] = l < lanes ? rowi[j] : T(0);
          }
        }
      }
      const auto [rr, ri] = m_sub2->run(br, bi, sr, si, W);
      for (index_t k = 0; k < n2; ++k) {
        if (lanes == W) {
          P::load_unaligned(rr + k * W).store_unaligned(re + k0 + n1 * k);
          P::load_unaligned(ri + k * W).store_unaligned(im + k0 + n1 * k);
        } else {
          for (index_t l = 0; l < lanes; ++l) {
            re[k0 + l + n1 * k] = rr[k * W + l];
            im[k0 + l + n1 * k] = ri[k * W + l];
          }
        }
      }
    }
  }

  /// y[k, lane] = x[k, lane] * t[k] for k < count (complex products on split arrays; y may be x).
  static void mul_by(const T* xr, const T* xi, T* yr, T* yi, const T* tr, const T* ti, index_t count, index_t L) {
    for (index_t k = 0; k < count; ++k) {
      const T cr = tr[k], ci = ti[k];
      for (index_t l = 0; l < L; ++l) {
        const T a = xr[k * L + l], b = xi[k * L + l];
        yr[k * L + l] = a * cr - b * ci;
        yi[k * L + l] = a * ci + b * cr;
      }
    }
  }

  void run_bluestein(T* re, T* im, T* wre, T* wim, index_t L) const {
    const index_t n = m_n, M = m_blue_n;
    T* ar = wre;
    T* ai = wim;
    T* sr = wre + M * L;
    T* si = wim + M * L;
    mul_by(re, im, ar, ai, m_chirp_re.data(), m_chirp_im.data(), n, L);
    std::fill(ar + n * L, ar + M * L, T(0));
    std::fill(ai + n * L, ai + M * L, T(0));
    const auto [fr, fi] = m_sub->run(ar, ai, sr, si, L);
    mul_by(fr, fi, fr, fi, m_bk_re.data(), m_bk_im.data(), M, L);
    // Inverse transform: run the forward one on swapped (imag, real) arrays; the result comes
    // back swapped too.
    T* other_r = fr == ar ? sr : ar;
    T* other_i = fr == ar ? si : ai;
    const auto [gi, gr] = m_sub->run(fi, fr, other_r, other_i, L);
    mul_by(gr, gi, re, im, m_chirp_re.data(), m_chirp_im.data(), n, L);
  }

  index_t m_n;
  std::vector<int> m_radix;
  std::vector<std::vector<T>> m_tw_re, m_tw_im;
  std::vector<T> m_tw0_re, m_tw0_im;
  index_t m_blue_n = 0;
  std::shared_ptr<const c2c_plan<T>> m_sub;
  index_t m_n1 = 0, m_n2 = 0, m_four_scratch = 0;
  bool m_narrow = false;  // the four-step runs on narrow_packet
  std::shared_ptr<const c2c_plan<T>> m_sub1, m_sub2, m_stockham;
  std::vector<T> m_ftw_re, m_ftw_im;
  std::vector<T> m_chirp_re, m_chirp_im, m_bk_re, m_bk_im;
};

/// An immutable plan for real-input (r2c) and real-output (c2r) transforms of length n.
template <class T>
class real_plan {
 public:
  real_plan(index_t n, std::shared_ptr<const c2c_plan<T>> inner) : m_n(n), m_inner(std::move(inner)) {
    if (n % 2 == 0) {
      const index_t h = n / 2;
      m_w_re.resize(h + 1);
      m_w_im.resize(h + 1);
      for (index_t k = 0; k <= h; ++k) {
        const auto [c, s] = twiddle<T>(k, n);
        m_w_re[k] = c;
        m_w_im[k] = s;
      }
    }
  }
  index_t size() const { return m_n; }
  const c2c_plan<T>& inner() const { return *m_inner; }
  /// exp(-2 pi i k / n) for k in [0, n / 2] (even n only).
  const T* w_re() const { return m_w_re.data(); }
  const T* w_im() const { return m_w_im.data(); }

 private:
  index_t m_n;
  std::shared_ptr<const c2c_plan<T>> m_inner;
  std::vector<T> m_w_re, m_w_im;
};

}  // namespace tl::fft::detail
