#pragma once
/// @file complex.hpp
/// @brief tl::complex<T>: one complex type for host and device code, laid out like std::complex<T>.
///
/// Arithmetic is usable in device code; transcendental functions go through std::complex on the
/// host (accurate to the platform's libm).
#include <cmath>
#include <complex>
#include <ostream>
#include <type_traits>

#include "tl/core/config.hpp"

#if defined(__CUDACC__)
#include <cuda/std/complex>
#endif

namespace tl {

template <class T>
struct alignas(2 * sizeof(T)) complex {
  static_assert(std::is_floating_point_v<T>, "tl: tl::complex<T> requires T = float or double");
  using value_type = T;
  T re{}, im{};

  constexpr complex() = default;
  TL_HD constexpr complex(T r, T i = T{}) : re(r), im(i) {}
  template <class U, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  TL_HD constexpr complex(U r) : re(static_cast<T>(r)), im(T{}) {}
  template <class U>
  TL_HD constexpr explicit(!std::is_same_v<T, double>) complex(const complex<U>& o)
      : re(static_cast<T>(o.re)), im(static_cast<T>(o.im)) {}
  complex(const std::complex<T>& z) : re(z.real()), im(z.imag()) {}
  operator std::complex<T>() const { return {re, im}; }

  TL_HD constexpr T real() const { return re; }
  TL_HD constexpr T imag() const { return im; }

  TL_HD constexpr complex& operator+=(const complex& o) { re += o.re; im += o.im; return *this; }
  TL_HD constexpr complex& operator-=(const complex& o) { re -= o.re; im -= o.im; return *this; }
  TL_HD constexpr complex& operator*=(const complex& o) { return *this = *this * o; }
  TL_HD constexpr complex& operator/=(const complex& o) { return *this = *this / o; }

  friend TL_HD constexpr complex operator+(const complex& a, const complex& b) { return {a.re + b.re, a.im + b.im}; }
  friend TL_HD constexpr complex operator-(const complex& a, const complex& b) { return {a.re - b.re, a.im - b.im}; }
  friend TL_HD constexpr complex operator-(const complex& a) { return {-a.re, -a.im}; }
  friend TL_HD constexpr complex operator*(const complex& a, const complex& b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  /// Division with Smith's scaling so that large or small denominators do not overflow.
  friend TL_HD constexpr complex operator/(const complex& a, const complex& b) {
    const T ar = b.re < 0 ? -b.re : b.re, ai = b.im < 0 ? -b.im : b.im;
    if (ar >= ai) {
      if (ar == T{0} && ai == T{0}) return {a.re / ar, a.im / ar};
      const T r = b.im / b.re, d = b.re + b.im * r;
      return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
    }
    const T r = b.re / b.im, d = b.re * r + b.im;
    return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
  }
  friend TL_HD constexpr bool operator==(const complex& a, const complex& b) { return a.re == b.re && a.im == b.im; }
  friend std::ostream& operator<<(std::ostream& os, const complex& z) {
    return os << z.re << (std::signbit(z.im) ? "-" : "+") << std::abs(z.im) << 'j';
  }
};

using complex64 = complex<float>;
using complex128 = complex<double>;

template <class T>
TL_HD constexpr T real(const complex<T>& z) { return z.re; }
template <class T>
TL_HD constexpr T imag(const complex<T>& z) { return z.im; }
template <class T>
TL_HD constexpr complex<T> conj(const complex<T>& z) { return {z.re, -z.im}; }
template <class T>
TL_HD T abs(const complex<T>& z) { return std::hypot(z.re, z.im); }
template <class T>
TL_HD T arg(const complex<T>& z) { return std::atan2(z.im, z.re); }
template <class T>
  requires std::is_floating_point_v<T>
TL_HD complex<T> polar(T r, T theta) { return {r * std::cos(theta), r * std::sin(theta)}; }

// Transcendental functions: the host uses the C++ library's std::complex algorithms, CUDA device code
// libcu++'s cuda::std::complex (the same branch cuts and special values, as C99 Annex G specifies).
#if defined(__CUDA_ARCH__)
#define TL_COMPLEX_VIA_STD(name)                                           \
  template <class T>                                                       \
  TL_HD complex<T> name(const complex<T>& z) {                             \
    const auto r = ::cuda::std::name(::cuda::std::complex<T>(z.re, z.im)); \
    return complex<T>(r.real(), r.imag());                                 \
  }
#else
#define TL_COMPLEX_VIA_STD(name) \
  template <class T>             \
  TL_HD complex<T> name(const complex<T>& z) { return complex<T>(std::name(std::complex<T>(z))); }
#endif
TL_COMPLEX_VIA_STD(exp)
TL_COMPLEX_VIA_STD(log)
TL_COMPLEX_VIA_STD(log10)
TL_COMPLEX_VIA_STD(sqrt)
TL_COMPLEX_VIA_STD(sin)
TL_COMPLEX_VIA_STD(cos)
TL_COMPLEX_VIA_STD(tan)
TL_COMPLEX_VIA_STD(asin)
TL_COMPLEX_VIA_STD(acos)
TL_COMPLEX_VIA_STD(atan)
TL_COMPLEX_VIA_STD(sinh)
TL_COMPLEX_VIA_STD(cosh)
TL_COMPLEX_VIA_STD(tanh)
TL_COMPLEX_VIA_STD(asinh)
TL_COMPLEX_VIA_STD(acosh)
TL_COMPLEX_VIA_STD(atanh)
#undef TL_COMPLEX_VIA_STD
template <class T>
TL_HD complex<T> pow(const complex<T>& a, const complex<T>& b) {
#if defined(__CUDA_ARCH__)
  const auto r = ::cuda::std::pow(::cuda::std::complex<T>(a.re, a.im), ::cuda::std::complex<T>(b.re, b.im));
  return complex<T>(r.real(), r.imag());
#else
  return complex<T>(std::pow(std::complex<T>(a), std::complex<T>(b)));
#endif
}

static_assert(sizeof(complex<float>) == sizeof(std::complex<float>));
static_assert(sizeof(complex<double>) == sizeof(std::complex<double>));
static_assert(std::is_trivially_copyable_v<complex<double>>);
}  // namespace tl
