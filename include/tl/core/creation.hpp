#pragma once
/// @file creation.hpp
/// @brief Tensor creation: zeros, ones, empty, full and their *_like forms, arange, linspace,
/// logspace, eye, and tensors from nested initializer lists or from existing buffers.
///
/// The default dtype is float (torch's default dtype), so `tl::zeros(3, 4)` is a tensor<float, 2>.
/// Every function returns a new contiguous tensor that owns its storage.
///
/// @code
/// auto z = tl::zeros(3, 4);                          // tl::tensor<float, 2>, all 0
/// auto f = tl::full(tl::shape_t<2>{2, 2}, 7);        // tl::tensor<int64_t, 2>, all 7
/// auto a = tl::arange(0.0, 1.0, 0.25);               // float: 0, 0.25, 0.5, 0.75
/// auto m = tl::from<float>({{1, 2}, {3, 4}});        // tl::tensor<float, 2>
/// @endcode
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tl/core/device.hpp"
#include "tl/core/dtype.hpp"
#include "tl/core/error.hpp"
#include "tl/core/expression.hpp"
#include "tl/core/extents.hpp"
#include "tl/core/tensor.hpp"

namespace tl {

namespace detail {

/// Checks a shape given to creation op `op` (no negative extents) and returns it.
template <std::size_t R>
shape_t<R> creation_shape(const char* op, const shape_t<R>& s) {
  for (auto x : s)
    if (x < 0) throw value_error(cat_str("tl::", op, ": negative extent in shape ", shape_str(s)));
  return s;
}
template <class... I>
shape_t<sizeof...(I)> creation_shape(const char* op, I... s) {
  return creation_shape(op, shape_t<sizeof...(I)>{static_cast<index_t>(s)...});
}

/// A new contiguous tensor of shape s with every element equal to v.
template <class T, std::size_t R>
tensor<T, R> filled(const char* op, const shape_t<R>& s, const T& v, tl::device d = tl::device::cpu) {
  tensor<T, R> t(creation_shape(op, s), d);
  if (d.is_cpu()) std::fill_n(t.data(), t.numel(), v);
  else t.fill_(v);
  return t;
}

/// `n0, n1, ..., device`: extents followed by a device (the trailing-device form of the factories).
template <class... A>
consteval bool extents_then_device() {
  if constexpr (sizeof...(A) == 0) {
    return false;
  } else {
    using last = std::tuple_element_t<sizeof...(A) - 1, std::tuple<A...>>;
    constexpr std::size_t n_ext = (std::size_t{0} + ... +
                                   (std::is_integral_v<A> && !std::is_same_v<A, bool> ? std::size_t{1} : 0));
    return std::is_same_v<last, tl::device> && n_ext + 1 == sizeof...(A);
  }
}
template <class... A>
std::pair<shape_t<sizeof...(A) - 1>, tl::device> split_device(const A&... a) {
  shape_t<sizeof...(A) - 1> s{};
  tl::device d{};
  std::size_t i = 0;
  auto one = [&](const auto& x) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(x)>, tl::device>) d = x;
    else s[i++] = static_cast<index_t>(x);
  };
  (one(a), ...);
  return {s, d};
}

/// The dtype torch gives a Python scalar in a factory: bool, int64, float32 (not float64), complex64.
template <class S>
using factory_dtype_t = std::conditional_t<
    std::is_same_v<S, bool>, bool,
    std::conditional_t<std::is_integral_v<S>, std::int64_t,
                       std::conditional_t<std::is_floating_point_v<S>, float, complex<float>>>>;

template <class S>
inline constexpr bool is_complex_scalar_v =
    is_complex_v<S> || std::is_same_v<S, std::complex<float>> || std::is_same_v<S, std::complex<double>>;

/// Converts a scalar argument to dtype T.
template <class T, class S>
T scalar_to(const S& v) {
  if constexpr (is_complex_v<T>) {
    if constexpr (is_complex_scalar_v<S>) return T(static_cast<real_t<T>>(v.real()), static_cast<real_t<T>>(v.imag()));
    else return T(static_cast<real_t<T>>(v));
  } else {
    static_assert(!is_complex_scalar_v<S>, "tl: a complex value cannot fill a real tensor; ask for a complex dtype");
    return static_cast<T>(v);
  }
}

