#pragma once
/// @file solver.cuh
/// @brief cuSOLVER behind tl::linalg for CUDA tensors (nvcc only; included by the tl::linalg
/// headers when compiled by nvcc). Fills the device slots of tl/linalg/detail/device.hpp. Each
/// thread keeps one cuSOLVER dense handle per device; work runs on the current tl stream.
/// A row-major matrix read column-major is its transpose: the row-major upper triangle of C is the
/// column-major lower triangle of C^T = conj(C) (C Hermitian), and cuSOLVER's lower factorization
/// conj(C) = M M^H leaves M, which read row-major is U = M^T with C = U^H U. The lower variant is
/// the one used: cuSOLVER's upper potrf took 2.6 times as long (n = 4096, float, H100).
///
/// Programs that use it link cuSOLVER (CMake: CUDA::cusolver).
#if !defined(__CUDACC__)
#error "tl/linalg/cuda/solver.cuh is the cuSOLVER layer of tl::linalg: compile this translation unit with nvcc"
#endif

#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>

#include "tl/core/complex.hpp"
#include "tl/core/creation.hpp"
#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/eval/cuda/runtime.cuh"
#include "tl/eval/device_slot.hpp"
#include "tl/linalg/detail/device.hpp"

namespace tl::linalg::detail {

/// Throws tl::cuda_error naming the cuSOLVER call and its status.
inline void check_cusolver(cusolverStatus_t s, const char* call, const char* op) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw tl::cuda_error(cat_str("tl::linalg::", op, ": ", call, " failed with cuSOLVER status ", static_cast<int>(s)));
}

/// This thread's cuSOLVER handle for `device` (the caller has made `device` current).
inline cusolverDnHandle_t cusolver_handle(int device) {
  return tl::cuda::detail::per_thread_handle<cusolverDnHandle_t, cusolverDnDestroy>(device, [] {
    cusolverDnHandle_t h;
    check_cusolver(cusolverDnCreate(&h), "cusolverDnCreate", "linalg");
    return h;
  });
}

/// The cuSOLVER type of tl's dtype T (same layout).
template <class T>
using cusolver_t = std::conditional_t<std::is_same_v<T, complex<float>>, cuComplex,
                                      std::conditional_t<std::is_same_v<T, complex<double>>, cuDoubleComplex, T>>;

template <class T>
void cusolver_potrf_launch(index_t batch, index_t n, void* a, std::int32_t* info, int device) {
  using C = cusolver_t<T>;
  static_assert(sizeof(C) == sizeof(T), "tl: the cuSOLVER type must have the layout of tl's dtype");
  if (n > 0 && n > INT_MAX / n)
    throw tl::value_error(
        cat_str("tl::linalg::cholesky: a ", n, " x ", n, " matrix is beyond what one cuSOLVER call addresses"));
  tl::cuda::device_guard guard(device);
  const cusolverDnHandle_t h = cusolver_handle(device);
  check_cusolver(cusolverDnSetStream(h, tl::cuda::current_stream()), "cusolverDnSetStream", "cholesky");
  const int ni = static_cast<int>(n);
  C* ap = static_cast<C*>(a);
  int lwork = 0;
  const cublasFillMode_t up = CUBLAS_FILL_MODE_LOWER;
  if (batch > 1 && batch <= INT_MAX) {
    // One potrfBatched call (as torch does for a batch): its argument is a device array of the
    // matrices' addresses.
    tensor<std::int64_t, 1> addr(shape_t<1>{batch});
    for (index_t b = 0; b < batch; ++b) addr.data()[b] = reinterpret_cast<std::int64_t>(ap + b * n * n);
    const tensor<std::int64_t, 1> addr_dev = addr.to(tl::device::cuda(device));
    C** arr = reinterpret_cast<C**>(addr_dev.data());
    int* inf = reinterpret_cast<int*>(info);
    const int nb = static_cast<int>(batch);
    if constexpr (std::is_same_v<T, float>)
      check_cusolver(cusolverDnSpotrfBatched(h, up, ni, arr, ni, inf, nb), "cusolverDnSpotrfBatched", "cholesky");
    else if constexpr (std::is_same_v<T, double>)
      check_cusolver(cusolverDnDpotrfBatched(h, up, ni, arr, ni, inf, nb), "cusolverDnDpotrfBatched", "cholesky");
    else if constexpr (std::is_same_v<T, complex<float>>)
      check_cusolver(cusolverDnCpotrfBatched(h, up, ni, arr, ni, inf, nb), "cusolverDnCpotrfBatched", "cholesky");
    else
      check_cusolver(cusolverDnZpotrfBatched(h, up, ni, arr, ni, inf, nb), "cusolverDnZpotrfBatched", "cholesky");
    return;
  }
  if constexpr (std::is_same_v<T, float>)
    check_cusolver(cusolverDnSpotrf_bufferSize(h, up, ni, ap, ni, &lwork), "cusolverDnSpotrf_bufferSize", "cholesky");
  else if constexpr (std::is_same_v<T, double>)
    check_cusolver(cusolverDnDpotrf_bufferSize(h, up, ni, ap, ni, &lwork), "cusolverDnDpotrf_bufferSize", "cholesky");
  else if constexpr (std::is_same_v<T, complex<float>>)
    check_cusolver(cusolverDnCpotrf_bufferSize(h, up, ni, ap, ni, &lwork), "cusolverDnCpotrf_bufferSize", "cholesky");
  else
    check_cusolver(cusolverDnZpotrf_bufferSize(h, up, ni, ap, ni, &lwork), "cusolverDnZpotrf_bufferSize", "cholesky");
  // The workspace is a tl device tensor (the caching allocator, stream-ordered like the calls).
  tensor<T, 1> work = tl::empty<T>(shape_t<1>{std::max(lwork, 1)}, tl::device::cuda(device));
  C* wp = reinterpret_cast<C*>(work.data());
  for (index_t b = 0; b < batch; ++b) {
    C* m = ap + b * n * n;
    int* inf = reinterpret_cast<int*>(info + b);
    if constexpr (std::is_same_v<T, float>)
      check_cusolver(cusolverDnSpotrf(h, up, ni, m, ni, wp, lwork, inf), "cusolverDnSpotrf", "cholesky");
    else if constexpr (std::is_same_v<T, double>)
      check_cusolver(cusolverDnDpotrf(h, up, ni, m, ni, wp, lwork, inf), "cusolverDnDpotrf", "cholesky");
    else if constexpr (std::is_same_v<T, complex<float>>)
      check_cusolver(cusolverDnCpotrf(h, up, ni, m, ni, wp, lwork, inf), "cusolverDnCpotrf", "cholesky");
    else
      check_cusolver(cusolverDnZpotrf(h, up, ni, m, ni, wp, lwork, inf), "cusolverDnZpotrf", "cholesky");
  }
}

template <class T>
void register_cusolver_potrf() {
  tl::detail::fill_device_slot<cusolver_potrf_key<T>, cusolver_potrf_fn, &cusolver_potrf_launch<T>>();
}

}  // namespace tl::linalg::detail
