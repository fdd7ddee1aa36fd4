#pragma once
/// @file storage.hpp
/// @brief Reference-counted, 64-byte aligned host storage shared by a tensor and its views.
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

namespace tl::detail {

/// @brief A block of raw memory; tensors and views hold it through a shared_ptr.
struct storage {
  static constexpr std::size_t alignment = 64;
  void* ptr = nullptr;
  std::size_t nbytes = 0;
  /// Bumped by every in-place write through a tensor on this storage (used by autograd's checks).
  std::uint64_t version = 0;

  explicit storage(std::size_t bytes) : nbytes(bytes) {
    ptr = ::operator new(bytes ? bytes : alignment, std::align_val_t{alignment});
  }
  storage(const storage&) = delete;
  storage& operator=(const storage&) = delete;
  ~storage() { ::operator delete(ptr, std::align_val_t{alignment}); }
};

inline std::shared_ptr<storage> make_storage(std::size_t bytes) { return std::make_shared<storage>(bytes); }

}  // namespace tl::detail