template <class T>
inline constexpr bool is_index_like_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

}  // namespace detail

// ---- zeros / ones / empty / full ---------------------------------------------------------------

/// @brief A tensor of zeros: `tl::zeros(3, 4)` (float) or `tl::zeros<int>(tl::shape_t<2>{3, 4})`.
template <dtype T = float, std::size_t R>
tensor<T, R> zeros(const shape_t<R>& shape, tl::device d = tl::device::cpu) {
  return detail::filled("zeros", shape, T{}, d);
}
/// @brief The trailing-device form: `tl::zeros<float>(2, 3, tl::device::cuda())`.
template <dtype T = float, class... A>
  requires(detail::extents_then_device<A...>())
tensor<T, sizeof...(A) - 1> zeros(A... a) {
  const auto [s, d] = detail::split_device(a...);
  return zeros<T>(s, d);
}
template <dtype T = float, class... I>
  requires((detail::is_index_like_v<I> && ...))
tensor<T, sizeof...(I)> zeros(I... extents) {
  return zeros<T>(shape_t<sizeof...(I)>{static_cast<index_t>(extents)...});
}

/// @brief A tensor of ones: `tl::ones<double>(2, 3)`.
template <dtype T = float, std::size_t R>
tensor<T, R> ones(const shape_t<R>& shape, tl::device d = tl::device::cpu) {
  return detail::filled("ones", shape, static_cast<T>(1), d);
}
/// @brief The trailing-device form: `tl::ones<float>(2, 3, tl::device::cuda())`.
template <dtype T = float, class... A>
  requires(detail::extents_then_device<A...>())
tensor<T, sizeof...(A) - 1> ones(A... a) {
  const auto [s, d] = detail::split_device(a...);
  return ones<T>(s, d);
}
template <dtype T = float, class... I>
  requires((detail::is_index_like_v<I> && ...))
tensor<T, sizeof...(I)> ones(I... extents) {
  return ones<T>(shape_t<sizeof...(I)>{static_cast<index_t>(extents)...});
}

/// @brief An uninitialized tensor (torch.empty): `tl::empty<float>(2, 3)`.
template <dtype T = float, std::size_t R>
tensor<T, R> empty(const shape_t<R>& shape, tl::device d = tl::device::cpu) {
  return tensor<T, R>(detail::creation_shape("empty", shape), d);
}
template <dtype T = float, class... A>
  requires(detail::extents_then_device<A...>())
tensor<T, sizeof...(A) - 1> empty(A... a) {
  const auto [s, d] = detail::split_device(a...);
  return empty<T>(s, d);
}
template <dtype T = float, class... I>
  requires((detail::is_index_like_v<I> && ...))
tensor<T, sizeof...(I)> empty(I... extents) {
  return empty<T>(shape_t<sizeof...(I)>{static_cast<index_t>(extents)...});
}

/// @brief A tensor with every element equal to `value`. Without an explicit dtype it follows
/// torch's factory rule: bool stays bool, integers give int64, floating values give float
/// (the default dtype, also for a double value) and complex values give complex<float>.
///
/// @code
/// auto a = tl::full<double>(tl::shape_t<1>{3}, 0.5);  // tensor<double, 1>
/// auto b = tl::full(tl::shape_t<2>{2, 2}, 7);          // tensor<int64_t, 2>
/// auto c = tl::full({2, 3}, 1.5);                      // tensor<float, 2>
/// @endcode
template <class T = void, std::size_t R, scalar S>
auto full(const shape_t<R>& shape, const S& value, tl::device d = tl::device::cpu) {
  using D = std::conditional_t<std::is_void_v<T>, detail::factory_dtype_t<S>, T>;
  static_assert(is_dtype_v<D>, "tl: full<T>: T must be a tl dtype");
  return detail::filled("full", shape, detail::scalar_to<D>(value), d);
}
template <class T = void, std::size_t R, scalar S>
auto full(const index_t (&shape)[R], const S& value, tl::device d = tl::device::cpu) {
  shape_t<R> s{};
  std::copy(shape, shape + R, s.begin());
  return full<T>(s, value, d);
}

