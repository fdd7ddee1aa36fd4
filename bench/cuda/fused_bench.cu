// The CUDA evaluator over 64M floats (1 << 26 elements, 256 MiB per array), tl against
// hand-written kernels and the device's own copy engine path:
//
//   memory-bound:  r = a*b + c*d - e
//   5-op:          r = a*b + c*sin(d) - exp(-e)
//
// Side by side in one binary: cudaMemcpyAsync device to device (the bandwidth ceiling), a
// hand-written grid-stride kernel per expression (sinf/expf, the same accurate libdevice
// functions tl calls), and tl writing into a preallocated result with `r.copy_(expr)` (one fused
// kernel). The PyTorch eager peer on the same GPU is bench/cuda/torch_peer.py; run it in the same
// session and compare its GB/s with the bytes_per_second column here.
//
// Launch overhead: a 20-op elementwise chain over 64K floats (small enough that launching, not
// memory, dominates), written as 10 separate tl assignments. Eager, each assignment is one kernel
// launch; captured once in a tl::cuda::graph, a replay is one graph launch.
//
// Reductions and softmax: the sum over rows (`tl::sum(m, 1)`) and over columns (`tl::sum(m, 0)`) of an
// 8192 x 8192 float matrix, and `tl::softmax(x, -1)` of 8192 x 4096 floats, each against a device
// copy of the same bytes (BM_copy_d2d moves the matrix's 256 MiB; BM_copy_d2d_softmax the softmax
// input's 128 MiB). Bytes processed count the input read once and the result written once.
//
// Times are GPU times between two CUDA events recorded on the current stream around the work of
// one iteration (manual time), with a synchronization after each iteration. Bytes processed count
// every array read once and the result written once (the two expressions: 5 reads + 1 write; the
// copy: 1 read + 1 write; the chain: the arrays each assignment reads plus the one it writes).
// Before its timed loop, every benchmark checks its result once (against a host loop, or eager
// against the graph) and stops with SkipWithError when they differ.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tl/cuda.hpp>
#include <vector>

#include "cuda_bench_util.cuh"

