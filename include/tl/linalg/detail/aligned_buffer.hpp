#pragma once
/// @file aligned_buffer.hpp
/// @brief Internal header: a growable, 64-byte aligned scratch buffer (GEMM packing, LU panels).
#include <cstddef>
#include <new>

#include "tl/core/config.hpp"

namespace tl::linalg::detail {

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

}  // namespace tl::linalg::detail
