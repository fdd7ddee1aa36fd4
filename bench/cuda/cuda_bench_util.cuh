#pragma once
// Shared by the GPU benchmarks: Google Benchmark options for GPU-timed runs, the event-timed loop,
// and a main() that names the device (or skips when there is none).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <tl/cuda.hpp>
#include <vector>

namespace tl_bench {

inline void gpu_bench_args(benchmark::internal::Benchmark* b, benchmark::TimeUnit unit) {
  b->UseManualTime()->Unit(unit);
  // With --benchmark_repetitions, also report the fastest repetition (least disturbed by other load).
  b->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}
inline void large_args(benchmark::internal::Benchmark* b) { gpu_bench_args(b, benchmark::kMillisecond); }
inline void small_args(benchmark::internal::Benchmark* b) { gpu_bench_args(b, benchmark::kMicrosecond); }

/// Runs `body` once per iteration between two events on the current stream and reports the GPU
/// time between them.
template <class F>
void timed_loop(benchmark::State& state, F&& body) {
  tl::cuda::event start, stop;
  for (auto _ : state) {
    start.record();
    body();
    stop.record();
    stop.synchronize();
    state.SetIterationTime(static_cast<double>(stop.elapsed_ms(start)) * 1e-3);
  }
}

/// The benchmarks' main(): prints the device's name (and records it in the context), or exits
/// with 0 and a message where there is no CUDA device.
inline int gpu_bench_main(int argc, char** argv) {
  if (!tl::cuda::is_available()) {
    std::printf("no CUDA device: skipping the GPU benchmarks\n");
    return 0;
  }
  const std::string name = tl::cuda::device_name(0);
  std::printf("CUDA device 0: %s\n", name.c_str());
  benchmark::AddCustomContext("cuda_device", name);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace tl_bench
