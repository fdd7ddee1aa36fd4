// Scans (cumsum, cumprod), softmax, log_softmax and sort on a CUDA device against the host
// evaluator, and the bit-for-bit determinism of device reductions, scans and softmax.
#include "cuda_compare.hpp"

namespace cuda_scan_sort_test {

TEST_CASE_TEMPLATE("cumsum and cumprod along every dim", T, float, double, std::int32_t, std::int64_t, bool,
                   tl::complex<float>) {
  tl::manual_seed(9);
  // Float and complex<float> accumulate in double on both devices, in a different order: the
  // results differ at most in the last bit.
  const double rt = tl::detail::category<T>() >= 2 ? 1e-6 : 0;
  const double at = tl::detail::category<T>() >= 2 ? 1e-9 : 0;
  auto make = [](tl::shape_t<2> s) {
    if constexpr (std::is_same_v<T, bool>) return tl::tensor<bool, 2>(tl::randint(0, 2, s) > 0);
    else if constexpr (tl::detail::category<T>() == 1) return tl::randint<T>(-1, 2, s);  // -1, 0, 1
    else return tl::tensor<T, 2>(tl::rand<T>(s) * 0.02 + 0.99);                        // factors near 1
  };
  for (const auto s : {tl::shape_t<2>{37, 129}, tl::shape_t<2>{3, 20000}, tl::shape_t<2>{5000, 7},
                       tl::shape_t<2>{64, 4100}, tl::shape_t<2>{9, 3}}) {
    const auto x = make(s);
    CAPTURE(s[0]);
    CAPTURE(s[1]);
    same_on_device([](const auto& p) { return tl::cumsum(p, 0); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::cumsum(p, -1); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::cumprod(p, 0); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::cumprod(p, 1); }, rt, at, x);
  }
  const auto x = make(tl::shape_t<2>{40, 50});
  same_on_device([](const auto& p) { return tl::cumsum(p.t(), 1); }, rt, at, x);
  same_on_device([](const auto& p) { return tl::cumprod(p.slice(1, 0, 50, 2), 0); }, rt, at, x);
  // One long line (chunked) and a rank-3 scan along the middle dim.
  const auto line = make(tl::shape_t<2>{1, 1 << 18});
  same_on_device([](const auto& p) { return tl::cumsum(p.select(0, 0), 0); }, rt, at, line);
  const auto z = make(tl::shape_t<2>{8, 600});
  same_on_device([](const auto& p) { return tl::cumsum(p.reshape(8, 20, 30), 1); }, rt, at, z);
}

TEST_CASE("cumsum of an expression with broadcasting") {
  tl::manual_seed(10);
  const auto a = tl::rand<double>(30, 17);
  const auto b = tl::rand<double>(17);
  same_on_device([](const auto& p, const auto& q) { return tl::cumsum(p * 2.0 + q, 0); }, 1e-13, 0, a, b);
  same_on_device([](const auto& p, const auto& q) { return tl::cumsum(p * 2.0 + q, 1); }, 1e-13, 0, a, b);
}

TEST_CASE_TEMPLATE("softmax and log_softmax over dim 0 and -1", T, float, double) {
  tl::manual_seed(11);
  // log_softmax near 0 is x - max - log(sum): its absolute error is the sum's relative error
  // (float: sums of up to 5000 terms in different orders, and exp within 2 ULP).
  const double rt = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  const double at = std::is_same_v<T, float> ? 1e-6 : 1e-14;
  const double at_log = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  // Shapes that reach every kernel: warp rows, block rows kept in registers, block rows read again,
  // strided rows and one thread per column.
  for (const auto s : {tl::shape_t<2>{37, 129}, tl::shape_t<2>{13, 600}, tl::shape_t<2>{5, 5000},
                       tl::shape_t<2>{2000, 64}, tl::shape_t<2>{40, 2048}, tl::shape_t<2>{1, 1}}) {
    const tl::tensor<T, 2> x = tl::randn<T>(s) * T(3);
    CAPTURE(s[0]);
    CAPTURE(s[1]);
    same_on_device([](const auto& p) { return tl::softmax(p, -1); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::softmax(p, 0); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::log_softmax(p, -1); }, rt, at_log, x);
    same_on_device([](const auto& p) { return tl::log_softmax(p, 0); }, rt, at_log, x);
  }
  const auto y = tl::randn<T>(3, 4, 5);
  same_on_device([](const auto& p) { return tl::softmax(p, 1); }, rt, at, y);
  same_on_device([](const auto& p) { return tl::log_softmax(p * T(2) - T(1), 2); }, rt, at_log, y);
  same_on_device([](const auto& p) { return tl::softmax(p.permute(2, 0, 1), 0); }, rt, at, y);
  // Rows of -inf give NaN; a +inf gives NaN too (inf - inf), as on the host.
  auto z = tl::randn<T>(4, 9);
  for (int j = 0; j < 9; ++j) z(1, j) = -std::numeric_limits<T>::infinity();
  z(2, 3) = std::numeric_limits<T>::infinity();
  same_on_device([](const auto& p) { return tl::softmax(p, 1); }, rt, at, z);
  same_on_device([](const auto& p) { return tl::log_softmax(p, 1); }, rt, at_log, z);
}

TEST_CASE_TEMPLATE("softmax of aligned rows of 2 to 32 KiB (a block per row, in registers) follows the host", T,
                   float, double) {
  tl::manual_seed(14);
  const double rt = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  const double at = std::is_same_v<T, float> ? 1e-6 : 1e-14;
  const double at_log = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  // Rows of 520 elements to 32 KiB: every block size and chunk count of the kernel, full and with
  // idle threads, and just past the longest row (the block kernel reading the row twice); 3 to 3000
  // rows; a rank-3 tensor; the row-aligned slice takes the kernel too, the shifted one does not.
  const tl::index_t longest = 32768 / static_cast<tl::index_t>(sizeof(T));
  for (const auto s : {tl::shape_t<2>{3, 520}, tl::shape_t<2>{3000, 1024}, tl::shape_t<2>{4, 1500},
                       tl::shape_t<2>{7, longest / 2}, tl::shape_t<2>{5, longest / 2 + 8}, tl::shape_t<2>{6, longest},
                       tl::shape_t<2>{5, longest - 4}, tl::shape_t<2>{3, longest + 4}}) {
    CAPTURE(s[0]);
    CAPTURE(s[1]);
    tl::tensor<T, 2> x = tl::randn<T>(s) * T(3);
    // A row of -inf (NaN out), a +inf (NaN out: inf - inf), a NaN (its row NaN), a row of equal values.
    for (tl::index_t j = 0; j < s[1]; ++j) x(0, j) = -std::numeric_limits<T>::infinity();
    x(1, s[1] / 2) = std::numeric_limits<T>::infinity();
    x(2, s[1] - 1) = std::numeric_limits<T>::quiet_NaN();
    same_on_device([](const auto& p) { return tl::softmax(p, -1); }, rt, at, x);
    same_on_device([](const auto& p) { return tl::log_softmax(p, 1); }, rt, at_log, x);
    const tl::index_t n = s[1];
    same_on_device([n](const auto& p) { return tl::softmax(p.slice(1, 4, n), 1); }, rt, at, x);
    same_on_device([n](const auto& p) { return tl::softmax(p.slice(1, 1, n - 3), 1); }, rt, at, x);
  }
  const auto y = tl::randn<T>(4, 3, 1000);
  same_on_device([](const auto& p) { return tl::softmax(p, 2); }, rt, at, y);
  // Rows at no single stride (two of each three), and one row broadcast to five (stride 0).
  const auto w = tl::randn<T>(4, 3, 1032);
  same_on_device([](const auto& p) { return tl::softmax(p.slice(1, 0, 2), -1); }, rt, at, w);
  same_on_device([](const auto& p) { return tl::log_softmax(p.slice(1, 1, 3), 2); }, rt, at_log, w);
  same_on_device([](const auto& p) { return tl::softmax(p.expand(5, 1032), 1); }, rt, at, tl::tensor<T, 2>(tl::randn<T>(1, 1032)));
  // Negative row strides (flipped views): rows in reverse order, and reversed inside a batch.
  same_on_device([](const auto& p) { return tl::softmax(p.flip({0}), -1); }, rt, at, w);
  same_on_device([](const auto& p) { return tl::log_softmax(p.flip({1}), -1); }, rt, at_log, w);
  same_on_device([](const auto& p) { return tl::log_softmax(p, -1); }, rt, at_log, y);
  const auto m = tl::randn<T>(64, 2048, cuda0);
  CHECK(bytes_of(tl::softmax(m, 1)) == bytes_of(tl::softmax(m, 1)));
}

TEST_CASE_TEMPLATE("sort gives the host's values and indices (stable, both directions)", T, float, double,
                   std::int32_t, std::int64_t) {
  tl::manual_seed(12);
  const auto x = tl::randint<T>(-5, 5, tl::shape_t<2>{13, 300});  // many ties
  for (const bool desc : {false, true}) {
    CAPTURE(desc);
    pair_on_device([desc](const auto& p) { return tl::sort(p, -1, desc); }, x);
    pair_on_device([desc](const auto& p) { return tl::sort(p, 0, desc); }, x);
    pair_on_device([desc](const auto& p) { return tl::sort(p.t(), 1, desc); }, x);
    exact_on_device([desc](const auto& p) { return tl::argsort(p, 1, desc); }, x);
    pair_on_device([desc](const auto& p) { return tl::sort(p, 0, desc); }, tl::randint<T>(-50, 50, tl::shape_t<1>{1 << 16}));
    pair_on_device([desc](const auto& p) { return tl::sort(p * T(2) - T(1), 1, desc); }, x);
  }
}

TEST_CASE("sort orders NaN, infinities and signed zeros like the host") {
  const std::vector<double> v{3, nan_d, -0.0, 1, 0.0, -inf_d, -nan_d, inf_d, 1, -0.0, nan_d, 0.0, -2};
  const auto f = tl::from<float>(v, tl::shape_t<1>{static_cast<tl::index_t>(v.size())});
  const auto d = tl::from<double>(v, tl::shape_t<2>{1, static_cast<tl::index_t>(v.size())});
  for (const bool desc : {false, true}) {
    CAPTURE(desc);
    pair_on_device([desc](const auto& p) { return tl::sort(p, 0, desc); }, f);
    pair_on_device([desc](const auto& p) { return tl::sort(p, 1, desc); }, d);
    // Signed zeros come back from the input, in their stable order.
    const auto h = tl::sort(f, 0, desc).values;
    const auto g = tl::sort(f.cuda(), 0, desc).values.cpu();
    for (tl::index_t i = 0; i < h.numel(); ++i) CHECK(std::signbit(g(i)) == std::signbit(h(i)));
  }
  const tl::tensor<bool, 1> b = tl::randint(0, 2, 100) > 0;
  pair_on_device([](const auto& p) { return tl::sort(p, 0); }, b);
  pair_on_device([](const auto& p) { return tl::sort(p, 0, true); }, b);
}

TEST_CASE("device reductions, scans and softmax are deterministic: two runs give the same bits") {
  tl::manual_seed(13);
  const auto x = tl::randn<float>(1 << 22, cuda0);
  const auto m = tl::randn<float>(2048, 2048, cuda0);
  CHECK(bytes_of(tl::sum(x)) == bytes_of(tl::sum(x)));
  CHECK(bytes_of(tl::sum(x * x - 1.0f)) == bytes_of(tl::sum(x * x - 1.0f)));
  CHECK(bytes_of(tl::sum(m, 0)) == bytes_of(tl::sum(m, 0)));
  CHECK(bytes_of(tl::sum(m, 1)) == bytes_of(tl::sum(m, 1)));
  CHECK(bytes_of(tl::sum(m.t())) == bytes_of(tl::sum(m.t())));
  CHECK(bytes_of(tl::var(m, 0)) == bytes_of(tl::var(m, 0)));
  CHECK(bytes_of(tl::norm(x)) == bytes_of(tl::norm(x)));
  CHECK(bytes_of(tl::logsumexp(m, 1)) == bytes_of(tl::logsumexp(m, 1)));
  CHECK(bytes_of(tl::softmax(m, 1)) == bytes_of(tl::softmax(m, 1)));
  CHECK(bytes_of(tl::softmax(m, 0)) == bytes_of(tl::softmax(m, 0)));
  CHECK(bytes_of(tl::cumsum(x, 0)) == bytes_of(tl::cumsum(x, 0)));
  // On another stream, too.
  const auto ref = bytes_of(tl::sum(m, 0));
  tl::cuda::stream s;
  {
    tl::cuda::stream_guard g(s);
    const auto r = tl::sum(m, 0);
    s.synchronize();
    CHECK(bytes_of(r) == ref);
  }
}

}  // namespace cuda_scan_sort_test
