// Shared helpers for tests/linalg: random tensors, long-double matrices read from tensors, norms.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <tl/core/creation.hpp>
#include <tl/linalg/linalg.hpp>

#include "../test_util.hpp"

namespace tl_linalg_test {
using tl::index_t;
using ld = long double;
using cld = std::complex<long double>;

template <class T>
cld to_cld(const T& v) {
  if constexpr (tl::is_complex_v<T>) return {static_cast<ld>(v.re), static_cast<ld>(v.im)};
  else return {static_cast<ld>(v), 0};
}

template <class T>
T from_cld(const cld& v) {
  using R = tl::real_t<T>;
  if constexpr (tl::is_complex_v<T>) return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  else return static_cast<T>(v.real());
}

template <class T>
constexpr ld eps_of() {
  return static_cast<ld>(std::numeric_limits<tl::real_t<T>>::epsilon());
}

struct lcg {
  std::uint64_t s;
  double next() {  // uniform in [-1, 1)
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) * 0x1.0p-52 - 1.0;
  }
};

template <class T>
T rand_value(lcg& g) {
  using R = tl::real_t<T>;
  if constexpr (tl::is_complex_v<T>) {
    const R re = static_cast<R>(g.next());
    return T(re, static_cast<R>(g.next()));
  } else {
    return static_cast<T>(g.next());
  }
}

template <class T, std::size_t R>
tl::tensor<T, R> random_tensor(const tl::shape_t<R>& s, std::uint64_t seed) {
  tl::tensor<T, R> t(s);
  lcg g{seed};
  for (index_t i = 0; i < t.numel(); ++i) t.data()[i] = rand_value<T>(g);
  return t;
}

/// An r x c tensor of dtype T from row-major reference values.
template <class T>
tl::tensor<T, 2> tensor_of(const std::vector<cld>& v, index_t r, index_t c) {
  tl::tensor<T, 2> t(tl::shape_t<2>{r, c});
  for (index_t i = 0; i < r * c; ++i) t.data()[i] = from_cld<T>(v[static_cast<std::size_t>(i)]);
  return t;
}

/// A dense long-double complex matrix.
struct mat {
  index_t r = 0, c = 0;
  std::vector<cld> v;
  mat(index_t rows, index_t cols) : r(rows), c(cols), v(static_cast<std::size_t>(rows * cols)) {}
  cld& operator()(index_t i, index_t j) { return v[static_cast<std::size_t>(i * c + j)]; }
  cld operator()(index_t i, index_t j) const { return v[static_cast<std::size_t>(i * c + j)]; }
};

/// Matrix `b` of a tensor of rank R (leading dims flattened), through get() (views and lazy
/// conjugates honoured).
template <class T, class Ext>
mat matrix_of(const tl::basic_tensor<T, Ext>& t, index_t b = 0) {
  constexpr std::size_t R = Ext::rank;
  const auto& s = t.shape();
  const index_t m = s[R - 2], n = s[R - 1];
  mat out(m, n);
  std::array<index_t, R> ix{};
  index_t rem = b;
  for (std::size_t q = R - 2; q-- > 0;) {
    ix[q] = rem % s[q];
    rem /= s[q];
  }
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      ix[R - 2] = i;
      ix[R - 1] = j;
      out(i, j) = to_cld(std::apply([&](auto... k) { return t.get(k...); }, ix));
    }
  return out;
}

/// True when every entry of a has a zero imaginary part.
inline bool is_real(const mat& a) {
  for (const auto& x : a.v)
    if (x.imag() != 0) return false;
  return true;
}

/// The n x n identity.
inline mat identity(index_t n) {
  mat e(n, n);
  for (index_t i = 0; i < n; ++i) e(i, i) = 1;
  return e;
}

