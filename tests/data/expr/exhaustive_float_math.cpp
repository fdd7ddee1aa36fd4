// Exhaustive accuracy check of tl's float packet kernels (include/tl/expr/simd_math.hpp): every
// float (both signs, subnormals included; sin and cos up to |x| = 1e5) through the kernel and
// through double-precision libm, reporting the worst error in ULP of the float result.
// Not part of the build (it runs for about 90 s per function). From the repository root:
//
//   g++ -O2 -march=native -std=c++20 -Iinclude tests/data/expr/exhaustive_float_math.cpp -o exhaustive
//   ./exhaustive            # or one of: exp sin cos tanh sigmoid
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <tl/expr/simd_math.hpp>

namespace {
using B = xsimd::batch<float>;
using A = B::arch_type;

/// |got - ref| in units of the spacing of floats at the float nearest to ref.
double ulp_err(float got, double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : 1e30;
  const float r = static_cast<float>(ref);
  if (std::isinf(r)) return got == r ? 0 : 1e30;
  const float ar = std::fabs(r);
  double u = ar == 0 ? std::ldexp(1.0, -149) : static_cast<double>(std::nextafter(ar, INFINITY)) - ar;
  if (std::fabs(ref) < ar) u = static_cast<double>(ar) - std::nextafter(ar, 0.0f);  // below a power of 2
  return std::fabs(static_cast<double>(got) - ref) / u;
}

template <class F, class R>
void check(const char* name, float hi, F f, R ref) {
  double worst = 0;
  float worst_x = 0;
  long over1 = 0, count = 0;
  alignas(64) float in[B::size], out[B::size];
  std::uint32_t top;
  std::memcpy(&top, &hi, 4);
  auto measure = [&] {
    f(B::load_aligned(in)).store_aligned(out);
    for (std::size_t k = 0; k < B::size; ++k) {
      const double e = ulp_err(out[k], ref(static_cast<double>(in[k])));
      ++count;
      if (e > 1) ++over1;
      if (e > worst) {
        worst = e;
        worst_x = in[k];
      }
    }
  };
  for (std::uint64_t i = 0; i <= top; i += B::size) {
    for (std::size_t k = 0; k < B::size; ++k) {
      const auto bits = static_cast<std::uint32_t>(std::min<std::uint64_t>(i + k, top));
      std::memcpy(&in[k], &bits, 4);
    }
    measure();
    for (auto& v : in) v = -v;
    measure();
  }
  std::printf("%-8s |x| <= %g: worst %.3f ULP at x = %.9g; %ld of %ld arguments over 1 ULP\n", name, hi, worst,
              worst_x, over1, count);
  std::fflush(stdout);
}
}  // namespace

int main(int argc, char** argv) {
  namespace fm = tl::detail::fmath;
  const char* which = argc > 1 ? argv[1] : "all";
  auto want = [&](const char* n) { return !std::strcmp(which, "all") || !std::strcmp(which, n); };
  constexpr float fmax = 3.4028235e38f;
  if (want("exp")) check("exp", fmax, [](B x) { return fm::exp<A>(x); }, [](double v) { return std::exp(v); });
  if (want("sin")) check("sin", 1e5f, [](B x) { return fm::sincos<false, A>(x); }, [](double v) { return std::sin(v); });
  if (want("cos")) check("cos", 1e5f, [](B x) { return fm::sincos<true, A>(x); }, [](double v) { return std::cos(v); });
  if (want("tanh")) check("tanh", fmax, [](B x) { return fm::tanh<A>(x); }, [](double v) { return std::tanh(v); });
  if (want("sigmoid"))
    check("sigmoid", fmax, [](B x) { return fm::sigmoid<A>(x); }, [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
}