namespace {

constexpr std::int64_t n = std::int64_t{1} << 26;        // the bandwidth benchmarks
constexpr std::int64_t n_small = std::int64_t{1} << 16;  // the launch-overhead benchmarks
constexpr int block_threads = 256;

const tl::device gpu = tl::device::cuda(0);

using tl_bench::large_args;
using tl_bench::small_args;
using tl_bench::timed_loop;

void set_counters(benchmark::State& state, std::int64_t elements, std::int64_t arrays) {
  state.SetItemsProcessed(state.iterations() * elements);
  state.SetBytesProcessed(state.iterations() * elements * arrays * static_cast<std::int64_t>(sizeof(float)));
}

// ---- inputs and host references --------------------------------------------------------------

struct device_inputs {
  tl::tensor<float, 1> a, b, c, d, e;
  std::vector<float> ha, hb, hc, hd, he;  // host copies, for the reference results
};

/// The five inputs on the device (and their host copies), made once. Deliberately never destroyed:
/// the device memory goes away with the process, and no tensor outlives the CUDA runtime at exit.
const device_inputs& inputs() {
  static const device_inputs* in = [] {
    auto* r = new device_inputs;
    tl::manual_seed(42);
    r->a = tl::randn<float>(n, gpu);
    r->b = tl::randn<float>(n, gpu);
    r->c = tl::randn<float>(n, gpu);
    r->d = tl::rand<float>(n, gpu) * 7.0f - 3.5f;  // angles in [-3.5, 3.5)
    r->e = tl::randn<float>(n, gpu);
    auto host = [](const tl::tensor<float, 1>& t) {
      const auto h = t.cpu();
      return std::vector<float>(h.data(), h.data() + h.numel());
    };
    r->ha = host(r->a);
    r->hb = host(r->b);
    r->hc = host(r->c);
    r->hd = host(r->d);
    r->he = host(r->e);
    return r;
  }();
  return *in;
}

/// Compares a device result with the host loop's. The tolerance scales with the magnitudes of the
/// terms, since the device's sinf/expf and fused multiply-adds round differently from the host.
bool check(benchmark::State& state, const tl::tensor<float, 1>& got_dev, bool five_op) {
  const auto& in = inputs();
  const auto got = got_dev.cpu();
  const float* g = got.data();
  for (std::int64_t i = 0; i < n; ++i) {
    const float t1 = in.ha[i] * in.hb[i];
    const float t2 = in.hc[i] * (five_op ? std::sin(in.hd[i]) : in.hd[i]);
    const float t3 = five_op ? std::exp(-in.he[i]) : in.he[i];
    const float ref = t1 + t2 - t3;
    const float tol = 1e-5f * (1.0f + std::abs(t1) + std::abs(t2) + std::abs(t3));
    if (!(std::abs(g[i] - ref) <= tol)) {
      state.SkipWithError(("result differs from the host loop at " + std::to_string(i) + ": " +
                           std::to_string(g[i]) + " vs " + std::to_string(ref))
                              .c_str());
      return false;
    }
  }
  return true;
}

// ---- hand-written kernels ----------------------------------------------------------------------

__global__ void memory_bound_kernel(float* __restrict__ r, const float* __restrict__ a, const float* __restrict__ b,
                                    const float* __restrict__ c, const float* __restrict__ d,
                                    const float* __restrict__ e, std::int64_t count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    r[i] = a[i] * b[i] + c[i] * d[i] - e[i];
}

__global__ void five_op_kernel(float* __restrict__ r, const float* __restrict__ a, const float* __restrict__ b,
                               const float* __restrict__ c, const float* __restrict__ d,
                               const float* __restrict__ e, std::int64_t count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    r[i] = a[i] * b[i] + c[i] * sinf(d[i]) - expf(-e[i]);
}

/// A grid that fills the device once (resident blocks per SM times the SM count), no larger
/// than the array needs; the kernels' grid-stride loops cover the rest.
template <class Kernel>
int grid_for(Kernel kernel, std::int64_t count) {
  int per_sm = 0, sms = 0;
  TL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0), "bench::grid_for");
  TL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "bench::grid_for");
  const std::int64_t needed = (count + block_threads - 1) / block_threads;
  return static_cast<int>(std::min<std::int64_t>(needed, std::int64_t{per_sm} * sms));
}

// ---- the bandwidth ceiling -------------------------------------------------------------------

void BM_copy_d2d(benchmark::State& state) {
  const auto& in = inputs();
  auto r = tl::zeros<float>(n, gpu);
  auto body = [&] {
    TL_CUDA_CHECK(cudaMemcpyAsync(r.data(), in.a.data(), static_cast<std::size_t>(n) * sizeof(float),
                                  cudaMemcpyDeviceToDevice, tl::cuda::current_stream()),
                  "bench::copy_d2d");
  };
  body();
  const auto got = r.cpu();
  if (!std::equal(got.data(), got.data() + n, in.ha.begin())) {
    state.SkipWithError("copy is wrong");
    return;
  }
  timed_loop(state, body);
  set_counters(state, n, 2);
}
BENCHMARK(BM_copy_d2d)->Apply(large_args);

// ---- the two expressions: hand kernel against tl -----------------------------------------------

template <bool FiveOp>
void BM_handwritten(benchmark::State& state) {
  const auto& in = inputs();
  auto r = tl::zeros<float>(n, gpu);
  const int grid = FiveOp ? grid_for(five_op_kernel, n) : grid_for(memory_bound_kernel, n);
  auto body = [&] {
    const cudaStream_t s = tl::cuda::current_stream();
    if constexpr (FiveOp)
      five_op_kernel<<<grid, block_threads, 0, s>>>(r.data(), in.a.data(), in.b.data(), in.c.data(), in.d.data(),
                                                    in.e.data(), n);
    else
      memory_bound_kernel<<<grid, block_threads, 0, s>>>(r.data(), in.a.data(), in.b.data(), in.c.data(),
                                                         in.d.data(), in.e.data(), n);
    TL_CUDA_CHECK(cudaGetLastError(), "bench::handwritten");
  };
  body();
  if (!check(state, r, FiveOp)) return;
  timed_loop(state, body);
  set_counters(state, n, 6);
}
BENCHMARK_TEMPLATE(BM_handwritten, false)->Name("BM_handwritten_memory_bound")->Apply(large_args);
BENCHMARK_TEMPLATE(BM_handwritten, true)->Name("BM_handwritten_5op")->Apply(large_args);

