#pragma once
/// @file simd.hpp
/// @brief tl's one way in to xsimd, and fused multiply-add on every packet type (detail header).
///
/// xsimd 8.1 (Debian's) defines fma/fms/fnma/fnms for SSE and AVX only under its `fma3<...>`
/// architectures; for AVX-512 it falls back to its generic `x * y + z`, two roundings. tl's packet
/// kernels depend on a single rounding (Cody-Waite argument reduction, exact remainders, error-free
/// products), and so do xsimd's own math functions, so on an AVX-512 build:
///  - when this header is the first to include xsimd, it adds the AVX-512 fused forms to xsimd's
///    kernels before xsimd's public functions are declared, so `xsimd::fma` and everything xsimd
///    builds on it round once;
///  - `tl::detail::simd_fma` and friends (used by every tl kernel) round once whatever the include
///    order, calling the FMA instruction for the packet's register width directly.
/// Other xsimd versions are left alone.
// GCC 12's AVX-512 intrinsics give their "undefined" registers a self-initialization
// (`__m512i __Y = __Y;`) and GCC then warns about it wherever they are inlined (GCC bug 105593,
// fixed in GCC 13). Included first here, with those two warnings off for the header's own lines;
// warnings about tl's code are unaffected.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12 && defined(__SSE2__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

#if __has_include(<xsimd/config/xsimd_config.hpp>)
#include <xsimd/config/xsimd_config.hpp>
#endif

#if defined(XSIMD_VERSION_MAJOR) && XSIMD_VERSION_MAJOR == 8 && defined(__AVX512F__) && !defined(XSIMD_HPP)
// The prologue of <xsimd/xsimd.hpp> 8.x up to (not including) its public API, then the fused
// kernels, then the rest of xsimd.hpp (whose own includes are guarded and so not repeated).
#if defined(__GNUC__) && !defined(XSIMD_NO_DISCARD)
#define XSIMD_NO_DISCARD __attribute__((warn_unused_result))
#elif !defined(XSIMD_NO_DISCARD)
#define XSIMD_NO_DISCARD
#endif
#include <xsimd/arch/xsimd_scalar.hpp>
#include <xsimd/memory/xsimd_aligned_allocator.hpp>
#include <xsimd/types/xsimd_batch.hpp>
#include <xsimd/types/xsimd_batch_constant.hpp>
#include <xsimd/types/xsimd_traits.hpp>

namespace xsimd::kernel {
#define TL_XSIMD_AVX512_FMA(NAME, T, INTRIN)                                                            \
  template <class A>                                                                                    \
  inline batch<T, A> NAME(batch<T, A> const& x, batch<T, A> const& y, batch<T, A> const& z,              \
                          requires_arch<avx512f>) noexcept {                                            \
    return INTRIN(x, y, z);                                                                             \
  }
TL_XSIMD_AVX512_FMA(fma, float, _mm512_fmadd_ps)
TL_XSIMD_AVX512_FMA(fma, double, _mm512_fmadd_pd)
TL_XSIMD_AVX512_FMA(fms, float, _mm512_fmsub_ps)
TL_XSIMD_AVX512_FMA(fms, double, _mm512_fmsub_pd)
TL_XSIMD_AVX512_FMA(fnma, float, _mm512_fnmadd_ps)
TL_XSIMD_AVX512_FMA(fnma, double, _mm512_fnmadd_pd)
TL_XSIMD_AVX512_FMA(fnms, float, _mm512_fnmsub_ps)
TL_XSIMD_AVX512_FMA(fnms, double, _mm512_fnmsub_pd)
#undef TL_XSIMD_AVX512_FMA

// xsimd 8.1's AVX-512BW select for integers switches on sizeof(T) at run time, so every branch is
// compiled; without optimization GCC defines the byte and word blend intrinsics as macros with C
// casts, which reject 4- and 8-byte batches ("invalid cast to __v64qi"): a -O0 build that takes
// e.g. a double log packet (select on int64 inside) does not compile. These overloads, more
// specialized than xsimd's, route 4- and 8-byte integers straight to the AVX-512F form, which is
// what xsimd's switch does for them anyway.
#define TL_XSIMD_AVX512BW_SELECT(T)                                                                      \
  template <class A>                                                                                     \
  inline batch<T, A> select(batch_bool<T, A> const& c, batch<T, A> const& t, batch<T, A> const& f,      \
                            requires_arch<avx512bw>) noexcept {                                          \
    return select(c, t, f, avx512f{});                                                                   \
  }
TL_XSIMD_AVX512BW_SELECT(int)
TL_XSIMD_AVX512BW_SELECT(unsigned int)
TL_XSIMD_AVX512BW_SELECT(long)
TL_XSIMD_AVX512BW_SELECT(unsigned long)
TL_XSIMD_AVX512BW_SELECT(long long)
TL_XSIMD_AVX512BW_SELECT(unsigned long long)
#undef TL_XSIMD_AVX512BW_SELECT
}  // namespace xsimd::kernel
#endif

#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "tl/core/config.hpp"

