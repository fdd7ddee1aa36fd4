#pragma once
/// @file index_select.hpp
/// @brief tl::index_select: the slices of a tensor at given indices along a dim.
#include <cstring>
#include <type_traits>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/ops/detail/loops.hpp"

namespace tl {

/// @brief Selects the entries `index` (1-D or 0-D, int64 or int32) of `t` along `dim` (torch.index_select).
/// The result has t's rank and `index.numel()` entries along `dim`. Indices must lie in
/// [0, extent) (torch does not wrap negative ones either); a bad one throws index_error.
///
/// @code
/// auto r = tl::index_select(t, 0, idx);  // t: [4, 3], idx = {3, 0, 3}  ->  rows 3, 0, 3
/// @endcode
template <expression E, expression I>
auto index_select(E&& t, index_t dim, I&& index) {
  detail::require_host("index_select", t);
  detail::require_host("index_select", index);
  using D = std::remove_cvref_t<E>;
  using T = typename D::value_type;
  constexpr std::size_t R = D::rank;
  static_assert(R >= 1, "tl: index_select needs a tensor of rank >= 1");
  static_assert(std::remove_cvref_t<I>::rank <= 1, "tl: index_select needs a 1-D (or 0-D) index tensor");
  const std::size_t d = detail::wrap_dim("index_select", dim, R);
  if constexpr (TL_AUTOGRAD && detail::category<T>() >= 2)
    if (detail::must_record(t)) {
      const auto idx = detail::index_as_int64(index).reshape(-1);
      return detail::record_selected<tensor<T, R>>(
          [=](const auto& x) { return tl::index_select(x, dim, idx); }, t, d,
          [idx, d](const tensor<T, R>& y) {  // the selected position of every element of y
            shape_t<R> ps;
            ps.fill(1);
            ps[d] = idx.numel();
            return tensor<std::int64_t, R>(idx.reshape(ps).expand(y.shape()).contiguous());
          },
          "IndexSelectBackward");
    }
  const auto src = detail::resolved_tensor(std::forward<E>(t));
  const auto idx = detail::index_as_int64(std::forward<I>(index));
  const index_t ni = idx.numel();
  const index_t n = src.shape()[d];
  const std::int64_t* ip = idx.data();
  for (index_t k = 0; k < ni; ++k)
    if (ip[k] < 0 || ip[k] >= n)
      throw index_error(detail::cat_str("tl::index_select: index ", ip[k], " is out of range for dim ", d,
                                        " of extent ", n, " (shape ", detail::shape_str(src.shape()), ")"));
  shape_t<R> os = src.shape();
  os[d] = ni;
  tensor<T, R> out(os);
  if (out.numel() == 0) return out;
  // Walk the output row by row (last dim inner); the source offset swaps the index along `dim`.
  const auto& ss = src.strides();
  const index_t inner = os[R - 1];
  const index_t rows = out.numel() / inner;
  const T* sp = src.data();
  T* op = out.data();
  detail::parallel_ranges(rows, std::max<index_t>(1, detail::parallel_chunk / inner), [&](index_t lo, index_t hi) {
    std::array<index_t, R> ix{};
    detail::unravel(os, lo * inner, ix);
    for (index_t r = lo; r < hi; ++r) {
      std::array<index_t, R> sx = ix;
      if (d + 1 < R) sx[d] = ip[ix[d]];
      sx[R - 1] = 0;
      const T* s = sp + detail::offset_of(sx, ss);
      T* o = op + r * inner;
      if (d + 1 == R) {
        for (index_t j = 0; j < inner; ++j) o[j] = s[ip[j] * ss[R - 1]];
      } else if (ss[R - 1] == 1) {
        std::memcpy(static_cast<void*>(o), static_cast<const void*>(s), static_cast<std::size_t>(inner) * sizeof(T));
      } else {
        for (index_t j = 0; j < inner; ++j) o[j] = s[j * ss[R - 1]];
      }
      ix[R - 1] = inner - 1;
      detail::next_index(os, ix);
    }
  });
  return out;
}

}  // namespace tl
