#pragma once
/// @file random.hpp
/// @brief Random tensors on the CPU: rand, randn, randint, bernoulli (and rand_like, randn_like).
///
/// Every op draws from the global Philox generator (tl/core/random.hpp) following its stream
/// contract: element i depends only on (seed, offset, i), so the result is the same for any
/// thread count and will be the same on a GPU. Work is split over the thread pool in fixed chunks.
///
/// @code
/// tl::manual_seed(0);
/// auto u = tl::rand<double>(1000);             // uniform in [0, 1)
/// auto z = tl::randn(64, 64);                  // float, standard normal
/// auto k = tl::randint(0, 10, 5);              // int64 in [0, 10)
/// auto b = tl::bernoulli<bool>(0.25, 100);     // true with probability 0.25
/// @endcode
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tl/core/creation.hpp"
#include "tl/core/dtype.hpp"
#include "tl/core/error.hpp"
#include "tl/core/random.hpp"
#include "tl/core/tensor.hpp"
#include "tl/eval/cpu/assign.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/eval/device_slot.hpp"

namespace tl {
namespace detail {

/// The four draws with a device kernel (tl/eval/cuda/random.cuh).
enum class random_kind { uniform, normal, randint, bernoulli };
struct random_args {
  std::int64_t low = 0;
  std::uint64_t range = 1;
  double scale = 1.0;
  double p = 0.0;
};
template <random_kind K, class T>
struct cuda_random_key {};
using cuda_random_fn = void (*)(void* out, index_t n, rng_state st, const random_args& a, int dev);
}  // namespace detail
}  // namespace tl

#if defined(__CUDACC__)
#include "tl/eval/cuda/random.cuh"
#endif

