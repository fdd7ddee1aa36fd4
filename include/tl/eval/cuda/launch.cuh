#pragma once
/// @file launch.cuh
/// @brief Internal: helpers shared by the CUDA reduction, scan, softmax and sort launchers (nvcc only;
/// detail header): scratch memory from the caching allocator, grid sizes, and the "lines" view of
/// a node along one dim.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>

#include "tl/eval/cuda/allocator.cuh"
#include "tl/eval/cuda/kernels/access.cuh"
#include "tl/eval/cuda/runtime.cuh"

namespace tl::detail {

/// Device memory from the caching allocator, returned to it at scope exit (stream-ordered: work
/// queued on the current stream before the release still sees it).
class cuda_scratch {
 public:
  cuda_scratch(std::size_t bytes, int dev)
      : m_p(tl::cuda::detail::caching_allocator::instance().allocate(bytes, dev)), m_dev(dev) {}
  cuda_scratch(const cuda_scratch&) = delete;
  cuda_scratch& operator=(const cuda_scratch&) = delete;
  ~cuda_scratch() { tl::cuda::detail::caching_allocator::instance().release(m_p, m_dev); }
  template <class T>
  T* as() const {
    return static_cast<T*>(m_p);
  }

 private:
  void* m_p;
  int m_dev;
};

/// Blocks for `want` blocks of work, capped (grid-stride loops cover the rest; the cap never changes
/// what a task computes).
inline unsigned cuda_blocks(index_t want, int dev) {
  const index_t cap = static_cast<index_t>(tl::cuda::detail::sm_count(dev)) * 32;
  return static_cast<unsigned>(std::max<index_t>(1, std::min(want, cap)));
}

/// Extents of a node's shape as a kernel argument.
template <std::size_t R>
cuda_kernels::extents_arg<R> cuda_extents(const shape_t<R>& s) {
  cuda_kernels::extents_arg<R> e{};
  for (std::size_t d = 0; d < R; ++d) e.e[d] = s[d];
  return e;
}

/// A node viewed as lines along dim d (d permuted last): `nlines` lines of `len` elements, read
/// through `access`; `layout` places line o of a contiguous output of the node's shape.
template <class P>
struct cuda_lines {
  static constexpr std::size_t R = P::rank;
  cuda_kernels::row_access<P> access;
  cuda_kernels::line_layout<R> layout;
  index_t nlines;
  index_t len;
};

/// The lines of a plain node (to_plain) of rank >= 1 along dim d.
template <class N>
auto cuda_lines_of(const N& node, std::size_t d) {
  constexpr std::size_t R = N::rank;
  const auto sh = node.shape();
  std::array<std::size_t, R> perm{};
  std::size_t m = 0;
  for (std::size_t k = 0; k < R; ++k)
    if (k != d) perm[m++] = k;
  perm[R - 1] = d;
  const auto p = node.bcast(sh).permute(perm);
  using P = std::remove_cv_t<decltype(p)>;
  cuda_lines<P> l{{p, cuda_extents<R>(p.shape()), sh[d]}, {}, 1, sh[d]};
  const auto cs = contiguous_strides(sh);
  for (std::size_t k = 0; k + 1 < R; ++k) {
    l.layout.ext[k] = sh[perm[k]];
    l.layout.str[k] = cs[perm[k]];
    l.nlines *= sh[perm[k]];
  }
  l.layout.step = cs[d];
  return l;
}

}  // namespace tl::detail
