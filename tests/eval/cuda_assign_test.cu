// The CUDA evaluator against the CPU evaluator: one test body runs on both devices and the device
// result must equal the host result (bit for bit for exact ops; within a stated ULP bound for
// transcendentals, whose CUDA implementations differ from the host's libm and xsimd).
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <tl/cuda.hpp>

namespace cuda_assign_test {

namespace {

const tl::device cuda0 = tl::device::cuda(0);

template <class T>
std::vector<T> host_values(const tl::basic_tensor<T, tl::dextents<1>>& t) {
  auto h = t.cpu().contiguous();
  return std::vector<T>(h.data(), h.data() + h.numel());
}

template <class T, class Ext>
void check_equal(const tl::basic_tensor<T, Ext>& dev, const tl::basic_tensor<T, Ext>& host) {
  REQUIRE(dev.is_cuda());
  REQUIRE(dev.shape() == host.shape());
  const auto a = dev.cpu().contiguous().flatten();
  const auto b = host.contiguous().flatten();
  for (tl::index_t i = 0; i < a.numel(); ++i) {
    const T x = a(i), y = b(i);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(y)) {
        CHECK(std::isnan(x));
        continue;
      }
    }
    CHECK_MESSAGE(x == y, "flat index ", i);
  }
}

/// |x - y| <= ulps * ulp(y) (NaNs and infinities must match exactly).
template <class T, class Ext>
void check_close(const tl::basic_tensor<T, Ext>& dev, const tl::basic_tensor<T, Ext>& host, double ulps) {
  REQUIRE(dev.is_cuda());
  const auto a = dev.cpu().contiguous().flatten();
  const auto b = host.contiguous().flatten();
  for (tl::index_t i = 0; i < a.numel(); ++i) {
    const T x = a(i), y = b(i);
    if (std::isnan(y) || std::isinf(y)) {
      CHECK_MESSAGE((std::isnan(y) ? std::isnan(x) : x == y), "flat index ", i);
      continue;
    }
    const double tol = ulps * std::max(static_cast<double>(std::numeric_limits<T>::denorm_min()),
                                       static_cast<double>(std::nextafter(std::abs(y), std::numeric_limits<T>::infinity()) -
                                                           std::abs(y)));
    CHECK_MESSAGE(std::abs(static_cast<double>(x) - static_cast<double>(y)) <= tol, "flat index ", i, ": ", x,
                  " vs ", y);
  }
}

}  // namespace

TEST_CASE_TEMPLATE("a fused expression gives the same result on the device as on the host", T, float, double) {
  tl::manual_seed(11);
  const auto a = tl::randn<T>(37, 129);
  const tl::tensor<T, 2> b = tl::rand<T>(37, 129) + T(0.5);
  const auto c = tl::randn<T>(129);
  const auto da = a.cuda();
  const auto db = b.cuda();
  const auto dc = c.cuda();

  // Exact ops (one rounding each, the same on both): bit-identical.
  tl::tensor<T, 2> h1 = a * b + c - a / b;
  tl::tensor<T, 2> d1 = da * db + dc - da / db;
  check_equal(d1, h1);
  tl::tensor<T, 2> h2 = tl::where(a > c, tl::maximum(a, b), tl::clamp(a, T(-0.5), T(0.5)));
  tl::tensor<T, 2> d2 = tl::where(da > dc, tl::maximum(da, db), tl::clamp(da, T(-0.5), T(0.5)));
  check_equal(d2, h2);
  // Transcendentals: CUDA's libdevice is within 2 ULP (float) / 1 ULP (double) of correct rounding,
  // the host within 2 / 1, so each term agrees within 4 ULP of itself, and the sum (which cancels)
  // within 8 ULP of the sum of the terms' magnitudes.
  tl::tensor<T, 2> h3 = tl::exp(-a * a) * tl::sin(b) + tl::log1p(b) - tl::tanh(c);
  tl::tensor<T, 2> d3 = tl::exp(-da * da) * tl::sin(db) + tl::log1p(db) - tl::tanh(dc);
  const tl::tensor<T, 2> terms = tl::abs(tl::exp(-a * a) * tl::sin(b)) + tl::abs(tl::log1p(b)) + tl::abs(tl::tanh(c));
  const auto dh = d3.cpu();
  for (tl::index_t i = 0; i < h3.shape()[0]; ++i)
    for (tl::index_t j = 0; j < h3.shape()[1]; ++j)
      CHECK_MESSAGE(std::abs(static_cast<double>(dh(i, j)) - static_cast<double>(h3(i, j))) <=
                        8.0 * std::numeric_limits<T>::epsilon() * static_cast<double>(terms(i, j)),
                    "at ", i, ", ", j, ": ", dh(i, j), " vs ", h3(i, j));
}

