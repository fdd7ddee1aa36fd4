// Reductions on a CUDA device against the host evaluator, continued: complex results, expressions,
// broadcasting and strided views, segmented large reductions, NaN/inf, empty reductions, errors.
#include "cuda_compare.hpp"

namespace cuda_reduce_edge_test {

TEST_CASE("complex var, std and norm have real results on the device too") {
  tl::manual_seed(5);
  const auto z = tl::randn<tl::complex<double>>(9, 31);
  same_on_device([](const auto& a) { return tl::var(a, 1); }, 1e-12, 1e-14, z);
  same_on_device([](const auto& a) { return tl::std(a); }, 1e-12, 1e-14, z);
  same_on_device([](const auto& a) { return tl::norm(a, 2, 0); }, 1e-12, 1e-14, z);
  same_on_device([](const auto& a) { return tl::norm(a, 1); }, 1e-12, 1e-14, z);
  exact_on_device([](const auto& a) { return tl::count_nonzero(a, 0); }, z);
}

TEST_CASE("expressions, broadcasting and strided views are reduced directly") {
  tl::manual_seed(6);
  const auto a = tl::rand<float>(64, 300);
  const auto b = tl::rand<float>(64, 300);
  const auto c = tl::rand<float>(300);
  const auto col = tl::rand<float>(64, 1);
  const double rt = rtol<float>();
  same_on_device([](const auto& p, const auto& q, const auto& r) { return tl::sum(p * q + r); }, rt, 0, a, b, c);
  same_on_device([](const auto& p, const auto& q, const auto& r) { return tl::sum(p * q + r, 0); }, rt, 0, a, b, c);
  same_on_device([](const auto& p, const auto& q, const auto& r) { return tl::sum(p * q + r, 1); }, rt, 0, a, b, c);
  same_on_device([](const auto& p, const auto& q) { return tl::sum(tl::exp(p) * q, 1); }, rt, 0, a, col);
  same_on_device([](const auto& p, const auto& q) { return tl::mean(tl::exp(p) * q, 0); }, rt, 0, a, col);
  // Transposed, step-sliced and flipped views (strided and negative-stride leaves).
  same_on_device([](const auto& p) { return tl::sum(p.t()); }, rt, 0, a);
  same_on_device([](const auto& p) { return tl::sum(p.t(), 0); }, rt, 0, a);
  same_on_device([](const auto& p) { return tl::sum(p.t(), 1); }, rt, 0, a);
  same_on_device([](const auto& p) { return tl::sum(p.slice(1, 1, 300, 3), 1); }, rt, 0, a);
  same_on_device([](const auto& p) { return tl::sum(p.slice(1, 1, 300, 3), 0); }, rt, 0, a);
  same_on_device([](const auto& p) { return tl::sum(p.flip(0), 0); }, rt, 0, a);
  exact_on_device([](const auto& p) { return tl::amax(p.flip(1), 1); }, a);
  // Rank 3: every way of choosing the reduced dims (flat ranges, rows, runs of rows, columns).
  const auto x = tl::rand<double>(6, 7, 40);
  const auto w = tl::rand<double>(6, 7, 5);
  const double rd = rtol<double>();
  same_on_device([](const auto& p) { return tl::sum(p, tl::dims{1, 2}); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p, tl::dims{0, 2}); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p, tl::dims{0, 1}); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p, 1, tl::keepdim); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p, 0); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p.permute(2, 0, 1)); }, rd, 0, x);
  same_on_device([](const auto& p) { return tl::sum(p, tl::dims{0, 1}); }, rd, 0, w);
  same_on_device([](const auto& p) { return tl::sum(p, 1); }, rd, 0, w);
  exact_on_device([](const auto& p) { return tl::argmax(p, 1); }, x);
  exact_on_device([](const auto& p) { return tl::argmin(p, 0); }, w);
  // Contiguous columns: a middle run of reduced dims over kept dims of 20 elements (the flat column
  // walk), and the same through a transposed view (the general column walk).
  const auto y = tl::rand<double>(3, 5, 4, 20);
  same_on_device([](const auto& p) { return tl::sum(p, tl::dims{1, 2}); }, rd, 0, y);
  same_on_device([](const auto& p) { return tl::sum(p * p, tl::dims{0, 1}, tl::keepdim); }, rd, 0, y);
  same_on_device([](const auto& p) { return tl::sum(p.transpose(0, 1), tl::dims{1, 2}); }, rd, 0, y);
  exact_on_device([](const auto& p) { return tl::amax(p, tl::dims{1, 2}); }, y);
  exact_on_device([](const auto& p) { return tl::argmax(p, 2); }, y);
  // A scalar-only expression and a rank-0 tensor.
  exact_on_device([](const auto& p) { return tl::sum(p); }, tl::full(tl::shape_t<0>{}, 2.5f));
}

