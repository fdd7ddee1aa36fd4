#pragma once
/// @file config.hpp
/// @brief Basic configuration: index type and the host/device annotation macro.
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define TL_HD __host__ __device__
#else
#define TL_HD
#endif

// Forced inlining only where the compiler optimizes: at -O0 (debug and sanitizer builds) it would
// copy every SIMD kernel body into each caller, which costs compile time and helps nothing there.
// Defining TL_NO_FORCED_INLINE leaves inlining (TL_INLINE, TL_FLATTEN) to the compiler's own
// judgement in optimized builds too: slower code, built in about half the time where a translation
// unit instantiates many fused expressions with autograd (the project's autograd tests use it).
#if (defined(__GNUC__) || defined(__clang__)) && defined(__OPTIMIZE__) && !defined(TL_NO_FORCED_INLINE)
#define TL_INLINE inline __attribute__((always_inline))
#else
#define TL_INLINE inline
#endif

// The same for a lambda's call operator, written after its parameter list (`[](auto x) TL_INLINE_LAMBDA
// { ... }`): a kernel passed as a lambda (float_via_double) is otherwise left out of line once it is
// large, and every call then passes its packets through memory.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__OPTIMIZE__) && !defined(TL_NO_FORCED_INLINE)
#define TL_INLINE_LAMBDA __attribute__((always_inline))
#else
#define TL_INLINE_LAMBDA
#endif

// A function kept out of line and laid out with the cold code: for rarely taken branches of heavy
// packet code (a far tail, an edge region). Inlined, such a branch crowds the hot path of every
// call (its constants, its live values, the code around the loop) even when it is never taken.
#if defined(__GNUC__) || defined(__clang__)
#define TL_COLD __attribute__((noinline, cold))
#else
#define TL_COLD
#endif

// A function whose calls are all inlined into it (where the compiler can), for hot loops that build
// small objects per iteration and must keep them in registers: in a large translation unit the
// compiler's growth limits would otherwise leave some of those calls out of line.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__OPTIMIZE__) && !defined(TL_NO_FORCED_INLINE)
#define TL_FLATTEN __attribute__((flatten))
#else
#define TL_FLATTEN
#endif

// An always-inlined function that CUDA kernels also call (scalar element access and the scalar form
// of every elementwise op); TL_INLINE ones (SIMD packets, CPU loops) stay host-only.
#if defined(__CUDACC__)
#define TL_HDI __host__ __device__ __forceinline__
#else
#define TL_HDI TL_INLINE
#endif

/// Autograd is compiled in where TL_AUTOGRAD is 1 (first-order gradients) or 2 (also higher order:
/// create_graph, hessian, hvp, jvp, gradgradcheck). Each fused expression then also instantiates its
/// adjoint expressions, which multiplies compile times, so it is off (0) by default. Define it the
/// same way in every translation unit of a program (CMake: the TL_AUTOGRAD cache variable).
#ifndef TL_AUTOGRAD
#define TL_AUTOGRAD 0
#endif

namespace tl {
/// @brief Signed index type used for extents, strides and element offsets.
using index_t = std::int64_t;
}  // namespace tl
