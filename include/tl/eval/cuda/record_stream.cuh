#pragma once
/// @file record_stream.cuh
/// @brief tl::cuda::record_stream (nvcc only): marks a tensor's device memory as used on another
/// stream, so that the caching allocator does not hand it out again before the work queued there
/// has finished (torch's Tensor.record_stream).
///
/// A device block is reused only on the stream it was allocated on, which keeps reuse safe in
/// stream order. A tensor allocated on one stream and read or written by work queued on another
/// needs this call: without it, once the tensor is freed its block can be handed to the next
/// allocation on the first stream while the other stream's kernel still uses it.
#include <cuda_runtime.h>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/eval/cuda/allocator.cuh"
#include "tl/eval/cuda/runtime.cuh"

namespace tl::cuda {

/// @brief Marks t's memory as used on stream s: when the last tensor on it is freed, the block is
/// reused only after the work queued on s by then has finished. A no-op for an empty tensor or
/// the stream the memory was allocated on; throws tl::device_error for a host tensor.
///
/// @code
/// tl::cuda::stream side;
/// {
///   tl::cuda::stream_guard g(side);
///   y = tl::exp(x);                  // reads x, allocated on the default stream, on `side`
/// }
/// tl::cuda::record_stream(x, side);  // x's block now waits for `side` when x is freed
/// @endcode
template <class T, class Ext>
void record_stream(const basic_tensor<T, Ext>& t, cudaStream_t s) {
  if (!t.defined()) return;
  if (!t.is_cuda())
    throw device_error(tl::detail::cat_str("tl::cuda::record_stream: the tensor is on ", t.device().str(),
                                           "; only CUDA tensors have stream-ordered memory"));
  const auto& st = t.storage_handle();
  if (!st->ptr) return;
  detail::caching_allocator::instance().record_stream(st->ptr, s, t.device().index());
}

/// @brief record_stream(t, s.handle()).
template <class T, class Ext>
void record_stream(const basic_tensor<T, Ext>& t, const stream& s) {
  record_stream(t, s.handle());
}

}  // namespace tl::cuda
