#pragma once
/// @file gather.hpp
/// @brief tl::gather: out[i][j] = t[index[i][j]][j] (dim 0), for any rank.
#include <type_traits>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/ops/detail/loops.hpp"

namespace tl {

namespace detail {
/// Checks every index value lies in [0, n); throws index_error naming the op and the value.
inline void check_index_values(const char* op, const std::int64_t* p, index_t count, index_t n, std::size_t d) {
  for (index_t k = 0; k < count; ++k)
    if (p[k] < 0 || p[k] >= n)
      throw index_error(cat_str("tl::", op, ": index ", p[k], " is out of range for dim ", d, " of extent ", n));
}
}  // namespace detail

/// @brief Gathers values along `dim` (torch.gather): the result has index's shape and
/// `out[..., i_dim, ...] = t[..., index[..., i_dim, ...], ...]`. `index` (int64 or int32) has t's
/// rank and `index.size(d) <= t.size(d)` for every d != dim; values must lie in [0, t.size(dim)).
///
/// @code
/// auto g = tl::gather(t, 1, idx);  // t = [[1, 2], [3, 4]], idx = [[0, 0], [1, 0]]  ->  [[1, 1], [4, 3]]
/// @endcode
template <expression E, expression I>
auto gather(E&& t, index_t dim, I&& index) {
  detail::require_host("gather", t);
  detail::require_host("gather", index);
  using D = std::remove_cvref_t<E>;
  using T = typename D::value_type;
  constexpr std::size_t R = D::rank;
  static_assert(std::remove_cvref_t<I>::rank == R, "tl: gather needs an index tensor of the same rank as the input");
  const std::size_t d = detail::wrap_dim("gather", dim, R);
  if constexpr (TL_AUTOGRAD && detail::category<T>() >= 2)
    if (detail::must_record(t)) {
      const auto idx = detail::index_as_int64(index);
      return detail::record_selected<tensor<T, R>>([=](const auto& x) { return tl::gather(x, dim, idx); }, t, d,
                                                   [idx](const tensor<T, R>&) { return idx; }, "GatherBackward");
    }
  const auto src = detail::resolved_tensor(std::forward<E>(t));
  const auto idx = detail::index_as_int64(std::forward<I>(index));
  const auto& is = idx.shape();
  for (std::size_t k = 0; k < R; ++k)
    if (k != d && is[k] > src.shape()[k])
      throw shape_error(detail::cat_str("tl::gather: index of shape ", detail::shape_str(is),
                                        " is larger than the input of shape ", detail::shape_str(src.shape()),
                                        " at dim ", k, " (only dim ", d, " may be larger)"));
  tensor<T, R> out(is);
  const index_t total = out.numel();
  if (total == 0) return out;
  detail::check_index_values("gather", idx.data(), total, R == 0 ? 1 : src.shape()[d], d);
  const auto& ss = src.strides();
  const std::int64_t* ip = idx.data();
  const T* sp = src.data();
  T* op = out.data();
  detail::parallel_ranges(total, detail::parallel_chunk, [&](index_t lo, index_t hi) {
    std::array<index_t, R> ix{};
    detail::unravel(is, lo, ix);
    for (index_t f = lo; f < hi; ++f) {
      std::array<index_t, R> sx = ix;
      if constexpr (R > 0) sx[d] = ip[f];
      op[f] = sp[detail::offset_of(sx, ss)];
      detail::next_index(is, ix);
    }
  });
  return out;
}

}  // namespace tl