/// @brief A tensor of zeros with the shape of `e` (a tensor or an expression), of e's dtype or U.
template <class U = void, expression E>
auto zeros_like(const E& e) {
  using D = std::conditional_t<std::is_void_v<U>, typename std::remove_cvref_t<E>::value_type, U>;
  return zeros<D>(e.shape(), detail::expression_device(e));
}
/// @brief A tensor of ones with the shape of `e`, of e's dtype or U.
template <class U = void, expression E>
auto ones_like(const E& e) {
  using D = std::conditional_t<std::is_void_v<U>, typename std::remove_cvref_t<E>::value_type, U>;
  return ones<D>(e.shape(), detail::expression_device(e));
}
/// @brief An uninitialized tensor with the shape of `e`, of e's dtype or U.
template <class U = void, expression E>
auto empty_like(const E& e) {
  using D = std::conditional_t<std::is_void_v<U>, typename std::remove_cvref_t<E>::value_type, U>;
  return empty<D>(e.shape(), detail::expression_device(e));
}
/// @brief A tensor filled with `value`, with the shape of `e` and its dtype (or U).
template <class U = void, expression E, scalar S>
auto full_like(const E& e, const S& value) {
  using D = std::conditional_t<std::is_void_v<U>, typename std::remove_cvref_t<E>::value_type, U>;
  return detail::filled("full_like", e.shape(), detail::scalar_to<D>(value), detail::expression_device(e));
}

// ---- ranges ------------------------------------------------------------------------------------

/// @brief Values start, start + step, ... below `end` (above it for a negative step), torch.arange.
///
/// The length is ceil((end - start) / step). Without an explicit dtype the result is int64 when
/// all arguments are integers and float otherwise. Values are start + i * step computed in int64
/// (integer arguments) or double, then converted.
///
/// @code
/// auto a = tl::arange(5);               // int64: 0 1 2 3 4
/// auto b = tl::arange(1.0, 2.0, 0.25);  // float: 1 1.25 1.5 1.75
/// auto c = tl::arange<double>(3, -3, -2);  // 3 1 -1
/// @endcode
template <class T = void, class A, class B, class C = int>
  requires(std::is_arithmetic_v<A> && std::is_arithmetic_v<B> && std::is_arithmetic_v<C>)
auto arange(A start, B end, C step = 1) {
  constexpr bool all_int = std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<C>;
  using D = std::conditional_t<std::is_void_v<T>, std::conditional_t<all_int, std::int64_t, float>, T>;
  static_assert(is_dtype_v<D> && !is_complex_v<D> && !std::is_same_v<D, bool>,
                "tl: arange<T>: T must be int32_t, int64_t, float or double");
  const double s = static_cast<double>(start), e = static_cast<double>(end), st = static_cast<double>(step);
  if (!std::isfinite(s) || !std::isfinite(e))
    throw value_error(detail::cat_str("tl::arange: unsupported range ", s, " -> ", e));
  if (st == 0 || std::isnan(st)) throw value_error(detail::cat_str("tl::arange: step must be nonzero, got ", st));
  if ((st > 0 && e < s) || (st < 0 && e > s))
    throw value_error(detail::cat_str("tl::arange: the sign of step ", st, " is inconsistent with the range ", s,
                                      " -> ", e));
  const double len_d = std::ceil((e - s) / st);
  if (!(len_d < 9.0e18))
    throw value_error(detail::cat_str("tl::arange: the range ", s, " -> ", e, " with step ", st, " is too long"));
  const index_t n = static_cast<index_t>(len_d);
  tensor<D, 1> r(shape_t<1>{n});
  D* p = r.data();
  if constexpr (all_int) {
    const auto s0 = static_cast<std::int64_t>(start), d = static_cast<std::int64_t>(step);
    for (index_t i = 0; i < n; ++i) p[i] = static_cast<D>(s0 + i * d);
  } else {
    for (index_t i = 0; i < n; ++i) p[i] = static_cast<D>(s + static_cast<double>(i) * st);
  }
  return r;
}
/// @brief 0, 1, ..., end-1 (fractional ends round up): `tl::arange(5)`.
template <class T = void, class B>
  requires std::is_arithmetic_v<B>