TEST_CASE("views, broadcasting, compound assignment and aliasing on the device") {
  auto h = tl::arange<float>(0, 24, 1).reshape(4, 6);
  auto d = h.cuda();
  // Strided destination (a transposed view) and strided operands.
  tl::tensor<float, 2> ht(tl::shape_t<2>{6, 4});
  tl::tensor<float, 2> dt(tl::shape_t<2>{6, 4}, cuda0);
  ht.t() = h * 2.0f;
  dt.t() = d * 2.0f;
  check_equal(dt, ht);
  // Broadcast of a column and a row.
  tl::tensor<float, 2> hb = h.slice(1, 0, 1) + h.select(0, 2);
  tl::tensor<float, 2> db = d.slice(1, 0, 1) + d.select(0, 2);
  check_equal(db, hb);
  // += through a strided slice.
  auto h2 = h.clone();
  auto d2 = d.clone();
  h2.slice(1, 0, 6, 2) += 100.0f;
  d2.slice(1, 0, 6, 2) += 100.0f;
  check_equal(d2, h2);
  // a = a.t() on a square matrix overlaps element for element in a different order.
  auto hs = tl::arange<float>(0, 16, 1).reshape(4, 4).clone();
  auto ds = hs.cuda();
  hs.t() = hs + 0.0f;
  ds.t() = ds + 0.0f;
  check_equal(ds, hs);
  // flip (negative strides) and a lazy conjugate.
  tl::tensor<float, 2> hf = h.flip(1);
  tl::tensor<float, 2> df = d.flip(1);
  check_equal(df, hf);
  auto zc = tl::from<tl::complex<float>>({tl::complex<float>(1.f, 2.f), tl::complex<float>(3.f, -4.f)});
  auto hz = zc.conj() * zc;
  auto dz = zc.cuda().conj() * zc.cuda();
  tl::tensor<tl::complex<float>, 1> hzt = hz, dzt = dz;
  CHECK(dzt.is_cuda());
  CHECK(dzt.cpu()(0) == hzt(0));
  CHECK(dzt.cpu()(1) == hzt(1));
}

TEST_CASE("every dtype round-trips and evaluates on the device") {
  auto i32 = tl::arange<std::int32_t>(-5, 5, 1);
  tl::tensor<std::int32_t, 1> hi = i32 * 3 - 1;
  tl::tensor<std::int32_t, 1> di = i32.cuda() * 3 - 1;
  check_equal(di, hi);
  auto i64 = tl::arange<std::int64_t>(0, 1000, 7);
  tl::tensor<std::int64_t, 1> hl = i64 * i64;
  tl::tensor<std::int64_t, 1> dl = i64.cuda() * i64.cuda();
  check_equal(dl, hl);
  tl::tensor<bool, 1> hb = (i32 > 0) && (i32 < 4);
  tl::tensor<bool, 1> db = (i32.cuda() > 0) && (i32.cuda() < 4);
  check_equal(db, hb);
  tl::tensor<double, 1> hd = tl::astype<double>(i32) / 3.0;
  tl::tensor<double, 1> dd = tl::astype<double>(i32.cuda()) / 3.0;
  check_equal(dd, hd);
}

TEST_CASE("edge cases: empty tensors, rank 0, special values, 32-bit and 64-bit index paths") {
  auto e = tl::zeros<float>(0, 5, cuda0);
  tl::tensor<float, 2> e2 = e + 1.0f;
  CHECK(e2.is_cuda());
  CHECK(e2.numel() == 0);
  tl::tensor<float, 0> s(tl::shape_t<0>{}, cuda0);
  s = tl::full<float>(tl::shape_t<0>{}, 3.0f, cuda0) * 2.0f;
  CHECK(s.item() == 6.0f);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  auto sp = tl::from<float>({0.0f, -0.0f, inf, -inf, nan, 1e-45f});
  tl::tensor<float, 1> hs = tl::sqrt(sp) + tl::exp(-sp);
  tl::tensor<float, 1> ds = tl::sqrt(sp.cuda()) + tl::exp(-sp.cuda());
  check_close(ds, hs, 4);
  // Odd sizes exercise the vector path's scalar tail.
  for (tl::index_t n : {1, 3, 4, 5, 1023, 4097}) {
    auto x = tl::arange<float>(0, static_cast<double>(n), 1);
    tl::tensor<float, 1> hx = x * 2.0f + 1.0f;
    tl::tensor<float, 1> dx = x.cuda() * 2.0f + 1.0f;
    check_equal(dx, hx);
  }
  // Unaligned operand (offset by one element) takes the scalar linear path.
  auto y = tl::arange<float>(0, 100, 1).cuda();
  tl::tensor<float, 1> dy = y.slice(0, 1, 100) * 1.0f;
  CHECK(host_values(dy)[0] == 1.0f);
  CHECK(host_values(dy)[98] == 99.0f);
}