TEST_CASE("large reductions split into segments agree with the host") {
  tl::manual_seed(7);
  const double rt = rtol<float>();
  same_on_device([](const auto& p) { return tl::sum(p, 1); }, rt, 0, tl::rand<float>(3, 100000));
  same_on_device([](const auto& p) { return tl::sum(p); }, rt, 0, tl::rand<float>(1 << 21));
  same_on_device([](const auto& p) { return tl::sum(p, 0); }, rt, 0, tl::rand<float>(5000, 40));
  same_on_device([](const auto& p) { return tl::sum(p, 0); }, rt, 0, tl::rand<float>(200000, 3));
  same_on_device([](const auto& p) { return tl::mean(p, 1); }, rt, 0, tl::rand<float>(3000, 100));
  // The maximum at two places: the first one wins across segments.
  auto v = tl::rand<float>(1 << 20);
  v(123457) = 2.0f;
  v(900001) = 2.0f;
  exact_on_device([](const auto& p) { return tl::argmax(p); }, v);
  exact_on_device([](const auto& p) { return tl::amax(p); }, v);
  exact_on_device([](const auto& p) { return tl::count_nonzero(p > 0.5f); }, v);
}

TEST_CASE("NaN and infinities propagate as on the host") {
  tl::manual_seed(8);
  auto x = tl::randn<float>(8, 300);
  x(1, 7) = static_cast<float>(nan_d);
  x(3, 0) = static_cast<float>(nan_d);
  x(3, 299) = static_cast<float>(nan_d);
  x(5, 100) = static_cast<float>(inf_d);
  for (int j = 0; j < 300; ++j) x(6, j) = -static_cast<float>(inf_d);
  const double rt = rtol<float>();
  same_on_device([](const auto& p) { return tl::sum(p, 1); }, 1e-5, 1e-5, x);
  same_on_device([](const auto& p) { return tl::sum(p); }, 0, 0, x);
  same_on_device([](const auto& p) { return tl::mean(p, 0); }, 1e-5, 1e-5, x);
  exact_on_device([](const auto& p) { return tl::amax(p, 1); }, x);
  exact_on_device([](const auto& p) { return tl::amin(p, 0); }, x);
  exact_on_device([](const auto& p) { return tl::argmax(p, 1); }, x);
  exact_on_device([](const auto& p) { return tl::argmin(p); }, x);
  pair_on_device([](const auto& p) { return tl::max(p, 1); }, x);
  pair_on_device([](const auto& p) { return tl::min(p, 0); }, x);
  same_on_device([](const auto& p) { return tl::logsumexp(p, 1); }, rt, 1e-6, x);
  same_on_device([](const auto& p) { return tl::softmax(p, 1); }, 1e-5, 1e-7, x);
  same_on_device([](const auto& p) { return tl::log_softmax(p, 1); }, 1e-5, 1e-5, x);
  same_on_device([](const auto& p) { return tl::softmax(p, 0); }, 1e-5, 1e-7, x);
  exact_on_device([](const auto& p) { return tl::any_of(tl::isnan(p), 1); }, x);
}

TEST_CASE("empty reductions and empty scans follow the host") {
  const auto e = tl::zeros<float>(0, 5);
  exact_on_device([](const auto& p) { return tl::sum(p); }, e);
  exact_on_device([](const auto& p) { return tl::sum(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::sum(p, 1); }, e);
  exact_on_device([](const auto& p) { return tl::mean(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::prod(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::all_of(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::any_of(p); }, e);
  exact_on_device([](const auto& p) { return tl::count_nonzero(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::logsumexp(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::norm(p, 2, 0); }, e);
  exact_on_device([](const auto& p) { return tl::amax(p, 1); }, e);
  exact_on_device([](const auto& p) { return tl::cumsum(p, 0); }, e);
  exact_on_device([](const auto& p) { return tl::softmax(p, 1); }, e);
  pair_on_device([](const auto& p) { return tl::sort(p, 0); }, e);
  const auto d = e.cuda();
  CHECK_THROWS_AS(tl::amax(d, 0), tl::value_error);
  CHECK_THROWS_AS(tl::argmax(d), tl::value_error);
  CHECK_THROWS_AS(tl::max(d, 0), tl::value_error);
  CHECK_THROWS_AS(tl::norm(d, inf_d, 0), tl::value_error);
}

TEST_CASE("errors: mixed devices and bad dims") {
  const auto h = tl::ones<float>(4, 5);
  const auto d = h.cuda();
  CHECK_THROWS_AS(tl::sum(d * h), tl::device_error);
  CHECK_THROWS_AS(tl::amax(h + d, 0), tl::device_error);
  CHECK_THROWS_AS(tl::softmax(d - h, 1), tl::device_error);
  CHECK_THROWS_AS(tl::cumsum(d * h, 0), tl::device_error);
  CHECK_THROWS_AS(tl::sum(d, 2), tl::index_error);
  CHECK_THROWS_AS(tl::sum(d, tl::dims{0, -2}), tl::index_error);
  CHECK_THROWS_AS(tl::cumsum(d, 3), tl::index_error);
  CHECK_THROWS_AS(tl::softmax(d, -3), tl::index_error);
  CHECK_THROWS_AS(tl::sort(d, 2), tl::index_error);
}

}  // namespace cuda_reduce_edge_test