template <bool FiveOp>
void BM_tl(benchmark::State& state) {
  const auto& in = inputs();
  const auto &a = in.a, &b = in.b, &c = in.c, &d = in.d, &e = in.e;
  auto r = tl::zeros<float>(n, gpu);
  auto body = [&] {
    // One fused kernel writing into r's existing memory.
    if constexpr (FiveOp) r.copy_(a * b + c * tl::sin(d) - tl::exp(-e));
    else r.copy_(a * b + c * d - e);
  };
  body();
  if (!check(state, r, FiveOp)) return;
  const auto before = tl::cuda::memory_stats(0);
  timed_loop(state, body);
  set_counters(state, n, 6);
  // Writing into preallocated memory: the timed loop should never reach cudaMalloc.
  state.counters["cudaMalloc_calls"] =
      static_cast<double>(tl::cuda::memory_stats(0).num_device_allocs - before.num_device_allocs);
}
BENCHMARK_TEMPLATE(BM_tl, false)->Name("BM_tl_memory_bound")->Apply(large_args);
BENCHMARK_TEMPLATE(BM_tl, true)->Name("BM_tl_5op")->Apply(large_args);

// ---- launch overhead: a 20-op chain, eager against one CUDA graph -------------------------------

/// The static tensors of the chain: input x, and y and z, which the steps write in turn (no step
/// reads the array it writes, so each one is a plain fused kernel).
struct chain {
  tl::tensor<float, 1> x = tl::randn<float>(n_small, gpu);
  tl::tensor<float, 1> y = tl::zeros<float>(n_small, gpu);
  tl::tensor<float, 1> z = tl::zeros<float>(n_small, gpu);

  /// 10 assignments of 2 elementwise ops each; the result is z.
  void run() const {
    y.copy_(x * 0.5f + 0.25f);
    z.copy_(tl::sin(y) * 0.9f);
    y.copy_(z * z + x);
    z.copy_(tl::tanh(y) - 0.1f);
    y.copy_(tl::exp(-z));
    z.copy_(y * x - 1.0f);
    y.copy_(tl::abs(z) + 1.0f);
    z.copy_(tl::sqrt(y) * 0.5f);
    y.copy_(tl::cos(z) + z);
    z.copy_(tl::sigmoid(y) * x);
  }
  /// Arrays touched by one run(): 13 reads and 10 writes.
  static constexpr std::int64_t arrays = 23;
};

/// The chain's result, computed eagerly once: the reference for the graph.
std::vector<float> chain_reference(const chain& ch) {
  ch.run();
  const auto h = ch.z.cpu();
  return std::vector<float>(h.data(), h.data() + h.numel());
}

void BM_eager_20op(benchmark::State& state) {
  tl::manual_seed(7);
  const chain ch;
  ch.run();  // warm-up (first launches, allocator)
  timed_loop(state, [&] { ch.run(); });
  set_counters(state, n_small, chain::arrays);
  state.counters["launches"] = 10;
}
BENCHMARK(BM_eager_20op)->Apply(small_args);

void BM_graph_20op(benchmark::State& state) {
  tl::manual_seed(7);
  const chain ch;
  const auto ref = chain_reference(ch);
  ch.z.fill_(0.0f);
  tl::cuda::graph g;
  g.capture([&] { ch.run(); });
  g.replay();
  const auto got = ch.z.cpu();
  if (!std::equal(got.data(), got.data() + n_small, ref.begin())) {
    state.SkipWithError("the graph's result differs from the eager run");
    return;
  }
  timed_loop(state, [&] { g.replay(); });
  set_counters(state, n_small, chain::arrays);
  state.counters["launches"] = 1;
}
BENCHMARK(BM_graph_20op)->Apply(small_args);

