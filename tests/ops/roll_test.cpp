// Tests for tl::roll (torch.roll) and, through it, tl::fft::fftshift / ifftshift.
#define TL_AUTOGRAD 1
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <tl/tensor.hpp>

#include "../test_util.hpp"

namespace {
using tl::index_t;

template <class T, std::size_t R>
tl::tensor<T, R> iota(const tl::shape_t<R>& s) {
  tl::tensor<T, R> t(s);
  for (index_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<T>(i);
  return t;
}

template <class T, class Ext>
std::vector<T> values(const tl::basic_tensor<T, Ext>& t) {
  const auto c = t.contiguous();
  return std::vector<T>(c.data(), c.data() + c.numel());
}

index_t mod(index_t a, index_t n) { return ((a % n) + n) % n; }

using tl_test::error_of;
}  // namespace

TEST_CASE("roll matches torch.roll on small cases") {
  // Expected values printed by torch 1.13 (torch.roll) for the same inputs.
  const auto v = iota<float, 1>({5});
  CHECK(values(tl::roll(v, 2)) == std::vector<float>{3, 4, 0, 1, 2});
  CHECK(values(tl::roll(v, -1)) == std::vector<float>{1, 2, 3, 4, 0});
  CHECK(values(tl::roll(v, {1, 1}, {0, 0})) == std::vector<float>{3, 4, 0, 1, 2});  // a repeated dim adds
  const auto m = iota<float, 2>({2, 3});
  const auto f = tl::roll(m, 1);  // no dims: the flattened tensor, shape kept
  CHECK(f.shape() == tl::shape_t<2>{2, 3});
  CHECK(values(f) == std::vector<float>{5, 0, 1, 2, 3, 4});
  CHECK(values(tl::roll(m, 1, 0)) == std::vector<float>{3, 4, 5, 0, 1, 2});
  CHECK(values(tl::roll(m, {1, -1}, {0, 1})) == std::vector<float>{4, 5, 3, 1, 2, 0});
}

TEST_CASE_TEMPLATE("roll moves element j to (j + shift) mod n along every rolled dim", T, std::int32_t, double,
                   tl::complex<float>) {
  const auto x = iota<T, 3>({3, 4, 5});
  for (index_t s0 : {-7, -1, 0, 2, 3})
    for (index_t s2 : {-5, 1, 4, 11}) {
      const auto r = tl::roll(x, {s0, s2}, {0, -1});
      REQUIRE(r.shape() == x.shape());
      CHECK(r.is_contiguous());
      for (index_t i = 0; i < 3; ++i)
        for (index_t j = 0; j < 4; ++j)
          for (index_t k = 0; k < 5; ++k) CHECK(r(mod(i + s0, 3), j, mod(k + s2, 5)) == x(i, j, k));
    }
}

TEST_CASE("roll of views, expressions, empty, size-1 and zero-dim tensors; always a new tensor") {
  const auto x = iota<double, 2>({4, 3});
  const auto t = x.t();  // [3, 4], non-contiguous
  const auto r = tl::roll(t, 1, 1);
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 4; ++j) CHECK(r(i, mod(j + 1, 4)) == t(i, j));
  const auto e = tl::roll(x * 2.0, -1, 0);  // a lazy expression is evaluated once
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(e(mod(i - 1, 4), j) == 2.0 * x(i, j));
  const tl::tensor<double, 2> empty(tl::shape_t<2>{0, 3});
  CHECK(tl::roll(empty, 2, 0).shape() == tl::shape_t<2>{0, 3});
  CHECK(tl::roll(empty, 2).numel() == 0);
  const auto one = iota<double, 2>({1, 3});
  CHECK(values(tl::roll(one, 5, 0)) == values(one));
  tl::tensor<double, 0> z(tl::shape_t<0>{});
  z() = 3.0;
  CHECK(tl::roll(z, 2)() == 3.0);
  // A zero shift still copies (torch.roll never returns a view).
  auto same = tl::roll(x, 0, 0);
  same(0, 0) = -1.0;
  CHECK(x(0, 0) == 0.0);
}

TEST_CASE("roll errors name the op and the offending values") {
  const auto m = iota<float, 2>({2, 3});
  const std::string e1 = error_of([&] { (void)tl::roll(m, std::vector<index_t>{}); });
  CHECK(e1.find("tl::roll") != std::string::npos);
  CHECK(e1.find("shifts") != std::string::npos);
  const std::string e2 = error_of([&] { (void)tl::roll(m, {1, 2}, {0}); });
  CHECK(e2.find("2 shifts and 1 dims") != std::string::npos);
  const std::string e3 = error_of([&] { (void)tl::roll(m, {1, 2}); });
  CHECK(e3.find("shifts and dims must align") != std::string::npos);
  const std::string e4 = error_of([&] { (void)tl::roll(m, 1, 5); });
  CHECK(e4.find("tl::roll") != std::string::npos);
  CHECK(e4.find("5") != std::string::npos);
}

TEST_CASE("roll is differentiable: the gradient is the opposite roll") {
  using X = tl::tensor<double, 2>;
  tl::manual_seed(5);
  const X x = tl::randn<double>(3, 4);
  CHECK(tl::autograd::gradcheck([](const X& v) { return tl::roll(v, {1, -2}, {0, 1}); }, x));
  CHECK(tl::autograd::gradcheck([](const X& v) { return tl::roll(v, 5); }, x));
  CHECK(tl::autograd::gradcheck([](const X& v) { return tl::fft::fftshift(v); }, x));
  CHECK(tl::autograd::gradcheck([](const X& v) { return tl::fft::ifftshift(v, {1}); }, x));
}

TEST_CASE("fftshift and ifftshift are inverse rolls by extent / 2; a repeated dim rolls twice as in torch") {
  const auto v = iota<float, 1>({5});
  CHECK(values(tl::fft::fftshift(v)) == std::vector<float>{3, 4, 0, 1, 2});   // numpy.fft.fftshift
  CHECK(values(tl::fft::ifftshift(v)) == std::vector<float>{2, 3, 4, 0, 1});  // numpy.fft.ifftshift
  CHECK(values(tl::fft::fftshift(v, {0, 0})) == std::vector<float>{1, 2, 3, 4, 0});  // torch 1.13
  const auto m = iota<double, 3>({3, 4, 5});
  CHECK(values(tl::fft::ifftshift(tl::fft::fftshift(m))) == values(m));
  CHECK(values(tl::fft::ifftshift(tl::fft::fftshift(m, {-1, 0}), {0, 2})) == values(m));
  const std::string e = error_of([&] { (void)tl::fft::fftshift(m, {3}); });
  CHECK(e.find("fftshift") != std::string::npos);
}
