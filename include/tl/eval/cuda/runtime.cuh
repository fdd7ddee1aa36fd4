#pragma once
/// @file runtime.cuh
/// @brief CUDA runtime layer (nvcc only): error checking, devices, streams, events, the current-stream
/// guard, and the hook table that lets host code allocate and copy CUDA memory.
///
/// @code
/// tl::cuda::stream s;
/// {
///   tl::cuda::stream_guard g(s);    // work below is queued on s
///   y = tl::sin(x) * 2.0f;
/// }
/// s.synchronize();
/// @endcode
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <unordered_map>

#include "tl/core/device.hpp"
#include "tl/core/error.hpp"

/// @brief Checks a CUDA runtime call; throws tl::cuda_error naming the call, the error and the op.
#define TL_CUDA_CHECK(call, op) ::tl::cuda::detail::check_cuda((call), #call, (op))

namespace tl::cuda {
namespace detail {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* call, const char* op) {
  (void)cudaGetLastError();  // clear a non-sticky error so later calls are not blamed for it
  throw tl::cuda_error(tl::detail::cat_str("tl::", op, ": ", call, " failed: ", cudaGetErrorName(e), " (",
                                           cudaGetErrorString(e), ")"));
}
inline void check_cuda(cudaError_t e, const char* call, const char* op) {
  if (e != cudaSuccess) throw_cuda(e, call, op);
}

}  // namespace detail

/// @brief Number of CUDA devices visible to this process (0 without a GPU or a driver; never throws).
inline int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}
/// @brief True when at least one CUDA device can be used.
inline bool is_available() noexcept { return device_count() > 0; }

/// @brief The calling thread's current CUDA device.
inline int current_device() {
  int d = 0;
  TL_CUDA_CHECK(cudaGetDevice(&d), "cuda::current_device");
  return d;
}

namespace detail {
/// Throws a clear error when device `dev` does not exist (also when there is no GPU at all).
inline void require_device(int dev, const char* op) {
  const int n = device_count();
  if (n == 0)
    throw tl::cuda_error(tl::detail::cat_str("tl::", op, ": no CUDA device is available (cudaGetDeviceCount found none); "
                                             "run on a machine with an NVIDIA GPU or keep the tensors on tl::device::cpu"));
  if (dev < 0 || dev >= n)
    throw tl::cuda_error(tl::detail::cat_str("tl::", op, ": CUDA device ", dev, " does not exist (", n,
                                             " device(s) visible)"));
}
}  // namespace detail

