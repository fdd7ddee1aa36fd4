#pragma once
/// @file graph.cuh
/// @brief CUDA graphs (nvcc only): capture a sequence of tl operations once, replay it with one launch
/// (torch.cuda.CUDAGraph).
///
/// As in torch, a graph works on static tensors: the inputs and outputs are tensors allocated before
/// the capture, refilled (copy_) before a replay and read after it. Assignments inside the capture
/// must write into existing memory (`out.copy_(expr)`, `out += ...`, or `out = expr` where `out` owns
/// its storage alone and has the right shape); temporaries made during the capture come from a
/// private pool that lives as long as the graph.
///
/// @code
/// auto x = tl::zeros<float>(n, tl::device::cuda());
/// auto y = tl::zeros<float>(n, tl::device::cuda());
/// tl::cuda::graph g;
/// g.capture([&] { y.copy_(tl::sin(x) * 2.0f + 1.0f); });
/// x.copy_(new_input);
/// g.replay();            // y = sin(x) * 2 + 1, one graph launch
/// @endcode
#include <cuda_runtime.h>

#include <exception>
#include <memory>
#include <utility>

#include "tl/eval/cuda/allocator.cuh"
#include "tl/eval/cuda/runtime.cuh"

namespace tl::cuda {

class graph {
 public:
  graph() = default;
  graph(const graph&) = delete;
  graph& operator=(const graph&) = delete;
  ~graph() { reset(); }

  /// @brief Records the CUDA work that `f()` queues on the current device into this graph.
  /// Nothing runs during the capture; call replay() to run it. Host synchronization (a blocking
  /// copy, `.item()`, printing a device tensor) inside `f` is an error, as in torch.
  template <class F>
  void capture(F&& f) {
    reset();
    m_device = current_device();
    m_stream = std::make_unique<stream>();
    stream_guard sg(m_stream->handle());
    auto& pool_slot = detail::caching_allocator::capture_pool();
    detail::graph_pool* prev_pool = pool_slot;
    pool_slot = &m_pool;
    TL_CUDA_CHECK(cudaStreamBeginCapture(m_stream->handle(), cudaStreamCaptureModeRelaxed), "cuda::graph::capture");
    try {
      std::forward<F>(f)();
    } catch (...) {
      cudaGraph_t partial = nullptr;
      (void)cudaStreamEndCapture(m_stream->handle(), &partial);
      if (partial) (void)cudaGraphDestroy(partial);
      (void)cudaGetLastError();
      pool_slot = prev_pool;
      throw;
    }
    pool_slot = prev_pool;
    TL_CUDA_CHECK(cudaStreamEndCapture(m_stream->handle(), &m_graph), "cuda::graph::capture");
    TL_CUDA_CHECK(cudaGraphInstantiate(&m_exec, m_graph, 0), "cuda::graph::capture");
  }

  /// @brief Runs the captured work on the current stream (asynchronously, like any tl kernel).
  void replay() const {
    if (!m_exec) throw tl::value_error("tl::cuda::graph::replay: nothing has been captured");
    device_guard g(m_device);
    TL_CUDA_CHECK(cudaGraphLaunch(m_exec, current_stream()), "cuda::graph::replay");
  }

  /// @brief True after a successful capture.
  bool captured() const { return m_exec != nullptr; }

  /// @brief Frees the graph; its private memory pool returns to the allocator's cache.
  void reset() {
    if (m_exec) {
      (void)cudaGraphExecDestroy(m_exec);
      m_exec = nullptr;
    }
    if (m_graph) {
      (void)cudaGraphDestroy(m_graph);
      m_graph = nullptr;
    }
    if (m_stream) {
      {
        device_guard g(m_device);
        (void)cudaDeviceSynchronize();  // replays may be queued on any stream
      }
      detail::caching_allocator::instance().adopt_pool(m_pool, nullptr, m_device);
      m_stream.reset();
    }
  }

 private:
  cudaGraph_t m_graph = nullptr;
  cudaGraphExec_t m_exec = nullptr;
  std::unique_ptr<stream> m_stream;
  detail::graph_pool m_pool;
  int m_device = 0;
};

}  // namespace tl::cuda
