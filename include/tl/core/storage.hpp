#pragma once
/// @file storage.hpp
/// @brief Reference-counted storage shared by a tensor and its views: 64-byte aligned host memory,
/// page-locked host memory, or CUDA device memory from the caching allocator.
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tl/core/device.hpp"

namespace tl {

/// @brief Counters of the host block cache (see tl::set_host_cache_limit).
struct host_memory_stats_t {
  bool enabled = false;              ///< false under AddressSanitizer (freed blocks must stay poisoned)
  std::size_t limit_bytes = 0;       ///< the most bytes the cache keeps
  std::size_t cached_bytes = 0;      ///< bytes in freed blocks kept for reuse now
  std::uint64_t num_cache_hits = 0;  ///< large allocations served from the cache
  std::uint64_t num_cache_misses = 0;  ///< large allocations that went to the system allocator
};

}  // namespace tl

namespace tl::detail {

/// Freed host blocks of at least `min_bytes`, kept by size class for the next allocation of the
/// same class. A fresh block of a few MiB costs a page fault per 4 KiB page on first touch (about
/// 1 ms for 4 MiB here), and glibc returns large freed blocks to the system, so a loop that makes a
/// new large tensor per iteration (an evaluated expression, a gradient) would pay that every time.
/// Size classes: eight per power of two (at most 12.5% unused). Bounded by `limit` bytes
/// (default 256 MiB; 0 disables the cache); shared by all threads.
struct host_block_cache {
  static constexpr std::size_t min_bytes = std::size_t{1} << 18;
  std::mutex m;
  std::unordered_map<std::size_t, std::vector<void*>> free;
  std::size_t cached = 0;
  std::size_t limit = std::size_t{256} << 20;
  std::uint64_t hits = 0, misses = 0;

  /// The capacity a request of `bytes` is served with (the blocks of thread_blocks and of this
  /// cache come in size classes; smaller ones are allocated as asked).
  static std::size_t size_class(std::size_t bytes);
  /// A block of capacity `cap` (a size class), from the cache when one is kept. When the system
  /// allocator fails, the kept blocks are freed and the allocation tried once more.
  void* take(std::size_t cap) {
    {
      std::lock_guard<std::mutex> g(m);
      if (auto it = free.find(cap); it != free.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached -= cap;
        ++hits;
        return p;
      }
      ++misses;
    }
    try {
      return ::operator new(cap);
    } catch (const std::bad_alloc&) {
      release();
      return ::operator new(cap);
    }
  }
  /// Keeps block p of capacity cap for reuse, or frees it when the cache is full.
  void give(void* p, std::size_t cap) {
    {
      std::lock_guard<std::mutex> g(m);
      if (cached + cap <= limit) {
        free[cap].push_back(p);
        cached += cap;
        return;
      }
    }
    ::operator delete(p);
  }
  /// Frees every kept block; with `new_limit`, also sets the limit (in the same locked step, so a
  /// limit set by another thread is never undone).
  void release(std::optional<std::size_t> new_limit = std::nullopt) {
    std::unordered_map<std::size_t, std::vector<void*>> out;
    {
      std::lock_guard<std::mutex> g(m);
      out.swap(free);
      cached = 0;
      if (new_limit) limit = *new_limit;
    }
    for (auto& [cap, v] : out)
      for (void* p : v) ::operator delete(p);
  }
  /// The process-wide cache (never destroyed: tensors in static storage may outlive any static).
  static host_block_cache& instance() {
    static host_block_cache* c = new host_block_cache;
    return *c;
  }
};

/// Freed host blocks from 256 bytes up to the shared cache's 256 KiB, kept by the thread that
/// frees them for its next allocation of the same size class: glibc serves blocks above 1 KiB from
/// its shared bins (about 25 ns more per allocation than below), and even below, its per-thread
/// cache is slower than a slot of exactly the right size (a 64-point transform's result: 19
/// against 15 ns per tensor, allocation and release). At most `slots` blocks and `max_held` bytes
/// per thread (beyond that kept blocks go back to the system in turn). The thread's blocks are
/// freed when it ends; a block freed after that (a thread_local or static tensor destroyed late)
/// goes straight back to the system.
struct thread_blocks {
  static constexpr std::size_t min_bytes = 256, max_held = std::size_t{1} << 20;
  static constexpr int slots = 8;
  void* p[slots];
  std::size_t cap[slots];
  std::size_t held;
  unsigned next;
  bool ended;

