// Autograd of tl::fft: gradcheck (finite differences in double, complex aware) of every transform
// family, with padding, truncation, several dims and all norms, and a second-order check.
#define TL_AUTOGRAD 2

#include <doctest/doctest.h>

#include <string>

#include <tl/fft/fft.hpp>
// after fft.hpp, which brings the evaluator and the autograd layer gradcheck builds on
#include <tl/autograd/gradcheck.hpp>

namespace {
using tl::index_t;
using cd = tl::complex<double>;
namespace ag = tl::autograd;

template <class V, std::size_t R>
tl::tensor<V, R> input(const tl::shape_t<R>& s) {
  tl::tensor<V, R> t(s);
  for (index_t i = 0; i < t.numel(); ++i) {
    const double a = std::sin(0.7 * static_cast<double>(i) + 0.3), b = std::cos(1.3 * static_cast<double>(i));
    if constexpr (tl::is_complex_v<V>)
      t.data()[i] = V(a, b);
    else
      t.data()[i] = a;
  }
  return t;
}
}  // namespace

TEST_CASE("fft autograd: complex-to-complex transforms") {
  const auto x = input<cd, 2>({3, 5});
  for (const char* norm : {"backward", "ortho", "forward"}) {
    CAPTURE(norm);
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::fft(v, {}, -1, norm); }, x));
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::ifft(v, 7, 0, norm); }, x));             // padded
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::fft2(v, {2, 4}, {-1, 0}, norm); }, x));  // cut
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::fftn(v, {}, {}, norm); }, x));
  }
  const auto xr = input<double, 2>({3, 4});
  CHECK(ag::gradcheck([](const auto& v) { return tl::fft::fft(v); }, xr));                  // real input
  CHECK(ag::gradcheck([](const auto& v) { return tl::fft::ifftn(v * 2.0, {5, 3}); }, xr));  // an expression
}

TEST_CASE("fft autograd: real-input and real-output transforms") {
  const auto xr = input<double, 2>({4, 5});
  const auto xc = input<cd, 2>({4, 4});
  for (const char* norm : {"backward", "ortho", "forward"}) {
    CAPTURE(norm);
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::rfft(v, {}, -1, norm); }, xr));
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::rfft(v, 6, 0, norm); }, xr));
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::rfftn(v, {3, 4}, {}, norm); }, xr));
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::irfft(v, {}, -1, norm); }, xc));
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::irfft(v, 7, -1, norm); }, xc));
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::irfft2(v, {3, 5}, {-2, -1}, norm); }, xc));
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::hfft(v, 5, 0, norm); }, xc));
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::ihfft(v, {}, -1, norm); }, xr));
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::hfftn(v, {}, {1, 0}, norm); }, xc));
    CHECK(ag::gradcheck([&](const auto& v) { return tl::fft::ihfft2(v, {}, {-2, -1}, norm); }, xr));
  }
}

TEST_CASE("fft autograd: second order and graph names") {
  const auto x = input<cd, 1>({6});
  CHECK(ag::gradgradcheck([](const auto& v) { return tl::fft::fft(v * v, 8); }, x));
  const auto xr = input<double, 1>({6});
  CHECK(ag::gradgradcheck([](const auto& v) { return tl::fft::irfft(tl::fft::rfft(v * v)); }, xr));
  auto leaf = input<double, 1>({8});
  leaf.requires_grad_();
  const auto y = tl::fft::rfft(leaf);
  CHECK(y.requires_grad());
  CHECK(y.grad_fn_name() == "FftR2CBackward");
}

TEST_CASE("fft autograd: the out= variants refuse to record") {
  auto x = input<cd, 1>(tl::shape_t<1>{8}).requires_grad_();
  tl::tensor<cd, 1> out(tl::shape_t<1>{8});
  std::string what;
  try {
    tl::fft::fft_out(out, x);
  } catch (const tl::autograd_error& e) {
    what = e.what();
  }
  CHECK(what.find("tl::fft::fft_out: out= variants do not support automatic differentiation") != std::string::npos);
  auto y = input<cd, 1>(tl::shape_t<1>{8});
  out.requires_grad_();
  CHECK_THROWS_AS(tl::fft::ifft_out(out, y), tl::autograd_error);
}
