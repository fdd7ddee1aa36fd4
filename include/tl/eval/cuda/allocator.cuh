#pragma once
/// @file allocator.cuh
/// @brief The caching device allocator (nvcc only) and the runtime hooks it backs.
///
/// Freed blocks are kept in per-device free lists keyed by (stream, size class) and handed out again
/// for a request of the same class on the same stream, so evaluating in a loop never calls
/// cudaMalloc/cudaFree after the first iteration (PyTorch's caching allocator, simplified). A block
/// is only reused on the stream it was allocated on, so stream order makes reuse safe without
/// events. A block also used on other streams (tl::cuda::record_stream) waits, when released, for an
/// event on each of them: it goes back to the free list only once the work queued there by then
/// has finished. When cudaMalloc runs out of memory, the cache is released and the call retried.
/// During CUDA-graph capture, freed blocks go to the graph's private pool (see graph.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tl/core/device.hpp"
#include "tl/eval/cuda/runtime.cuh"

namespace tl::cuda {

/// @brief Counters of the caching allocator for one device (torch.cuda.memory_stats, abridged).
struct memory_stats_t {
  std::size_t allocated_bytes = 0;       ///< bytes in blocks handed out to tensors now
  std::size_t peak_allocated_bytes = 0;  ///< maximum of allocated_bytes since the last reset
  std::size_t reserved_bytes = 0;        ///< bytes obtained from cudaMalloc and not yet returned
  std::size_t num_alloc_requests = 0;    ///< allocations asked of the allocator
  std::size_t num_cache_hits = 0;        ///< requests served from the cache
  std::size_t num_device_allocs = 0;     ///< cudaMalloc calls
  std::size_t num_device_frees = 0;      ///< cudaFree calls
};

namespace detail {

/// Size class of a request: multiples of 512 B up to 1 MiB, of 2 MiB above.
inline std::size_t round_size(std::size_t bytes) {
  constexpr std::size_t small = 512, large = 2u << 20, limit = 1u << 20;
  if (bytes == 0) bytes = 1;
  const std::size_t unit = bytes <= limit ? small : large;
  return (bytes + unit - 1) / unit * unit;
}

/// A private pool: blocks freed while a graph is being captured (and reusable within that capture).
struct graph_pool {
  std::multimap<std::size_t, void*> free_blocks;
};

class caching_allocator {
 public:
  static caching_allocator& instance() {
    static caching_allocator* a = new caching_allocator;  // never destroyed: tensors may outlive statics
    return *a;
  }

  void* allocate(std::size_t bytes, int dev) {
    if (bytes == 0) return nullptr;
    const std::size_t size = round_size(bytes);
    const cudaStream_t s = current_stream();
    std::lock_guard lock(m_mutex);
    auto& d = m_dev[dev];
    ++d.stats.num_alloc_requests;
    void* p = nullptr;
    graph_pool* gp = capture_pool();
    if (gp) {
      auto it = gp->free_blocks.find(size);
      if (it != gp->free_blocks.end()) {
        p = it->second;
        gp->free_blocks.erase(it);
      }
    }
    if (!p) {
      reclaim_finished(d);
      auto it = d.free_blocks.find({s, size});
      if (it != d.free_blocks.end()) {
        p = it->second;
        d.free_blocks.erase(it);
      }
    }
    if (p) {
      ++d.stats.num_cache_hits;
    } else {
      p = device_malloc(d, size, dev);
    }
    d.live[p] = {size, s, gp, {}};
    d.stats.allocated_bytes += size;
    if (d.stats.allocated_bytes > d.stats.peak_allocated_bytes) d.stats.peak_allocated_bytes = d.stats.allocated_bytes;
    return p;
  }

