// tl::fft::fft_out / ifft_out (torch.fft.fft's out=): the same values as fft / ifft written into the
// caller's tensor (no new storage where it can be written directly), aliasing and overlap, the
// copy into a non-contiguous out, an undefined out, and the errors. The 64-point lines, which run
// in registers without a plan, are checked against a long double DFT here as well.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <tl/tensor.hpp>
#include <vector>

#include "../test_util.hpp"

namespace {
using tl::index_t;
template <class T>
using cplx = tl::complex<T>;

/// Largest |a - b| over the elements (same shapes).
template <class A, class B>
double out_test_diff(const A& a, const B& b) {
  REQUIRE(a.shape() == b.shape());
  const auto ac = a.contiguous();
  const auto bc = b.contiguous();
  double m = 0;
  for (index_t i = 0; i < a.numel(); ++i) m = std::max(m, static_cast<double>(tl::abs(ac.data()[i] - bc.data()[i])));
  return m;
}

/// The DFT of x (sign -1, or +1 and divided by n for the inverse) in long double.
template <class T>
std::vector<cplx<long double>> out_test_dft(const cplx<T>* x, index_t n, bool inverse) {
  const long double two_pi = 6.283185307179586476925286766559005768L;
  std::vector<cplx<long double>> y(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k) {
    long double re = 0, im = 0;
    for (index_t j = 0; j < n; ++j) {
      const long double a = (inverse ? two_pi : -two_pi) * static_cast<long double>((j * k) % n) / n;
      const long double c = std::cos(a), s = std::sin(a);
      re += x[j].re * c - x[j].im * s;
      im += x[j].re * s + x[j].im * c;
    }
    y[static_cast<std::size_t>(k)] = inverse ? cplx<long double>(re / n, im / n) : cplx<long double>(re, im);
  }
  return y;
}
}  // namespace

TEST_CASE_TEMPLATE("fft: 64-point lines (in registers) match a long double DFT, both directions, batched", T, float,
                   double) {
  const double eps = std::numeric_limits<T>::epsilon();
  // 5 lines of 64 along the last dim; a 6th along dim 0 of a [64, 3] tensor takes the strided path.
  const auto x = tl_test::random<cplx<T>, 2>({5, 64}, 64);
  for (const bool inverse : {false, true}) {
    CAPTURE(inverse);
    const auto y = inverse ? tl::fft::ifft(x) : tl::fft::fft(x);
    for (index_t r = 0; r < 5; ++r) {
      const auto ref = out_test_dft(x.data() + 64 * r, 64, inverse);
      long double num = 0, den = 0;
      for (index_t k = 0; k < 64; ++k) {
        const cplx<T> g = y.data()[64 * r + k];
        const long double dr = g.re - ref[k].re, di = g.im - ref[k].im;
        num += dr * dr + di * di;
        den += ref[k].re * ref[k].re + ref[k].im * ref[k].im;
      }
      // The accuracy promise of docs/fft.md: relative RMS error within 2 eps log2(n) typically.
      CHECK(static_cast<double>(std::sqrt(num / den)) < 2 * eps * 6);
    }
    // Against the strided path (the same transform along dim 0 of the transpose).
    const auto xt = x.transpose(0, 1).contiguous();
    const auto yt = inverse ? tl::fft::ifft(xt, {}, 0) : tl::fft::fft(xt, {}, 0);
    CHECK(out_test_diff(yt.transpose(0, 1), y) < 64 * eps * 8);
  }
  // Norms and truncation: "ortho" scales by 1/8; a 100-point input truncated to 64 reads its first 64.
  const auto ortho = tl::fft::fft(x, {}, -1, "ortho");
  const tl::tensor<cplx<T>, 2> scaled = tl::fft::fft(x) * cplx<T>(T(0.125));
  CHECK(out_test_diff(ortho, scaled) < 64 * eps);
  const auto wide = tl_test::random<cplx<T>, 2>({2, 100}, 7);
  const auto cut = tl::fft::fft(wide, 64);
  const auto first = wide.slice(1, 0, 64).contiguous();
  CHECK(out_test_diff(cut, tl::fft::fft(first)) == 0.0);
}