namespace tl {
namespace detail {

/// Fills n elements of type T at `out` on CUDA device `dev` with draw K of stream `st`.
template <random_kind K, class T>
void cuda_random(T* out, index_t n, rng_state st, const random_args& a, int dev) {
#if defined(__CUDACC__)
  register_cuda_random<K, T>();
#endif
  require_device_slot<cuda_random_key<K, T>, cuda_random_fn>("random")(out, n, st, a, dev);
}

/// Elements per parallel task (even, so that a Box–Muller pair never straddles two tasks).
inline constexpr index_t random_chunk = 1 << 14;

/// Calls f(lo, hi) for the chunks of [0, n) over the thread pool.
template <class F>
void random_parallel(index_t n, F&& f) {
  const index_t ntask = (n + random_chunk - 1) / random_chunk;
  thread_pool::instance().parallel_for(ntask, [&](index_t t) {
    const index_t lo = t * random_chunk;
    f(lo, std::min(n, lo + random_chunk));
  });
}

/// out[i] = U_i for i in [0, n) (the stream contract's uniforms of real type R).
template <class R>
void fill_uniform(R* out, index_t n, rng_state st) {
  random_parallel(n, [&](index_t lo, index_t hi) {
    philox_cursor c(st, static_cast<std::uint64_t>(lo) * words_per_uniform<R>);
    for (index_t i = lo; i < hi; ++i) out[i] = c.template uniform<R>();
  });
}

/// out[i] = scale * (Box–Muller normal i) for i in [0, n), in double, rounded to R.
template <class R>
void fill_normal(R* out, index_t n, rng_state st, double scale) {
  constexpr double two_pi = 6.283185307179586476925286766559;
  random_parallel(n, [&](index_t lo, index_t hi) {
    philox_cursor c(st, static_cast<std::uint64_t>(lo) * words_per_uniform<R>);
    for (index_t i = lo; i < hi; i += 2) {
      const double u1 = static_cast<double>(c.template uniform<R>());
      const double u2 = static_cast<double>(c.template uniform<R>());
      const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
      const double t = two_pi * u2;
      out[i] = static_cast<R>(scale * (r * std::cos(t)));
      if (i + 1 < hi) out[i + 1] = static_cast<R>(scale * (r * std::sin(t)));
    }
  });
}

template <class T>
inline constexpr bool is_random_float_v = is_floating_v<T> || is_complex_v<T>;

template <class P>
void check_probability(const char* op, P p) {
  if (!(p >= P(0) && p <= P(1)))
    throw value_error(cat_str("tl::", op, ": the probability p must be in [0, 1], got ", p));
}

}  // namespace detail

/// @brief Uniform random numbers in [0, 1) (torch.rand); complex dtypes get uniform real and
/// imaginary parts. float uses 24 random bits, double 53.
///
/// @code
/// tl::manual_seed(7);
/// tl::tensor<double, 2> u = tl::rand<double>(3, 4);
/// @endcode
template <dtype T = float, std::size_t R>
tensor<T, R> rand(const shape_t<R>& shape, tl::device d = tl::device::cpu) {
  static_assert(detail::is_random_float_v<T>, "tl: rand<T> needs a floating or complex dtype; use randint for integers");
  tensor<T, R> t(detail::creation_shape("rand", shape), d);
  using Re = real_t<T>;
  const index_t n = t.numel() * (is_complex_v<T> ? 2 : 1);
  const rng_state st =
      detail::global_generator::instance().reserve(static_cast<std::uint64_t>(n) * detail::words_per_uniform<Re>);
  if (d.is_cuda()) detail::cuda_random<detail::random_kind::uniform>(reinterpret_cast<Re*>(t.data()), n, st, {}, d.index());
  else detail::fill_uniform(reinterpret_cast<Re*>(t.data()), n, st);
  return t;
}
template <dtype T = float, class... I>
  requires((detail::is_index_like_v<I> && ...))
tensor<T, sizeof...(I)> rand(I... extents) {
  return rand<T>(shape_t<sizeof...(I)>{static_cast<index_t>(extents)...});
}
/// @brief The trailing-device form: `tl::rand<float>(n, tl::device::cuda())` (same numbers as on the host).
template <dtype T = float, class... A>
  requires(detail::extents_then_device<A...>())
tensor<T, sizeof...(A) - 1> rand(A... a) {
  const auto [s, d] = detail::split_device(a...);
  return rand<T>(s, d);
}

/// @brief Standard normal random numbers (torch.randn), by the Box–Muller transform. Complex
/// dtypes get independent real and imaginary parts of variance 1/2 each (E|z|^2 = 1), like torch.
///
/// @code
/// tl::manual_seed(1);
/// auto z = tl::randn<double>(1000);  // mean ~ 0, std ~ 1
/// @endcode
template <dtype T = float, std::size_t R>
tensor<T, R> randn(const shape_t<R>& shape, tl::device d = tl::device::cpu) {
  static_assert(detail::is_random_float_v<T>, "tl: randn<T> needs a floating or complex dtype");
  tensor<T, R> t(detail::creation_shape("randn", shape), d);
  using Re = real_t<T>;
  const index_t n = t.numel() * (is_complex_v<T> ? 2 : 1);
  const std::uint64_t pairs = (static_cast<std::uint64_t>(n) + 1) / 2;
  const rng_state st = detail::global_generator::instance().reserve(pairs * 2 * detail::words_per_uniform<Re>);
  const double scale = is_complex_v<T> ? 0.70710678118654752440 : 1.0;
  if (d.is_cuda()) {
    detail::random_args a;
    a.scale = scale;
    detail::cuda_random<detail::random_kind::normal>(reinterpret_cast<Re*>(t.data()), n, st, a, d.index());
  } else {
    detail::fill_normal(reinterpret_cast<Re*>(t.data()), n, st, scale);
  }
  return t;
}
template <dtype T = float, class... I>
  requires((detail::is_index_like_v<I> && ...))
tensor<T, sizeof...(I)> randn(I... extents) {
  return randn<T>(shape_t<sizeof...(I)>{static_cast<index_t>(extents)...});
}
/// @brief The trailing-device form: `tl::randn<float>(n, tl::device::cuda())` (same numbers as on the host,
/// up to the last bit of the device's double-precision log/sin/cos for double results).
template <dtype T = float, class... A>
  requires(detail::extents_then_device<A...>())
tensor<T, sizeof...(A) - 1> randn(A... a) {
  const auto [s, d] = detail::split_device(a...);
  return randn<T>(s, d);
}

/// @brief Uniform random numbers with the shape of `e` and its dtype (or U).
template <class U = void, expression E>
auto rand_like(const E& e) {
  using D = std::conditional_t<std::is_void_v<U>, typename std::remove_cvref_t<E>::value_type, U>;
  return rand<D>(e.shape(), detail::expression_device(e));
}
/// @brief Standard normal random numbers with the shape of `e` and its dtype (or U).
template <class U = void, expression E>
auto randn_like(const E& e) {
  using D = std::conditional_t<std::is_void_v<U>, typename std::remove_cvref_t<E>::value_type, U>;
  return randn<D>(e.shape(), detail::expression_device(e));
}

/// @brief Random integers uniform in [low, high) (torch.randint), int64 by default.
///
/// @code
/// auto k = tl::randint(0, 10, 5);                             // tensor<int64_t, 1>
/// auto m = tl::randint<int>(-3, 3, tl::shape_t<2>{4, 4});   // tensor<int32_t, 2>
/// @endcode
template <dtype T = std::int64_t, std::size_t R>
tensor<T, R> randint(std::int64_t low, std::int64_t high, const shape_t<R>& shape, tl::device d = tl::device::cpu) {
  static_assert(!is_complex_v<T> && !std::is_same_v<T, bool>,
                "tl: randint<T> needs an integer or floating dtype (not bool or complex)");
  if (low >= high)
    throw value_error(detail::cat_str("tl::randint: low must be less than high, got low = ", low, " and high = ", high));
  if constexpr (std::is_same_v<T, std::int32_t>) {
    if (low < std::numeric_limits<std::int32_t>::min() || high - 1 > std::numeric_limits<std::int32_t>::max())
      throw value_error(detail::cat_str("tl::randint: the range [", low, ", ", high, ") does not fit in int32"));
  }
  tensor<T, R> t(detail::creation_shape("randint", shape), d);
  const index_t n = t.numel();
  const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const rng_state st = detail::global_generator::instance().reserve(2 * static_cast<std::uint64_t>(n));
  T* out = t.data();
  if (d.is_cuda()) {
    detail::random_args a;
    a.low = low;
    a.range = range;
    detail::cuda_random<detail::random_kind::randint>(out, n, st, a, d.index());
    return t;
  }
  detail::random_parallel(n, [&](index_t lo, index_t hi) {
    detail::philox_cursor c(st, 2 * static_cast<std::uint64_t>(lo));
    for (index_t i = lo; i < hi; ++i) {
      const std::uint64_t v = static_cast<std::uint64_t>(low) + c.next64() % range;
      out[i] = static_cast<T>(static_cast<std::int64_t>(v));
    }
  });
  return t;
}
template <dtype T = std::int64_t, class... I>
  requires((detail::is_index_like_v<I> && ...))
tensor<T, sizeof...(I)> randint(std::int64_t low, std::int64_t high, I... extents) {
  return randint<T>(low, high, shape_t<sizeof...(I)>{static_cast<index_t>(extents)...});
}
/// @brief Random integers uniform in [0, high).
template <dtype T = std::int64_t, std::size_t R>
tensor<T, R> randint(std::int64_t high, const shape_t<R>& shape, tl::device d = tl::device::cpu) {
  return randint<T>(0, high, shape, d);
}

/// @brief Draws 1 with probability p[i] and 0 otherwise (torch.bernoulli); the result has p's
/// dtype and shape. `p` is a floating tensor or expression with values in [0, 1].
///
/// @code
/// auto p = tl::full<double>(tl::shape_t<1>{4}, 0.5);
/// auto b = tl::bernoulli(p);  // tensor<double, 1> of 0s and 1s
/// @endcode
template <expression E>
tensor<typename std::remove_cvref_t<E>::value_type, std::remove_cvref_t<E>::rank> bernoulli(const E& p) {
  using D = std::remove_cvref_t<E>;
  using T = typename D::value_type;
  static_assert(is_floating_v<T>, "tl: bernoulli(p) needs a float or double tensor of probabilities");
  const tl::device dev = detail::expression_device(p);
  if (dev.is_cuda()) return bernoulli(tl::eval(p).cpu()).to(dev);  // same stream words as on the host
  const auto pc = tl::eval(p);
  const index_t n = pc.numel();
  const T* pp = pc.data();
  for (index_t i = 0; i < n; ++i)
    if (!(pp[i] >= T(0) && pp[i] <= T(1)))
      throw value_error(detail::cat_str("tl::bernoulli: the probability p must be in [0, 1], got ", pp[i],
                                        " at flat index ", i));
  tensor<T, D::rank> out(pc.shape());
  T* o = out.data();
  const rng_state st =
      detail::global_generator::instance().reserve(static_cast<std::uint64_t>(n) * detail::words_per_uniform<T>);
  detail::random_parallel(n, [&](index_t lo, index_t hi) {
    detail::philox_cursor c(st, static_cast<std::uint64_t>(lo) * detail::words_per_uniform<T>);
    for (index_t i = lo; i < hi; ++i) o[i] = c.template uniform<T>() < pp[i] ? T(1) : T(0);
  });
  return out;
}
/// @brief A tensor of dtype T (float by default) whose elements are 1 with probability p and 0 otherwise.
template <dtype T = float, std::size_t R>
tensor<T, R> bernoulli(double p, const shape_t<R>& shape, tl::device d = tl::device::cpu) {
  static_assert(!is_complex_v<T>, "tl: bernoulli<T> needs a real or bool dtype");
  detail::check_probability("bernoulli", p);
  tensor<T, R> t(detail::creation_shape("bernoulli", shape), d);
  const index_t n = t.numel();
  const rng_state st = detail::global_generator::instance().reserve(2 * static_cast<std::uint64_t>(n));
  T* o = t.data();
  if (d.is_cuda()) {
    detail::random_args a;
    a.p = p;
    detail::cuda_random<detail::random_kind::bernoulli>(o, n, st, a, d.index());
    return t;
  }
  detail::random_parallel(n, [&](index_t lo, index_t hi) {
    detail::philox_cursor c(st, 2 * static_cast<std::uint64_t>(lo));
    for (index_t i = lo; i < hi; ++i) o[i] = static_cast<T>(c.template uniform<double>() < p);
  });
  return t;
}
template <dtype T = float, class... I>
  requires((detail::is_index_like_v<I> && ...))
tensor<T, sizeof...(I)> bernoulli(double p, I... extents) {
  return bernoulli<T>(p, shape_t<sizeof...(I)>{static_cast<index_t>(extents)...});
}

}  // namespace tl