  void release(void* p, int dev) noexcept {
    if (!p) return;
    std::lock_guard lock(m_mutex);
    auto& d = m_dev[dev];
    auto it = d.live.find(p);
    if (it == d.live.end()) return;
    const live_block b = std::move(it->second);
    d.live.erase(it);
    d.stats.allocated_bytes -= b.size;
    // A block a graph's kernels use (allocated during its capture, or freed during it) stays in that
    // graph's pool until the graph is destroyed.
    graph_pool* gp = b.pool ? b.pool : capture_pool();
    if (gp) {
      gp->free_blocks.emplace(b.size, p);
    } else if (b.uses.empty()) {
      d.free_blocks.emplace(std::make_pair(b.stream, b.size), p);
    } else {
      // Used on other streams too: reusable once their work queued by now has finished.
      pending_block pb{p, b.size, b.stream, {}};
      device_guard g(dev);
      for (const cudaStream_t u : b.uses) {
        cudaEvent_t e = nullptr;
        if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess && cudaEventRecord(e, u) == cudaSuccess) {
          pb.events.push_back(e);
        } else {  // no event to wait for: wait for the stream here
          (void)cudaGetLastError();
          if (e) (void)cudaEventDestroy(e);
          (void)cudaStreamSynchronize(u);
        }
      }
      d.pending.push_back(std::move(pb));
    }
  }

  /// Marks live block p of device dev as used on stream s as well (see tl::cuda::record_stream).
  void record_stream(void* p, cudaStream_t s, int dev) {
    std::lock_guard lock(m_mutex);
    auto& d = m_dev[dev];
    auto it = d.live.find(p);
    if (it == d.live.end())
      throw tl::value_error(tl::detail::cat_str("tl::cuda::record_stream: the tensor's memory on cuda:", dev,
                                                " does not come from tl's caching allocator"));
    auto& uses = it->second.uses;
    if (s != it->second.stream && std::find(uses.begin(), uses.end(), s) == uses.end()) uses.push_back(s);
  }

  /// Returns a graph's private pool to the cache of `dev` (the graph was destroyed).
  void adopt_pool(graph_pool& gp, cudaStream_t s, int dev) {
    std::lock_guard lock(m_mutex);
    auto& d = m_dev[dev];
    for (auto& [size, p] : gp.free_blocks) d.free_blocks.emplace(std::make_pair(s, size), p);
    gp.free_blocks.clear();
    for (auto& [p, b] : d.live)
      if (b.pool == &gp) b.pool = nullptr;
  }

  void empty_cache() {
    std::lock_guard lock(m_mutex);
    for (auto& [dev, d] : m_dev) release_cached(d, dev);
  }
  memory_stats_t stats(int dev) {
    std::lock_guard lock(m_mutex);
    return m_dev[dev].stats;
  }
  void reset_peak(int dev) {
    std::lock_guard lock(m_mutex);
    auto& st = m_dev[dev].stats;
    st.peak_allocated_bytes = st.allocated_bytes;
  }

  /// The pool that captures frees on this thread (set by tl::cuda::graph during capture).
  static graph_pool*& capture_pool() {
    thread_local graph_pool* p = nullptr;
    return p;
  }

 private:
  struct live_block {
    std::size_t size;
    cudaStream_t stream;
    graph_pool* pool;
    std::vector<cudaStream_t> uses;  ///< other streams the block is used on (record_stream)
  };
  /// A released block waiting for work on other streams (one event each) before it is reused.
  struct pending_block {
    void* p;
    std::size_t size;
    cudaStream_t stream;
    std::vector<cudaEvent_t> events;
  };
  struct device_state {
    std::multimap<std::pair<cudaStream_t, std::size_t>, void*> free_blocks;
    std::unordered_map<void*, live_block> live;
    std::vector<pending_block> pending;
    memory_stats_t stats;
  };