// ---- reductions and softmax ---------------------------------------------------------------------

constexpr std::int64_t red_rows = 8192, red_cols = 8192;  // the summed matrix: n floats
constexpr std::int64_t sm_rows = 8192, sm_cols = 4096;    // the softmax input: n / 2 floats

/// Made once on the device and never destroyed (see inputs()).
const tl::tensor<float, 2>& sum_matrix() {
  static const auto* m = new tl::tensor<float, 2>(tl::rand<float>(red_rows, red_cols, gpu));
  return *m;
}
const tl::tensor<float, 2>& softmax_input() {
  static const auto* x = new tl::tensor<float, 2>(tl::randn<float>(sm_rows, sm_cols, gpu));
  return *x;
}

/// Compares a device result with the host evaluator's (relative tolerance; the device sums in a
/// different order).
template <std::size_t R>
bool check_close(benchmark::State& state, const tl::tensor<float, R>& got_dev, const tl::tensor<float, R>& ref,
                 float rtol, float atol) {
  const auto got = got_dev.cpu();
  for (std::int64_t i = 0; i < ref.numel(); ++i) {
    const float g = got.data()[i], r = ref.data()[i];
    if (!(std::abs(g - r) <= atol + rtol * std::abs(r))) {
      state.SkipWithError(("result differs from the host evaluator at " + std::to_string(i) + ": " +
                           std::to_string(g) + " vs " + std::to_string(r))
                              .c_str());
      return false;
    }
  }
  return true;
}

/// The bandwidth ceiling for the softmax: a device copy of its input's bytes.
void BM_copy_d2d_softmax(benchmark::State& state) {
  const auto& x = softmax_input();
  auto r = tl::zeros<float>(sm_rows, sm_cols, gpu);
  const std::int64_t count = sm_rows * sm_cols;
  auto body = [&] {
    TL_CUDA_CHECK(cudaMemcpyAsync(r.data(), x.data(), static_cast<std::size_t>(count) * sizeof(float),
                                  cudaMemcpyDeviceToDevice, tl::cuda::current_stream()),
                  "bench::copy_d2d_softmax");
  };
  body();
  timed_loop(state, body);
  set_counters(state, count, 2);
}
BENCHMARK(BM_copy_d2d_softmax)->Apply(large_args);

/// tl::sum(m, Dim) of the 8192 x 8192 matrix: Dim 1 sums each row, Dim 0 each column.
template <int Dim>
void BM_tl_sum(benchmark::State& state) {
  const auto& m = sum_matrix();
  tl::tensor<float, 1> r;
  auto body = [&] { r = tl::sum(m, Dim); };
  body();
  if (!check_close<1>(state, r, tl::tensor<float, 1>(tl::sum(m.cpu(), Dim)), 1e-5f, 0.0f)) return;
  timed_loop(state, body);
  const std::int64_t out = Dim == 1 ? red_rows : red_cols;
  state.SetItemsProcessed(state.iterations() * red_rows * red_cols);
  state.SetBytesProcessed(state.iterations() * (red_rows * red_cols + out) * static_cast<std::int64_t>(sizeof(float)));
}
BENCHMARK_TEMPLATE(BM_tl_sum, 1)->Name("BM_tl_sum_rows")->Apply(large_args);
BENCHMARK_TEMPLATE(BM_tl_sum, 0)->Name("BM_tl_sum_cols")->Apply(large_args);

/// tl::softmax(x, -1) of 8192 x 4096 floats: one fused kernel, each row read once.
void BM_tl_softmax_last(benchmark::State& state) {
  const auto& x = softmax_input();
  tl::tensor<float, 2> y;
  auto body = [&] { y = tl::softmax(x, -1); };
  body();
  if (!check_close<2>(state, y, tl::tensor<float, 2>(tl::softmax(x.cpu(), -1)), 1e-5f, 1e-9f)) return;
  timed_loop(state, body);
  set_counters(state, sm_rows * sm_cols, 2);
}
BENCHMARK(BM_tl_softmax_last)->Apply(large_args);

}  // namespace

int main(int argc, char** argv) { return tl_bench::gpu_bench_main(argc, argv); }
