#pragma once
/// @file tensor.hpp
/// @brief tl::basic_tensor<T, Extents> (alias tl::tensor<T, Rank>): an owning, ref-counted strided tensor.
///
/// Copies share storage (like torch); `clone()` deep-copies. Views (slices, transposes, ...) share
/// storage too. Assigning an expression to a tensor evaluates it in one fused pass:
///
/// @code
/// tl::tensor<float, 2> y = tl::sin(x) * w + 1.0f;  // new storage, one pass
/// y = y * 2.0f;                                      // y owns its storage alone: written in place
/// y.slice(0, 1, 3) = 0.0f;                           // assignment to a view writes through it
/// @endcode
///
/// Assignment to a named tensor rebinds it (like torch's `y = expr`) unless it is the only owner of
/// its storage and already has the right shape, in which case the memory is reused. Assignment to
/// a temporary view (`t.slice(...) = e`, `t(tl::all, 0) = e`) writes into the viewed elements, like
/// LibTorch's `operator=` on rvalue tensors (`copy_`).
#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/device.hpp"
#include "tl/core/dtype.hpp"
#include "tl/core/error.hpp"
#include "tl/core/expression.hpp"
#include "tl/core/extents.hpp"
#include "tl/core/slice.hpp"
#include "tl/core/storage.hpp"
#include "tl/autograd/detail/meta_base.hpp"
#include "tl/autograd/grad_mode.hpp"

namespace tl {

template <class T, class Ext>
class basic_tensor;

/// @brief A tensor of element type T and rank R, all extents dynamic.
template <class T, std::size_t R>
using tensor = basic_tensor<T, dextents<R>>;

/// @brief A tensor with (some) static extents: `tl::stensor<float, 3, tl::dyn>`.
template <class T, index_t... E>
using stensor = basic_tensor<T, extents<E...>>;

namespace detail {
/// How an evaluated value is combined with the destination element.
enum class assign_op { set, add, sub, mul, div };

// Autograd hooks, defined by tl/autograd (the tensor only stores a pointer to its metadata).
template <class T, std::size_t R>
struct autograd_meta;
// True when assigning `e` must be recorded (grad mode on and an operand requires grad).
template <class E>
bool must_record(const E& e);
// Records `out = e` as one graph node (out was just evaluated from e).
template <class T, class Ext, class E>
void record_expression(basic_tensor<T, Ext>& out, const E& e);
// Evaluates e into out and records `out = e` (keepdim reductions inside e are computed once).
template <class T, class Ext, class E>
void eval_and_record(basic_tensor<T, Ext>& out, const E& e);
// Records `out`, a view of `src` made by `refn` (applied to a tensor shaped like src), for autograd.
enum class view_kind { injective, expand, conj, identity };
template <view_kind Kind, class T, class Ext, class V, class F>
void record_view(const basic_tensor<T, Ext>& src, V& out, F&& refn, const char* name);
// In-place `dst op= e` when autograd is involved; returns false when it is not (the plain path runs).
template <assign_op Op, class T, class Ext, class E>
bool inplace_autograd(const basic_tensor<T, Ext>& dst, const E& e);

// Defined by tl/expr/node.hpp: the device of an expression's tensor operands (`fallback` when it has none);
// throws tl::device_error when they differ.
template <class E>
tl::device expression_device(const E& e, tl::device fallback = tl::device::cpu);

// Defined by the evaluator (tl/eval/...): evaluates expression `e` into the memory viewed by `dst`.
template <assign_op Op, class T, class Ext, class E>
void eval_into(const basic_tensor<T, Ext>& dst, const E& e);

template <class Ext, std::size_t R>
void check_static_extents(const char* op, const shape_t<R>& s) {
  if constexpr (!Ext::all_dynamic) {
    for (std::size_t i = 0; i < R; ++i)
      if (Ext::static_values[i] != dyn && Ext::static_values[i] != s[i])
        throw shape_error(cat_str("tl::", op, ": shape ", shape_str(s), " does not match the static extent ",
                                  Ext::static_values[i], " of dim ", i));
  }
}

/// Resolves a Python-style slice on an extent; returns (start, length, step).
inline std::array<index_t, 3> resolve_slice(const char* op, const slice_spec& sl, index_t n) {
  if (sl.step == 0) throw value_error(cat_str("tl::", op, ": slice step cannot be zero"));
  index_t start, stop;
  if (sl.step > 0) {
    start = sl.has_start ? (sl.start < 0 ? sl.start + n : sl.start) : 0;
    stop = sl.has_stop ? (sl.stop < 0 ? sl.stop + n : sl.stop) : n;
    start = std::clamp<index_t>(start, 0, n);
    stop = std::clamp<index_t>(stop, 0, n);
    const index_t len = stop > start ? (stop - start + sl.step - 1) / sl.step : 0;
    return {start, len, sl.step};
  }
  start = sl.has_start ? (sl.start < 0 ? sl.start + n : sl.start) : n - 1;
  stop = sl.has_stop ? (sl.stop < 0 ? sl.stop + n : sl.stop) : -1;
  start = std::clamp<index_t>(start, -1, n - 1);
  stop = std::clamp<index_t>(stop, -1, n - 1);
  const index_t len = start > stop ? (start - stop - sl.step - 1) / (-sl.step) : 0;
  return {start, len, sl.step};
}

template <class A>
inline constexpr bool is_index_arg_v = std::is_integral_v<std::remove_cvref_t<A>>;
template <class A>
inline constexpr bool is_slice_arg_v = std::is_same_v<std::remove_cvref_t<A>, slice_spec>;

/// Computes strides for viewing (shape, strides) as `ns` without copying, or returns false.
template <std::size_t R, std::size_t N>
bool view_strides(const shape_t<R>& os, const shape_t<R>& ost, const shape_t<N>& ns, shape_t<N>& out) {
  index_t numel_old = 1;
  for (auto x : os) numel_old *= x;
  if (numel_old == 0 || N == 0 || R == 0) {
    out = contiguous_strides(ns);
    return true;
  }
  // Walk the old dims from the back in chunks that are contiguous among themselves.
  std::ptrdiff_t vi = static_cast<std::ptrdiff_t>(N) - 1;
  index_t chunk = 1;
  index_t view_prod = 1;
  index_t tensor_stride = ost[R - 1];
  for (std::ptrdiff_t ti = static_cast<std::ptrdiff_t>(R) - 1; ti >= 0; --ti) {
    chunk *= os[ti];
    // A chunk ends where the next-outer dim is not laid out right after this chunk.
    if (ti == 0 || (os[ti - 1] != 1 && ost[ti - 1] != tensor_stride * chunk)) {
      while (vi >= 0 && (view_prod < chunk || ns[vi] == 1)) {
        out[vi] = view_prod * tensor_stride;
        view_prod *= ns[vi];
        --vi;
      }
      if (view_prod != chunk) return false;
      if (ti > 0) {
        tensor_stride = ost[ti - 1];
        view_prod = 1;
        chunk = 1;
      }
    }
  }
  return vi < 0;
}
}  // namespace detail

template <class T, class Ext>
class basic_tensor {
  static_assert(is_dtype_v<T>,
                "tl: unsupported element type; use bool, int32_t, int64_t, float, double, tl::complex<float> or "
                "tl::complex<double>");
  static_assert(detail::is_extents<Ext>::value,
                "tl: the second parameter of basic_tensor must be tl::extents<...>; write tl::tensor<T, Rank> for "
                "a tensor with dynamic extents");

