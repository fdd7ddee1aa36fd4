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

template <class T>
struct cusolver_potrf_key {};
/// Cholesky factorization of `batch` contiguous row-major n x n matrices C in place on `device`,
/// reading C's upper triangle as the Hermitian matrix it defines: afterwards that triangle holds U
/// with C = U^H U (the strict lower triangle is left as it was). info[b] (device memory) is 0 or
/// the order of the first leading minor that is not positive-definite. Queued on the current tl
/// stream.
using cusolver_potrf_fn = void (*)(index_t batch, index_t n, void* a, std::int32_t* info, int device);

// Fills the slot (tl/linalg/cuda/potrf.cuh; nvcc only).
template <class T>
void register_cusolver_potrf();

template <class T>
cusolver_potrf_fn device_potrf(const char* op) {
#if defined(__CUDACC__)
  register_cusolver_potrf<T>();
#endif
  return tl::detail::require_device_slot<cusolver_potrf_key<T>, cusolver_potrf_fn>(cat_str("linalg::", op).c_str());
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
