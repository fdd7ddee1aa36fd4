// Device check of the Philox stream contract: the known-answer vectors and the stream's words and
// uniforms computed in a kernel must equal the host's, bit for bit.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include <tl/core/random.hpp>

namespace cuda_random_test {

namespace {
constexpr int n_words = 1000;

__global__ void kat_kernel(tl::philox_counter* out) {
  out[0] = tl::philox4x32_10({0, 0, 0, 0}, {0, 0});
  out[1] = tl::philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu});
  out[2] = tl::philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u});
}

// One thread per element: each starts its own cursor at its word, as a GPU fill would.
__global__ void stream_kernel(tl::rng_state st, std::uint32_t* words, float* uf, double* ud) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_words) return;
  words[i] = tl::detail::philox_word(st, static_cast<std::uint64_t>(i));
  tl::detail::philox_cursor cf(st, static_cast<std::uint64_t>(i));
  uf[i] = cf.uniform<float>();
  tl::detail::philox_cursor cd(st, 2 * static_cast<std::uint64_t>(i));
  ud[i] = cd.uniform<double>();
}

template <class T>
T* device_alloc(std::size_t n) {
  void* p = nullptr;
  REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess);
  return static_cast<T*>(p);
}
}  // namespace

TEST_CASE("philox4x32_10 gives the Random123 known answers on the device") {
  auto* d = device_alloc<tl::philox_counter>(3);
  kat_kernel<<<1, 1>>>(d);
  tl::philox_counter h[3];
  REQUIRE(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(d);
  CHECK(h[0] == tl::philox_counter{{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}});
  CHECK(h[1] == tl::philox_counter{{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}});
  CHECK(h[2] == tl::philox_counter{{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}});
}

TEST_CASE("the device stream equals the host stream word for word") {
  const tl::rng_state st{0x0123456789abcdefull, 12};
  auto* dw = device_alloc<std::uint32_t>(n_words);
  auto* df = device_alloc<float>(n_words);
  auto* dd = device_alloc<double>(n_words);
  stream_kernel<<<(n_words + 127) / 128, 128>>>(st, dw, df, dd);
  std::vector<std::uint32_t> w(n_words);
  std::vector<float> uf(n_words);
  std::vector<double> ud(n_words);
  REQUIRE(cudaMemcpy(w.data(), dw, n_words * sizeof(std::uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  REQUIRE(cudaMemcpy(uf.data(), df, n_words * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  REQUIRE(cudaMemcpy(ud.data(), dd, n_words * sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(dw);
  cudaFree(df);
  cudaFree(dd);
  tl::detail::philox_cursor host(st, 0);
  tl::detail::philox_cursor host_f(st, 0);
  tl::detail::philox_cursor host_d(st, 0);
  int bad = 0;
  for (int i = 0; i < n_words; ++i) {
    bad += w[i] != host.next();
    bad += uf[i] != host_f.uniform<float>();
    bad += ud[i] != host_d.uniform<double>();
  }
  CHECK(bad == 0);
}

}  // namespace cuda_random_test