 public:
  using value_type = T;
  using extents_type = Ext;
  static constexpr std::size_t rank = Ext::rank;
  using shape_type = shape_t<rank>;

  /// @brief An empty tensor (no storage); fully static extents allocate their (uninitialized) elements.
  basic_tensor() {
    if constexpr (rank > 0) {
      for (std::size_t i = 0; i < rank; ++i) m_shape[i] = Ext::static_values[i] == dyn ? 0 : Ext::static_values[i];
    }
    allocate();
  }
  /// @brief Allocates an uninitialized contiguous tensor of the given shape (torch.empty) on device `d`.
  explicit basic_tensor(const shape_type& shape, tl::device d = tl::device::cpu) : m_shape(shape) {
    for (auto x : shape)
      if (x < 0) throw value_error(detail::cat_str("tl::empty: negative extent in shape ", detail::shape_str(shape)));
    detail::check_static_extents<Ext>("tensor", shape);
    allocate(d);
  }
  /// @brief A view on existing storage (used by view functions; data points into `st`).
  basic_tensor(std::shared_ptr<detail::storage> st, T* data, const shape_type& shape, const shape_type& strides,
               bool conj = false)
      : m_storage(std::move(st)), m_data(data), m_shape(shape), m_stride(strides), m_conj(conj) {
    detail::check_static_extents<Ext>("tensor", shape);
  }
  /// @brief Converts between static and dynamic extents of the same rank (checked at run time).
  template <class Ext2>
    requires(Ext2::rank == rank && !std::is_same_v<Ext2, Ext>)
  basic_tensor(const basic_tensor<T, Ext2>& o)
      : basic_tensor(o.storage_handle(), o.data(), o.shape(), o.strides(), o.is_conj()) {
    m_meta = o.m_meta;
  }
  /// @brief Evaluates an expression into new storage, in one pass.
  template <expression E>
    requires(!is_tensor_v<E>)
  basic_tensor(const E& e) : basic_tensor(e.shape(), detail::expression_device(e)) {
    static_assert(std::remove_cvref_t<E>::rank == rank, "tl: the expression's rank differs from the tensor's rank");
    if constexpr (TL_AUTOGRAD) {
      if (detail::must_record(e)) {
        detail::eval_and_record(*this, e);
        return;
      }
    }
    detail::eval_into<detail::assign_op::set>(*this, e);
  }

  basic_tensor(const basic_tensor&) = default;
  basic_tensor(basic_tensor&&) noexcept = default;
  /// @brief Rebinds this tensor to share `o`'s storage (like torch's Python assignment).
  basic_tensor& operator=(const basic_tensor&) & = default;
  basic_tensor& operator=(basic_tensor&&) & noexcept = default;
  /// @brief Assignment to a temporary view copies `o`'s elements into it (broadcasting `o`).
  const basic_tensor& operator=(const basic_tensor& o) && {
    copy_(o);
    return *this;
  }