TEST_CASE_TEMPLATE("fft_out / ifft_out: the values of fft / ifft, written into out", T, float, double) {
  const auto x = tl_test::random<cplx<T>, 2>({3, 64}, 1);
  for (const index_t n : {64, 100, 31}) {  // in registers; mixed radix with padding; a prime (Bluestein), truncating
    CAPTURE(n);
    tl::tensor<cplx<T>, 2> out(tl::shape_t<2>{3, n});
    const cplx<T>* before = out.data();
    tl::fft::fft_out(out, x, n);
    CHECK(out.data() == before);  // written in place, no new storage
    CHECK(out_test_diff(out, tl::fft::fft(x, n)) == 0.0);
    tl::fft::ifft_out(out, x, n, -1, "forward");
    CHECK(out.data() == before);
    CHECK(out_test_diff(out, tl::fft::ifft(x, n, -1, "forward")) == 0.0);
  }
  // Along dim 0 (strided lines), and returning out itself.
  tl::tensor<cplx<T>, 2> o0(tl::shape_t<2>{3, 64});
  CHECK(&tl::fft::fft_out(o0, x, {}, 0) == &o0);
  CHECK(out_test_diff(o0, tl::fft::fft(x, {}, 0)) == 0.0);
  // Real input is promoted, as in fft.
  const auto xr = tl_test::random<T, 1>({64}, 5);
  tl::tensor<cplx<T>, 1> orr(tl::shape_t<1>{64});
  tl::fft::fft_out(orr, xr);
  CHECK(out_test_diff(orr, tl::fft::fft(xr)) == 0.0);
}

TEST_CASE_TEMPLATE("fft_out: aliasing, overlap, non-contiguous and undefined out", T, float, double) {
  const auto x0 = tl_test::random<cplx<T>, 1>({64}, 3);
  const auto expect = tl::fft::fft(x0);
  // out is x: transformed in place.
  {
    auto x = x0.clone();
    tl::fft::fft_out(x, x);
    CHECK(out_test_diff(x, expect) == 0.0);
  }
  // out overlaps x partially (two windows of one buffer): the input is read whole first.
  {
    tl::tensor<cplx<T>, 1> buf(tl::shape_t<1>{96});
    buf.slice(0, 0, 64) = x0;
    auto x = buf.slice(0, 0, 64);
    auto out = buf.slice(0, 32, 96);
    tl::fft::fft_out(out, x);
    CHECK(out_test_diff(out, expect) == 0.0);
  }
  // A non-contiguous out (a column of a matrix) is written through.
  {
    tl::tensor<cplx<T>, 2> m(tl::shape_t<2>{64, 2});
    m.fill_(cplx<T>(T(7)));
    auto col = m(tl::all, 1);
    tl::fft::fft_out(col, x0);
    CHECK(out_test_diff(m(tl::all, 1), expect) == 0.0);
    CHECK(m(0, 0) == cplx<T>(T(7)));  // the other column is untouched
  }
  // An undefined or empty out is given the result.
  {
    tl::tensor<cplx<T>, 1> none;
    tl::fft::fft_out(none, x0);
    CHECK(out_test_diff(none, expect) == 0.0);
    tl::tensor<cplx<T>, 1> empty(tl::shape_t<1>{0});
    tl::fft::fft_out(empty, x0);
    CHECK(out_test_diff(empty, expect) == 0.0);
  }
}

TEST_CASE("fft_out: errors name the op and the shapes, and leave out unchanged") {
  const auto x = tl_test::random<cplx<double>, 2>({2, 64}, 9);
  tl::tensor<cplx<double>, 2> out(tl::shape_t<2>{2, 63});
  out.fill_(cplx<double>(1.0));
  const std::string what = tl_test::error_of([&] { tl::fft::fft_out(out, x); });
  INFO(what);
  CHECK(what.find("tl::fft::fft_out") != std::string::npos);
  CHECK(what.find("[2, 63]") != std::string::npos);
  CHECK(what.find("[2, 64]") != std::string::npos);
  CHECK(out(1, 62) == cplx<double>(1.0));
  // Argument errors are fft's own.
  const std::string bad_n = tl_test::error_of([&] { tl::fft::ifft_out(out, x, 0); });
  CHECK(bad_n.find("tl::fft::ifft: invalid number of data points (0)") != std::string::npos);
  const std::string bad_dim = tl_test::error_of([&] { tl::fft::fft_out(out, x, {}, 2); });
  CHECK(bad_dim.find("out of range") != std::string::npos);
}