/// @brief Makes `dev` the current device for the lifetime of the guard.
class device_guard {
 public:
  explicit device_guard(int dev) {
    TL_CUDA_CHECK(cudaGetDevice(&m_prev), "cuda::device_guard");
    if (dev != m_prev) {
      detail::require_device(dev, "cuda::device_guard");
      TL_CUDA_CHECK(cudaSetDevice(dev), "cuda::device_guard");
      m_set = true;
    }
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;
  ~device_guard() {
    if (m_set) (void)cudaSetDevice(m_prev);
  }

 private:
  int m_prev = 0;
  bool m_set = false;
};

namespace detail {
inline cudaStream_t& current_stream_ref() {
  thread_local cudaStream_t s = nullptr;  // the legacy default stream
  return s;
}

/// This thread's handle of a CUDA library (cuBLAS, cuSOLVER, ...) for `device`: made by make() on
/// first use (with `device` current), released by Destroy at thread exit. Library handles are not
/// shared between threads.
template <class H, auto Destroy, class Make>
H per_thread_handle(int device, Make&& make) {
  struct handles {
    std::unordered_map<int, H> by_device;
    ~handles() {
      for (auto& entry : by_device) (void)Destroy(entry.second);
    }
  };
  thread_local handles hs;
  if (auto it = hs.by_device.find(device); it != hs.by_device.end()) return it->second;
  const H h = make();
  hs.by_device.emplace(device, h);
  return h;
}
}  // namespace detail

/// @brief The stream on which this thread's tl work is queued (the default stream unless a stream_guard is active).
inline cudaStream_t current_stream() { return detail::current_stream_ref(); }

/// @brief An owning CUDA stream (non-blocking with respect to the default stream).
class stream {
 public:
  stream() { TL_CUDA_CHECK(cudaStreamCreateWithFlags(&m_s, cudaStreamNonBlocking), "cuda::stream"); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  ~stream() {
    if (m_s) (void)cudaStreamDestroy(m_s);
  }
  cudaStream_t handle() const { return m_s; }
  /// @brief Waits until all work queued on the stream has finished.
  void synchronize() const { TL_CUDA_CHECK(cudaStreamSynchronize(m_s), "cuda::stream::synchronize"); }
  /// @brief True when all queued work has finished.
  bool query() const {
    const cudaError_t e = cudaStreamQuery(m_s);
    if (e == cudaErrorNotReady) return false;
    TL_CUDA_CHECK(e, "cuda::stream::query");
    return true;
  }

 private:
  cudaStream_t m_s = nullptr;
};

/// @brief Makes `s` the current stream of this thread for the lifetime of the guard.
class stream_guard {
 public:
  explicit stream_guard(cudaStream_t s) : m_prev(detail::current_stream_ref()) { detail::current_stream_ref() = s; }
  explicit stream_guard(const stream& s) : stream_guard(s.handle()) {}
  stream_guard(const stream_guard&) = delete;
  stream_guard& operator=(const stream_guard&) = delete;
  ~stream_guard() { detail::current_stream_ref() = m_prev; }

 private:
  cudaStream_t m_prev;
};

/// @brief A CUDA event, for ordering between streams and for timing.
class event {
 public:
  explicit event(bool timing = true) {
    TL_CUDA_CHECK(cudaEventCreateWithFlags(&m_e, timing ? cudaEventDefault : cudaEventDisableTiming), "cuda::event");
  }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  ~event() {
    if (m_e) (void)cudaEventDestroy(m_e);
  }
  cudaEvent_t handle() const { return m_e; }
  /// @brief Records the event on `s` (default: the current stream).
  void record(cudaStream_t s = current_stream()) { TL_CUDA_CHECK(cudaEventRecord(m_e, s), "cuda::event::record"); }
  /// @brief Makes `s` wait for this event without blocking the host.
  void wait(cudaStream_t s = current_stream()) const {
    TL_CUDA_CHECK(cudaStreamWaitEvent(s, m_e, 0), "cuda::event::wait");
  }
  void synchronize() const { TL_CUDA_CHECK(cudaEventSynchronize(m_e), "cuda::event::synchronize"); }
  /// @brief Milliseconds between `start` and this event (both recorded, this one completed).
  float elapsed_ms(const event& start) const {
    float ms = 0;
    TL_CUDA_CHECK(cudaEventElapsedTime(&ms, start.m_e, m_e), "cuda::event::elapsed_ms");
    return ms;
  }

 private:
  cudaEvent_t m_e = nullptr;
};

/// @brief Waits for all work on the current device (torch.cuda.synchronize()).
inline void synchronize() { TL_CUDA_CHECK(cudaDeviceSynchronize(), "cuda::synchronize"); }

/// @brief Name of device `dev` (e.g. "NVIDIA H100 80GB HBM3").
inline std::string device_name(int dev = 0) {
  detail::require_device(dev, "cuda::device_name");
  cudaDeviceProp p{};
  TL_CUDA_CHECK(cudaGetDeviceProperties(&p, dev), "cuda::device_name");
  return p.name;
}

namespace detail {
/// Number of SMs of `dev` (cached; used to size grids).
inline int sm_count(int dev) {
  static int cache[64] = {};
  if (dev >= 0 && dev < 64 && cache[dev]) return cache[dev];
  int n = 0;
  TL_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev), "cuda::sm_count");
  if (dev >= 0 && dev < 64) cache[dev] = n;
  return n;
}
}  // namespace detail

}  // namespace tl::cuda
