#pragma once
/// @file dtype.hpp
/// @brief The supported element types, their traits, and torch's type-promotion rules at compile time.
///
/// Supported dtypes: bool, int32_t, int64_t, float, double, tl::complex<float>, tl::complex<double>.
/// Promotion between tensors follows torch: bool < integers < floating < complex, the wider type of
/// a category wins, and real + complex gives the complex type wide enough for both.
/// Scalars are "weak" as in torch: a scalar only changes the result type when it is of a higher
/// category than the tensor, and then the result is the default type of that category
/// (int64, float, complex<float>), e.g. `2.0 * int_tensor` is float and `2.0 * float_tensor` stays float.
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "tl/core/complex.hpp"

namespace tl {

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<complex<T>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = is_complex<T>::value;

namespace detail {
/// v, or conj(v) when `c`; a real v is returned unchanged (for code generic over real and complex).
template <class T>
TL_HDI constexpr T conj_if(const T& v, bool c) {
  if constexpr (is_complex_v<T>) return c ? tl::conj(v) : v;
  else return (void)c, v;
}
/// conj(v) for a complex v, v itself for a real one.
template <class T>
TL_HDI constexpr T conj_of(const T& v) {
  return conj_if(v, true);
}
}  // namespace detail

/// @brief True for the seven element types tl supports.
template <class T>
inline constexpr bool is_dtype_v =
    std::is_same_v<T, bool> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, complex<float>> ||
    std::is_same_v<T, complex<double>>;

/// @brief A supported element type.
template <class T>
concept dtype = is_dtype_v<T>;

template <class T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T>;
template <class T>
inline constexpr bool is_integral_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// @brief Real type underlying T (float for complex<float>, T otherwise).
template <class T>
struct real_type {
  using type = T;
};
template <class T>
struct real_type<complex<T>> {
  using type = T;
};
template <class T>
using real_t = typename real_type<T>::type;

/// @brief Torch's name of a dtype ("float32", "complex64", ...).
template <class T>
constexpr std::string_view dtype_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, complex<float>>) return "complex64";
  else if constexpr (std::is_same_v<T, complex<double>>) return "complex128";
  else return "unsupported";
}

namespace detail {
template <class T>
constexpr int category() {
  if constexpr (std::is_same_v<T, bool>) return 0;
  else if constexpr (std::is_integral_v<T>) return 1;
  else if constexpr (std::is_floating_point_v<T>) return 2;
  else return 3;
}
template <class A, class B>
struct promote_impl {
  static constexpr int ca = category<A>(), cb = category<B>();
  using bigger = std::conditional_t<(sizeof(A) >= sizeof(B)), A, B>;
  using type = std::conditional_t<
      (ca > cb), A,
      std::conditional_t<
          (cb > ca), B,
          std::conditional_t<ca == 3, bigger, std::conditional_t<(ca == 1), std::int64_t, bigger>>>>;
};
// real + complex: complex wide enough for both.
template <class A, class R>
  requires(category<R>() == 2)
struct promote_impl<complex<A>, R> {
  using type = complex<std::conditional_t<(sizeof(R) > sizeof(A)), R, A>>;
};
template <class A, class R>
  requires(category<R>() == 2)
struct promote_impl<R, complex<A>> {
  using type = complex<std::conditional_t<(sizeof(R) > sizeof(A)), R, A>>;
};
template <class A>
struct promote_impl<A, A> {
  using type = A;
};
template <>
struct promote_impl<std::int32_t, std::int32_t> {
  using type = std::int32_t;
};
}  // namespace detail

/// @brief Result dtype of combining two tensors of dtypes A and B (torch.promote_types).
template <class A, class B>
using promote_t = typename detail::promote_impl<A, B>::type;

/// @brief The dtype a C++ scalar stands for: bool, int64_t for integers, float/double, tl::complex.
template <class S>
using scalar_dtype_t = std::conditional_t<
    std::is_same_v<S, bool>, bool,
    std::conditional_t<std::is_integral_v<S>, std::int64_t,
                       std::conditional_t<std::is_same_v<S, std::complex<float>>, complex<float>,
                                          std::conditional_t<std::is_same_v<S, std::complex<double>>,
                                                             complex<double>, S>>>>;

namespace detail {
template <class T, class S>
struct scalar_promote_impl {
  using SD = scalar_dtype_t<S>;
  static constexpr int ct = category<T>(), cs = category<SD>();
  using default_of_s =
      std::conditional_t<cs == 1, std::int64_t,
                         std::conditional_t<cs == 2, float, std::conditional_t<ct == 2, complex<T>, complex<float>>>>;
  using type = std::conditional_t<(cs <= ct), T, default_of_s>;
};
}  // namespace detail

/// @brief Result dtype of combining a tensor of dtype T with a C++ scalar of type S (torch's weak scalars).
template <class T, class S>
using scalar_promote_t = typename detail::scalar_promote_impl<T, S>::type;

/// @brief The floating type an op like sin() computes in for input T (ints and bool go to float).
template <class T>
using to_floating_t = std::conditional_t<(detail::category<T>() < 2), float, T>;

/// @brief Is S usable as a scalar operand (arithmetic or complex)?
template <class S>
concept scalar = std::is_arithmetic_v<S> || is_complex_v<S> || std::is_same_v<S, std::complex<float>> ||
                 std::is_same_v<S, std::complex<double>>;

static_assert(std::is_same_v<promote_t<std::int32_t, float>, float>);
static_assert(std::is_same_v<promote_t<float, double>, double>);
static_assert(std::is_same_v<promote_t<complex<float>, double>, complex<double>>);
static_assert(std::is_same_v<promote_t<bool, std::int32_t>, std::int32_t>);
static_assert(std::is_same_v<promote_t<std::int32_t, std::int64_t>, std::int64_t>);
static_assert(std::is_same_v<scalar_promote_t<float, double>, float>);
static_assert(std::is_same_v<scalar_promote_t<std::int32_t, double>, float>);
static_assert(std::is_same_v<scalar_promote_t<std::int32_t, int>, std::int32_t>);
static_assert(std::is_same_v<scalar_promote_t<bool, int>, std::int64_t>);
}  // namespace tl
