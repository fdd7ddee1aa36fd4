// Shared helpers for the reduction tests: a local LCG, random tensors, and a long-double
// reference reduction over any set of dims.
#pragma once
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <tl/tensor.hpp>

namespace reduce_test {

struct lcg {
  std::uint64_t s;
  double next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) * 0x1.0p-53;
  }
};

template <class T>
T rand_value(lcg& g) {
  if constexpr (std::is_same_v<T, bool>) return g.next() < 0.5;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<int>(g.next() * 21) - 10);
  else if constexpr (tl::is_complex_v<T>) {
    using R = tl::real_t<T>;
    const R re = static_cast<R>(g.next() * 2 - 1);
    return T(re, static_cast<R>(g.next() * 2 - 1));
  } else return static_cast<T>(g.next() * 2 - 1);
}

/// A contiguous tensor of the given shape with values from the LCG.
template <class T, std::size_t R>
tl::tensor<T, R> random_tensor(const tl::shape_t<R>& s, std::uint64_t seed) {
  tl::tensor<T, R> t(s);
  lcg g{seed};
  for (tl::index_t k = 0; k < t.numel(); ++k) t.data()[k] = rand_value<T>(g);
  return t;
}

/// The long-double (or complex long double) image of a value.
template <class T>
auto wide(const T& v) {
  if constexpr (tl::is_complex_v<T>) return std::complex<long double>(v.re, v.im);
  else return static_cast<long double>(v);
}

/// Reference: folds f(acc, wide(x), k) over the dims in `mask` of `get(idx)` for a shape; k is the
/// position within the reduced dims (row-major). Outputs in row-major order of the kept dims.
template <class Acc, std::size_t R, class Get, class F>
std::vector<Acc> ref_reduce(const tl::shape_t<R>& s, const std::array<bool, R>& mask, Acc init, Get get, F f) {
  tl::index_t nout = 1, total = 1;
  for (std::size_t d = 0; d < R; ++d) {
    total *= s[d];
    if (!mask[d]) nout *= s[d];
  }
  std::vector<Acc> out(static_cast<std::size_t>(nout), init);
  for (tl::index_t flat = 0; flat < total; ++flat) {
    std::array<tl::index_t, R> idx{};
    tl::index_t rem = flat;
    for (std::size_t d = R; d-- > 0;) {
      idx[d] = rem % s[d];
      rem /= s[d];
    }
    tl::index_t o = 0, k = 0;
    for (std::size_t d = 0; d < R; ++d) {
      if (mask[d]) k = k * s[d] + idx[d];
      else o = o * s[d] + idx[d];
    }
    out[static_cast<std::size_t>(o)] = f(out[static_cast<std::size_t>(o)], get(idx), k);
  }
  return out;
}

/// Element of a tensor at an index array (applies lazy conjugation).
template <class Tn, std::size_t R>
auto at(const Tn& t, const std::array<tl::index_t, R>& idx) {
  return std::apply([&](auto... i) { return t.get(i...); }, idx);
}

/// Flat (row-major) element k of any tensor.
template <class Tn>
auto flat(const Tn& t, tl::index_t k) {
  constexpr std::size_t R = Tn::rank;
  std::array<tl::index_t, R> idx{};
  const auto s = t.shape();
  for (std::size_t d = R; d-- > 0;) {
    idx[d] = k % s[d];
    k /= s[d];
  }
  (void)s;
  if constexpr (R == 0) return t.item();
  else return at(t, idx);
}

/// |a - b| <= tol * (1 + |b|), for real or complex values.
template <class A, class B>
bool close(const A& a, const B& b, long double tol) {
  using std::abs;
  const auto wa = wide(a);
  const auto wb = static_cast<decltype(wa)>(b);
  if constexpr (std::is_floating_point_v<decltype(wa)>) {
    if (std::isnan(wb)) return std::isnan(wa);
    if (std::isinf(wb)) return wa == wb;
  }
  return abs(wa - wb) <= tol * (1 + abs(wb));
}

template <class T>
long double tol_for() {
  if constexpr (std::is_same_v<tl::real_t<T>, float>) return 2e-5L;
  else if constexpr (std::is_same_v<tl::real_t<T>, double>) return 1e-12L;
  else return 0;
}

}  // namespace reduce_test