namespace tl::detail {

/// Bytes in a packet type's register (0 for packets without a single register, e.g. complex).
template <class B>
constexpr std::size_t simd_register_bytes() {
  if constexpr (requires { typename B::register_type; }) return sizeof(typename B::register_type);
  else return 0;
}

/// The four fused forms for intrinsic prefix PFX (_mm512, _mm256, _mm) and float (ps) or double (pd)
/// lanes, chosen by Neg and Sub (used only inside simd_fused).
#define TL_SIMD_FUSED_FORMS(PFX, SFX)                                                         \
  if constexpr (Neg) return Sub ? PFX##_fnmsub_##SFX(x, y, z) : PFX##_fnmadd_##SFX(x, y, z); \
  else return Sub ? PFX##_fmsub_##SFX(x, y, z) : PFX##_fmadd_##SFX(x, y, z);
#define TL_SIMD_FUSED_WIDTH(PFX) \
  if constexpr (f) {             \
    TL_SIMD_FUSED_FORMS(PFX, ps) \
  } else {                       \
    TL_SIMD_FUSED_FORMS(PFX, pd) \
  }

/// x * y + s * z with one rounding (s = +1 or -1), negated product where Neg: the FMA instruction of
/// the packet's width where the target has one, else xsimd's form.
template <bool Neg, bool Sub, class B>
TL_INLINE B simd_fused(const B& x, const B& y, const B& z) {
  using T = typename B::value_type;
  [[maybe_unused]] constexpr bool f = std::is_same_v<T, float>, d = std::is_same_v<T, double>;
#if defined(__AVX512F__)
  if constexpr ((f || d) && simd_register_bytes<B>() == 64) {
    TL_SIMD_FUSED_WIDTH(_mm512)
  } else
#endif
#if defined(__FMA__)
  if constexpr ((f || d) && simd_register_bytes<B>() == 32) {
    TL_SIMD_FUSED_WIDTH(_mm256)
  } else if constexpr ((f || d) && simd_register_bytes<B>() == 16) {
    TL_SIMD_FUSED_WIDTH(_mm)
  } else
#endif
  {
    if constexpr (Neg) return Sub ? xsimd::fnms(x, y, z) : xsimd::fnma(x, y, z);
    else return Sub ? xsimd::fms(x, y, z) : xsimd::fma(x, y, z);
  }
}
#undef TL_SIMD_FUSED_WIDTH
#undef TL_SIMD_FUSED_FORMS

/// x * y + z, rounded once.
template <class B>
TL_INLINE B simd_fma(const B& x, const B& y, const B& z) { return simd_fused<false, false>(x, y, z); }
/// x * y - z, rounded once.
template <class B>
TL_INLINE B simd_fms(const B& x, const B& y, const B& z) { return simd_fused<false, true>(x, y, z); }
/// -(x * y) + z, rounded once.
template <class B>
TL_INLINE B simd_fnma(const B& x, const B& y, const B& z) { return simd_fused<true, false>(x, y, z); }
/// -(x * y) - z, rounded once.
template <class B>
TL_INLINE B simd_fnms(const B& x, const B& y, const B& z) { return simd_fused<true, true>(x, y, z); }

// Streaming (non-temporal) stores: the packet goes to memory without first reading its cache line
// (no read-for-ownership) and without displacing cached data. Used by the evaluator for
// destinations larger than the cache; the address must be aligned to the register size, and the
// writing thread calls stream_fence() before another thread may read the data.
#if defined(__SSE2__)
inline void stream_register(void* p, __m128 v) { _mm_stream_ps(static_cast<float*>(p), v); }
inline void stream_register(void* p, __m128d v) { _mm_stream_pd(static_cast<double*>(p), v); }
inline void stream_register(void* p, __m128i v) { _mm_stream_si128(static_cast<__m128i*>(p), v); }
#endif
#if defined(__AVX__)
inline void stream_register(void* p, __m256 v) { _mm256_stream_ps(static_cast<float*>(p), v); }
inline void stream_register(void* p, __m256d v) { _mm256_stream_pd(static_cast<double*>(p), v); }
inline void stream_register(void* p, __m256i v) { _mm256_stream_si256(static_cast<__m256i*>(p), v); }
#endif
#if defined(__AVX512F__)
inline void stream_register(void* p, __m512 v) { _mm512_stream_ps(static_cast<float*>(p), v); }
inline void stream_register(void* p, __m512d v) { _mm512_stream_pd(static_cast<double*>(p), v); }
inline void stream_register(void* p, __m512i v) { _mm512_stream_si512(static_cast<__m512i*>(p), v); }
#endif

/// Does packet type B have a streaming store on this target?
template <class B>
inline constexpr bool has_stream_store =
    requires(void* p, const B& v) { stream_register(p, static_cast<typename B::register_type>(v)); };

/// Stores v at p (aligned to the register size) with a streaming store.
template <class B>
TL_INLINE void stream_store(void* p, const B& v) {
  stream_register(p, static_cast<typename B::register_type>(v));
}

/// Orders this thread's streaming stores before its later stores (and so before it signals another
/// thread).
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace tl::detail
