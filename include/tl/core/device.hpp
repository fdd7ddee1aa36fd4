#pragma once
/// @file device.hpp
/// @brief Memory spaces: `tl::device::cpu` and `tl::device::cuda(i)`, and the hook table through which
/// host code reaches the CUDA runtime without including a CUDA header.
///
/// A tensor's storage lives on one device, chosen at creation and changed with `.to(d)`:
/// @code
/// auto a = tl::zeros<float>(1024, 1024, tl::device::cuda());  // on GPU 0
/// auto h = a.cpu();                                          // copy back to the host
/// @endcode
/// CUDA support is compiled by nvcc: any translation unit that includes `<tl/tensor.hpp>` (or
/// `<tl/cuda.hpp>`) under nvcc installs the runtime hooks for the whole program. A program with no
/// such translation unit gets a tl::device_error when it asks for CUDA memory.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

#include "tl/core/error.hpp"

namespace tl {

/// @brief Where a tensor's elements live: the host (`device::cpu`) or a CUDA device (`device::cuda(i)`).
class device {
 public:
  enum class kind : std::uint8_t { cpu = 0, cuda = 1 };

  constexpr device() = default;
  constexpr device(kind k, int index) : m_kind(k), m_index(static_cast<std::int16_t>(k == kind::cpu ? 0 : index)) {}

  /// @brief The host.
  static const device cpu;
  /// @brief CUDA device `index` (default 0).
  static constexpr device cuda(int index = 0) { return device(kind::cuda, index); }

  constexpr kind type() const { return m_kind; }
  constexpr int index() const { return m_index; }
  constexpr bool is_cpu() const { return m_kind == kind::cpu; }
  constexpr bool is_cuda() const { return m_kind == kind::cuda; }
  friend constexpr bool operator==(const device&, const device&) = default;

  /// @brief "cpu" or "cuda:i" (torch's spelling).
  std::string str() const { return is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(m_index); }
  friend std::ostream& operator<<(std::ostream& os, const device& d) { return os << d.str(); }

 private:
  kind m_kind = kind::cpu;
  std::int16_t m_index = 0;
};
inline constexpr device device::cpu{};

namespace detail {

/// The CUDA runtime as host code sees it: installed by the CUDA evaluator (tl/eval/cuda/runtime.cuh)
/// when any nvcc-compiled translation unit of the program includes tl. All functions throw
/// tl::cuda_error on failure (except release, which must not throw).
struct device_runtime {
  /// Device memory from the caching allocator, ordered on the current stream.
  void* (*allocate)(std::size_t bytes, int dev);
  void (*release)(void* p, std::size_t bytes, int dev) noexcept;
  /// Page-locked host memory.
  void* (*allocate_pinned)(std::size_t bytes);
  void (*release_pinned)(void* p) noexcept;
  /// Copies bytes between any two spaces on the current stream; waits for completion unless `async`.
  void (*copy)(void* dst, device dd, const void* src, device sd, std::size_t bytes, bool async);
};

/// The installed runtime (null until an nvcc translation unit installs it).
inline const device_runtime*& device_runtime_ptr() {
  static const device_runtime* rt = nullptr;
  return rt;
}

/// The runtime, or a device_error saying how to get one.
inline const device_runtime& require_device_runtime(const char* op) {
  const device_runtime* rt = device_runtime_ptr();
  if (!rt)
    throw device_error(cat_str("tl::", op,
                               ": CUDA support is not part of this program; compile at least one translation "
                               "unit that includes <tl/tensor.hpp> with nvcc (CMake: TL_ENABLE_CUDA / CUDA language)"));
  return *rt;
}

/// Throws when two operands of `op` live on different devices.
inline void check_same_device(const char* op, device a, device b) {
  if (a != b)
    throw device_error(cat_str("tl::", op, ": operands live on different devices (", a.str(), " and ", b.str(),
                               "); move one with .to(...), .cpu() or .cuda()"));
}

}  // namespace detail
}  // namespace tl
