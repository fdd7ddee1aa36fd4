#pragma once
/// @file thread_pool.hpp
/// @brief A small fork-join thread pool for the CPU evaluator; `tl::set_num_threads` sizes it.
///
/// `parallel_for(n, f)` runs f(0..n-1) over the pool, the calling thread included; an exception
/// thrown by a task is rethrown in the caller. Calls from inside a task run serially.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <type_traits>
#include <mutex>
#include <thread>
#include <vector>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include "tl/core/config.hpp"
#include "tl/core/error.hpp"

namespace tl {
namespace detail {

class thread_pool {
 public:
  static thread_pool& instance() {
    static thread_pool pool;
    return pool;
  }
  ~thread_pool() { stop(); }

  int num_threads() const { return m_nthreads; }
  void set_num_threads(int n) {
    if (n < 1) throw value_error(cat_str("tl::set_num_threads: the thread count must be >= 1, got ", n));
    std::lock_guard<std::mutex> run(m_run_mutex);
    stop();
    m_nthreads = n;
    start();
  }

  template <class F>
  void parallel_for(index_t n, F&& f) {
    if (n <= 0) return;
    if (n == 1 || m_nthreads == 1 || in_worker()) {
      for (index_t i = 0; i < n; ++i) f(i);
      return;
    }
    using Fn = std::remove_reference_t<F>;
    // A non-owning reference to f: each caller instantiates only this trampoline; the pool's
    // fork-join machinery below is compiled once.
    run_job(n, task_ref{const_cast<void*>(static_cast<const void*>(&f)),
                        [](void* p, index_t i) { (*static_cast<Fn*>(p))(i); }});
  }

 private:
  struct task_ref {
    void* obj;
    void (*call)(void*, index_t);
  };
  struct job {
    task_ref fn{};
    index_t total = 0;
    std::atomic<index_t> next{0};
    int active = 0;  // threads working on this job (guarded by m_mutex)
    std::exception_ptr error;
  };

  void run_job(index_t n, task_ref fn) {
    std::lock_guard<std::mutex> run(m_run_mutex);
    job j;
    j.fn = fn;
    j.total = n;
    {
      std::lock_guard<std::mutex> lk(m_mutex);
      m_job = &j;
      j.active = 1;  // the calling thread
      ++m_generation;
    }
    m_cv.notify_all();
    work(j);
    {
      std::unique_lock<std::mutex> lk(m_mutex);
      --j.active;
      m_job = nullptr;  // no worker can join this job any more
      m_done_cv.wait(lk, [&] { return j.active == 0; });
    }
    if (j.error) std::rethrow_exception(j.error);
  }
  thread_pool() {
    m_nthreads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    start();
  }
  static bool& in_worker() {
    thread_local bool flag = false;
    return flag;
  }
  void work(job& j) {
    const bool was = in_worker();
    in_worker() = true;
    for (index_t i; (i = j.next.fetch_add(1)) < j.total;) {
      try {
        j.fn.call(j.fn.obj, i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(m_mutex);
        if (!j.error) j.error = std::current_exception();
      }
    }
    in_worker() = was;
  }
  void start() {
    m_quit = false;
    for (int t = 1; t < m_nthreads; ++t)
      m_workers.emplace_back([this] {
        std::uint64_t seen = 0;
        for (;;) {
          job* j;
          {
            std::unique_lock<std::mutex> lk(m_mutex);
            m_cv.wait(lk, [&] { return m_quit || (m_generation != seen && m_job); });
            if (m_quit) return;
            seen = m_generation;
            j = m_job;
            ++j->active;
          }
          work(*j);
          {
            std::lock_guard<std::mutex> lk(m_mutex);
            --j->active;
          }
          m_done_cv.notify_all();
        }
      });
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lk(m_mutex);
      m_quit = true;
    }
    m_cv.notify_all();
    for (auto& w : m_workers) w.join();
    m_workers.clear();
  }

  int m_nthreads = 1;
  std::vector<std::thread> m_workers;
  std::mutex m_mutex, m_run_mutex;
  std::condition_variable m_cv, m_done_cv;
  job* m_job = nullptr;
  std::uint64_t m_generation = 0;
  bool m_quit = false;
};

/// The size in bytes of the last-level cache as the OS reports it (L3, else L2), 0 when unknown.
inline std::size_t last_level_cache_bytes() {
  static const std::size_t bytes = [] {
    long b = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    b = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
#if defined(_SC_LEVEL2_CACHE_SIZE)
    if (b <= 0) b = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return b > 0 ? static_cast<std::size_t>(b) : std::size_t{0};
  }();
  return bytes;
}

/// Destination size (bytes) from which the CPU evaluator writes with streaming stores; see
/// tl::set_streaming_store_threshold.
inline std::atomic<std::size_t>& streaming_store_threshold() {
  static std::atomic<std::size_t> bytes = [] {
    // A thread's fair share of the last-level cache is a few MiB on current parts; a destination
    // larger than the cache that all threads could share leaves it before it is read again.
    const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
    std::size_t share = std::size_t{8} << 20;
    share *= hw;
    if (const std::size_t llc = last_level_cache_bytes(); llc > 0) share = std::min(share, llc);
    return std::max(share, std::size_t{1} << 20);
  }();
  return bytes;
}

}  // namespace detail

/// @brief Sets the destination size in bytes from which tensor assignment on the CPU writes with
/// streaming (non-temporal) stores: the written cache lines are not read first and do not evict the
/// cache, which saves a third of the memory traffic of a large `y = a + b`. The default is the
/// smaller of the last-level cache and 8 MiB per hardware thread (at least 1 MiB); 0 streams every
/// packet-aligned contiguous write, `SIZE_MAX` never streams. Only plain assignment (`=`) streams:
/// `+=` and the like read the destination anyway.
inline void set_streaming_store_threshold(std::size_t bytes) { detail::streaming_store_threshold().store(bytes); }
/// @brief The destination size in bytes from which CPU assignment uses streaming stores.
inline std::size_t get_streaming_store_threshold() { return detail::streaming_store_threshold().load(); }

/// @brief Sets the number of CPU threads tl uses (default: the hardware concurrency).
inline void set_num_threads(int n) { detail::thread_pool::instance().set_num_threads(n); }
/// @brief The number of CPU threads tl uses.
inline int get_num_threads() { return detail::thread_pool::instance().num_threads(); }

}  // namespace tl
