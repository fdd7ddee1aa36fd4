#pragma once
/// @file extents.hpp
/// @brief Extents: the rank is always static, each extent is static (a number) or dynamic (tl::dyn).
///
/// `tl::tensor<float, 2>` has two dynamic extents; `tl::basic_tensor<float, tl::extents<3, tl::dyn>>`
/// (alias `tl::stensor<float, 3, tl::dyn>`) has a static first extent of 3. Static extents take part in
/// compile-time broadcasting checks; the runtime shape is always stored as well.
#include <array>
#include <cstddef>
#include <utility>

#include "tl/core/config.hpp"

namespace tl {

/// @brief Marks an extent only known at run time.
inline constexpr index_t dyn = -1;

/// @brief Extents with static values (or tl::dyn) per dimension.
template <index_t... E>
struct extents {
  static constexpr std::size_t rank = sizeof...(E);
  static constexpr std::array<index_t, rank> static_values{E...};
  static constexpr bool all_dynamic = ((E == dyn) && ...);
  static_assert(((E == dyn || E >= 0) && ...), "tl: a static extent must be >= 0 (or tl::dyn)");
};

namespace detail {
template <class Seq>
struct dextents_impl;
template <std::size_t... I>
struct dextents_impl<std::index_sequence<I...>> {
  using type = extents<((void)I, dyn)...>;
};
template <class T>
struct is_extents : std::false_type {};
template <index_t... E>
struct is_extents<extents<E...>> : std::true_type {};
}  // namespace detail

/// @brief Rank-R extents, all dynamic.
template <std::size_t R>
using dextents = typename detail::dextents_impl<std::make_index_sequence<R>>::type;

template <std::size_t R>
using shape_t = std::array<index_t, R>;

namespace detail {

/// Static extent of dim `d` (counted from the right) of Ext, or 1 when Ext has fewer dims.
template <class Ext>
constexpr index_t static_from_right(std::size_t d) {
  if (d >= Ext::rank) return 1;
  return Ext::static_values[Ext::rank - 1 - d];
}

/// Compile-time broadcast of two extents types; static mismatches are a hard error with a sentence.
template <class A, class B>
struct broadcast_extents {
  static constexpr std::size_t rank = A::rank > B::rank ? A::rank : B::rank;
  static constexpr index_t combine(index_t a, index_t b) {
    if (a == 1) return b;
    if (b == 1) return a;
    if (a == dyn) return b == dyn ? dyn : b;
    if (b == dyn) return a;
    return a == b ? a : -2;  // -2: mismatch
  }
  static constexpr std::array<index_t, rank> values = [] {
    std::array<index_t, rank> v{};
    for (std::size_t d = 0; d < rank; ++d)
      v[rank - 1 - d] = combine(static_from_right<A>(d), static_from_right<B>(d));
    return v;
  }();
  static constexpr bool ok = [] {
    for (auto x : values)
      if (x == -2) return false;
    return true;
  }();
  template <std::size_t... I>
  static auto make(std::index_sequence<I...>) -> extents<(values[I] == -2 ? dyn : values[I])...>;
  using type = decltype(make(std::make_index_sequence<rank>{}));
};

/// Row-major contiguous strides for a shape.
template <std::size_t R>
constexpr shape_t<R> contiguous_strides(const shape_t<R>& s) {
  shape_t<R> st{};
  index_t acc = 1;
  for (std::size_t i = R; i-- > 0;) {
    st[i] = acc;
    acc *= s[i] > 0 ? s[i] : 1;
  }
  return st;
}

template <std::size_t R>
constexpr index_t numel(const shape_t<R>& s) {
  index_t n = 1;
  for (auto x : s) n *= x;
  return n;
}
}  // namespace detail
}  // namespace tl
