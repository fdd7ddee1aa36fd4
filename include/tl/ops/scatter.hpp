#pragma once
/// @file scatter.hpp
/// @brief tl::scatter / tl::scatter_add (new tensors) and the in-place tl::scatter_ / tl::scatter_add_.
///
/// For dim 0: `self[index[i][j]][j] = src[i][j]` (scatter) or `+= src[i][j]` (scatter_add), for
/// every element of `index`. Shapes follow torch: index has self's rank, `index.size(d) <=
/// src.size(d)` for all d and `index.size(d) <= self.size(d)` for d != dim. With repeated
/// indices scatter keeps the last write in row-major order of `index`; scatter_add sums them all.
#include <type_traits>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/ops/detail/loops.hpp"
#include "tl/ops/gather.hpp"

namespace tl {

namespace detail {
template <std::size_t R>
void check_scatter_shapes(const char* op, std::size_t d, const shape_t<R>& self, const shape_t<R>& index,
                          const shape_t<R>* src) {
  for (std::size_t k = 0; k < R; ++k) {
    if ((k != d && index[k] > self[k]) || (src && index[k] > (*src)[k])) {
      if (src)
        throw shape_error(cat_str("tl::", op, ": index of shape ", shape_str(index),
                                  " must be no larger than src of shape ", shape_str(*src),
                                  " in every dim and no larger than self of shape ", shape_str(self),
                                  " in every dim but dim ", d, " (dim ", k, " differs)"));
      throw shape_error(cat_str("tl::", op, ": index of shape ", shape_str(index),
                                " must be no larger than self of shape ", shape_str(self), " in every dim but dim ", d,
                                " (dim ", k, " differs)"));
    }
  }
}

/// Writes (Add = false) or adds (Add = true) get(src_offset) into dst at the scattered positions.
/// `dst` may be a strided or conjugated view; it is written through its strides.
template <bool Add, class T, class Ext, class Get>
void scatter_into(const char* op, const basic_tensor<T, Ext>& dst, std::size_t d,
                  const tensor<std::int64_t, Ext::rank>& idx, const shape_t<Ext::rank>& src_strides, Get get) {
  constexpr std::size_t R = Ext::rank;
  const auto& is = idx.shape();
  const index_t total = idx.numel();
  if (total == 0) return;
  check_index_values(op, idx.data(), total, R == 0 ? 1 : dst.shape()[d], d);
  const auto& ds = dst.strides();
  const std::int64_t* ip = idx.data();
  T* dp = dst.data();
  const bool dconj = dst.is_conj();
  if (dst.storage_handle()) ++dst.storage_handle()->version;
  std::array<index_t, R> ix{};
  for (index_t f = 0; f < total; ++f) {
    T v = get(offset_of(ix, src_strides));
    if constexpr (is_complex_v<T>) {
      if (dconj) v = tl::conj(v);
    }
    std::array<index_t, R> dx = ix;
    if constexpr (R > 0) dx[d] = ip[f];
    T& slot = dp[offset_of(dx, ds)];
    if constexpr (Add) slot = add_fn{}(slot, v);
    else slot = v;
    next_index(is, ix);
  }
}

template <bool Add, class T, class Ext, class Src, class I>
void scatter_tensor(const char* op, const basic_tensor<T, Ext>& dst, index_t dim, I&& index, Src&& src) {
  detail::require_host(op, dst);
  detail::require_host(op, index);
  constexpr std::size_t R = Ext::rank;
  using S = std::remove_cvref_t<Src>;
  static_assert(std::remove_cvref_t<I>::rank == R, "tl: scatter needs an index tensor of the same rank as self");
  const std::size_t d = wrap_dim(op, dim, R);
  const auto idx = index_as_int64(std::forward<I>(index));
  if constexpr (expression<S>) {
    static_assert(std::is_same_v<typename S::value_type, T>,
                  "tl: scatter needs src of the same dtype as self (torch raises the same); cast with tl::astype");
    static_assert(S::rank == R, "tl: scatter needs src of the same rank as self");
    const auto s = resolved_tensor(std::forward<Src>(src));
    const shape_t<R> ss = s.shape();
    check_scatter_shapes(op, d, dst.shape(), idx.shape(), &ss);
    const T* sp = s.data();
    scatter_into<Add>(op, dst, d, idx, s.strides(), [sp](index_t off) { return sp[off]; });
  } else {
    static_assert(!is_complex_v<scalar_dtype_t<S>> || is_complex_v<T>,
                  "tl: scatter cannot store a complex value in a real tensor");
    const T v = cast_fn<T>{}(static_cast<scalar_dtype_t<S>>(src));
    check_scatter_shapes<R>(op, d, dst.shape(), idx.shape(), nullptr);
    scatter_into<Add>(op, dst, d, idx, shape_t<R>{}, [v](index_t) { return v; });
  }
}

template <expression E>
auto fresh_copy(E&& t) {
  using D = std::remove_cvref_t<E>;
  if constexpr (is_tensor_v<D>) return tensor<typename D::value_type, D::rank>(t).clone();
  else return tensor<typename D::value_type, D::rank>(t);
}

/// Whether scatter(t, ..., src) must be recorded for autograd.
template <class E, class Src>
bool scatter_records(const E& t, const Src& src) {
  if constexpr (TL_AUTOGRAD && category<typename std::remove_cvref_t<E>::value_type>() >= 2) {
    if constexpr (expression<Src>)
      return must_record(t) || must_record(src);
    else
      return must_record(t);
  } else {
    return false;
  }
}

/// The out-of-place scatter (Add = false) or scatter_add, recorded when autograd needs it.
template <bool Add, class E, class I, class Src>
auto scatter_copy(const char* op, E&& t, index_t dim, I&& index, Src&& src) {
  if constexpr (TL_AUTOGRAD)
    if (scatter_records(t, src)) return record_scatter<Add>(t, dim, index, src);
  auto out = fresh_copy(std::forward<E>(t));
  scatter_tensor<Add>(op, out, dim, std::forward<I>(index), std::forward<Src>(src));
  return out;
}

/// The in-place forms: while autograd records, the scatter is computed out of place (recorded)
/// from a clone of t and written back, so t takes the new history (leaves that require grad and
/// views are rejected, as for every in-place update).
template <bool Add, class T, class Ext, class I, class Src>
void scatter_in_place(const char* op, const basic_tensor<T, Ext>& t, index_t dim, I&& index, Src&& src) {
  if constexpr (TL_AUTOGRAD)
    if (scatter_records(t, src) && is_grad_enabled()) {
      const auto r = record_scatter<Add>(tensor<T, Ext::rank>(t).clone(), dim, index, src);
      if (inplace_autograd<assign_op::set>(t, r)) return;
    }
  scatter_tensor<Add>(op, tensor<T, Ext::rank>(t), dim, std::forward<I>(index), std::forward<Src>(src));
}
}  // namespace detail

/// @brief A copy of `t` with the values of `src` (a tensor of t's dtype and rank, or a scalar)
/// written at the positions `index` gives along `dim` (torch.scatter).
///
/// @code
/// auto r = tl::scatter(zeros_3x3, 0, idx, src);  // r[idx[i][j]][j] = src[i][j]
/// @endcode
template <expression E, expression I, operand Src>
auto scatter(E&& t, index_t dim, I&& index, Src&& src)
    -> tensor<typename std::remove_cvref_t<E>::value_type, std::remove_cvref_t<E>::rank> {
  return detail::scatter_copy<false>("scatter", std::forward<E>(t), dim, std::forward<I>(index),
                                     std::forward<Src>(src));
}

/// @brief In-place scatter into `t` (torch's Tensor.scatter_); `t` may be a view. Returns `t`.
template <class T, class Ext, expression I, operand Src>
const basic_tensor<T, Ext>& scatter_(const basic_tensor<T, Ext>& t, index_t dim, I&& index, Src&& src) {
  detail::scatter_in_place<false>("scatter_", t, dim, std::forward<I>(index), std::forward<Src>(src));
  return t;
}

/// @brief A copy of `t` with the elements of `src` added at the positions `index` gives along
/// `dim`; repeated indices accumulate (torch.scatter_add).
///
/// @code
/// auto h = tl::scatter_add(zeros_5, 0, labels, ones);  // a histogram of labels
/// @endcode
template <expression E, expression I, expression Src>
auto scatter_add(E&& t, index_t dim, I&& index, Src&& src)
    -> tensor<typename std::remove_cvref_t<E>::value_type, std::remove_cvref_t<E>::rank> {
  return detail::scatter_copy<true>("scatter_add", std::forward<E>(t), dim, std::forward<I>(index),
                                    std::forward<Src>(src));
}

/// @brief In-place scatter_add into `t` (torch's Tensor.scatter_add_); `t` may be a view. Returns `t`.
template <class T, class Ext, expression I, expression Src>
const basic_tensor<T, Ext>& scatter_add_(const basic_tensor<T, Ext>& t, index_t dim, I&& index, Src&& src) {
  detail::scatter_in_place<true>("scatter_add_", t, dim, std::forward<I>(index), std::forward<Src>(src));
  return t;
}

}  // namespace tl
