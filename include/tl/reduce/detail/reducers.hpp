#pragma once
/// @file reducers.hpp
/// @brief Internal: the reducer functors (detail header). See detail/kernel.hpp for the interface.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tl/core/simd.hpp"

#include "tl/core/complex.hpp"
#include "tl/core/dtype.hpp"
#include "tl/expr/functors.hpp"
#include "tl/expr/node.hpp"

namespace tl::detail {

/// Result dtype of sum/prod/cumsum/cumprod: bool and integers accumulate in int64 (torch).
template <class T>
using sum_type_t = std::conditional_t<(category<T>() <= 1), std::int64_t, T>;

template <class T>
TL_HDI bool is_nan_value(const T& x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else if constexpr (is_complex_v<T>) return std::isnan(x.re) || std::isnan(x.im);
  else return false;
}

template <class B>
TL_INLINE typename B::value_type hfold_in_order(const B& b, auto&& f) {
  using T = typename B::value_type;
  alignas(64) T tmp[B::size];
  b.store_aligned(tmp);
  T r = tmp[0];
  for (std::size_t i = 1; i < B::size; ++i) r = f(r, tmp[i]);
  return r;
}

/// Sum of elements cast to A.
template <class A>
struct sum_reducer {
  using acc_type = A;
  template <class V>
  static constexpr bool simd = std::is_same_v<V, A> && simd_type_v<A>;
  TL_HDI A init() const { return A(0); }
  template <class V>
  TL_HDI A map(const V& x, index_t) const { return cast_fn<A>{}(x); }
  TL_HDI A combine(const A& a, const A& b) const { return a + b; }
  template <class B>
  TL_INLINE B pinit() const { return B(A(0)); }
  template <class B>
  TL_INLINE B pmap(const B& x) const { return x; }
  template <class B>
  TL_INLINE B pcombine(const B& a, const B& b) const { return a + b; }
  template <class B>
  TL_INLINE A hreduce(const B& b) const { return xsimd::hadd(b); }
};

/// Product of elements cast to A.
template <class A>
struct prod_reducer {
  using acc_type = A;
  template <class V>
  static constexpr bool simd = std::is_same_v<V, A> && simd_type_v<A> && std::is_floating_point_v<A>;
  TL_HDI A init() const { return A(1); }
  template <class V>
  TL_HDI A map(const V& x, index_t) const { return cast_fn<A>{}(x); }
  TL_HDI A combine(const A& a, const A& b) const { return a * b; }
  template <class B>
  TL_INLINE B pinit() const { return B(A(1)); }
  template <class B>
  TL_INLINE B pmap(const B& x) const { return x; }
  template <class B>
  TL_INLINE B pcombine(const B& a, const B& b) const { return a * b; }
  template <class B>
  TL_INLINE A hreduce(const B& b) const { return hfold_in_order(b, [](A x, A y) { return x * y; }); }
};

/// Sum of |x|^2 (real result; the squared modulus for complex).
template <class A>
struct sumsq_reducer {
  using acc_type = A;
  template <class V>
  static constexpr bool simd = std::is_same_v<V, A> && simd_float_v<A>;
  TL_HDI A init() const { return A(0); }
  template <class V>
  TL_HDI A map(const V& x, index_t) const {
    if constexpr (is_complex_v<V>) return A(x.re) * A(x.re) + A(x.im) * A(x.im);
    else return A(x) * A(x);
  }
  TL_HDI A combine(const A& a, const A& b) const { return a + b; }
  template <class B>
  TL_INLINE B pinit() const { return B(A(0)); }
  template <class B>
  TL_INLINE B pmap(const B& x) const { return x * x; }
  template <class B>
  TL_INLINE B pcombine(const B& a, const B& b) const { return a + b; }
  template <class B>
  TL_INLINE A hreduce(const B& b) const { return xsimd::hadd(b); }
};

/// Sum of |x| (real result).
template <class A>
struct abs_sum_reducer : sumsq_reducer<A> {
  template <class V>
  TL_HDI A map(const V& x, index_t) const {
    if constexpr (is_complex_v<V>) return static_cast<A>(tl::abs(x));
    else return std::fabs(A(x));
  }
  template <class B>
  TL_INLINE B pmap(const B& x) const { return xsimd::abs(x); }
};

/// Sum of |x|^p for a general p (scalar path).
template <class A>
struct abs_pow_reducer {
  using acc_type = A;
  template <class V>
  static constexpr bool simd = false;
  A p;
  TL_HDI A init() const { return A(0); }
  template <class V>
  TL_HDI A map(const V& x, index_t) const {
    A a;
    if constexpr (is_complex_v<V>) a = static_cast<A>(tl::abs(x));
    else a = std::fabs(A(x));
    return std::pow(a, p);
  }
  TL_HDI A combine(const A& a, const A& b) const { return a + b; }
};

/// Number of nonzero elements (as A).
template <class A>
struct count_reducer {
  using acc_type = A;
  template <class V>
  static constexpr bool simd = false;
  TL_HDI A init() const { return A(0); }
  template <class V>
  TL_HDI A map(const V& x, index_t) const { return x != V(0) ? A(1) : A(0); }
  TL_HDI A combine(const A& a, const A& b) const { return a + b; }
};

/// all (IsAll) / any of the elements' truth values.
template <bool IsAll>
struct logical_reducer {
  using acc_type = bool;
  template <class V>
  static constexpr bool simd = false;
  TL_HDI bool init() const { return IsAll; }
  template <class V>
  TL_HDI bool map(const V& x, index_t) const { return x != V(0); }
  TL_HDI bool combine(bool a, bool b) const { return IsAll ? (a && b) : (a || b); }
};

/// amax (IsMax) / amin; NaN propagates.
template <class A, bool IsMax>
struct extreme_reducer {
  static_assert(!is_complex_v<A>, "tl: max/min/amax/amin are not defined for complex tensors");
  using acc_type = A;
  template <class V>
  static constexpr bool simd = std::is_same_v<V, A> && simd_type_v<A>;
  TL_HDI A init() const {
    if constexpr (std::is_same_v<A, bool>) return !IsMax;
    else if constexpr (std::is_floating_point_v<A>)
      return IsMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else return IsMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
  }
  template <class V>
  TL_HDI A map(const V& x, index_t) const { return x; }
  TL_HDI A combine(const A& a, const A& b) const {
    if constexpr (std::is_same_v<A, bool>) return IsMax ? (a || b) : (a && b);
    else if constexpr (std::is_floating_point_v<A>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    if constexpr (IsMax) return b > a ? b : a;
    else return b < a ? b : a;
  }
  template <class B>
  TL_INLINE B pinit() const { return B(init()); }
  template <class B>
  TL_INLINE B pmap(const B& x) const { return x; }
  template <class B>
  TL_INLINE B pcombine(const B& a, const B& b) const {
    if constexpr (std::is_floating_point_v<A>) {
      const auto pick_a = xsimd::isnan(a) || (IsMax ? (a >= b) : (a <= b));
      return xsimd::select(pick_a, a, b);
    } else {
      return IsMax ? xsimd::max(a, b) : xsimd::min(a, b);
    }
  }
  template <class B>
  TL_INLINE A hreduce(const B& b) const { return hfold_in_order(b, [this](A x, A y) { return combine(x, y); }); }
};

/// Value and position of the first maximum (IsMax) / minimum; a NaN counts as the extreme.
/// Ties (and two NaNs) resolve to the smaller position, so combine is commutative as well as
/// associative: the CUDA kernels, which combine partial results in a tree, find the same element.
template <class V, bool IsMax>
struct arg_reducer {
  static_assert(!is_complex_v<V>, "tl: argmax/argmin/max/min are not defined for complex tensors");
  struct acc_type {
    V v{};
    index_t i = -1;
  };
  template <class>
  static constexpr bool simd = false;
  TL_HDI acc_type init() const { return {}; }
  template <class X>
  TL_HDI acc_type map(const X& x, index_t k) const { return {x, k}; }
  TL_HDI acc_type combine(const acc_type& a, const acc_type& b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const acc_type first = b.i < a.i ? b : a;  // a value: a reference here put the pairs on the CUDA stack
    if constexpr (std::is_floating_point_v<V>) {
      const bool na = std::isnan(a.v), nb = std::isnan(b.v);
      if (na && nb) return first;
      if (na) return a;
      if (nb) return b;
    }
    if constexpr (IsMax) {
      if (b.v > a.v) return b;
      if (a.v > b.v) return a;
    } else {
      if (b.v < a.v) return b;
      if (a.v < b.v) return a;
    }
    return first;
  }
};

// ---- finalizers ---------------------------------------------------------------------------------
// How an accumulator becomes output element o: `finish(acc, o)`, callable on the host and in CUDA
// kernels (a reduction on a CUDA tensor applies it on the device; see run.hpp's reduce_into).

/// A finalizer type declares `using finalizer_tag = void;`.
template <class F>
inline constexpr bool is_finalizer_v = requires { typename F::finalizer_tag; };

/// The accumulator itself.
template <class A>
struct fin_acc {
  using finalizer_tag = void;
  TL_HDI A finish(const A& a, index_t) const { return a; }
};
/// The square root of the accumulator (the 2-norm from the sum of squares).
template <class A>
struct fin_sqrt {
  using finalizer_tag = void;
  TL_HDI A finish(const A& a, index_t) const { return std::sqrt(a); }
};
/// The accumulator to a fixed power (the p-norm from the sum of |x|^p; inv = 1/p).
template <class A>
struct fin_pow {
  using finalizer_tag = void;
  A inv;
  TL_HDI A finish(const A& a, index_t) const { return std::pow(a, inv); }
};
/// Accumulated sum over n elements to the mean (complex: both parts divided).
template <class V>
struct fin_mean {
  using finalizer_tag = void;
  real_t<V> n;
  TL_HDI V finish(const V& a, index_t) const {
    if constexpr (is_complex_v<V>) return V(a.re / n, a.im / n);
    else return a / n;
  }
};
/// Sum of squared deviations to the variance (Sqrt: the standard deviation) with divisor div.
template <class Rt, bool Sqrt>
struct fin_var {
  using finalizer_tag = void;
  Rt div;
  TL_HDI Rt finish(const Rt& s, index_t) const {
    const Rt v = s / div;
    if constexpr (Sqrt) return std::sqrt(v);
    else return v;
  }
};
/// The position of an arg_reducer accumulator.
struct fin_arg_index {
  using finalizer_tag = void;
  template <class A>
  TL_HDI std::int64_t finish(const A& a, index_t) const {
    return a.i;
  }
};
/// The position of an arg_reducer accumulator; its value goes to values[o].
template <class V>
struct fin_arg_split {
  using finalizer_tag = void;
  V* values;
  template <class A>
  TL_HDI std::int64_t finish(const A& a, index_t o) const {
    values[o] = a.v;
    return a.i;
  }
};
/// logsumexp's shift: the maximum, or 0 when it is infinite (an infinite maximum is not subtracted).
template <class V>
struct fin_lse_shift {
  using finalizer_tag = void;
  TL_HDI V finish(const V& a, index_t) const { return std::isinf(a) ? V(0) : a; }
};
/// logsumexp's result from the shifted sum: log(s) + shift[o].
template <class V>
struct fin_lse {
  using finalizer_tag = void;
  const V* shift;
  TL_HDI V finish(const V& s, index_t o) const { return std::log(s) + shift[o]; }
};

}  // namespace tl::detail
