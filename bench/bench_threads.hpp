// Thread-count plumbing shared by the CPU benchmarks: the argument list (1 thread and all
// hardware threads), one thread count for every library in the binary, and a hand-written
// parallel split for the hand-loop peers. Include it after tl and after the peers' headers
// (Eigen, LibTorch), whose TL_BENCH_HAVE_* macros it reads.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace tl_bench {

inline int hw_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

/// Registers thread counts 1 and hardware_concurrency() as the benchmark argument, real time in
/// ms, and the fastest repetition as an extra statistic (the one least disturbed by other load).
inline void thread_args(benchmark::internal::Benchmark* b) {
  b->ArgName("threads")->Arg(1);
  if (hw_threads() > 1) b->Arg(hw_threads());
  b->UseRealTime()->Unit(benchmark::kMillisecond);
  b->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}

/// Gives the same thread count to tl and to every peer library compiled in.
inline void set_threads(int nt) {
  if (tl::get_num_threads() != nt) tl::set_num_threads(nt);
#ifdef TL_BENCH_HAVE_EIGEN
  Eigen::setNbThreads(nt);
#endif
#ifdef TL_BENCH_HAVE_TORCH
  torch::set_num_threads(nt);
#endif
}

/// Runs f(t, lo, hi) over [0, total) split into nt contiguous blocks t, one std::thread per extra
/// block (the hand-written loops' parallelism).
template <class F>
void split_run_indexed(int nt, std::int64_t total, F f) {
  if (nt <= 1) {
    f(0, std::int64_t{0}, total);
    return;
  }
  std::vector<std::thread> th;
  const std::int64_t block = (total + nt - 1) / nt;
  for (int t = 1; t < nt; ++t)
    th.emplace_back([=] { f(t, std::min(total, t * block), std::min(total, (t + 1) * block)); });
  f(0, std::int64_t{0}, std::min(total, block));
  for (auto& x : th) x.join();
}

/// split_run_indexed for a body that does not need its block number: f(lo, hi).
template <class F>
void split_run(int nt, std::int64_t total, F f) {
  split_run_indexed(nt, total, [&f](int, std::int64_t lo, std::int64_t hi) { f(lo, hi); });
}

}  // namespace tl_bench
