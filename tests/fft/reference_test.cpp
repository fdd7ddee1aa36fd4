// tl::fft against numpy.fft / scipy.fft reference data (tests/data/fft/gen_fft_reference.py).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <tl/fft/fft.hpp>
#include <vector>

namespace {
using tl::index_t;

std::string data_dir() {
#ifdef TL_FFT_DATA_DIR
  return TL_FFT_DATA_DIR;
#else
  std::string f = __FILE__;  // .../tests/fft/reference_test.cpp
  const auto p = f.find_last_of("/\\");
  return (p == std::string::npos ? std::string(".") : f.substr(0, p)) + "/../data/fft";
#endif
}

struct ref_case {
  std::string func, norm;
  std::vector<index_t> s, dim, in_shape, out_shape;
  bool in_c = false, out_c = false;
  std::vector<double> in, out;
  std::string line;
};

std::vector<index_t> parse_list(const std::string& t) {
  std::vector<index_t> v;
  if (t == "-") return v;
  std::stringstream ss(t);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::stoll(item));
  return v;
}
std::vector<double> parse_values(const std::string& line) {
  std::vector<double> v;
  std::stringstream ss(line);
  double x;
  while (ss >> x) v.push_back(x);
  return v;
}

std::vector<ref_case> load(const std::string& name) {
  std::ifstream f(data_dir() + "/" + name);
  REQUIRE_MESSAGE(f.good(), "cannot open reference file " << data_dir() << "/" << name);
  std::vector<ref_case> cases;
  std::string head, in, out;
  while (std::getline(f, head) && std::getline(f, in) && std::getline(f, out)) {
    std::stringstream ss(head);
    ref_case c;
    std::string s, d, is, ik, os, ok;
    ss >> c.func >> c.norm >> s >> d >> is >> ik >> os >> ok;
    c.s = parse_list(s);
    c.dim = parse_list(d);
    c.in_shape = parse_list(is);
    c.out_shape = parse_list(os);
    c.in_c = ik == "c";
    c.out_c = ok == "c";
    c.in = parse_values(in);
    c.out = parse_values(out);
    c.line = head;
    cases.push_back(std::move(c));
  }
  REQUIRE(!cases.empty());
  return cases;
}

template <class V, std::size_t R>
tl::tensor<V, R> make_input(const ref_case& c) {
  tl::shape_t<R> sh{};
  for (std::size_t i = 0; i < R; ++i) sh[i] = c.in_shape[i];
  tl::tensor<V, R> t(sh);
  for (index_t i = 0; i < t.numel(); ++i) {
    if constexpr (tl::is_complex_v<V>)
      t.data()[i] = V(c.in[2 * i], c.in[2 * i + 1]);
    else
      t.data()[i] = static_cast<V>(c.in[i]);
  }
  return t;
}

template <class Tn>
void compare(const ref_case& c, const Tn& got, double tol) {
  using V = typename Tn::value_type;
  INFO(c.line);
  REQUIRE(Tn::rank == c.out_shape.size());
  for (std::size_t i = 0; i < Tn::rank; ++i) REQUIRE(got.shape()[i] == c.out_shape[i]);
  REQUIRE(tl::is_complex_v<V> == c.out_c);
  double scale = 1;
  for (double v : c.out) scale = std::max(scale, std::abs(v));
  double worst = 0;
  for (index_t i = 0; i < got.numel(); ++i) {
    if constexpr (tl::is_complex_v<V>) {
      worst = std::max(worst, std::abs(static_cast<double>(got.data()[i].re) - c.out[2 * i]));
      worst = std::max(worst, std::abs(static_cast<double>(got.data()[i].im) - c.out[2 * i + 1]));
    } else {
      worst = std::max(worst, std::abs(static_cast<double>(got.data()[i]) - c.out[i]));
    }
  }
  CHECK(worst <= tol * scale);
}

