#pragma once
/// @file dims.hpp
/// @brief How reductions name their dims: `tl::dims{0, 2}`, a single index, and the `tl::keepdim` tag.
///
/// The rank of a tensor is static, so whether a reduction keeps its reduced dims must be known at
/// compile time. torch's runtime `keepdim=True` is the tag `tl::keepdim`:
///
/// @code
/// tl::sum(x);                        // rank 0
/// tl::sum(x, 1);                     // rank R - 1
/// tl::sum(x, -1, tl::keepdim);       // rank R (reduced dim has extent 1)
/// tl::sum(x, tl::dims{0, 1});        // rank R - 2
/// tl::sum(x, tl::dims{0, 1}, tl::keepdim);  // rank R
/// tl::sum(x, tl::keepdim);           // every dim reduced, rank R
/// @endcode
#include <array>
#include <cstddef>
#include <type_traits>

#include "tl/core/error.hpp"
#include "tl/core/extents.hpp"

namespace tl {

/// @brief Tag type: keep reduced dims with extent 1 (torch's `keepdim=True`).
struct keepdim_t {
  explicit constexpr keepdim_t() = default;
};
/// @brief Pass as the last argument of a reduction to keep the reduced dims (torch's `keepdim=True`).
inline constexpr keepdim_t keepdim{};

/// @brief A list of N dims to reduce over (negative values count from the end): `tl::dims{0, -1}`.
template <std::size_t N>
struct dims {
  static_assert(N >= 1, "tl: tl::dims needs at least one dim; call the reduction without dims to reduce every dim");
  std::array<index_t, N> values{};
  constexpr dims(const std::array<index_t, N>& a) : values(a) {}
  template <class... I>
    requires(sizeof...(I) == N && (std::is_integral_v<I> && ...))
  constexpr dims(I... i) : values{static_cast<index_t>(i)...} {}
};
template <class... I>
dims(I...) -> dims<sizeof...(I)>;
template <std::size_t N>
dims(std::array<index_t, N>) -> dims<N>;

namespace detail {

template <class T>
struct is_dims : std::false_type {};
template <std::size_t N>
struct is_dims<dims<N>> : std::true_type {
  static constexpr std::size_t n = N;
};
template <class T, std::size_t N>
struct is_dims<std::array<T, N>> : std::bool_constant<std::is_integral_v<T>> {
  static constexpr std::size_t n = N;
};

/// Compile-time description of a reduction's dim arguments: `all` (no dims given), the number of
/// reduced dims, whether they are kept, and the result rank.
template <std::size_t R, class... A>
struct reduce_args {
  static constexpr bool valid = false;
};
template <std::size_t R>
struct reduce_args<R> {
  static constexpr bool valid = true, all = true, keep = false;
  static constexpr std::size_t count = R, out_rank = 0;
};
template <std::size_t R>
struct reduce_args<R, keepdim_t> {
  static constexpr bool valid = true, all = true, keep = true;
  static constexpr std::size_t count = R, out_rank = R;
};
template <std::size_t R, class I>
  requires std::is_integral_v<I>
struct reduce_args<R, I> {
  static constexpr bool valid = true, all = false, keep = false;
  static constexpr std::size_t count = 1, out_rank = R >= 1 ? R - 1 : 0;
};
template <std::size_t R, class I>
  requires std::is_integral_v<I>
struct reduce_args<R, I, keepdim_t> {
  static constexpr bool valid = true, all = false, keep = true;
  static constexpr std::size_t count = 1, out_rank = R;
};
template <std::size_t R, class D>
  requires is_dims<D>::value
struct reduce_args<R, D> {
  static constexpr bool valid = true, all = false, keep = false;
  static constexpr std::size_t count = is_dims<D>::n, out_rank = R >= count ? R - count : 0;
};
template <std::size_t R, class D>
  requires is_dims<D>::value
struct reduce_args<R, D, keepdim_t> {
  static constexpr bool valid = true, all = false, keep = true;
  static constexpr std::size_t count = is_dims<D>::n, out_rank = R;
};

/// Valid dim arguments of a reduction over a rank-R expression: nothing, `dim`, `tl::dims{...}`,
/// each optionally followed by `tl::keepdim`.
template <std::size_t R, class... A>
concept reduce_dim_args = reduce_args<R, std::remove_cvref_t<A>...>::valid;

/// A resolved reduction: which dims are reduced, how many elements each output reduces, the output shape.
template <std::size_t R, std::size_t RO>
struct reduce_plan {
  std::array<bool, R> mask{};
  index_t n = 1;          // elements reduced into each output
  shape_t<RO> out_shape{};
  index_t out_numel = 1;
};

template <std::size_t R>
void mark_dim(const char* op, std::array<bool, R>& mask, index_t d) {
  const std::size_t w = wrap_dim(op, d, R);
  if (mask[w])
    throw index_error(cat_str("tl::", op, ": dim ", w, " appears multiple times in the list of dims"));
  mask[w] = true;
}

/// Resolves dim arguments against an input shape; throws index_error naming the op for bad dims.
template <std::size_t R, class... A>
auto make_plan(const char* op, const shape_t<R>& s, const A&... args) {
  using tr = reduce_args<R, std::remove_cvref_t<A>...>;
  static_assert(tr::valid, "tl: reduction dims must be given as `dim`, `tl::dims{d0, d1, ...}`, optionally followed by tl::keepdim");
  static_assert(tr::all || R >= 1, "tl: a rank-0 expression has no dim to reduce over; call the reduction without dims");
  static_assert(tr::count <= R, "tl: more reduction dims than the expression's rank");
  reduce_plan<R, tr::out_rank> p;
  if constexpr (tr::all) {
    p.mask.fill(true);
  } else {
    auto one = [&](const auto& a) {
      using X = std::remove_cvref_t<decltype(a)>;
      if constexpr (std::is_integral_v<X>) mark_dim<R>(op, p.mask, static_cast<index_t>(a));
      else if constexpr (is_dims<X>::value) {
        if constexpr (requires { a.values; })
          for (auto d : a.values) mark_dim<R>(op, p.mask, static_cast<index_t>(d));
        else
          for (auto d : a) mark_dim<R>(op, p.mask, static_cast<index_t>(d));
      }
    };
    (one(args), ...);
  }
  std::size_t o = 0;
  for (std::size_t d = 0; d < R; ++d) {
    if (p.mask[d]) {
      p.n *= s[d];
      if constexpr (tr::keep) p.out_shape[o++] = 1;
    } else {
      if constexpr (tr::out_rank > 0) p.out_shape[o++] = s[d];
      p.out_numel *= s[d];
    }
  }
  return p;
}

}  // namespace detail
}  // namespace tl
