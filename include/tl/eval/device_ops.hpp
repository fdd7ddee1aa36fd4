#pragma once
/// @file device_ops.hpp
/// @brief Internal: keys and launcher signatures of the CUDA reductions, scans, softmax and sort
/// (detail header; no CUDA headers).
///
/// Host code finds each launcher through a device_slot (tl/eval/device_slot.hpp) keyed by the
/// template arguments of the instantiation; the launchers themselves live in tl/eval/cuda/
/// (reduce.cuh, scan.cuh, softmax.cuh, sort.cuh) and fill their slots when an nvcc translation
/// unit instantiates them.
#include <array>
#include <cstddef>
#include <cstdint>

#include "tl/core/extents.hpp"
#include "tl/eval/device_slot.hpp"

namespace tl::detail {

/// Reducer Red over node N; output o gets `fin.finish(acc_o, o)` (Out* is device memory, outputs in
/// row-major order of the kept dims).
template <class Red, class N, class Out, class Fin>
struct cuda_reduce_key {};
template <class Red, class N, class Out, class Fin>
using cuda_reduce_fn = void (*)(const Red& red, const N& node, const std::array<bool, N::rank>& mask, Out* out,
                                const Fin& fin, int dev);

/// cumsum (IsProd false) / cumprod of node N along dim d into a contiguous tensor of node's shape.
template <bool IsProd, class N, class S>
struct cuda_scan_key {};
template <class N, class S>
using cuda_scan_fn = void (*)(const N& node, std::size_t d, S* out, int dev);

/// softmax (Log false) / log_softmax of node N along dim d into a contiguous tensor of node's shape.
template <bool Log, class N, class V>
struct cuda_softmax_key {};
template <class N, class V>
using cuda_softmax_fn = void (*)(const N& node, std::size_t d, V* out, int dev);

/// Stable sort of a strided rank-R array along dim d into contiguous values and int64 indices.
template <class T, std::size_t R>
struct cuda_sort_key {};
template <class T, std::size_t R>
using cuda_sort_fn = void (*)(const T* src, const shape_t<R>& shape, const shape_t<R>& strides, std::size_t d,
                              bool descending, T* values, std::int64_t* indices, int dev);

}  // namespace tl::detail