template <class T, std::size_t R, bool Cplx>
void run_with(const ref_case& c, double tol) {
  using V = std::conditional_t<Cplx, tl::complex<T>, T>;
  const auto x = make_input<V, R>(c);
  const auto& f = c.func;
  const std::optional<index_t> n = c.s.empty() ? std::nullopt : std::optional<index_t>(c.s[0]);
  const index_t d1 = c.dim.empty() ? -1 : c.dim[0];
  const std::vector<index_t> d2 = c.dim.empty() ? std::vector<index_t>{-2, -1} : c.dim;
  if (f == "fft")
    compare(c, tl::fft::fft(x, n, d1, c.norm), tol);
  else if (f == "ifft")
    compare(c, tl::fft::ifft(x, n, d1, c.norm), tol);
  else if (f == "fft2")
    compare(c, tl::fft::fft2(x, c.s, d2, c.norm), tol);
  else if (f == "ifft2")
    compare(c, tl::fft::ifft2(x, c.s, d2, c.norm), tol);
  else if (f == "fftn")
    compare(c, tl::fft::fftn(x, c.s, c.dim, c.norm), tol);
  else if (f == "ifftn")
    compare(c, tl::fft::ifftn(x, c.s, c.dim, c.norm), tol);
  else if (f == "irfft")
    compare(c, tl::fft::irfft(x, n, d1, c.norm), tol);
  else if (f == "irfft2")
    compare(c, tl::fft::irfft2(x, c.s, d2, c.norm), tol);
  else if (f == "irfftn")
    compare(c, tl::fft::irfftn(x, c.s, c.dim, c.norm), tol);
  else if (f == "hfft")
    compare(c, tl::fft::hfft(x, n, d1, c.norm), tol);
  else if (f == "hfft2")
    compare(c, tl::fft::hfft2(x, c.s, d2, c.norm), tol);
  else if (f == "hfftn")
    compare(c, tl::fft::hfftn(x, c.s, c.dim, c.norm), tol);
  else if (f == "fftshift")
    compare(c, tl::fft::fftshift(x, c.dim), tol);
  else if (f == "ifftshift")
    compare(c, tl::fft::ifftshift(x, c.dim), tol);
  else if constexpr (!Cplx) {
    if (f == "rfft")
      compare(c, tl::fft::rfft(x, n, d1, c.norm), tol);
    else if (f == "rfft2")
      compare(c, tl::fft::rfft2(x, c.s, d2, c.norm), tol);
    else if (f == "rfftn")
      compare(c, tl::fft::rfftn(x, c.s, c.dim, c.norm), tol);
    else if (f == "ihfft")
      compare(c, tl::fft::ihfft(x, n, d1, c.norm), tol);
    else if (f == "ihfft2")
      compare(c, tl::fft::ihfft2(x, c.s, d2, c.norm), tol);
    else if (f == "ihfftn")
      compare(c, tl::fft::ihfftn(x, c.s, c.dim, c.norm), tol);
    else if (f == "fftfreq")
      compare(c, tl::fft::fftfreq<T>(c.s[0], 0.5), tol);
    else if (f == "rfftfreq")
      compare(c, tl::fft::rfftfreq<T>(c.s[0], 0.5), tol);
    else
      FAIL("unknown function " << f);
  } else {
    FAIL("unknown function for complex input " << f);
  }
}

template <class T>
void run_file(const std::string& name, double tol) {
  for (const ref_case& c : load(name)) {
    const std::size_t r = c.in_shape.size();
    if (c.in_c) {
      if (r == 1)
        run_with<T, 1, true>(c, tol);
      else if (r == 2)
        run_with<T, 2, true>(c, tol);
      else
        run_with<T, 3, true>(c, tol);
    } else {
      if (r == 1)
        run_with<T, 1, false>(c, tol);
      else if (r == 2)
        run_with<T, 2, false>(c, tol);
      else
        run_with<T, 3, false>(c, tol);
    }
  }
}

const char* const files[] = {"fft_c2c_1d.txt", "fft_real_1d.txt", "fft_c2c_nd.txt", "fft_real_nd.txt",
                             "fft_helpers.txt"};
}  // namespace

TEST_CASE("fft: double results match numpy / scipy") {
  for (const char* f : files) {
    INFO(f);
    run_file<double>(f, 1e-9);
  }
}

TEST_CASE("fft: float results match numpy / scipy") {
  for (const char* f : files) {
    INFO(f);
    run_file<float>(f, 2e-6);
  }
}
