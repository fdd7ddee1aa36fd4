#pragma once
/// @file aligned_buffer.hpp
/// @brief Internal header: a growable, 64-byte aligned scratch buffer (GEMM packing, LU panels), and
/// the leading dimension of column-major work matrices.
#include <cstddef>
#include <memory>
#include <new>

#include "tl/core/config.hpp"

namespace tl::linalg::detail {

/// @brief The leading dimension of a column-major work matrix with m rows of T: m, or m plus one
/// cache line when a column spans a multiple of 2 KiB. With such a stride (e.g. 256 or 1024 doubles)
/// the columns of a GEMM tile all map to the same few L1 cache sets and evict each other; one line
/// of padding spreads them (a 1024 x 1024 double QR runs 1.7x faster).
template <class T>
constexpr index_t padded_ld(index_t m) {
  constexpr index_t line = 64 / static_cast<index_t>(sizeof(T)) > 0 ? 64 / static_cast<index_t>(sizeof(T)) : 1;
  return m >= line && (m * static_cast<index_t>(sizeof(T))) % 2048 == 0 ? m + line : m;
}

/// @brief Uninitialized scratch memory of trivially copyable T, aligned to 64 bytes; `get(n)`
/// returns room for at least n elements, reusing the allocation when it is large enough.
template <class T>
class aligned_buffer {
 public:
  static constexpr std::size_t alignment = 64;
  aligned_buffer() = default;
  aligned_buffer(const aligned_buffer&) = delete;
  aligned_buffer& operator=(const aligned_buffer&) = delete;
  ~aligned_buffer() { release(); }

  T* get(std::size_t n) {
    if (n > m_cap) {
      release();
      // Round up so that repeated growth by small amounts does not reallocate every time.
      const std::size_t cap = n + n / 4 + 64;
      m_ptr = static_cast<T*>(::operator new(cap * sizeof(T), std::align_val_t{alignment}));
      m_cap = cap;
    }
    return m_ptr;
  }

 private:
  void release() {
    if (m_ptr) ::operator delete(m_ptr, std::align_val_t{alignment});
    m_ptr = nullptr;
    m_cap = 0;
  }
  T* m_ptr = nullptr;
  std::size_t m_cap = 0;
};

/// @brief Uninitialized room for n values of T for one work matrix: up to 64 MiB a per-thread buffer
/// kept between calls (one per Tag, so that call sites do not share it), else `fallback`, freed by
/// the caller. Fresh pages cost a page fault each on first touch: about 10 ms for the 8 MiB of a
/// 1024 x 1024 double matrix on a virtual machine, a third of that matrix's LU.
template <class Tag, class T>
T* reusable_scratch(std::size_t n, std::unique_ptr<T[]>& fallback) {
  if (n * sizeof(T) <= (std::size_t{64} << 20)) {
    thread_local aligned_buffer<T> buf;
    return buf.get(n);
  }
  fallback = std::make_unique_for_overwrite<T[]>(n);
  return fallback.get();
}

}  // namespace tl::linalg::detail
