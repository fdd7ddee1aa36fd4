// The device API in a program compiled without CUDA: devices compare and print like torch's, host
// tensors report the cpu device, and every request for CUDA memory or work fails with a
// tl::device_error that says how to get CUDA support (never a crash).
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <tl/tensor.hpp>

TEST_CASE("devices compare and print like torch.device") {
  constexpr tl::device c = tl::device::cpu;
  constexpr tl::device g0 = tl::device::cuda();
  constexpr tl::device g1 = tl::device::cuda(1);
  static_assert(c.is_cpu() && !c.is_cuda());
  static_assert(g0.is_cuda() && g0.index() == 0 && g1.index() == 1);
  static_assert(g0 != g1 && g0 != c && tl::device::cuda(0) == g0);
  CHECK(c.str() == "cpu");
  CHECK(g1.str() == "cuda:1");
  std::ostringstream os;
  os << g0;
  CHECK(os.str() == "cuda:0");
}

TEST_CASE("host tensors live on the cpu device") {
  auto a = tl::ones<float>(2, 3);
  CHECK(a.device() == tl::device::cpu);
  CHECK(a.is_cpu());
  CHECK_FALSE(a.is_cuda());
  CHECK_FALSE(a.is_pinned());
  CHECK(a.slice(1, 0, 2).device() == tl::device::cpu);
  tl::tensor<float, 2> b = a * 2.0f;
  CHECK(b.device() == tl::device::cpu);
  CHECK(tl::zeros<float>(2, tl::device::cpu).device() == tl::device::cpu);
  CHECK(tl::zeros_like(a).device() == tl::device::cpu);
  // to() the device a tensor is already on returns the same storage.
  auto c = a.to(tl::device::cpu);
  CHECK(c.data() == a.data());
  CHECK(a.cpu().data() == a.data());
}

TEST_CASE("the trailing-device forms of the factories build the same host tensors") {
  auto z = tl::zeros<double>(2, 3, tl::device::cpu);
  CHECK(z.shape() == tl::shape_t<2>{2, 3});
  CHECK(z(1, 2) == 0.0);
  auto o = tl::ones<int>(4, tl::device::cpu);
  CHECK(o(3) == 1);
  auto f = tl::full<float>(tl::shape_t<1>{3}, 2.5, tl::device::cpu);
  CHECK(f(2) == 2.5f);
  tl::manual_seed(5);
  auto r1 = tl::randn<float>(16, tl::device::cpu);
  tl::manual_seed(5);
  auto r2 = tl::randn<float>(16);
  for (int i = 0; i < 16; ++i) CHECK(r1(i) == r2(i));
}

TEST_CASE("without CUDA support, CUDA requests throw a device_error naming the op") {
  auto check_msg = [](auto&& f, const std::string& part) {
    try {
      f();
      FAIL("expected tl::device_error");
    } catch (const tl::device_error& e) {
      const std::string m = e.what();
      CHECK_MESSAGE(m.find(part) != std::string::npos, m);
      CHECK_MESSAGE(m.find("nvcc") != std::string::npos, m);
    }
  };
  check_msg([] { (void)tl::zeros<float>(3, tl::device::cuda()); }, "tl::allocate");
  check_msg([] { (void)tl::empty<float>(tl::shape_t<2>{2, 2}, tl::device::cuda()); }, "tl::allocate");
  check_msg([] { (void)tl::ones<float>(3).cuda(); }, "tl::allocate");
  check_msg([] { (void)tl::randn<float>(8, tl::device::cuda()); }, "tl::allocate");
  check_msg([] { (void)tl::ones<float>(3).pin_memory(); }, "tl::pin_memory");
  // Nothing was lost: host work still runs afterwards.
  auto a = tl::arange(4);
  CHECK(tl::sum(a).item() == 6);
}