auto arange(B end) {
  return arange<T>(B{0}, end, B{1});
}
/// @brief arange on a device: `tl::arange(0, 10, 1, tl::device::cuda())` (values computed as on the host).
template <class T = void, class A, class B, class C>
  requires(std::is_arithmetic_v<A> && std::is_arithmetic_v<B> && std::is_arithmetic_v<C>)
auto arange(A start, B end, C step, tl::device d) {
  return arange<T>(start, end, step).to(d);
}

/// @brief `steps` evenly spaced values from start to end inclusive (torch.linspace).
///
/// Like torch, the first half is computed as start + i * step and the second half as
/// end - (steps - 1 - i) * step, so both ends are exact. steps = 0 gives an empty tensor,
/// steps = 1 gives {start}. Integer dtypes compute in double and truncate.
///
/// @code
/// auto x = tl::linspace(0.0, 1.0, 5);  // float: 0, 0.25, 0.5, 0.75, 1
/// @endcode
template <dtype T = float, scalar A, scalar B>
tensor<T, 1> linspace(const A& start, const B& end, index_t steps);
/// @brief linspace on a device (values computed as on the host).
template <dtype T = float, scalar A, scalar B>
tensor<T, 1> linspace(const A& start, const B& end, index_t steps, tl::device d) {
  return linspace<T>(start, end, steps).to(d);
}
template <dtype T, scalar A, scalar B>
tensor<T, 1> linspace(const A& start, const B& end, index_t steps) {
  static_assert(!std::is_same_v<T, bool>, "tl: linspace<bool> is not supported; use an integer or floating dtype");
  if (steps < 0) throw value_error(detail::cat_str("tl::linspace: number of steps must be non-negative, got ", steps));
  tensor<T, 1> r(shape_t<1>{steps});
  if (steps == 0) return r;
  T* p = r.data();
  using step_t = std::conditional_t<is_integral_v<T>, double, T>;
  const step_t a = detail::scalar_to<step_t>(start), b = detail::scalar_to<step_t>(end);
  if (steps == 1) {
    p[0] = static_cast<T>(a);
    return r;
  }
  const step_t step = (b - a) / static_cast<step_t>(static_cast<real_t<step_t>>(steps - 1));
  const index_t half = steps / 2;
  for (index_t i = 0; i < steps; ++i) {
    const step_t v = i < half ? a + step * static_cast<step_t>(static_cast<real_t<step_t>>(i))
                              : b - step * static_cast<step_t>(static_cast<real_t<step_t>>(steps - i - 1));
    p[i] = static_cast<T>(v);
  }
  return r;
}

/// @brief `steps` values base^x for x evenly spaced from start to end (torch.logspace).
///
/// @code
/// auto x = tl::logspace<double>(0, 3, 4);  // 1, 10, 100, 1000
/// @endcode
template <dtype T = float, class A, class B>
  requires(std::is_arithmetic_v<A> && std::is_arithmetic_v<B>)
tensor<T, 1> logspace(A start, B end, index_t steps, double base = 10.0);
/// @brief logspace on a device (values computed as on the host).
template <dtype T = float, class A, class B>
  requires(std::is_arithmetic_v<A> && std::is_arithmetic_v<B>)
tensor<T, 1> logspace(A start, B end, index_t steps, double base, tl::device d) {
  return logspace<T>(start, end, steps, base).to(d);
}
template <dtype T, class A, class B>
  requires(std::is_arithmetic_v<A> && std::is_arithmetic_v<B>)
tensor<T, 1> logspace(A start, B end, index_t steps, double base) {
  static_assert(!is_complex_v<T> && !std::is_same_v<T, bool>,
                "tl: logspace<T>: T must be int32_t, int64_t, float or double");
  if (steps < 0) throw value_error(detail::cat_str("tl::logspace: number of steps must be non-negative, got ", steps));
  tensor<T, 1> r(shape_t<1>{steps});
  if (steps == 0) return r;
  T* p = r.data();
  using step_t = std::conditional_t<is_integral_v<T>, double, T>;
  const step_t a = static_cast<step_t>(start), b = static_cast<step_t>(end), bs = static_cast<step_t>(base);
  if (steps == 1) {
    p[0] = static_cast<T>(std::pow(bs, a));
    return r;
  }
  const step_t step = (b - a) / static_cast<step_t>(steps - 1);
  const index_t half = steps / 2;
  for (index_t i = 0; i < steps; ++i) {
    const step_t x = i < half ? a + step * static_cast<step_t>(i) : b - step * static_cast<step_t>(steps - i - 1);
    p[i] = static_cast<T>(std::pow(bs, x));
  }
  return r;
}

