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

  /// The plan for `batch` lines of n points, elements `stride` apart, consecutive lines `idist`
  /// (input) and `odist` (output) elements apart (caller holds mutex()). The 64-bit plan API:
  /// no length, stride or count is limited to int.
  cufftHandle get(cufftType type, index_t n, index_t stride, index_t idist, index_t odist, index_t batch, int device) {
    const layout key{type, n, stride, idist, odist, batch, device};
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it)
      if (it->key == key) {
        m_entries.splice(m_entries.begin(), m_entries, it);
        return it->handle;
      }
    const bool real_in = type == CUFFT_R2C || type == CUFFT_D2Z;
    const bool real_out = type == CUFFT_C2R || type == CUFFT_Z2D;
    long long len = n;
    long long inembed = real_out ? n / 2 + 1 : n;
    long long onembed = real_in ? n / 2 + 1 : n;
    cufftHandle h;
    check_cufft(cufftCreate(&h), "cufftCreate", "fft");
    std::size_t work = 0;
    const cufftResult r =
        cufftMakePlanMany64(h, 1, &len, &inembed, stride, idist, &onembed, stride, odist, type, batch, &work);
    if (r != CUFFT_SUCCESS) (void)cufftDestroy(h);
    check_cufft(r, "cufftMakePlanMany64", "fft");
    m_entries.push_front(entry{key, h});
    while (m_entries.size() > m_max) {
      (void)cufftDestroy(m_entries.back().handle);
      m_entries.pop_back();
    }
    return h;
  }

 private:
  struct layout {
    cufftType type;
    index_t n, stride, idist, odist, batch;
    int device;
    friend bool operator==(const layout&, const layout&) = default;
  };
  struct entry {
    layout key;
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
  // The lines of [outer, line, inner]: cuFFT's layout has one batch stride, so one of outer and
  // inner is the plan's batch and the other a loop of executions, over the smaller of the two.
  const bool batch_outer = outer >= inner;
  const index_t batch = batch_outer ? outer : inner, loops = batch_outer ? inner : outer;
  const index_t idist = batch_outer ? in_line * inner : 1, odist = batch_outer ? out_line * inner : 1;
  const index_t in_step = batch_outer ? 1 : in_line * inner, out_step = batch_outer ? 1 : out_line * inner;
  cufft_plan_cache& cache = cufft_plan_cache::instance();
  std::lock_guard<std::mutex> lk(cache.mutex());
  const cufftHandle h = cache.get(type, n, inner, idist, odist, batch, device);
  check_cufft(cufftSetStream(h, tl::cuda::current_stream()), "cufftSetStream", "fft");
  for (index_t o = 0; o < loops; ++o) {
    void* in = const_cast<char*>(static_cast<const char*>(src)) + o * in_step * in_bytes;
    void* out = static_cast<char*>(dst) + o * out_step * out_bytes;
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
  tl::detail::fill_device_slot<cufft_key<T>, cufft_fn, &cufft_launch<T>>();
}

}  // namespace tl::fft::detail
