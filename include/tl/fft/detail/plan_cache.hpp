#pragma once
/// @file plan_cache.hpp
/// @brief Internal header: a bounded, thread-safe LRU cache of immutable FFT plans keyed by
/// (length, precision, kind). Plans are shared through shared_ptr, so evicting one while another
/// thread still runs it is safe. Each thread also remembers its last few plans (no lock on a
/// repeated call); clearing or resizing the cache invalidates those too.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <utility>

#include "tl/core/config.hpp"
#include "tl/core/error.hpp"
#include "tl/fft/detail/plan.hpp"

namespace tl::fft::detail {

/// What a cached plan computes. Forward and inverse transforms share a plan (the inverse swaps
/// real and imaginary parts), so the direction is not part of the key.
enum class plan_kind : std::uint8_t { complex, real };

class plan_cache {
 public:
  static plan_cache& instance() {
    static plan_cache c;
    return c;
  }

  template <class T>
  std::shared_ptr<const c2c_plan<T>> complex_plan(index_t n) {
    return get<c2c_plan<T>>(n, sizeof(T), plan_kind::complex, [&] { return std::make_shared<const c2c_plan<T>>(n); });
  }
  template <class T>
  std::shared_ptr<const real_plan<T>> real(index_t n) {
    return get<real_plan<T>>(n, sizeof(T), plan_kind::real, [&] {
      return std::make_shared<const real_plan<T>>(n, complex_plan<T>(n % 2 == 0 ? n / 2 : n));
    });
  }

  std::size_t size() {
    std::lock_guard<std::mutex> lk(m_mutex);
    return m_entries.size();
  }
  std::size_t max_size() {
    std::lock_guard<std::mutex> lk(m_mutex);
    return m_max;
  }
  void set_max_size(std::size_t n) {
    std::lock_guard<std::mutex> lk(m_mutex);
    m_generation.fetch_add(1, std::memory_order_release);
    m_max = n;
    while (m_entries.size() > m_max) m_entries.pop_back();
  }
  void clear() {
    std::lock_guard<std::mutex> lk(m_mutex);
    m_generation.fetch_add(1, std::memory_order_release);
    m_entries.clear();
  }

 private:
  struct entry {
    index_t n;
    std::size_t bytes;
    plan_kind kind;
    std::shared_ptr<const void> plan;
  };

  /// A thread's recently used plans, valid while the cache's generation is unchanged.
  struct local_entry {
    index_t n = 0;
    std::size_t bytes = 0;
    plan_kind kind{};
    std::uint64_t generation = 0;
    std::shared_ptr<const void> plan;
  };
  struct local_plans {
    std::array<local_entry, 4> e;
    unsigned next = 0;
  };
  static local_plans& local() {
    thread_local local_plans l;
    return l;
  }

  template <class P, class Make>
  std::shared_ptr<const P> get(index_t n, std::size_t bytes, plan_kind kind, Make make) {
    local_plans& loc = local();
    const std::uint64_t gen = m_generation.load(std::memory_order_acquire);
    for (const local_entry& e : loc.e)
      if (e.plan && e.n == n && e.bytes == bytes && e.kind == kind && e.generation == gen)
        return std::static_pointer_cast<const P>(e.plan);
    auto remember = [&](const std::shared_ptr<const void>& p) {
      loc.e[loc.next++ % loc.e.size()] = local_entry{n, bytes, kind, gen, p};
    };
    {
      std::lock_guard<std::mutex> lk(m_mutex);
      for (auto it = m_entries.begin(); it != m_entries.end(); ++it)
        if (it->n == n && it->bytes == bytes && it->kind == kind) {
          m_entries.splice(m_entries.begin(), m_entries, it);  // most recently used first
          remember(it->plan);
          return std::static_pointer_cast<const P>(it->plan);
        }
    }
    // Build outside the lock (planning a large length takes a while); a concurrent builder of the
    // same key may win the race, both plans are correct.
    std::shared_ptr<const P> p = make();
    std::lock_guard<std::mutex> lk(m_mutex);
    if (m_max == 0) return p;
    m_entries.push_front(entry{n, bytes, kind, p});
    while (m_entries.size() > m_max) m_entries.pop_back();
    remember(p);
    return p;
  }

  std::mutex m_mutex;
  std::list<entry> m_entries;
  std::size_t m_max = 64;
  std::atomic<std::uint64_t> m_generation{1};
};

}  // namespace tl::fft::detail
