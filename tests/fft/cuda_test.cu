// tl::fft on CUDA tensors (cuFFT) against the CPU transforms of the same data, and the joining /
// rolling ops (cat, roll, fftshift) on the device against the host.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <tl/cuda.hpp>
#include <type_traits>

#include "../cuda_rel_rms.hpp"
#include "../test_util.hpp"

namespace cuda_fft_test {

namespace {
using tl::index_t;

using tl_test::random;
using tl_test::rel_rms;

/// The CPU FFT's own promise, 10 eps log2(n), with room for cuFFT's different algorithms.
template <class T>
double bound(index_t n) {
  return 20.0 * std::numeric_limits<T>::epsilon() * std::max(1.0, std::log2(static_cast<double>(n)));
}

const tl::device cuda0 = tl::device::cuda(0);
}  // namespace

TEST_CASE_TEMPLATE("complex transforms of device tensors match the CPU", T, float, double) {
  using C = tl::complex<T>;
  for (index_t n : {1, 8, 64, 100, 1031, 4096}) {
    const auto x = random<C, 2>({3, n}, 7 + n);
    const auto d = x.to(cuda0);
    for (std::string_view norm : {"backward", "ortho", "forward"}) {
      CHECK(rel_rms(tl::fft::fft(d, std::nullopt, -1, norm), tl::fft::fft(x, std::nullopt, -1, norm)) <= bound<T>(n));
      CHECK(rel_rms(tl::fft::ifft(d, std::nullopt, -1, norm), tl::fft::ifft(x, std::nullopt, -1, norm)) <=
            bound<T>(n));
    }
    // padding and truncation, and a transform along a non-last dim
    CHECK(rel_rms(tl::fft::fft(d, n + 3), tl::fft::fft(x, n + 3)) <= bound<T>(n + 3));
    CHECK(rel_rms(tl::fft::fft(d, std::nullopt, 0), tl::fft::fft(x, std::nullopt, 0)) <= bound<T>(3));
  }
  const auto x3 = random<C, 3>({4, 6, 10}, 3);
  CHECK(rel_rms(tl::fft::fftn(x3.to(cuda0)), tl::fft::fftn(x3)) <= bound<T>(240));
  CHECK(rel_rms(tl::fft::ifft2(x3.to(cuda0), {}, {0, 2}, "ortho"), tl::fft::ifft2(x3, {}, {0, 2}, "ortho")) <=
        bound<T>(40));
}

TEST_CASE_TEMPLATE("real transforms of device tensors match the CPU", T, float, double) {
  for (index_t n : {2, 9, 64, 1000}) {
    const auto x = random<T, 2>({5, n}, 11 + n);
    const auto d = x.to(cuda0);
    CHECK(rel_rms(tl::fft::rfft(d), tl::fft::rfft(x)) <= bound<T>(n));
    CHECK(rel_rms(tl::fft::ihfft(d, std::nullopt, -1, "ortho"), tl::fft::ihfft(x, std::nullopt, -1, "ortho")) <=
          bound<T>(n));
    // c2r from a Hermitian spectrum (made by rfft, so the zero and Nyquist bins are real)
    const auto spec = tl::fft::rfft(x);
    CHECK(rel_rms(tl::fft::irfft(spec.to(cuda0), n), tl::fft::irfft(spec, n)) <= bound<T>(n));
    CHECK(rel_rms(tl::fft::irfft(tl::fft::rfft(d), n), x) <= bound<T>(n));  // round trip on the device
  }
  const auto x2 = random<T, 2>({16, 12}, 5);
  CHECK(rel_rms(tl::fft::rfft2(x2.to(cuda0)), tl::fft::rfft2(x2)) <= bound<T>(192));
  CHECK(rel_rms(tl::fft::irfftn(tl::fft::rfftn(x2.to(cuda0)), {16, 12}), x2) <= bound<T>(192));
}

TEST_CASE("cat, roll and fftshift run on the device and equal the host results") {
  const auto a = random<double, 2>({3, 4}, 1);
  const auto b = random<double, 2>({3, 2}, 2);
  const auto c = tl::cat({a.to(cuda0), b.to(cuda0)}, 1);
  CHECK(c.is_cuda());
  CHECK(rel_rms(c, tl::cat({a, b}, 1)) == 0.0);
  CHECK(rel_rms(tl::roll(a.to(cuda0), {1, -3}, {0, 1}), tl::roll(a, {1, -3}, {0, 1})) == 0.0);
  CHECK(rel_rms(tl::roll(a.to(cuda0), 5), tl::roll(a, 5)) == 0.0);
  const auto f = tl::fft::fftfreq<double>(9);
  CHECK(rel_rms(tl::fft::fftshift(f.to(cuda0)), tl::fft::fftshift(f)) == 0.0);
  CHECK(rel_rms(tl::fft::ifftshift(a.to(cuda0), {1}), tl::fft::ifftshift(a, {1})) == 0.0);
  bool threw = false;
  try {
    (void)tl::cat({a, b.to(cuda0)}, 1);
  } catch (const tl::device_error&) {
    threw = true;
  }
  CHECK(threw);
}

}  // namespace cuda_fft_test