  /// @brief Evaluates `e` (an expression or a scalar) in one pass; reuses memory when this tensor owns it alone.
  template <operand E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, basic_tensor>)
  basic_tensor& operator=(const E& e) & {
    if constexpr (expression<E>) {
      static_assert(std::remove_cvref_t<E>::rank == rank,
                    "tl: cannot assign an expression of a different rank to a tensor; use reshape or broadcast_to");
      const bool record = detail::must_record(e);
      if (!record && !m_meta && m_storage && m_storage.use_count() == 1 && !m_conj && e.shape() == m_shape &&
          is_contiguous() && detail::expression_device(e, device()) == device()) {
        detail::eval_into<detail::assign_op::set>(*this, e);
      } else {
        // A fresh tensor: the old one may be saved by autograd, so it is never overwritten here.
        basic_tensor fresh(e.shape(), detail::expression_device(e, device()));
        if constexpr (TL_AUTOGRAD) {
          if (record) detail::eval_and_record(fresh, e);
          else detail::eval_into<detail::assign_op::set>(fresh, e);
        } else {
          detail::eval_into<detail::assign_op::set>(fresh, e);
        }
        *this = std::move(fresh);
      }
    } else {
      fill_(e);
    }
    return *this;
  }
  /// @brief Assignment to a temporary view writes into it (broadcasting `e` to the view's shape).
  template <operand E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, basic_tensor>)
  const basic_tensor& operator=(const E& e) && {
    copy_(e);
    return *this;
  }

  /// @brief In-place update `t += e` (also through views); `e` is broadcast to this tensor's shape.
  template <operand E>
  const basic_tensor& operator+=(const E& e) const { return update<detail::assign_op::add>(e); }
  template <operand E>
  const basic_tensor& operator-=(const E& e) const { return update<detail::assign_op::sub>(e); }
  template <operand E>
  const basic_tensor& operator*=(const E& e) const { return update<detail::assign_op::mul>(e); }
  template <operand E>
  const basic_tensor& operator/=(const E& e) const { return update<detail::assign_op::div>(e); }

  /// @brief Copies (and broadcasts) `e` into this tensor's elements (torch's copy_).
  template <operand E>
  const basic_tensor& copy_(const E& e) const { return update<detail::assign_op::set>(e); }
  /// @brief Sets every element to `v`.
  template <scalar S>
  const basic_tensor& fill_(const S& v) const;

  // ---- shape and layout -------------------------------------------------------------------
  const shape_type& shape() const { return m_shape; }
  const shape_type& strides() const { return m_stride; }
  index_t extent(index_t d) const { return m_shape[detail::wrap_dim("extent", d, rank)]; }
  index_t size(index_t d) const { return extent(d); }
  index_t stride(index_t d) const { return m_stride[detail::wrap_dim("stride", d, rank)]; }
  static constexpr std::size_t dim() { return rank; }
  index_t numel() const { return detail::numel(m_shape); }
  bool empty() const { return numel() == 0; }
  T* data() const { return m_data; }
  const std::shared_ptr<detail::storage>& storage_handle() const { return m_storage; }
  bool defined() const { return m_storage != nullptr; }
  bool is_conj() const { return m_conj; }
  /// @brief The device holding the elements (`tl::device::cpu` for an undefined tensor).
  tl::device device() const { return m_storage ? m_storage->dev : tl::device::cpu; }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  /// @brief True for host memory that is page-locked (fast, asynchronous host-device copies).
  bool is_pinned() const { return m_storage && m_storage->pinned; }

  // ---- memory spaces ----------------------------------------------------------------------
  /// @brief A copy on device `d` (this tensor itself when it is already there). With
  /// `non_blocking`, a copy from pinned host memory or to the host (into pinned memory) is
  /// queued on the current CUDA stream and the call returns at once; synchronize before reading.
  basic_tensor to(tl::device d, bool non_blocking = false) const {
    if (d == device()) return *this;
    const basic_tensor src = contiguous();
    const bool async = non_blocking && (src.is_cuda() || (src.is_pinned() && src.m_storage == m_storage));
    basic_tensor dst(m_shape, d, async && d.is_cpu());
    if (numel() > 0)
      detail::require_device_runtime("to").copy(dst.m_data, d, src.m_data, src.device(),
                                                static_cast<std::size_t>(numel()) * sizeof(T), async);
    return dst;
  }
  /// @brief A copy on the host (torch's .cpu()).
  basic_tensor cpu() const { return to(tl::device::cpu); }
  /// @brief A copy on CUDA device `index` (torch's .cuda()).
  basic_tensor cuda(int index = 0) const { return to(tl::device::cuda(index)); }
  /// @brief A copy in page-locked host memory (a host tensor; this one if already pinned).
  basic_tensor pin_memory() const {
    if (is_cuda())
      throw device_error(detail::cat_str("tl::pin_memory: the tensor is on ", device().str(),
                                         "; only host tensors can be pinned"));
    if (is_pinned()) return *this;
    const basic_tensor src = contiguous();
    basic_tensor dst(m_shape, tl::device::cpu, true);
    if (numel() > 0) std::memcpy(dst.m_data, src.m_data, static_cast<std::size_t>(numel()) * sizeof(T));
    return dst;
  }
  /// @brief True when the elements are laid out row-major without gaps (size-1 dims are ignored).
  bool is_contiguous() const {
    index_t expect = 1;
    for (std::size_t i = rank; i-- > 0;) {
      if (m_shape[i] == 1) continue;
      if (m_shape[i] == 0) return true;
      if (m_stride[i] != expect) return false;
      expect *= m_shape[i];
    }
    return true;
  }

  // ---- element access ---------------------------------------------------------------------
  /// @brief Reference to an element (stored value; for a lazy-conjugate view use get()). Checked
  /// when NDEBUG is not defined or TL_BOUNDS_CHECK is.
  template <class... I>
    requires(sizeof...(I) == rank && (detail::is_index_arg_v<I> && ...))
  T& operator()(I... idx) const {
#if !defined(NDEBUG) || defined(TL_BOUNDS_CHECK)
    return at(idx...);
#else
    check_host("operator()");
    const std::array<index_t, rank> ix{static_cast<index_t>(idx)...};
    index_t off = 0;
    for (std::size_t d = 0; d < rank; ++d) off += ix[d] * m_stride[d];
    return m_data[off];
#endif
  }
  /// @brief Bounds-checked reference to an element; negative indices count from the end.
  template <class... I>
    requires(sizeof...(I) == rank && (detail::is_index_arg_v<I> && ...))
  T& at(I... idx) const {
    check_host("at");
    const std::array<index_t, rank> ix{static_cast<index_t>(idx)...};
    index_t off = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      index_t i = ix[d] < 0 ? ix[d] + m_shape[d] : ix[d];
      if (i < 0 || i >= m_shape[d])
        throw index_error(detail::cat_str("tl::at: index ", ix[d], " is out of range for dim ", d, " of extent ",
                                          m_shape[d], " (shape ", detail::shape_str(m_shape), ")"));
      off += i * m_stride[d];
    }
    return m_data[off];
  }
  /// @brief The value of an element, with a lazy conjugate applied.
  template <class... I>
    requires(sizeof...(I) == rank && (detail::is_index_arg_v<I> && ...))
  T get(I... idx) const {
    T v = at(idx...);
    if constexpr (is_complex_v<T>) {
      if (m_conj) v = tl::conj(v);
    }
    return v;
  }
  /// @brief The single element of a one-element tensor.
  T item() const {
    if (numel() != 1)
      throw value_error(detail::cat_str("tl::item: a tensor with ", numel(), " elements cannot be converted to a scalar (shape ",
                                        detail::shape_str(m_shape), ")"));
    T v;
    if (is_cuda()) detail::require_device_runtime("item").copy(&v, tl::device::cpu, m_data, device(), sizeof(T), false);
    else v = m_data[0];
    if constexpr (is_complex_v<T>) {
      if (m_conj) v = tl::conj(v);
    }
    return v;
  }

  /// @brief Indexing with integers and slices: `t(tl::all, tl::s(1, -1), 0)` is `t[:, 1:-1, 0]` (a view).
  template <class... A>
    requires(sizeof...(A) == rank && ((detail::is_index_arg_v<A> || detail::is_slice_arg_v<A>) && ...) &&
             (detail::is_slice_arg_v<A> || ...))
  auto operator()(const A&... args) const {
    constexpr std::size_t R2 = (std::size_t{0} + ... + (detail::is_slice_arg_v<A> ? 1 : 0));
    shape_t<R2> ns{}, nst{};
    T* p = m_data;
    std::size_t d = 0, o = 0;
    auto one = [&](const auto& a) {
      if constexpr (detail::is_slice_arg_v<decltype(a)>) {
        auto [start, len, step] = detail::resolve_slice("index", a, m_shape[d]);
        if (len > 0) p += start * m_stride[d];
        ns[o] = len;
        nst[o] = m_stride[d] * step;
        ++o;
      } else {
        index_t i = static_cast<index_t>(a);
        index_t w = i < 0 ? i + m_shape[d] : i;
        if (w < 0 || w >= m_shape[d])
          throw index_error(detail::cat_str("tl::index: index ", i, " is out of range for dim ", d, " of extent ",
                                            m_shape[d], " (shape ", detail::shape_str(m_shape), ")"));
        p += w * m_stride[d];
      }
      ++d;
    };
    (one(args), ...);
    return make_view(basic_tensor<T, dextents<R2>>(m_storage, p, ns, nst, m_conj),
                     [=](const auto& x) { return x(args...); }, "IndexBackward");
  }

  // ---- views ------------------------------------------------------------------------------
  /// @brief Elements start:stop:step along `dim` (Python slice semantics, negative values count from the end).
  basic_tensor<T, dextents<rank>> slice(index_t dim, index_t start, index_t stop, index_t step = 1) const {
    return slice(dim, s(start, stop, step));
  }
  basic_tensor<T, dextents<rank>> slice(index_t dim, slice_spec sl) const {
    const std::size_t d = detail::wrap_dim("slice", dim, rank);
    auto [start, len, step] = detail::resolve_slice("slice", sl, m_shape[d]);
    shape_type ns = m_shape, nst = m_stride;
    ns[d] = len;
    nst[d] = m_stride[d] * step;
    return make_view(basic_tensor<T, dextents<rank>>(m_storage, len > 0 ? m_data + start * m_stride[d] : m_data, ns,
                                                     nst, m_conj),
                     [=](const auto& x) { return x.slice(dim, sl); }, "SliceBackward");
  }
  /// @brief `length` elements from `start` along `dim` (torch.narrow); errors when out of range.
  basic_tensor<T, dextents<rank>> narrow(index_t dim, index_t start, index_t length) const {
    const std::size_t d = detail::wrap_dim("narrow", dim, rank);
    const index_t st = start < 0 ? start + m_shape[d] : start;
    if (st < 0 || length < 0 || st + length > m_shape[d])
      throw index_error(detail::cat_str("tl::narrow: start ", start, " and length ", length,
                                        " exceed extent ", m_shape[d], " of dim ", d, " (shape ",
                                        detail::shape_str(m_shape), ")"));
    shape_type ns = m_shape;
    ns[d] = length;
    return make_view(basic_tensor<T, dextents<rank>>(m_storage, m_data + st * m_stride[d], ns, m_stride, m_conj),
                     [=](const auto& x) { return x.narrow(dim, start, length); }, "NarrowBackward");
  }
  /// @brief The slice at `index` along `dim`, removing that dim (torch.select).
  basic_tensor<T, dextents<(rank > 0 ? rank - 1 : 0)>> select(index_t dim, index_t index) const
    requires(rank >= 1)
  {
    const std::size_t d = detail::wrap_dim("select", dim, rank);
    const index_t i = index < 0 ? index + m_shape[d] : index;
    if (i < 0 || i >= m_shape[d])
      throw index_error(detail::cat_str("tl::select: index ", index, " is out of range for dim ", d, " of extent ",
                                        m_shape[d], " (shape ", detail::shape_str(m_shape), ")"));
    shape_t<(rank > 0 ? rank - 1 : 0)> ns{}, nst{};
    for (std::size_t k = 0, o = 0; k < rank; ++k)
      if (k != d) {
        ns[o] = m_shape[k];
        nst[o++] = m_stride[k];
      }
    return make_view(basic_tensor<T, dextents<(rank > 0 ? rank - 1 : 0)>>(m_storage, m_data + i * m_stride[d], ns,
                                                                          nst, m_conj),
                     [=](const auto& x) { return x.select(dim, index); }, "SelectBackward");
  }
  /// @brief Swaps two dims (a view).
  basic_tensor<T, dextents<rank>> transpose(index_t d0, index_t d1) const {
    const std::size_t a = detail::wrap_dim("transpose", d0, rank), b = detail::wrap_dim("transpose", d1, rank);
    shape_type ns = m_shape, nst = m_stride;
    std::swap(ns[a], ns[b]);
    std::swap(nst[a], nst[b]);
    return make_view(basic_tensor<T, dextents<rank>>(m_storage, m_data, ns, nst, m_conj),
                     [=](const auto& x) { return x.transpose(d0, d1); }, "TransposeBackward");
  }
  /// @brief Reorders dims: result dim i is this tensor's dim perm[i] (a view).
  basic_tensor<T, dextents<rank>> permute(const std::array<index_t, rank>& perm) const {
    shape_type ns{}, nst{};
    std::array<bool, rank> seen{};
    for (std::size_t i = 0; i < rank; ++i) {
      const std::size_t p = detail::wrap_dim("permute", perm[i], rank);
      if (seen[p])
        throw value_error(detail::cat_str("tl::permute: dim ", p, " appears twice in the permutation ",
                                          detail::shape_str(perm)));
      seen[p] = true;
      ns[i] = m_shape[p];
      nst[i] = m_stride[p];
    }
    return make_view(basic_tensor<T, dextents<rank>>(m_storage, m_data, ns, nst, m_conj),
                     [=](const auto& x) { return x.permute(perm); }, "PermuteBackward");
  }
  template <class... I>
    requires(sizeof...(I) == rank && (detail::is_index_arg_v<I> && ...))
  basic_tensor<T, dextents<rank>> permute(I... p) const {
    return permute(std::array<index_t, rank>{static_cast<index_t>(p)...});
  }
  /// @brief Transpose of a matrix (rank <= 2, like torch.t).
  basic_tensor<T, dextents<rank>> t() const {
    static_assert(rank <= 2, "tl: t() expects a tensor of rank <= 2; use mT() or transpose(d0, d1) for batches");
    if constexpr (rank < 2) return *this;
    else return transpose(0, 1);
  }
  /// @brief Transpose of the last two dims (torch's .mT).
  basic_tensor<T, dextents<rank>> mT() const {
    static_assert(rank >= 2, "tl: mT() expects a tensor of rank >= 2");
    return transpose(-2, -1);
  }
  /// @brief Conjugate transpose of the last two dims (torch's .mH), lazy.
  basic_tensor<T, dextents<rank>> mH() const { return mT().conj(); }

  /// @brief Reverses the order of elements along the given dims (a view with negative strides).
  basic_tensor<T, dextents<rank>> flip(std::initializer_list<index_t> dims) const {
    std::array<index_t, rank> dl{};
    std::size_t nd = 0;
    for (index_t dd : dims) {
      if (nd == rank) throw value_error(detail::cat_str("tl::flip: more dims than the rank ", rank));
      dl[nd++] = dd;
    }
    return flip_dims(dl, nd);
  }
  basic_tensor<T, dextents<rank>> flip(index_t dim) const { return flip({dim}); }
  /// @brief Reverses the order of elements along the first `n` dims of `dims`.
  basic_tensor<T, dextents<rank>> flip_dims(const std::array<index_t, rank>& dl, std::size_t n) const {
    shape_type nst = m_stride;
    T* p = m_data;
    std::array<bool, rank> seen{};
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t d = detail::wrap_dim("flip", dl[k], rank);
      if (seen[d]) throw value_error(detail::cat_str("tl::flip: dim ", d, " appears more than once"));
      seen[d] = true;
      if (m_shape[d] > 0) p += (m_shape[d] - 1) * m_stride[d];
      nst[d] = -m_stride[d];
    }
    return make_view(basic_tensor<T, dextents<rank>>(m_storage, p, m_shape, nst, m_conj),
                     [=](const auto& x) { return x.flip_dims(dl, n); }, "FlipBackward");
  }

  /// @brief Inserts a dim of extent 1 at `dim` (in [-rank-1, rank]).
  basic_tensor<T, dextents<rank + 1>> unsqueeze(index_t dim) const {
    const std::size_t d = detail::wrap_dim("unsqueeze", dim, rank + 1);
    shape_t<rank + 1> ns{}, nst{};
    for (std::size_t k = 0, o = 0; k <= rank; ++k) {
      if (k == d) {
        ns[k] = 1;
        nst[k] = (d < rank) ? m_stride[d] * m_shape[d] : 1;
      } else {
        ns[k] = m_shape[o];
        nst[k] = m_stride[o++];
      }
    }
    return make_view(basic_tensor<T, dextents<rank + 1>>(m_storage, m_data, ns, nst, m_conj),
                     [=](const auto& x) { return x.unsqueeze(dim); }, "UnsqueezeBackward");
  }
  /// @brief Removes dim `dim`, which must have extent 1 (the rank is static, so unlike torch a
  /// non-1 extent is an error rather than a no-op).
  basic_tensor<T, dextents<(rank > 0 ? rank - 1 : 0)>> squeeze(index_t dim) const
    requires(rank >= 1)
  {
    const std::size_t d = detail::wrap_dim("squeeze", dim, rank);
    if (m_shape[d] != 1)
      throw shape_error(detail::cat_str("tl::squeeze: dim ", d, " has extent ", m_shape[d], ", not 1 (shape ",
                                        detail::shape_str(m_shape), ")"));
    return select(static_cast<index_t>(d), 0);
  }

  /// @brief Broadcasts to a larger shape without copying (torch.expand; -1 keeps an extent).
  template <std::size_t R2>
  basic_tensor<T, dextents<R2>> expand(const shape_t<R2>& shape) const {
    static_assert(R2 >= rank, "tl: expand() cannot reduce the rank");
    shape_t<R2> ns{}, nst{};
    for (std::size_t k = 0; k < R2; ++k) {
      const std::ptrdiff_t src = static_cast<std::ptrdiff_t>(k) - static_cast<std::ptrdiff_t>(R2 - rank);
      index_t want = shape[k];
      if (src < 0) {
        if (want < 0)
          throw shape_error(detail::cat_str("tl::expand: -1 is not allowed for the new leading dim ", k,
                                            " (target ", detail::shape_str(shape), ")"));
        ns[k] = want;
        nst[k] = 0;
        continue;
      }
      const index_t have = m_shape[src];
      if (want == -1) want = have;
      if (have == want) {
        ns[k] = have;
        nst[k] = m_stride[src];
      } else if (have == 1) {
        ns[k] = want;
        nst[k] = 0;
      } else {
        throw shape_error(detail::cat_str("tl::expand: cannot expand shape ", detail::shape_str(m_shape), " to ",
                                          detail::shape_str(shape), " (dim ", k, ": extent ", have,
                                          " is neither 1 nor ", want, ")"));
      }
    }
    return make_view<detail::view_kind::expand>(basic_tensor<T, dextents<R2>>(m_storage, m_data, ns, nst, m_conj),
                     [](const auto& x) { return x; }, "ExpandBackward");
  }
  template <class... I>
    requires((detail::is_index_arg_v<I> && ...))
  basic_tensor<T, dextents<sizeof...(I)>> expand(I... s) const {
    return expand(shape_t<sizeof...(I)>{static_cast<index_t>(s)...});
  }
  template <std::size_t R2>
  basic_tensor<T, dextents<R2>> broadcast_to(const shape_t<R2>& shape) const {
    return expand(shape);
  }

  /// @brief The diagonal of dims (d1, d2) with an offset, moved to the last dim (torch.diagonal).
  basic_tensor<T, dextents<(rank > 0 ? rank - 1 : 0)>> diagonal(index_t offset = 0, index_t dim1 = 0, index_t dim2 = 1) const
    requires(rank >= 2)
  {
    const std::size_t a = detail::wrap_dim("diagonal", dim1, rank), b = detail::wrap_dim("diagonal", dim2, rank);
    if (a == b) throw value_error(detail::cat_str("tl::diagonal: dim1 and dim2 are both ", a));
    T* p = m_data;
    index_t len;
    if (offset >= 0) {
      len = std::max<index_t>(0, std::min(m_shape[a], m_shape[b] - offset));
      if (len > 0) p += offset * m_stride[b];
    } else {
      len = std::max<index_t>(0, std::min(m_shape[a] + offset, m_shape[b]));
      if (len > 0) p -= offset * m_stride[a];
    }
    shape_t<(rank > 0 ? rank - 1 : 0)> ns{}, nst{};
    std::size_t o = 0;
    for (std::size_t k = 0; k < rank; ++k)
      if (k != a && k != b) {
        ns[o] = m_shape[k];
        nst[o++] = m_stride[k];
      }
    ns[o] = len;
    nst[o] = m_stride[a] + m_stride[b];
    return make_view(basic_tensor<T, dextents<(rank > 0 ? rank - 1 : 0)>>(m_storage, p, ns, nst, m_conj),
                     [=](const auto& x) { return x.diagonal(offset, dim1, dim2); }, "DiagonalBackward");
  }

  /// @brief Real part as a view (a complex tensor's real parts; a real tensor itself).
  auto real() const {
    if constexpr (is_complex_v<T>) {
      using R = real_t<T>;
      shape_type nst;
      for (std::size_t i = 0; i < rank; ++i) nst[i] = 2 * m_stride[i];
      return make_view(basic_tensor<R, dextents<rank>>(m_storage, reinterpret_cast<R*>(m_data), m_shape, nst),
                       [](const auto& x) { return x.real(); }, "RealBackward");
    } else {
      return basic_tensor<T, dextents<rank>>(*this);
    }
  }
  /// @brief Imaginary part as a view of a complex tensor (a lazy conjugate is resolved first).
  auto imag() const {
    static_assert(is_complex_v<T>, "tl: imag() is only defined for complex tensors (torch raises the same)");
    using R = real_t<T>;
    const basic_tensor src = m_conj ? resolve_conj() : *this;
    shape_type nst;
    for (std::size_t i = 0; i < rank; ++i) nst[i] = 2 * src.m_stride[i];
    return make_view(basic_tensor<R, dextents<rank>>(src.m_storage, reinterpret_cast<R*>(src.m_data) + 1, m_shape, nst),
                     [](const auto& x) { return x.imag(); }, "ImagBackward");
  }
  /// @brief Lazy complex conjugate in O(1): flips the conjugate bit; consumers fuse the conjugation.
  basic_tensor conj() const {
    if constexpr (is_complex_v<T>) {
      basic_tensor r(m_storage, m_data, m_shape, m_stride, !m_conj);
      return make_view<detail::view_kind::conj>(r, [](const auto& x) { return x; }, "ConjBackward");
    } else {
      return *this;
    }
  }
  /// @brief Materializes a lazy conjugate (returns this tensor if it has none).
  basic_tensor resolve_conj() const;

  /// @brief Reshapes to `shape` (one extent may be -1): a view when the strides allow it, else a copy.
  template <std::size_t R2>
  basic_tensor<T, dextents<R2>> reshape(const shape_t<R2>& shape) const {
    const shape_t<R2> ns = infer_shape("reshape", shape);
    shape_t<R2> nst{};
    auto refn = [=](const auto& x) { return x.reshape(shape); };
    if (!m_conj && detail::view_strides(m_shape, m_stride, ns, nst))
      return make_view(basic_tensor<T, dextents<R2>>(m_storage, m_data, ns, nst), refn, "ReshapeBackward");
    basic_tensor c = contiguous_copy();
    return make_view(basic_tensor<T, dextents<R2>>(c.m_storage, c.m_data, ns, detail::contiguous_strides(ns)), refn,
                     "ReshapeBackward");
  }
  template <class... I>
    requires((detail::is_index_arg_v<I> && ...))
  basic_tensor<T, dextents<sizeof...(I)>> reshape(I... s) const {
    return reshape(shape_t<sizeof...(I)>{static_cast<index_t>(s)...});
  }
  /// @brief Like reshape, but never copies: errors when the strides do not allow a view (torch.view).
  template <std::size_t R2>
  basic_tensor<T, dextents<R2>> view(const shape_t<R2>& shape) const {
    const shape_t<R2> ns = infer_shape("view", shape);
    shape_t<R2> nst{};
    if (!detail::view_strides(m_shape, m_stride, ns, nst))
      throw shape_error(detail::cat_str("tl::view: a tensor of shape ", detail::shape_str(m_shape), " and strides ",
                                        detail::shape_str(m_stride), " cannot be viewed as ", detail::shape_str(ns),
                                        " without a copy; use reshape() or contiguous()"));
    return make_view(basic_tensor<T, dextents<R2>>(m_storage, m_data, ns, nst, m_conj),
                     [=](const auto& x) { return x.view(shape); }, "ViewBackward");
  }
  template <class... I>
    requires((detail::is_index_arg_v<I> && ...))
  basic_tensor<T, dextents<sizeof...(I)>> view(I... s) const {
    return view(shape_t<sizeof...(I)>{static_cast<index_t>(s)...});
  }
  /// @brief Flattens all dims into one (view when possible).
  basic_tensor<T, dextents<1>> flatten() const { return reshape(shape_t<1>{numel()}); }
  /// @brief Flattens dims Start..End (inclusive, compile-time) into one.
  template <std::size_t Start, std::size_t End>
  basic_tensor<T, dextents<rank - (End - Start)>> flatten() const {
    static_assert(Start <= End && End < rank, "tl: flatten<Start, End>() needs Start <= End < rank");
    shape_t<rank - (End - Start)> ns{};
    std::size_t o = 0;
    for (std::size_t k = 0; k < rank; ++k) {
      if (k > Start && k <= End) {
        ns[o - 1] *= m_shape[k];
      } else {
        ns[o++] = m_shape[k];
      }
    }
    return reshape(ns);
  }
  /// @brief Splits dim `dim` into `sizes` (one may be -1) (torch.unflatten).
  template <std::size_t N>
  basic_tensor<T, dextents<rank - 1 + N>> unflatten(index_t dim, const shape_t<N>& sizes) const {
    const std::size_t d = detail::wrap_dim("unflatten", dim, rank);
    shape_t<rank - 1 + N> ns{};
    std::size_t o = 0;
    for (std::size_t k = 0; k < rank; ++k) {
      if (k == d) {
        index_t known = 1, neg = -1;
        for (std::size_t j = 0; j < N; ++j) {
          if (sizes[j] == -1) neg = static_cast<index_t>(j);
          else known *= sizes[j];
        }
        for (std::size_t j = 0; j < N; ++j)
          ns[o++] = (static_cast<index_t>(j) == neg) ? (known ? m_shape[k] / known : 0) : sizes[j];
        index_t prod = 1;
        for (std::size_t j = 0; j < N; ++j) prod *= ns[o - N + j];
        if (prod != m_shape[k])
          throw shape_error(detail::cat_str("tl::unflatten: sizes ", detail::shape_str(sizes),
                                            " do not multiply to extent ", m_shape[k], " of dim ", d));
      } else {
        ns[o++] = m_shape[k];
      }
    }
    return reshape(ns);
  }

  /// @brief This tensor if contiguous, else a contiguous copy.
  basic_tensor contiguous() const {
    if (is_contiguous() && !m_conj) return *this;
    return make_view<detail::view_kind::identity>(contiguous_copy(), [](const auto& x) { return x; }, "ContiguousBackward");
  }
  /// @brief A deep copy with its own contiguous storage.
  basic_tensor clone() const {
    return make_view<detail::view_kind::identity>(contiguous_copy(), [](const auto& x) { return x; }, "CloneBackward");
  }

  // ---- autograd (defined in tl/autograd) -------------------------------------------------------
  /// @brief Whether gradients flow to this tensor: a leaf marked with requires_grad_(), or the result
  /// of a recorded operation on such tensors.
  bool requires_grad() const { return m_meta && (m_meta->requires_grad || m_meta->grad_fn); }
  /// @brief Marks (or unmarks) this leaf tensor as needing a gradient (torch's requires_grad_).
  /// Only floating and complex tensors can require gradients.
  const basic_tensor& requires_grad_(bool on = true) const;
  /// @brief The accumulated gradient (an undefined tensor before the first backward; see defined()).
  tensor<T, rank> grad() const;
  /// @brief Replaces the accumulated gradient (an undefined tensor clears it).
  void set_grad(const tensor<T, rank>& g) const;
  /// @brief Clears the accumulated gradient (set_to_none, torch's default since 2.0) or sets it to zeros.
  void zero_grad(bool set_to_none = true) const;
  /// @brief Backpropagates from this one-element tensor (torch's backward()).
  void backward(bool retain_graph = false, bool create_graph = false) const;
  /// @brief Backpropagates `gradient` (shaped like this tensor) from this tensor.
  void backward(const tensor<T, rank>& gradient, bool retain_graph = false, bool create_graph = false) const;
  /// @brief The same elements, cut from the graph (shares storage; requires_grad() is false).
  basic_tensor detach() const;
  /// @brief True unless this tensor is the result of a recorded operation.
  bool is_leaf() const { return !m_meta || !m_meta->grad_fn; }
  /// @brief The name of the node that made this tensor ("MulBackward"-style; "" for a leaf).
  std::string grad_fn_name() const;
  /// @brief Keeps the gradient of this non-leaf tensor in grad() during backward.
  void retain_grad() const;
  /// @brief Registers `f(grad)` to run when the gradient of this tensor is computed; it may
  /// return a replacement gradient (a tensor) or nothing.
  template <class F>
  void register_hook(F&& f) const;
  /// @brief True for tensors created in inference mode.
  bool is_inference() const { return m_storage && m_storage->inference; }
  /// @brief The autograd metadata (internal).
  std::shared_ptr<detail::autograd_meta<T, rank>> autograd_meta_handle() const {
    return std::static_pointer_cast<detail::autograd_meta<T, rank>>(m_meta);
  }
  void set_autograd_meta(std::shared_ptr<detail::autograd_meta<T, rank>> m) const { m_meta = std::move(m); }

 private:
  template <detail::view_kind Kind = detail::view_kind::injective, class V, class F>
  V make_view(V v, F&& refn, const char* name) const {
    if constexpr (TL_AUTOGRAD) {
      if (m_meta) detail::record_view<Kind>(*this, v, std::forward<F>(refn), name);
    }
    return v;
  }
  template <std::size_t R2>
  shape_t<R2> infer_shape(const char* op, shape_t<R2> s) const {
    index_t known = 1;
    int neg = -1;
    for (std::size_t i = 0; i < R2; ++i) {
      if (s[i] == -1) {
        if (neg >= 0) throw value_error(detail::cat_str("tl::", op, ": only one extent can be -1 in ", detail::shape_str(s)));
        neg = static_cast<int>(i);
      } else if (s[i] < 0) {
        throw value_error(detail::cat_str("tl::", op, ": invalid extent ", s[i], " in ", detail::shape_str(s)));
      } else {
        known *= s[i];
      }
    }
    if (neg >= 0) {
      if (known == 0 || numel() % known != 0)
        throw shape_error(detail::cat_str("tl::", op, ": cannot infer -1 in ", detail::shape_str(s), " for ", numel(),
                                          " elements (shape ", detail::shape_str(m_shape), ")"));
      s[neg] = numel() / known;
    } else if (known != numel()) {
      throw shape_error(detail::cat_str("tl::", op, ": shape ", detail::shape_str(s), " has ", known,
                                        " elements but the tensor of shape ", detail::shape_str(m_shape), " has ",
                                        numel()));
    }
    return s;
  }
  basic_tensor(const shape_type& shape, tl::device d, bool pinned) : m_shape(shape) { allocate(d, pinned); }
  template <class, class>
  friend class basic_tensor;
  void check_host(const char* op) const {
    if (is_cuda())
      throw device_error(detail::cat_str("tl::", op, ": cannot access an element of a tensor on ", device().str(),
                                         " from the host; use .item() or .cpu() first"));
  }
  void allocate(tl::device d = tl::device::cpu, bool pinned = false) {
    m_storage = detail::make_storage(static_cast<std::size_t>(numel()) * sizeof(T), d, pinned);
    m_storage->inference = detail::grad_state_ref().inference;
    m_data = static_cast<T*>(m_storage->ptr);
    m_stride = detail::contiguous_strides(m_shape);
  }
  basic_tensor contiguous_copy() const;
  template <detail::assign_op Op, class E>
  const basic_tensor& update(const E& e) const;

  std::shared_ptr<detail::storage> m_storage;
  T* m_data = nullptr;
  shape_type m_shape{};
  shape_type m_stride{};
  bool m_conj = false;
  // Autograd metadata: created lazily (requires_grad_, recorded results), hence mutable.
  // (type-erased here; the full autograd_meta<T, rank> is defined by tl/autograd).
  mutable std::shared_ptr<detail::autograd_meta_base> m_meta;
};

}  // namespace tl