/// @brief An n x m matrix with ones on the diagonal (torch.eye); m defaults to n.
///
/// @code
/// auto i3 = tl::eye(3);          // tensor<float, 2>
/// auto r = tl::eye<int>(2, 3);   // [[1, 0, 0], [0, 1, 0]]
/// @endcode
template <dtype T = float>
tensor<T, 2> eye(index_t n, index_t m) {
  if (n < 0) throw value_error(detail::cat_str("tl::eye: n must be greater or equal to 0, got ", n));
  if (m < 0) throw value_error(detail::cat_str("tl::eye: m must be greater or equal to 0, got ", m));
  tensor<T, 2> r = detail::filled("eye", shape_t<2>{n, m}, T{});
  for (index_t i = 0; i < std::min(n, m); ++i) r.data()[i * m + i] = static_cast<T>(1);
  return r;
}
template <dtype T = float>
tensor<T, 2> eye(index_t n) {
  return eye<T>(n, n);
}
/// @brief eye on a device: `tl::eye(3, 3, tl::device::cuda())`.
template <dtype T = float>
tensor<T, 2> eye(index_t n, index_t m, tl::device d) {
  return eye<T>(n, m).to(d);
}

// ---- from data ---------------------------------------------------------------------------------

namespace detail {
template <class T, class U>
void copy_list(T*& out, std::initializer_list<U> l) {
  for (const U& v : l) *out++ = scalar_to<T>(v);
}
template <class T, class U>
void copy_list(T*& out, std::initializer_list<std::initializer_list<U>> l) {
  for (const auto& v : l) copy_list<T>(out, v);
}
template <class L>
index_t list_len(const L& l) {
  return static_cast<index_t>(l.size());
}
[[noreturn]] inline void ragged(const char* op, index_t dim, index_t idx, index_t got, index_t want) {
  throw value_error(cat_str("tl::", op, ": ragged nested list: element ", idx, " along dim ", dim, " has length ", got,
                            " but element 0 has length ", want));
}
template <class U>
shape_t<2> list_shape(const char* op, std::initializer_list<std::initializer_list<U>> l) {
  const index_t n0 = list_len(l);
  const index_t n1 = n0 ? list_len(*l.begin()) : 0;
  index_t i = 0;
  for (const auto& row : l) {
    if (list_len(row) != n1) ragged(op, 1, i, list_len(row), n1);
    ++i;
  }
  return {n0, n1};
}
template <class U>
shape_t<3> list_shape(const char* op, std::initializer_list<std::initializer_list<std::initializer_list<U>>> l) {
  const index_t n0 = list_len(l);
  shape_t<2> inner{0, 0};
  index_t i = 0;
  for (const auto& m : l) {
    const shape_t<2> s = list_shape(op, m);
    if (i == 0) inner = s;
    else if (s[0] != inner[0]) ragged(op, 1, i, s[0], inner[0]);
    else if (s[1] != inner[1] && s[0] > 0) ragged(op, 2, i, s[1], inner[1]);
    ++i;
  }
  return {n0, inner[0], inner[1]};
}
/// torch.tensor's dtype for a literal element: bool, int64 for integers, float for floating, complex<float>.
template <class U>
using literal_dtype_t = factory_dtype_t<U>;
}  // namespace detail