TEST_CASE("creation functions and printing on the device") {
  CHECK(tl::zeros<float>(2, 3, cuda0).is_cuda());
  check_equal(tl::ones<double>(3, 2, cuda0), tl::ones<double>(3, 2));
  check_equal(tl::full<int>(tl::shape_t<1>{4}, 7, cuda0), tl::full<int>(tl::shape_t<1>{4}, 7));
  check_equal(tl::eye<float>(3, 4, cuda0), tl::eye<float>(3, 4));
  check_equal(tl::linspace<double>(0, 1, 11, cuda0), tl::linspace<double>(0, 1, 11));
  check_equal(tl::arange<float>(0, 5, 1, cuda0), tl::arange<float>(0, 5, 1));
  auto d = tl::ones<float>(2, cuda0);
  CHECK(tl::zeros_like(d).is_cuda());
  CHECK(tl::to_string(d) == "tensor([1., 1.], device='cuda:0')");
}

TEST_CASE("random numbers on the device equal the host's for the same seed") {
  tl::manual_seed(1234);
  auto hu = tl::rand<float>(10001);
  auto hn = tl::randn<float>(10001);
  auto hk = tl::randint(-7, 9, tl::shape_t<1>{5000});
  auto hb = tl::bernoulli<float>(0.3, tl::shape_t<1>{5000});
  auto hd = tl::randn<double>(4001);
  tl::manual_seed(1234);
  auto du = tl::rand<float>(10001, cuda0);
  auto dn = tl::randn<float>(10001, cuda0);
  auto dk = tl::randint(-7, 9, tl::shape_t<1>{5000}, cuda0);
  auto db = tl::bernoulli<float>(0.3, tl::shape_t<1>{5000}, cuda0);
  auto dd = tl::randn<double>(4001, cuda0);
  check_equal(du, hu);                 // integer arithmetic on the same words: exact
  check_close(dn, hn, 1);              // Box–Muller in double, rounded to float
  check_equal(dk, hk);
  check_equal(db, hb);
  check_close(dd, hd, 4);              // device log/sin/cos in double vs the host's libm
}

TEST_CASE("mixing devices and host element access are errors that name the op") {
  auto h = tl::ones<float>(4);
  auto d = h.cuda();
  CHECK_THROWS_AS((void)tl::eval(h + d), tl::device_error);
  try {
    tl::tensor<float, 1> r = h * d;
    FAIL("expected tl::device_error");
  } catch (const tl::device_error& e) {
    const std::string m = e.what();
    CHECK(m.find("cpu") != std::string::npos);
    CHECK(m.find("cuda:0") != std::string::npos);
  }
  CHECK_THROWS_AS((void)d(0), tl::device_error);
  CHECK_THROWS_AS((void)d.at(0), tl::device_error);
  CHECK(d.slice(0, 1, 2).item() == 1.0f);
  CHECK_THROWS_AS(h.copy_(d), tl::device_error);
  CHECK_THROWS_AS((void)tl::zeros<float>(2, tl::device::cuda(tl::cuda::device_count())), tl::cuda_error);
}

TEST_CASE("the caching allocator reuses blocks: a loop does not call cudaMalloc") {
  auto x = tl::randn<float>(1 << 20, cuda0);
  tl::tensor<float, 1> y = tl::sin(x);  // warm up: one block of this size is cached after the loop's first pass
  {
    tl::tensor<float, 1> t = x * 2.0f;
  }
  const auto before = tl::cuda::memory_stats(0);
  for (int i = 0; i < 50; ++i) {
    tl::tensor<float, 1> t = x * 2.0f + y;  // a new tensor each iteration
  }
  const auto after = tl::cuda::memory_stats(0);
  CHECK(after.num_device_allocs == before.num_device_allocs);
  CHECK(after.num_cache_hits >= before.num_cache_hits + 50);
  CHECK(after.allocated_bytes == before.allocated_bytes);
  tl::cuda::empty_cache();
  CHECK(tl::cuda::memory_stats(0).reserved_bytes <= after.reserved_bytes);
}

