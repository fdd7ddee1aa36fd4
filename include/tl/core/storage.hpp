#pragma once
/// @file storage.hpp
/// @brief Reference-counted storage shared by a tensor and its views: 64-byte aligned host memory,
/// page-locked host memory, or CUDA device memory from the caching allocator.
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "tl/core/device.hpp"

namespace tl::detail {

/// @brief A block of raw memory on one device; tensors and views hold it through a shared_ptr.
struct storage {
  static constexpr std::size_t alignment = 64;
  void* ptr = nullptr;
  std::size_t nbytes = 0;
  /// The block host memory came from (ptr rounded up to the alignment inside it).
  void* raw = nullptr;
  /// Bumped by every in-place write through a tensor on this storage (used by autograd's checks).
  std::uint64_t version = 0;
  tl::device dev{};
  bool pinned = false;
  /// Allocated in inference mode (tl::inference_mode): such tensors cannot be saved for backward.
  bool inference = false;

  /// Host memory (pinned: page-locked through the CUDA runtime) or memory on CUDA device `d`.
  explicit storage(std::size_t bytes, tl::device d = tl::device::cpu, bool pin = false)
      : nbytes(bytes), dev(d), pinned(pin && d.is_cpu()) {
    if (dev.is_cuda()) {
      ptr = require_device_runtime("allocate").allocate(bytes, dev.index());
    } else if (pinned) {
      ptr = require_device_runtime("pin_memory").allocate_pinned(bytes ? bytes : alignment);
    } else {
      // Over-allocate and align by hand: the plain allocator serves small blocks from its
      // per-thread caches, while aligned allocation splits and coalesces chunks on every call
      // (several times slower for the small tensors of a tight loop).
      // Under AddressSanitizer the exact aligned block keeps overruns detectable.
#if defined(__SANITIZE_ADDRESS__)
      raw = ::operator new(bytes ? bytes : alignment, std::align_val_t{alignment});
      ptr = raw;
#else
      raw = ::operator new(bytes + alignment);
      const auto a = reinterpret_cast<std::uintptr_t>(raw);
      ptr = reinterpret_cast<void*>((a + alignment) & ~std::uintptr_t{alignment - 1});
#endif
    }
  }
  storage(const storage&) = delete;
  storage& operator=(const storage&) = delete;
  ~storage() {
    if (dev.is_cuda()) device_runtime_ptr()->release(ptr, nbytes, dev.index());
    else if (pinned) device_runtime_ptr()->release_pinned(ptr);
    else {
#if defined(__SANITIZE_ADDRESS__)
      ::operator delete(raw, std::align_val_t{alignment});
#else
      ::operator delete(raw);
#endif
    }
  }
};

inline std::shared_ptr<storage> make_storage(std::size_t bytes, tl::device d = tl::device::cpu, bool pin = false) {
  return std::make_shared<storage>(bytes, d, pin);
}

}  // namespace tl::detail
