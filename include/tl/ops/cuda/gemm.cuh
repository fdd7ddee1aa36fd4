#pragma once
/// @file gemm.cuh
/// @brief cuBLAS behind tl::matmul for CUDA tensors (nvcc only; included by tl/ops/matmul.hpp when
/// compiled by nvcc). Fills the device slot that tl/ops/detail/device_gemm.hpp looks up with a
/// launcher that runs `cublas<t>gemmStridedBatched` on the current tl stream. Row-major products
/// are column-major products of the transposes: C^T = B^T A^T, so no operand is transposed.
/// Each thread keeps one cuBLAS handle per device (a handle is not shared between threads).
/// Single precision runs in full fp32 (cuBLAS's default math mode: no TF32, as torch's default).
///
/// Programs that use it link cuBLAS (CMake: CUDA::cublas).
#if !defined(__CUDACC__)
#error "tl/ops/cuda/gemm.cuh is the cuBLAS layer of tl::matmul: compile this translation unit with nvcc"
#endif

#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <type_traits>

#include "tl/core/complex.hpp"
#include "tl/core/error.hpp"
#include "tl/eval/cuda/runtime.cuh"
#include "tl/eval/device_slot.hpp"
#include "tl/ops/detail/device_gemm.hpp"

namespace tl::detail {

/// Throws tl::cuda_error naming the cuBLAS call and its status.
inline void check_cublas(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw tl::cuda_error(cat_str("tl::matmul: ", call, " failed with cuBLAS status ", static_cast<int>(s), " (",
                                 cublasGetStatusString(s), ")"));
}

/// This thread's cuBLAS handle for `device` (the caller has made `device` current).
inline cublasHandle_t cublas_handle(int device) {
  return tl::cuda::detail::per_thread_handle<cublasHandle_t, cublasDestroy>(device, [] {
    cublasHandle_t h;
    check_cublas(cublasCreate(&h), "cublasCreate");
    return h;
  });
}

/// One strided-batched call for batch <= INT_MAX products with int extents.
template <class V>
void cublas_gemm_call(cublasHandle_t h, int batch, int m, int n, int k, const V* a, long long stride_a, const V* b,
                      long long stride_b, V* c) {
  const long long stride_c = static_cast<long long>(m) * n;
  if constexpr (std::is_same_v<V, float>) {
    const float one = 1.0f, zero = 0.0f;
    check_cublas(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, stride_b, a, k, stride_a,
                                           &zero, c, n, stride_c, batch),
                 "cublasSgemmStridedBatched");
  } else if constexpr (std::is_same_v<V, double>) {
    const double one = 1.0, zero = 0.0;
    check_cublas(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, stride_b, a, k, stride_a,
                                           &zero, c, n, stride_c, batch),
                 "cublasDgemmStridedBatched");
  } else if constexpr (std::is_same_v<V, complex<float>>) {
    static_assert(sizeof(complex<float>) == sizeof(cuComplex), "tl::complex<float> must have cuComplex's layout");
    const cuComplex one = make_cuComplex(1.0f, 0.0f), zero = make_cuComplex(0.0f, 0.0f);
    check_cublas(
        cublasCgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, reinterpret_cast<const cuComplex*>(b), n,
                                  stride_b, reinterpret_cast<const cuComplex*>(a), k, stride_a, &zero,
                                  reinterpret_cast<cuComplex*>(c), n, stride_c, batch),
        "cublasCgemmStridedBatched");
  } else {
    static_assert(std::is_same_v<V, complex<double>>, "tl::matmul: no cuBLAS GEMM for this dtype");
    static_assert(sizeof(complex<double>) == sizeof(cuDoubleComplex),
                  "tl::complex<double> must have cuDoubleComplex's layout");
    const cuDoubleComplex one = make_cuDoubleComplex(1.0, 0.0), zero = make_cuDoubleComplex(0.0, 0.0);
    check_cublas(cublasZgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                                           reinterpret_cast<const cuDoubleComplex*>(b), n, stride_b,
                                           reinterpret_cast<const cuDoubleComplex*>(a), k, stride_a, &zero,
                                           reinterpret_cast<cuDoubleComplex*>(c), n, stride_c, batch),
                 "cublasZgemmStridedBatched");
  }
}

/// The cuBLAS launcher for dtype V (see cublas_gemm_fn).
template <class V>
void cublas_gemm_launch(index_t batch, index_t m, index_t n, index_t k, const void* a, index_t stride_a, const void* b,
                        index_t stride_b, void* c, int device) {
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    throw tl::value_error(cat_str("tl::matmul: a ", m, " x ", k, " by ", k, " x ", n,
                                  " product of CUDA tensors has an extent beyond what cuBLAS addresses (2^31 - 1)"));
  tl::cuda::device_guard guard(device);
  const cublasHandle_t h = cublas_handle(device);
  check_cublas(cublasSetStream(h, tl::cuda::current_stream()), "cublasSetStream");
  const V* ap = static_cast<const V*>(a);
  const V* bp = static_cast<const V*>(b);
  V* cp = static_cast<V*>(c);
  for (index_t done = 0; done < batch;) {
    const index_t part = std::min<index_t>(batch - done, INT_MAX);
    cublas_gemm_call<V>(h, static_cast<int>(part), static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                        ap + done * stride_a, stride_a, bp + done * stride_b, stride_b, cp + done * m * n);
    done += part;
  }
}

template <class V>
void register_cublas_gemm() {
  fill_device_slot<cublas_gemm_key<V>, cublas_gemm_fn, &cublas_gemm_launch<V>>();
}

}  // namespace tl::detail