namespace {
/// A host function that holds its stream until *flag is set.
void CUDART_CB hold_stream(void* flag) {
  auto* go = static_cast<std::atomic<bool>*>(flag);
  while (!go->load()) std::this_thread::yield();
}
/// Sets the flag when the scope ends (a failed check must not leave the stream held).
struct release_on_exit {
  std::atomic<bool>& go;
  ~release_on_exit() { go = true; }
};
}  // namespace

TEST_CASE_TEMPLATE("record_stream: a block used on another stream is reused only after that stream's work",
                   Record, std::true_type, std::false_type) {
  // One size class (4 MiB) and an empty cache, so the blocks handed out are known. Only cached
  // blocks are handed out while `side` is held (cudaMalloc may wait for every stream).
  tl::cuda::empty_cache();
  const tl::index_t n = 777777;
  std::optional<tl::tensor<float, 1>> a(tl::empty<float>(n, cuda0)), b(tl::empty<float>(n, cuda0));
  const float* block_a = a->data();
  a.reset();  // A cached; B stays live
  const auto allocs = tl::cuda::memory_stats(0).num_device_allocs;
  tl::cuda::stream side;
  std::atomic<bool> go{false};
  {
    release_on_exit guard{go};
    REQUIRE(cudaLaunchHostFunc(side.handle(), hold_stream, &go) == cudaSuccess);
    std::optional<tl::tensor<float, 1>> x(tl::empty<float>(n, cuda0));
    CHECK(x->data() == block_a);  // the one cached block
    if (Record::value) tl::cuda::record_stream(*x, side);
    x.reset();  // freed while `side` is held
    b.reset();  // B cached too
    const auto y = tl::empty<float>(n, cuda0);
    // Recorded, A waits for `side` and y gets B; not recorded, A is reused at once.
    CHECK((y.data() != block_a) == Record::value);
    CHECK(tl::cuda::memory_stats(0).num_device_allocs == allocs);
  }
  side.synchronize();
  // Once `side` has finished, A is handed out again (without a new cudaMalloc when recorded).
  const auto p = tl::empty<float>(n, cuda0), q = tl::empty<float>(n, cuda0);
  CHECK((p.data() == block_a || q.data() == block_a));
  CHECK_THROWS_AS(tl::cuda::record_stream(tl::zeros<float>(4), side), tl::device_error);
  tl::cuda::record_stream(tl::empty<float>(0, cuda0), side);  // empty: nothing to record
}

TEST_CASE("streams, events and asynchronous pinned copies") {
  tl::cuda::stream s;
  auto h = tl::arange<float>(0, 1 << 16, 1).pin_memory();
  CHECK(h.is_pinned());
  tl::tensor<float, 1> out;
  tl::cuda::event start, stop;
  {
    tl::cuda::stream_guard g(s);
    CHECK(tl::cuda::current_stream() == s.handle());
    start.record();
    auto d = h.to(cuda0, /*non_blocking=*/true);
    tl::tensor<float, 1> r = d * 3.0f;
    out = r.to(tl::device::cpu, /*non_blocking=*/true);
    stop.record();
  }
  s.synchronize();
  CHECK(out.is_pinned());
  CHECK(out(100) == 300.0f);
  CHECK(stop.elapsed_ms(start) >= 0.0f);
  CHECK(s.query());
}

TEST_CASE("a CUDA graph replays a captured 20-op expression with the eager result") {
  const tl::index_t n = 1 << 16;
  auto x = tl::randn<float>(n, cuda0);
  auto y = tl::zeros<float>(n, cuda0);
  auto step = [&] {
    y.copy_(tl::sin(x) * 0.5f + tl::cos(x) * 0.25f - tl::exp(-x * x) + tl::tanh(x) * x - tl::sqrt(tl::abs(x)) +
            tl::sigmoid(x) / (1.0f + x * x) + tl::log1p(tl::abs(x)) * 0.1f);
  };
  step();
  const auto eager = y.cpu();
  y.fill_(0.0f);
  tl::cuda::graph g;
  g.capture(step);
  CHECK(g.captured());
  CHECK(y.cpu()(0) == 0.0f);  // capture does not run the work
  g.replay();
  tl::cuda::synchronize();
  check_equal(y, tl::tensor<float, 1>(eager));
  // Refill the static input and replay: the graph reads the new values.
  x.copy_(x * 2.0f);
  g.replay();
  tl::cuda::synchronize();
  step();
  auto again = y.cpu();
  g.replay();
  tl::cuda::synchronize();
  check_equal(y, tl::tensor<float, 1>(again));
}

}  // namespace cuda_assign_test
