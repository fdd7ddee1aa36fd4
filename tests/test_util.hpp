#pragma once
// Helpers shared by tests across areas: a deterministic generator of test data and a way to
// capture a tl::error's message.
#include <cstdint>
#include <string>
#include <type_traits>

#include <tl/core/error.hpp>
#include <tl/core/tensor.hpp>

namespace tl_test {

/// True in builds under AddressSanitizer (the debug-sanitize preset). Those runs check memory and
/// undefined behaviour, not accuracy, so the heaviest tests take fewer points or skip their
/// O(n^3) reference checks there, on the same code paths; the release run checks everything.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool sanitized = true;
#else
inline constexpr bool sanitized = false;
#endif
#else
inline constexpr bool sanitized = false;
#endif

/// Whether a test that sweeps every dtype over many shapes runs its case of `elements` elements for
/// dtype T: always, except under the sanitizers, where the cases above 4096 elements (a 64 x 64
/// matrix) run for double and complex<float> only (a real and a complex dtype, one of each
/// precision). The smaller cases, which reach the edges and tails of every code path, still run for
/// every dtype there; the larger ones add the blocked paths (panels, padded work matrices), whose
/// index arithmetic does not depend on the dtype. (ASan checks each 32- or 64-byte SIMD load and
/// store on its slow path, so these sweeps were most of the sanitizer run.)
template <class T>
constexpr bool sweep_case(tl::index_t elements) {
  if constexpr (!sanitized) return true;
  else return elements <= 4096 || std::is_same_v<T, double> || std::is_same_v<T, tl::complex<float>>;
}

/// A 64-bit linear congruential generator: reproducible test data without tl's own RNG.
struct lcg {
  std::uint64_t s;
  /// Uniform in [-1, 1) with 53 random bits.
  double next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) / 4503599627370496.0 - 1.0;
  }
};

/// A tensor of the given shape with entries uniform in [-1, 1) (real and imaginary parts alike).
template <class V, std::size_t R>
tl::tensor<V, R> random(const tl::shape_t<R>& s, std::uint64_t seed) {
  tl::tensor<V, R> t(s);
  lcg g{seed};
  for (tl::index_t i = 0; i < t.numel(); ++i) {
    if constexpr (tl::is_complex_v<V>) {
      const double re = g.next();
      t.data()[i] = V(re, g.next());
    } else {
      t.data()[i] = static_cast<V>(g.next());
    }
  }
  return t;
}

/// The message of the tl::error that f throws, or "" when it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const tl::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace tl_test