namespace detail {
template <class T, class U>
tensor<T, 1> from_list(std::initializer_list<U> l) {
  tensor<T, 1> r(shape_t<1>{list_len(l)});
  T* p = r.data();
  copy_list<T>(p, l);
  return r;
}
template <class T, class U>
tensor<T, 2> from_list(std::initializer_list<std::initializer_list<U>> l) {
  tensor<T, 2> r(list_shape("from", l));
  T* p = r.data();
  copy_list<T>(p, l);
  return r;
}
template <class T, class U>
tensor<T, 3> from_list(std::initializer_list<std::initializer_list<std::initializer_list<U>>> l) {
  tensor<T, 3> r(list_shape("from", l));
  T* p = r.data();
  for (const auto& m : l) copy_list<T>(p, m);
  return r;
}
}  // namespace detail

/// @brief A 1-D tensor of dtype T from a list: `tl::from<float>({1, 2, 3})`.
template <dtype T>
tensor<T, 1> from(std::initializer_list<T> l) {
  return detail::from_list<T>(l);
}
/// @brief A 2-D tensor of dtype T from nested lists: `tl::from<float>({{1, 2}, {3, 4}})`; ragged
/// lists throw tl::value_error naming the offending lengths.
template <dtype T>
tensor<T, 2> from(std::initializer_list<std::initializer_list<T>> l) {
  return detail::from_list<T>(l);
}
/// @brief A 3-D tensor of dtype T from nested lists: `tl::from<int>({{{1}, {2}}, {{3}, {4}}})`.
template <dtype T>
tensor<T, 3> from(std::initializer_list<std::initializer_list<std::initializer_list<T>>> l) {
  return detail::from_list<T>(l);
}
/// @brief A tensor of dtype T and the given shape, copied (and converted) from `numel` values at `data`.
///
/// @code
/// std::vector<double> v{1, 2, 3, 4, 5, 6};
/// auto t = tl::from<float>(v.data(), tl::shape_t<2>{2, 3});
/// @endcode
template <dtype T, class U, std::size_t R>
tensor<T, R> from(const U* data, const shape_t<R>& shape) {
  tensor<T, R> r(detail::creation_shape("from", shape));
  const index_t n = r.numel();
  if (n > 0 && data == nullptr)
    throw value_error(detail::cat_str("tl::from: null data pointer for shape ", detail::shape_str(shape)));
  for (index_t i = 0; i < n; ++i) r.data()[i] = detail::scalar_to<T>(data[i]);
  return r;
}
/// @brief A tensor of dtype T and the given shape copied from a vector; its size must equal the shape's numel.
template <dtype T, class U, std::size_t R>
tensor<T, R> from(const std::vector<U>& v, const shape_t<R>& shape) {
  const index_t n = detail::numel(detail::creation_shape("from", shape));
  if (static_cast<index_t>(v.size()) != n)
    throw shape_error(detail::cat_str("tl::from: a vector of ", v.size(), " elements does not fit shape ",
                                      detail::shape_str(shape), " (", n, " elements)"));
  return from<T>(v.data(), shape);
}
/// @brief A 1-D tensor of dtype T copied from a vector.
template <dtype T, class U>
tensor<T, 1> from(const std::vector<U>& v) {
  return from<T>(v, shape_t<1>{static_cast<index_t>(v.size())});
}

/// @brief A tensor from nested lists with torch.tensor's dtype rule (bool, integers -> int64,
/// floating -> float, complex -> complex<float>): `tl::tensor_from({{1, 2}, {3, 4}})` is int64.
template <class U>
auto tensor_from(std::initializer_list<U> l) {
  return detail::from_list<detail::literal_dtype_t<U>>(l);
}
template <class U>
auto tensor_from(std::initializer_list<std::initializer_list<U>> l) {
  return detail::from_list<detail::literal_dtype_t<U>>(l);
}
template <class U>
auto tensor_from(std::initializer_list<std::initializer_list<std::initializer_list<U>>> l) {
  return detail::from_list<detail::literal_dtype_t<U>>(l);
}
/// @brief A tensor copied from a vector and a shape, keeping the vector's element type:
/// `tl::tensor_from(std::vector<double>{...}, tl::shape_t<2>{2, 3})` is tensor<double, 2>.
template <dtype U, std::size_t R>
tensor<U, R> tensor_from(const std::vector<U>& v, const shape_t<R>& shape) {
  return from<U>(v, shape);
}
template <dtype U>
tensor<U, 1> tensor_from(const std::vector<U>& v) {
  return from<U>(v);
}

}  // namespace tl