  /// A block of capacity `c` (a size class): a kept one, else a new one.
  static void* take(std::size_t c) {
    thread_blocks& t = local();
    for (int i = 0; i < slots; ++i)
      if (t.cap[i] == c) {
        t.cap[i] = 0;
        t.held -= c;
        return t.p[i];
      }
    return ::operator new(c);
  }
  /// Keeps block q of capacity c; when the slots or the bytes are full, kept blocks are freed in
  /// turn until both have room.
  static void give(void* q, std::size_t c) {
    thread_blocks& t = local();
    if (t.ended || c > max_held) return ::operator delete(q);
    static thread_local ender end;  // frees the kept blocks when the thread ends
    (void)end;
    int i = 0;
    while (i < slots && t.cap[i] != 0) ++i;
    if (i == slots) i = -1;
    while (i < 0 || t.held + c > max_held) {
      const int v = static_cast<int>(t.next++ % slots);
      if (t.cap[v] != 0) {
        ::operator delete(t.p[v]);
        t.held -= t.cap[v];
        t.cap[v] = 0;
      }
      if (i < 0) i = v;
    }
    t.p[i] = q;
    t.cap[i] = c;
    t.held += c;
  }
  /// Frees the calling thread's kept blocks.
  static void release() {
    thread_blocks& t = local();
    for (int i = 0; i < slots; ++i)
      if (t.cap[i] != 0) {
        ::operator delete(t.p[i]);
        t.cap[i] = 0;
      }
    t.held = 0;
  }

 private:
  struct ender {
    ~ender() {
      release();
      local().ended = true;
    }
  };
  /// Trivially destructible, so it stays usable (with `ended` set) while other thread_local
  /// objects of the thread are destroyed.
  static thread_blocks& local() {
    static thread_local thread_blocks t{};
    return t;
  }
};

inline std::size_t host_block_cache::size_class(std::size_t bytes) {
  if (bytes < thread_blocks::min_bytes) return bytes;
  std::size_t top = std::size_t{1} << (63 - __builtin_clzll(bytes));  // bytes in [top, 2 top)
  const std::size_t step = top / 8;
  return (bytes + step - 1) / step * step;
}

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool host_cache_available = false;
#else
inline constexpr bool host_cache_available = true;
#endif

/// @brief A block of raw memory on one device; tensors and views hold it through a shared_ptr.
struct storage {
  static constexpr std::size_t alignment = 64;
  void* ptr = nullptr;
  std::size_t nbytes = 0;
  /// The block host memory came from (ptr rounded up to the alignment inside it) and its size.
  void* raw = nullptr;
  std::size_t raw_bytes = 0;
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
      raw_bytes = host_block_cache::size_class(bytes + alignment);
      raw = raw_bytes >= host_block_cache::min_bytes ? host_block_cache::instance().take(raw_bytes)
            : raw_bytes >= thread_blocks::min_bytes    ? thread_blocks::take(raw_bytes)
                                                       : ::operator new(raw_bytes);
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
      if (raw_bytes >= host_block_cache::min_bytes) host_block_cache::instance().give(raw, raw_bytes);
      else if (raw_bytes >= thread_blocks::min_bytes) thread_blocks::give(raw, raw_bytes);
      else ::operator delete(raw);
#endif
    }
  }
};

}  // namespace tl::detail

namespace tl {

/// @brief Host tensors of 256 KiB and more keep their memory when freed, up to `bytes` in all, and
/// reuse it for the next tensor of the same size class (no page faults on first touch). The
/// default is 256 MiB; 0 turns the cache off. Frees what the cache holds now. No effect under
/// AddressSanitizer, where the cache is off.
inline void set_host_cache_limit(std::size_t bytes) { detail::host_block_cache::instance().release(bytes); }

/// @brief Frees the host memory the cache keeps (the limit stays), and the blocks of 256 bytes to
/// 256 KiB the calling thread keeps (each thread keeps up to eight freed ones, 1 MiB in all, for its
/// next tensors of the same sizes; other threads free theirs when they end).
inline void empty_host_cache() {
  detail::host_block_cache::instance().release();
#if !defined(__SANITIZE_ADDRESS__)
  detail::thread_blocks::release();
#endif
}

/// @brief The host block cache's counters.
inline host_memory_stats_t host_memory_stats() {
  auto& c = detail::host_block_cache::instance();
  std::lock_guard<std::mutex> g(c.m);
  return {detail::host_cache_available, c.limit, c.cached, c.hits, c.misses};
}

}  // namespace tl

namespace tl::detail {

inline std::shared_ptr<storage> make_storage(std::size_t bytes, tl::device d = tl::device::cpu, bool pin = false) {
  return std::make_shared<storage>(bytes, d, pin);
}

}  // namespace tl::detail
