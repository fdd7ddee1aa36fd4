// The host block cache (tl::set_host_cache_limit): a loop that makes three new 4 MiB tensors per
// iteration, as a forward + backward step does (an evaluated expression, then two gradients),
//
//   a = x * 2 + 1;  b = x * a;  c = a - b;   (each a fresh tl::tensor<float, 1> of 1M floats)
//
// with the cache on (the default) and off, against the same three passes written into tensors
// allocated once before the loop (the floor: no allocation at all). One thread. With the cache off,
// glibc serves each block from its heap and, once three blocks are free at its top (12 MiB, above
// its 8 MiB trim threshold at this size), returns them to the system, so every iteration touches
// fresh pages again. The program does nothing else before these benchmarks run, so glibc's
// adaptive thresholds start from their defaults, as in a user's program.
#include <benchmark/benchmark.h>

#include <cstdint>

#include <tl/tensor.hpp>

namespace {

constexpr std::int64_t n = std::int64_t{1} << 20;

const tl::tensor<float, 1>& input() {
  static const tl::tensor<float, 1> x = tl::rand<float>(n);
  return x;
}

void step(const tl::tensor<float, 1>& x) {
  const tl::tensor<float, 1> a = x * 2.0f + 1.0f;
  const tl::tensor<float, 1> b = x * a;
  const tl::tensor<float, 1> c = a - b;
  benchmark::DoNotOptimize(c.data());
}

template <bool Cache>
void BM_fresh_tensors(benchmark::State& state) {
  tl::set_num_threads(1);
  const auto& x = input();
  const std::size_t limit = tl::host_memory_stats().limit_bytes;
  tl::set_host_cache_limit(Cache ? limit : 0);
  for (auto _ : state) step(x);
  tl::set_host_cache_limit(limit);
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK_TEMPLATE(BM_fresh_tensors, false)->Name("BM_fresh_tensors_cache_off")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_fresh_tensors, true)->Name("BM_fresh_tensors_cache_on")->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_preallocated(benchmark::State& state) {
  tl::set_num_threads(1);
  const auto& x = input();
  tl::tensor<float, 1> a(tl::shape_t<1>{n}), b(tl::shape_t<1>{n}), c(tl::shape_t<1>{n});
  for (auto _ : state) {
    a = x * 2.0f + 1.0f;
    b = x * a;
    c = a - b;
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_preallocated)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
