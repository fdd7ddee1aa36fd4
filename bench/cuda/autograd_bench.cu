// Autograd on a CUDA device: the 10-op chain of bench/autograd/autograd_bench.cpp on device
// tensors, forward and backward, against PyTorch eager autograd on the same GPU
// (bench/cuda/torch_peer.py, "autograd_chain" rows).
//
//   loss = sum(tanh(sin(x)*w + exp(-(x*x)) - sigmoid(w)*x)), x and w of 2^24 floats requiring grad
//
// tl records one node for the fused expression and one for the sum; backward runs the sum's adjoint
// and one fused adjoint kernel per leaf occurrence. The least traffic a step can have: x and w read,
// their two gradients written (4 arrays of 64 MiB), so GB/s below counts 4 arrays per step and
// compares with a device copy (2 arrays). Times are GPU times between two events on the current
// stream, around the whole step (forward, backward, gradients cleared to none) or one half of it.
// Before timing, the device's loss and gradients are compared with the host's on the same data.
#include <cmath>
#include <cstdio>

#define TL_AUTOGRAD 1
#include "cuda_bench_util.cuh"

namespace {

using tl_bench::large_args;
using tl_bench::timed_loop;

constexpr tl::index_t chain_n = tl::index_t{1} << 24;

tl::tensor<float, 0> chain_loss(const tl::tensor<float, 1>& x, const tl::tensor<float, 1>& w) {
  return tl::tensor<float, 0>(tl::sum(tl::tanh(tl::sin(x) * w + tl::exp(-(x * x)) - tl::sigmoid(w) * x)));
}

struct chain_inputs {
  tl::tensor<float, 1> hx, hw;  // host
  tl::tensor<float, 1> x, w;    // device copies, requiring grad
};

chain_inputs make_inputs() {
  tl::manual_seed(7);
  chain_inputs in;
  in.hx = tl::randn<float>(chain_n);
  in.hw = tl::randn<float>(chain_n);
  in.x = in.hx.cuda();
  in.w = in.hw.cuda();
  in.x.requires_grad_();
  in.w.requires_grad_();
  return in;
}

/// Largest |a - b| / (1 + |b|) over the elements.
double max_diff(const tl::tensor<float, 1>& dev, const tl::tensor<float, 1>& host) {
  const auto d = dev.cpu();
  double m = 0;
  for (tl::index_t i = 0; i < d.numel(); ++i)
    m = std::max(m, std::abs(double(d(i)) - double(host(i))) / (1.0 + std::abs(double(host(i)))));
  return m;
}

/// The device's loss and gradients against the host's (same inputs); false (with the reason) if off.
bool check(benchmark::State& state, const chain_inputs& in) {
  tl::tensor<float, 1> hx = in.hx.clone(), hw = in.hw.clone();
  hx.requires_grad_();
  hw.requires_grad_();
  const auto hl = chain_loss(hx, hw);
  hl.backward();
  const auto dl = chain_loss(in.x, in.w);
  dl.backward();
  const double el = std::abs(double(dl.cpu().item()) - double(hl.item())) / std::abs(double(hl.item()));
  const double ex = max_diff(in.x.grad(), hx.grad()), ew = max_diff(in.w.grad(), hw.grad());
  in.x.zero_grad();
  in.w.zero_grad();
  if (el > 1e-4 || ex > 1e-5 || ew > 1e-5) {
    state.SkipWithError("device loss or gradients differ from the host's");
    std::fprintf(stderr, "loss rel %g, x.grad %g, w.grad %g\n", el, ex, ew);
    return false;
  }
  return true;
}

const chain_inputs& inputs() {
  static const chain_inputs in = make_inputs();
  return in;
}

enum class part { forward, backward, total };

template <part P>
void BM_autograd_chain(benchmark::State& state) {
  const auto& in = inputs();
  if (!check(state, in)) return;
  tl::cuda::event a, b, c;
  for (auto _ : state) {
    a.record();
    const auto loss = chain_loss(in.x, in.w);
    b.record();
    loss.backward();
    c.record();
    c.synchronize();
    const float ms = P == part::forward ? b.elapsed_ms(a) : (P == part::backward ? c.elapsed_ms(b) : c.elapsed_ms(a));
    state.SetIterationTime(static_cast<double>(ms) * 1e-3);
    in.x.zero_grad();
    in.w.zero_grad();
  }
  state.SetBytesProcessed(state.iterations() * chain_n * 4 * static_cast<std::int64_t>(sizeof(float)));
}
BENCHMARK_TEMPLATE(BM_autograd_chain, part::forward)->Name("BM_autograd_chain_forward")->Apply(large_args);
BENCHMARK_TEMPLATE(BM_autograd_chain, part::backward)->Name("BM_autograd_chain_backward")->Apply(large_args);
BENCHMARK_TEMPLATE(BM_autograd_chain, part::total)->Name("BM_autograd_chain_total")->Apply(large_args);

/// The bandwidth ceiling: a device-to-device copy of one 2^24-float array (2 arrays moved).
void BM_autograd_copy(benchmark::State& state) {
  const auto& in = inputs();
  tl::tensor<float, 1> out = tl::zeros<float>(chain_n, tl::device::cuda(0));
  timed_loop(state, [&] {
    TL_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.x.data(), static_cast<std::size_t>(chain_n) * sizeof(float),
                                  cudaMemcpyDeviceToDevice, tl::cuda::current_stream()),
                  "bench::autograd_copy");
  });
  state.SetBytesProcessed(state.iterations() * chain_n * 2 * static_cast<std::int64_t>(sizeof(float)));
}
BENCHMARK(BM_autograd_copy)->Apply(large_args);

}  // namespace

int main(int argc, char** argv) { return tl_bench::gpu_bench_main(argc, argv); }
