#pragma once
/// @file device_gemm.hpp
/// @brief Internal header: tl::matmul of CUDA tensors, one cuBLAS strided-batched GEMM per call.
/// Host code only (no CUDA headers): it finds the cuBLAS launcher through a device slot that
/// tl/ops/cuda/gemm.cuh fills in translation units compiled by nvcc (see tl/eval/device_slot.hpp).
/// Included by tl/ops/matmul.hpp after its operand helpers (contiguous_as).
#include <array>
#include <cstddef>
#include <type_traits>

#include "tl/core/creation.hpp"
#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/eval/device_slot.hpp"
#include "tl/linalg/detail/gemm.hpp"
#include "tl/ops/detail/loops.hpp"

namespace tl::detail {

template <class V>
struct cublas_gemm_key {};
/// C[i] = A[i] B[i] for i < batch: row-major, contiguous m x k, k x n and m x n matrices on
/// `device`, consecutive matrices stride_a, stride_b (0: the same matrix for every i) and m n
/// elements apart. Queued on the current tl stream.
using cublas_gemm_fn = void (*)(index_t batch, index_t m, index_t n, index_t k, const void* a, index_t stride_a,
                                const void* b, index_t stride_b, void* c, int device);

// Fills the slot (tl/ops/cuda/gemm.cuh; nvcc only).
template <class V>
void register_cublas_gemm();

template <class V>
cublas_gemm_fn device_gemm_launcher() {
#if defined(__CUDACC__)
  register_cublas_gemm<V>();
#endif
  return require_device_slot<cublas_gemm_key<V>, cublas_gemm_fn>("matmul");
}

/// How an operand's matrices line up with the broadcast batch: one matrix for every product
/// (stride 0), one matrix per product in order (stride = matrix size), or neither (a broadcast dim
/// between batched ones: the products are then issued per matrix).
enum class batch_layout { single, full, mixed };

template <std::size_t RX, std::size_t BR>
batch_layout layout_of(const shape_t<RX>& xs, const shape_t<BR>& batch) {
  constexpr std::size_t BX = RX > 2 ? RX - 2 : 0;
  index_t count = 1;
  bool full = true;
  for (std::size_t q = 0; q < BR; ++q) {
    const std::ptrdiff_t qx = static_cast<std::ptrdiff_t>(q) - static_cast<std::ptrdiff_t>(BR - BX);
    const index_t e = qx >= 0 ? xs[qx] : 1;
    count *= e;
    if (e != batch[q]) full = false;
  }
  if (count == 1) return batch_layout::single;
  return full ? batch_layout::full : batch_layout::mixed;
}

/// matmul of operands on a CUDA device (shapes already checked by tl::matmul): the operands are
/// made contiguous in dtype V on the device, then multiplied by cuBLAS. `os` is the result shape,
/// `batch` the broadcast batch dims, m x k times k x n each product.
template <class V, std::size_t RO, class A, class B, std::size_t BR>
tensor<V, RO> device_matmul(const A& a, const B& b, const shape_t<RO>& os, const shape_t<BR>& batch, index_t m,
                            index_t n, index_t k, tl::device dev) {
  using DA = std::remove_cvref_t<A>;
  using DB = std::remove_cvref_t<B>;
  if constexpr (!linalg::detail::gemm_type_v<V>) {
    throw device_error(cat_str("tl::matmul: products of ", dtype_name<V>(),
                               " tensors on a CUDA device are not supported (cuBLAS has no such GEMM; torch "
                               "raises the same); cast the operands to float or double first"));
  } else {
    tensor<V, RO> out = zeros<V>(os, dev);
    if (out.numel() == 0 || k == 0) return out;
    const auto ac = contiguous_as<V>(a);
    const auto bc = contiguous_as<V>(b);
    const cublas_gemm_fn gemm = device_gemm_launcher<V>();
    const batch_layout la = layout_of<DA::rank>(ac.shape(), batch), lb = layout_of<DB::rank>(bc.shape(), batch);
    const index_t nbatch = numel(batch);
    if (la != batch_layout::mixed && lb != batch_layout::mixed) {
      gemm(nbatch, m, n, k, ac.data(), la == batch_layout::full ? m * k : 0, bc.data(),
           lb == batch_layout::full ? k * n : 0, out.data(), dev.index());
      return out;
    }
    // A broadcast dim between batched ones: one product per result matrix, each operand's matrix
    // found through its batch strides (0 on broadcast dims).
    constexpr std::size_t BA = DA::rank > 2 ? DA::rank - 2 : 0, BB = DB::rank > 2 ? DB::rank - 2 : 0;
    shape_t<BR> sa{}, sb{};
    {
      index_t acc_a = m * k, acc_b = k * n;
      for (std::size_t q = BR; q-- > 0;) {
        const std::ptrdiff_t qa = static_cast<std::ptrdiff_t>(q) - static_cast<std::ptrdiff_t>(BR - BA);
        const std::ptrdiff_t qb = static_cast<std::ptrdiff_t>(q) - static_cast<std::ptrdiff_t>(BR - BB);
        const index_t ea = qa >= 0 ? ac.shape()[qa] : 1, eb = qb >= 0 ? bc.shape()[qb] : 1;
        sa[q] = ea == 1 ? 0 : acc_a;
        sb[q] = eb == 1 ? 0 : acc_b;
        acc_a *= ea;
        acc_b *= eb;
      }
    }
    for (index_t bi = 0; bi < nbatch; ++bi) {
      std::array<index_t, BR> bix{};
      unravel(batch, bi, bix);
      gemm(1, m, n, k, ac.data() + offset_of(bix, sa), 0, bc.data() + offset_of(bix, sb), 0, out.data() + bi * m * n,
           dev.index());
    }
    return out;
  }
}

}  // namespace tl::detail
