// doctest main for the CUDA tests: without a GPU the whole binary is skipped (exit code 77, which
// CTest reports as "Skipped") with a message saying why.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include <tl/eval/cuda/runtime.cuh>  // only the device queries: keeps this file quick to compile

int main(int argc, char** argv) {
  if (!tl::cuda::is_available()) {
    std::printf("SKIPPED: no CUDA device is available on this machine; the CUDA tests need an NVIDIA GPU\n");
    return 77;
  }
  std::printf("CUDA device 0: %s\n", tl::cuda::device_name(0).c_str());
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