  /// Moves the pending blocks whose events have all completed to the free lists.
  static void reclaim_finished(device_state& d) {
    auto done = [](pending_block& pb) {
      for (const cudaEvent_t e : pb.events) {
        const cudaError_t q = cudaEventQuery(e);
        if (q == cudaErrorNotReady) return false;
        if (q != cudaSuccess) (void)cudaGetLastError();  // a failed stream: nothing left to wait for
      }
      return true;
    };
    for (std::size_t i = 0; i < d.pending.size();) {
      pending_block& pb = d.pending[i];
      if (!done(pb)) {
        ++i;
        continue;
      }
      for (const cudaEvent_t e : pb.events) (void)cudaEventDestroy(e);
      d.free_blocks.emplace(std::make_pair(pb.stream, pb.size), pb.p);
      pb = std::move(d.pending.back());
      d.pending.pop_back();
    }
  }

  void* device_malloc(device_state& d, std::size_t size, int dev) {
    require_device(dev, "allocate");
    device_guard g(dev);
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, size);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      release_cached(d, dev);
      e = cudaMalloc(&p, size);
    }
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw tl::cuda_error(tl::detail::cat_str(
          "tl::allocate: cudaMalloc of ", size, " bytes on cuda:", dev, " failed: ", cudaGetErrorName(e), " (",
          cudaGetErrorString(e), "); ", d.stats.allocated_bytes, " bytes allocated, ", d.stats.reserved_bytes,
          " bytes reserved by tl"));
    }
    ++d.stats.num_device_allocs;
    d.stats.reserved_bytes += size;
    return p;
  }
  void release_cached(device_state& d, int dev) {
    if (d.free_blocks.empty() && d.pending.empty()) return;
    device_guard g(dev);
    (void)cudaDeviceSynchronize();  // blocks may still be read by queued work on their stream
    reclaim_finished(d);
    for (auto& [key, p] : d.free_blocks) {
      (void)cudaFree(p);
      d.stats.reserved_bytes -= key.second;
      ++d.stats.num_device_frees;
    }
    d.free_blocks.clear();
  }

  std::mutex m_mutex;
  std::map<int, device_state> m_dev;
};

inline void* hook_allocate(std::size_t bytes, int dev) { return caching_allocator::instance().allocate(bytes, dev); }
inline void hook_release(void* p, std::size_t, int dev) noexcept { caching_allocator::instance().release(p, dev); }
inline void* hook_allocate_pinned(std::size_t bytes) {
  require_device(0, "pin_memory");
  void* p = nullptr;
  TL_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "pin_memory");
  return p;
}
inline void hook_release_pinned(void* p) noexcept { (void)cudaFreeHost(p); }
inline void hook_copy(void* dst, tl::device dd, const void* src, tl::device sd, std::size_t bytes, bool async) {
  const int dev = dd.is_cuda() ? dd.index() : sd.index();
  require_device(dev, "to");
  device_guard g(dev);
  const cudaStream_t s = current_stream();
  TL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "to");
  if (!async) TL_CUDA_CHECK(cudaStreamSynchronize(s), "to");
}

inline constexpr tl::detail::device_runtime runtime_table{&hook_allocate, &hook_release, &hook_allocate_pinned,
                                                          &hook_release_pinned, &hook_copy};
/// Installs the hooks during static initialization of every nvcc translation unit that includes tl.
inline const bool runtime_installed = (tl::detail::device_runtime_ptr() = &runtime_table, true);

}  // namespace detail

/// @brief The caching allocator's counters for device `dev` (default: the current device).
inline memory_stats_t memory_stats(int dev = -1) {
  return detail::caching_allocator::instance().stats(dev < 0 ? current_device() : dev);
}
/// @brief Resets peak_allocated_bytes to the current allocated_bytes.
inline void reset_peak_memory_stats(int dev = -1) {
  detail::caching_allocator::instance().reset_peak(dev < 0 ? current_device() : dev);
}
/// @brief Returns every cached (unused) block to the driver (torch.cuda.empty_cache()).
inline void empty_cache() { detail::caching_allocator::instance().empty_cache(); }

}  // namespace tl::cuda