/// a b in long double. This reference product is most of the linalg tests' run time (worse at -O0
/// under the sanitizers), so it runs on the raw (re, im) pairs (std::complex is layout-compatible
/// with T[2]) with the textbook complex product, and on the real parts alone when both are real.
inline mat mul(const mat& a, const mat& b) {
  mat c(a.r, b.c);
  const bool real = is_real(a) && is_real(b);
  const ld* ap = reinterpret_cast<const ld*>(a.v.data());
  const ld* bp = reinterpret_cast<const ld*>(b.v.data());
  ld* cp = reinterpret_cast<ld*>(c.v.data());
  const index_t n = b.c;
  for (index_t i = 0; i < a.r; ++i) {
    ld* ci = cp + 2 * i * n;
    for (index_t p = 0; p < a.c; ++p) {
      const ld xr = ap[2 * (i * a.c + p)], xi = ap[2 * (i * a.c + p) + 1];
      const ld* bq = bp + 2 * p * n;
      if (real) {
        for (index_t j = 0; j < n; ++j) ci[2 * j] += xr * bq[2 * j];
      } else {
        for (index_t j = 0; j < n; ++j) {
          const ld br = bq[2 * j], bi = bq[2 * j + 1];
          ci[2 * j] += xr * br - xi * bi;
          ci[2 * j + 1] += xr * bi + xi * br;
        }
      }
    }
  }
  return c;
}

inline mat adjoint(const mat& a) {
  mat t(a.c, a.r);
  for (index_t i = 0; i < a.r; ++i)
    for (index_t j = 0; j < a.c; ++j) t(j, i) = std::conj(a(i, j));
  return t;
}

inline ld fro(const mat& a) {
  ld s = 0;
  for (const auto& x : a.v) s += std::norm(x);
  return std::sqrt(s);
}

inline ld fro_diff(const mat& a, const mat& b) {
  ld s = 0;
  for (std::size_t i = 0; i < a.v.size(); ++i) s += std::norm(a.v[i] - b.v[i]);
  return std::sqrt(s);
}

/// ‖a - b‖_F / (‖scale‖_F * n * eps): a backward error in units of n * eps.
template <class T>
ld rel_err_neps(const mat& a, const mat& b, ld scale, index_t n) {
  const ld denom = std::max<ld>(scale, std::numeric_limits<ld>::min()) * static_cast<ld>(std::max<index_t>(n, 1)) *
                   eps_of<T>();
  return fro_diff(a, b) / denom;
}

/// The n x n Hilbert matrix, H(i, j) = 1 / (i + j + 1) rounded to T.
template <class T>
tl::tensor<T, 2> hilbert(index_t n) {
  tl::tensor<T, 2> h(tl::shape_t<2>{n, n});
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) h(i, j) = T(tl::real_t<T>(1) / static_cast<tl::real_t<T>>(i + j + 1));
  return h;
}

/// A random Hermitian positive-definite matrix G G^H + n I.
template <class T>
tl::tensor<T, 2> random_hpd(index_t n, std::uint64_t seed) {
  const auto g = random_tensor<T, 2>({n, n}, seed);
  const mat a = mul(matrix_of(g), adjoint(matrix_of(g)));
  tl::tensor<T, 2> h(tl::shape_t<2>{n, n});
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) h(i, j) = from_cld<T>(a(i, j) + (i == j ? cld(static_cast<ld>(n)) : cld(0)));
  // Exactly Hermitian after rounding.
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j) h(j, i) = from_cld<T>(std::conj(to_cld(h(i, j))));
  for (index_t i = 0; i < n; ++i) h(i, i) = from_cld<T>(cld(to_cld(h(i, i)).real()));
  return h;
}

/// Runs f, expects an exception of type X whose message contains every one of `parts`.
template <class X, class F>
void expect_error_with(F&& f, std::initializer_list<const char*> parts) {
  bool thrown = false;
  try {
    f();
  } catch (const X& e) {
    thrown = true;
    const std::string msg = e.what();
    CAPTURE(msg);
    for (const char* p : parts) CHECK(msg.find(p) != std::string::npos);
  }
  CHECK(thrown);
}

}  // namespace tl_linalg_test
