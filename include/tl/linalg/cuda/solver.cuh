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
#include <vector>

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

/// cuSOLVER's data type tag of tl's dtype T.
template <class T>
constexpr cudaDataType cusolver_type() {
  if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, complex<float>>) return CUDA_C_32F;
  else return CUDA_C_64F;
}

/// This thread's cuSOLVER parameter object for `device` (default options), for the 64-bit API.
inline cusolverDnParams_t cusolver_params(int device) {
  return tl::cuda::detail::per_thread_handle<cusolverDnParams_t, cusolverDnDestroyParams>(device, [] {
    cusolverDnParams_t p;
    check_cusolver(cusolverDnCreateParams(&p), "cusolverDnCreateParams", "linalg");
    return p;
  });
}

/// The handle for `device` on the current tl stream.
inline cusolverDnHandle_t cusolver_on_stream(int device, const char* op) {
  const cusolverDnHandle_t h = cusolver_handle(device);
  check_cusolver(cusolverDnSetStream(h, tl::cuda::current_stream()), "cusolverDnSetStream", op);
  return h;
}

/// A device workspace of at least `bytes` from tl's caching allocator (stream-ordered like the calls).
inline tensor<std::int64_t, 1> cusolver_workspace(std::size_t bytes, int device) {
  return tl::empty<std::int64_t>(shape_t<1>{static_cast<index_t>(std::max<std::size_t>(bytes, 8) / 8 + 1)},
                                 tl::device::cuda(device));
}

template <class T>
void cusolver_potrf_launch(index_t batch, index_t n, void* a, std::int32_t* info, int device) {
  using C = cusolver_t<T>;
  static_assert(sizeof(C) == sizeof(T), "tl: the cuSOLVER type must have the layout of tl's dtype");
  if (n > 0 && n > INT_MAX / n)
    throw tl::value_error(
        cat_str("tl::linalg::cholesky: a ", n, " x ", n, " matrix is beyond what one cuSOLVER call addresses"));
  tl::cuda::device_guard guard(device);
  const cusolverDnHandle_t h = cusolver_on_stream(device, "cholesky");
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
void cusolver_potrf_key<T>::register_launcher() {
  tl::detail::fill_device_slot<cusolver_potrf_key<T>, cusolver_potrf_fn, &cusolver_potrf_launch<T>>();
}

template <class T>
void cusolver_syevd_launch(index_t batch, index_t n, bool vectors, bool lower, void* a, void* w, std::int32_t* info,
                           int device) {
  using RT = real_t<T>;
  tl::cuda::device_guard guard(device);
  const cusolverDnHandle_t h = cusolver_on_stream(device, "eigh");
  const cusolverDnParams_t params = cusolver_params(device);
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  constexpr cudaDataType ta = cusolver_type<T>(), tw = cusolver_type<RT>();
  T* ap = static_cast<T*>(a);
  RT* wp = static_cast<RT*>(w);
  std::size_t dev_bytes = 0, host_bytes = 0;
  check_cusolver(cusolverDnXsyevd_bufferSize(h, params, jobz, uplo, n, ta, ap, n, tw, wp, ta, &dev_bytes, &host_bytes),
                 "cusolverDnXsyevd_bufferSize", "eigh");
  tensor<std::int64_t, 1> work = cusolver_workspace(dev_bytes, device);
  std::vector<unsigned char> host_work(std::max<std::size_t>(host_bytes, 1));
  for (index_t b = 0; b < batch; ++b)
    check_cusolver(cusolverDnXsyevd(h, params, jobz, uplo, n, ta, ap + b * n * n, n, tw, wp + b * n, ta, work.data(),
                                    dev_bytes, host_work.data(), host_bytes, reinterpret_cast<int*>(info + b)),
                   "cusolverDnXsyevd", "eigh");
}

template <class T>
void cusolver_getrf_launch(index_t batch, index_t m, index_t n, void* a, std::int64_t* ipiv, std::int32_t* info,
                           int device) {
  tl::cuda::device_guard guard(device);
  const cusolverDnHandle_t h = cusolver_on_stream(device, "lu_factor");
  const cusolverDnParams_t params = cusolver_params(device);
  constexpr cudaDataType ta = cusolver_type<T>();
  T* ap = static_cast<T*>(a);
  const index_t k = std::min(m, n), lda = std::max<index_t>(m, 1);
  std::size_t dev_bytes = 0, host_bytes = 0;
  check_cusolver(cusolverDnXgetrf_bufferSize(h, params, m, n, ta, ap, lda, ta, &dev_bytes, &host_bytes),
                 "cusolverDnXgetrf_bufferSize", "lu_factor");
  tensor<std::int64_t, 1> work = cusolver_workspace(dev_bytes, device);
  std::vector<unsigned char> host_work(std::max<std::size_t>(host_bytes, 1));
  for (index_t b = 0; b < batch; ++b)
    check_cusolver(cusolverDnXgetrf(h, params, m, n, ta, ap + b * m * n, lda, ipiv ? ipiv + b * k : nullptr, ta,
                                    work.data(), dev_bytes, host_work.data(), host_bytes,
                                    reinterpret_cast<int*>(info + b)),
                   "cusolverDnXgetrf", "lu_factor");
}

template <class T>
void cusolver_getrs_launch(index_t batch, index_t n, index_t nrhs, bool trans, const void* lu, const index_t* lu_offset,
                           const std::int64_t* ipiv, void* b, int device) {
  tl::cuda::device_guard guard(device);
  const cusolverDnHandle_t h = cusolver_on_stream(device, "solve");
  const cusolverDnParams_t params = cusolver_params(device);
  constexpr cudaDataType ta = cusolver_type<T>();
  const T* lp = static_cast<const T*>(lu);
  T* bp = static_cast<T*>(b);
  // getrs reports only invalid arguments in info (the factorization's info was read before).
  tensor<std::int32_t, 1> info = tl::zeros<std::int32_t>(shape_t<1>{1}, tl::device::cuda(device));
  for (index_t q = 0; q < batch; ++q)
    check_cusolver(cusolverDnXgetrs(h, params, trans ? CUBLAS_OP_T : CUBLAS_OP_N, n, nrhs, ta, lp + lu_offset[q], n,
                                    ipiv + lu_offset[q] / std::max<index_t>(n, 1), ta, bp + q * n * nrhs, n,
                                    reinterpret_cast<int*>(info.data())),
                   "cusolverDnXgetrs", "solve");
}

template <class T>
void cusolver_getrf_key<T>::register_launcher() {
  tl::detail::fill_device_slot<cusolver_getrf_key<T>, cusolver_getrf_fn, &cusolver_getrf_launch<T>>();
}

template <class T>
void cusolver_getrs_key<T>::register_launcher() {
  tl::detail::fill_device_slot<cusolver_getrs_key<T>, cusolver_getrs_fn, &cusolver_getrs_launch<T>>();
}

template <class T>
void cusolver_syevd_key<T>::register_launcher() {
  tl::detail::fill_device_slot<cusolver_syevd_key<T>, cusolver_syevd_fn, &cusolver_syevd_launch<T>>();
}

}  // namespace tl::linalg::detail
