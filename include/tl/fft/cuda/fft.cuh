#pragma once
/// @file fft.cuh
/// @brief cuFFT behind tl::fft for CUDA tensors (nvcc only; included by tl/fft/fft.hpp when
/// compiled by nvcc). Fills the device slot that tl/fft/detail/device.hpp looks up, with a
/// launcher that runs one cuFFT plan per (kind, precision, length, batch layout, device) on the
/// current tl stream. Plans live in a bounded cache guarded by a mutex (a plan is used by one
/// thread at a time: stream binding and execution happen under the lock).
///
/// Programs that use it link cuFFT (CMake: CUDA::cufft).
#if !defined(__CUDACC__)
#error "tl/fft/cuda/fft.cuh is the cuFFT layer of tl::fft: compile this translation unit with nvcc"
#endif

#include <cufft.h>

#include <climits>
#include <cstddef>
#include <list>
#include <mutex>
#include <type_traits>

#include "tl/core/error.hpp"
#include "tl/eval/cuda/runtime.cuh"
#include "tl/eval/device_slot.hpp"
#include "tl/fft/detail/device.hpp"

namespace tl::fft::detail {

/// Throws tl::cuda_error naming the cuFFT call, its status and the op.
inline void check_cufft(cufftResult r, const char* call, const char* op) {
  if (r != CUFFT_SUCCESS)
    throw tl::cuda_error(
        tl::detail::cat_str("tl::", op, ": ", call, " failed with cuFFT status ", static_cast<int>(r)));
}

/// A bounded LRU cache of cuFFT plans.
class cufft_plan_cache {
 public:
  static cufft_plan_cache& instance() {
    static cufft_plan_cache c;
    return c;
  }
  ~cufft_plan_cache() {
    for (auto& e : m_entries) (void)cufftDestroy(e.handle);
  }
  std::mutex& mutex() { return m_mutex; }

  /// The plan for `batch` = inner lines of length n with stride inner (caller holds mutex()).
  cufftHandle get(cufftType type, index_t n, index_t inner, int device) {
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it)
      if (it->type == type && it->n == n && it->inner == inner && it->device == device) {
        m_entries.splice(m_entries.begin(), m_entries, it);
        return it->handle;
      }
    if (n > INT_MAX || inner > INT_MAX)
      throw tl::value_error(
          tl::detail::cat_str("tl::fft: length ", n, " or batch ", inner, " exceeds what one cuFFT plan can address"));
    int len = static_cast<int>(n);
    const bool real_in = type == CUFFT_R2C || type == CUFFT_D2Z;
    const bool real_out = type == CUFFT_C2R || type == CUFFT_Z2D;
    int inembed = real_out ? static_cast<int>(n / 2 + 1) : len;
    int onembed = real_in ? static_cast<int>(n / 2 + 1) : len;
    const int stride = static_cast<int>(inner);
    cufftHandle h;
    check_cufft(cufftPlanMany(&h, 1, &len, &inembed, stride, 1, &onembed, stride, 1, type, stride), "cufftPlanMany",
                "fft");
    m_entries.push_front(entry{type, n, inner, device, h});
    while (m_entries.size() > m_max) {
      (void)cufftDestroy(m_entries.back().handle);
      m_entries.pop_back();
    }
    return h;
  }

 private:
  struct entry {
    cufftType type;
    index_t n, inner;
    int device;
    cufftHandle handle;
  };
  std::mutex m_mutex;
  std::list<entry> m_entries;
  std::size_t m_max = 64;
};

/// The cuFFT launcher for precision T (see cufft_fn).
template <class T>
void cufft_launch(device_kind kind, const void* src, void* dst, index_t outer, index_t n, index_t inner, bool inverse,
                  int device) {
  constexpr bool dbl = std::is_same_v<T, double>;
  tl::cuda::device_guard guard(device);
  const cufftType type = kind == device_kind::c2c   ? (dbl ? CUFFT_Z2Z : CUFFT_C2C)
                         : kind == device_kind::r2c ? (dbl ? CUFFT_D2Z : CUFFT_R2C)
                                                    : (dbl ? CUFFT_Z2D : CUFFT_C2R);
  // Elements per line on each side (complex elements for complex sides).
  const index_t in_line = kind == device_kind::c2r ? n / 2 + 1 : n;
  const index_t out_line = kind == device_kind::r2c ? n / 2 + 1 : n;
  const std::size_t in_bytes = kind == device_kind::r2c ? sizeof(T) : 2 * sizeof(T);
  const std::size_t out_bytes = kind == device_kind::c2r ? sizeof(T) : 2 * sizeof(T);
  cufft_plan_cache& cache = cufft_plan_cache::instance();
  std::lock_guard<std::mutex> lk(cache.mutex());
  const cufftHandle h = cache.get(type, n, inner, device);
  check_cufft(cufftSetStream(h, tl::cuda::current_stream()), "cufftSetStream", "fft");
  for (index_t o = 0; o < outer; ++o) {
    void* in = const_cast<char*>(static_cast<const char*>(src)) + o * in_line * inner * in_bytes;
    void* out = static_cast<char*>(dst) + o * out_line * inner * out_bytes;
    cufftResult r;
    if constexpr (dbl) {
      if (kind == device_kind::c2c)
        r = cufftExecZ2Z(h, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out),
                         inverse ? CUFFT_INVERSE : CUFFT_FORWARD);
      else if (kind == device_kind::r2c)
        r = cufftExecD2Z(h, static_cast<cufftDoubleReal*>(in), static_cast<cufftDoubleComplex*>(out));
      else
        r = cufftExecZ2D(h, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleReal*>(out));
    } else {
      if (kind == device_kind::c2c)
        r = cufftExecC2C(h, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out),
                         inverse ? CUFFT_INVERSE : CUFFT_FORWARD);
      else if (kind == device_kind::r2c)
        r = cufftExecR2C(h, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out));
      else
        r = cufftExecC2R(h, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out));
    }
    check_cufft(r, "cufftExec", "fft");
  }
}

template <class T>
void register_cufft() {
  static const bool done = [] {
    tl::detail::device_slot<cufft_key<T>, cufft_fn>::fn = &cufft_launch<T>;
    return true;
  }();
  (void)done;
}

}  // namespace tl::fft::detail
