#pragma once
/// @file device.hpp
/// @brief Internal header: tl::linalg functions of CUDA tensors on cuSOLVER. Host code only (no
/// CUDA headers): it finds the cuSOLVER launchers through device slots that tl/linalg/cuda/*.cuh
/// fill in translation units compiled by nvcc (see tl/eval/device_slot.hpp).
#include <cstdint>
#include <type_traits>

#include "tl/core/creation.hpp"
#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/eval/device_slot.hpp"
#include "tl/expr/elementwise.hpp"
#include "tl/linalg/detail/batch.hpp"

namespace tl::linalg::detail {

/// The cuSOLVER launcher of slot Key (signature Fn). A translation unit compiled by nvcc fills the
/// slot here (Key::register_launcher, in tl/linalg/cuda/solver.cuh); elsewhere the slot is filled
/// if any nvcc translation unit of the program instantiated the same launcher, else this throws
/// tl::device_error naming the op.
template <class Key, class Fn>
Fn device_launcher(const char* op) {
#if defined(__CUDACC__)
  Key::register_launcher();
#endif
  return tl::detail::require_device_slot<Key, Fn>(cat_str("linalg::", op).c_str());
}

template <class T>
struct cusolver_potrf_key {
  static void register_launcher();  // defined in tl/linalg/cuda/solver.cuh (nvcc only)
};
/// Cholesky factorization of `batch` contiguous row-major n x n matrices C in place on `device`,
/// reading C's upper triangle as the Hermitian matrix it defines: afterwards that triangle holds U
/// with C = U^H U (the strict lower triangle is left as it was). info[b] (device memory) is 0 or
/// the order of the first leading minor that is not positive-definite. Queued on the current tl
/// stream.
using cusolver_potrf_fn = void (*)(index_t batch, index_t n, void* a, std::int32_t* info, int device);

template <class T>
cusolver_potrf_fn device_potrf(const char* op) {
  return device_launcher<cusolver_potrf_key<T>, cusolver_potrf_fn>(op);
}

template <class T>
struct cusolver_syevd_key {
  static void register_launcher();  // defined in tl/linalg/cuda/solver.cuh (nvcc only)
};
/// Eigenvalues (ascending) and, with `vectors`, eigenvectors of `batch` contiguous n x n Hermitian
/// matrices read column-major (cuSOLVER's syevd / heevd) on `device`: only the `lower` (else the
/// upper) column-major triangle is read; w (device memory, real, batch x n) gets the eigenvalues;
/// with vectors each matrix is overwritten by its orthonormal eigenvectors (the columns of the
/// column-major matrix). info[b] (device memory) is 0, or positive when the iteration did not
/// converge. Queued on the current tl stream.
using cusolver_syevd_fn = void (*)(index_t batch, index_t n, bool vectors, bool lower, void* a, void* w,
                                   std::int32_t* info, int device);

template <class T>
cusolver_syevd_fn device_syevd(const char* op) {
  return device_launcher<cusolver_syevd_key<T>, cusolver_syevd_fn>(op);
}

template <class T>
struct cusolver_getrf_key {
  static void register_launcher();  // defined in tl/linalg/cuda/solver.cuh (nvcc only)
};
/// LU factorization of `batch` contiguous m x n matrices read column-major, in place on `device`
/// (cuSOLVER's getrf): with partial pivoting, ipiv (device memory, int64, batch x min(m, n)) gets
/// the 1-based row interchanges; a null ipiv factors without row interchanges. info[b] (device
/// memory) is 0 or the 1-based index of the first exactly zero pivot. Queued on the current tl
/// stream.
using cusolver_getrf_fn = void (*)(index_t batch, index_t m, index_t n, void* a, std::int64_t* ipiv,
                                   std::int32_t* info, int device);

template <class T>
struct cusolver_getrs_key {
  static void register_launcher();  // defined in tl/linalg/cuda/solver.cuh (nvcc only)
};
/// Solves op(M_q) X_q = B_q for q < batch (cuSOLVER's getrs; op is the transpose when `trans`,
/// never conjugated): M_q is the getrf-factored column-major n x n matrix at element offset
/// lu_offset[q] (host memory) of `lu`, with its pivots at ipiv + lu_offset[q] / n; B_q is the
/// column-major n x nrhs matrix at b + q n nrhs, overwritten by X_q. Queued on the current tl stream.
using cusolver_getrs_fn = void (*)(index_t batch, index_t n, index_t nrhs, bool trans, const void* lu,
                                   const index_t* lu_offset, const std::int64_t* ipiv, void* b, int device);

template <class T>
cusolver_getrf_fn device_getrf(const char* op) {
  return device_launcher<cusolver_getrf_key<T>, cusolver_getrf_fn>(op);
}

template <class T>
cusolver_getrs_fn device_getrs(const char* op) {
  return device_launcher<cusolver_getrs_key<T>, cusolver_getrs_fn>(op);
}

/// Throws tl::device_error unless both operands are on one device; returns that device.
template <class EA, class EB>
tl::device same_device(const char* op, const EA& a, const EB& b) {
  const tl::device da = tl::detail::expression_device(a), db = tl::detail::expression_device(b);
  if (da != db)
    throw device_error(cat_str("tl::linalg::", op, ": A is on ", da.str(), " and B on ", db.str(),
                               "; move both to one device first (e.g. b.to(a.device()))"));
  return da;
}

/// Throws tl::device_error: gradients of tl::linalg functions of CUDA tensors are not recorded yet.
template <class E>
void require_no_device_grad(const char* op, const E& e) {
  if constexpr (TL_AUTOGRAD != 0) {
    if (tl::detail::must_record(e))
      throw device_error(cat_str("tl::linalg::", op,
                                 ": gradients of this function of CUDA tensors are not recorded yet; call it on "
                                 "x.detach() or under tl::no_grad, or on a CPU tensor"));
  }
}

/// The lower (or upper) triangle of the trailing n x n matrices of a, zeros elsewhere, evaluated
/// on a's device.
template <class T, std::size_t R>
tensor<T, R> triangle_of(const tensor<T, R>& a, bool upper) {
  const index_t n = a.shape()[R - 1];
  const auto idx = tl::arange<std::int64_t>(std::int64_t{0}, n, std::int64_t{1}, a.device());
  const auto row = idx.reshape(n, 1), col = idx.reshape(1, n);
  if (upper) return tensor<T, R>(tl::where(row <= col, a, T(0)));
  return tensor<T, R>(tl::where(row >= col, a, T(0)));
}

}  // namespace tl::linalg::detail
