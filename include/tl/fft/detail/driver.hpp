#pragma once
/// @file driver.hpp
/// @brief Internal header: argument resolution (n / s, dim, norm) with torch's rules and the
/// n-dimensional drivers that chain one pass per transformed axis.
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/dtype.hpp"
#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/expr/elementwise.hpp"
#include "tl/fft/detail/device.hpp"
#include "tl/fft/detail/dim_list.hpp"
#include "tl/fft/detail/passes.hpp"
#include "tl/ops/matmul.hpp"

namespace tl::fft::detail {

using tl::detail::cat_str;

/// Normalization modes of torch.fft.
enum class norm_mode { backward, ortho, forward };

inline norm_mode parse_norm(const char* op, std::string_view norm) {
  if (norm == "backward") return norm_mode::backward;
  if (norm == "ortho") return norm_mode::ortho;
  if (norm == "forward") return norm_mode::forward;
  throw value_error(
      cat_str("tl::fft::", op, ": invalid norm \"", norm, "\" (expected \"backward\", \"ortho\" or \"forward\")"));
}
/// The mode of the dual transform (hfft is irfft of the conjugate with the dual normalization).
inline norm_mode dual(norm_mode m) {
  return m == norm_mode::backward ? norm_mode::forward : (m == norm_mode::forward ? norm_mode::backward : m);
}
/// The factor one pass of length n applies: forward transforms scale by 1, 1/sqrt(n) or 1/n for
/// "backward", "ortho", "forward"; inverse transforms by 1/n, 1/sqrt(n), 1.
template <class T>
T pass_scale(norm_mode m, index_t n, bool inverse) {
  const long double ln = static_cast<long double>(n);
  if (m == norm_mode::ortho) return static_cast<T>(1.0L / std::sqrt(ln));
  if ((m == norm_mode::backward) == inverse) return static_cast<T>(1.0L / ln);
  return T(1);
}

/// The real type an FFT of dtype V computes in: float for bool and integers, else V's real type.
template <class V>
using fft_real_t = real_t<to_floating_t<V>>;

/// A dim normalized into [0, rank); out of range throws tl::index_error naming "tl::fft::<op>"
/// (the message is only built on that path).
inline std::size_t wrap(const char* op, index_t d, std::size_t rank) {
  const index_t r = static_cast<index_t>(rank);
  if (d >= -r && d < r) return static_cast<std::size_t>(d < 0 ? d + r : d);
  return tl::detail::wrap_dim(cat_str("fft::", op).c_str(), d, rank);
}
/// Throws tl::device_error naming "tl::fft::<op>" for operands on a CUDA device.
template <class E>
void check_host(const char* op, const E& x) {
  if (tl::detail::expression_device(x).is_cuda()) tl::detail::require_host(cat_str("fft::", op).c_str(), x);
}

/// Which dims a transform uses when `dim` is not given: all of them, or the last k.
struct default_dims {
  std::size_t last;  // 0: all dims (fftn); k: the last k dims (fft: 1, fft2: 2)
};

/// The transformed dims and their lengths (-1 where the caller takes the default).
struct axes_spec {
  dim_list<std::size_t> dims;
  dim_list<index_t> sizes;
};

template <std::size_t R>
axes_spec resolve_axes(const char* op, const shape_t<R>&, index_span s, index_span dim, default_dims def) {
  axes_spec a;
  dim_list<index_t> d(dim.begin(), dim.end());
  if (d.empty()) {
    std::size_t k = !s.empty() ? s.size() : (def.last == 0 ? R : def.last);
    if (k > R)
      throw index_error(cat_str("tl::fft::", op, ": ", k, " transformed dims requested (s has ", s.size(),
                                " entries) but the input has rank ", R));
    for (std::size_t i = R - k; i < R; ++i) d.push_back(static_cast<index_t>(i));
  }
  if (!s.empty() && s.size() != d.size())
    throw value_error(cat_str("tl::fft::", op, ": s has ", s.size(), " entries but dim has ", d.size()));
  for (std::size_t i = 0; i < d.size(); ++i) {
    const std::size_t w = wrap(op, d[i], R);
    for (std::size_t j = 0; j < a.dims.size(); ++j)
      if (a.dims[j] == w)
        throw value_error(cat_str("tl::fft::", op, ": dim ", d[i], " is repeated (dim ",
                                  tl::detail::shape_str(d.data(), d.size()), ")"));
    a.dims.push_back(w);
    const index_t n = s.empty() ? -1 : s[i];
    if (n == 0 || n < -1)
      throw value_error(cat_str("tl::fft::", op, ": invalid number of data points (", n, ") specified for dim ", d[i]));
    a.sizes.push_back(n);
  }
  return a;
}

/// Fills default lengths from the input's extents; an empty transformed dim is an error.
template <std::size_t R>
void default_sizes(const char* op, const shape_t<R>& shape, axes_spec& a, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    if (a.sizes[i] == -1) {
      a.sizes[i] = shape[a.dims[i]];
      if (a.sizes[i] == 0)
        throw value_error(cat_str("tl::fft::", op, ": invalid number of data points (0) specified: dim ", a.dims[i],
                                  " of the input ", tl::detail::shape_str(shape), " is empty"));
    }
}

/// The geometry of one pass along axis d: the output shape (extent `nout` along d), the input
/// length, and the extents before and after d.
template <std::size_t R>
struct axis_pass {
  shape_t<R> out;
  index_t nin, outer, inner;
};
template <std::size_t R>
axis_pass<R> along(const shape_t<R>& in, std::size_t d, index_t nout) {
  axis_pass<R> p{in, in[d], 0, 0};
  p.out[d] = nout;
  std::tie(p.outer, p.inner) = outer_inner(p.out, d);
  return p;
}

/// Checks the device, resolves n / s and dim, and fills the default lengths of the first
/// `ndefault` transformed dims (all but the last for c2r, whose default differs).
template <class E>
axes_spec prepare(const char* op, const E& x, index_span s, index_span dim, default_dims def, bool all_defaults) {
  static_assert(E::rank >= 1, "tl::fft: the input must have at least one dimension (torch raises the same)");
  axes_spec a = resolve_axes(op, x.shape(), s, dim, def);
  default_sizes(op, x.shape(), a, all_defaults ? a.dims.size() : a.dims.size() - 1);
  return a;
}

/// The factor of each pass (see pass_scale), for the device path.
template <class T>
std::vector<T> scales_of(const axes_spec& a, norm_mode nm, bool inverse) {
  std::vector<T> v;
  for (index_t n : a.sizes) v.push_back(pass_scale<T>(nm, n, inverse));
  return v;
}

/// Runs complex-to-complex passes over dims[first..last) of `cur` (contiguous), reallocating only
/// when a length changes or `cur` is not ours to overwrite. `inverse` picks the direction,
/// `inverse_scale` the normalization (they differ for hfftn, see c2r_nd).
template <class Tn>
void c2c_axes(Tn& cur, bool& owned, const axes_spec& a, std::size_t first, std::size_t last, bool inverse, norm_mode nm,
              bool inverse_scale) {
  using T = real_t<typename Tn::value_type>;
  constexpr std::size_t R = Tn::rank;
  for (std::size_t q = first; q < last; ++q) {
    const std::size_t d = a.dims[q];
    const index_t n = a.sizes[q];
    const axis_pass<R> g = along(cur.shape(), d, n);
    tensor<complex<T>, R> dst = (owned && g.nin == n) ? cur : tensor<complex<T>, R>(g.out);
    c2c_pass<T>(cur.data(), dst.data(), g.outer, g.nin, n, g.inner, inverse, pass_scale<T>(nm, n, inverse_scale));
    cur = dst;
    owned = true;
  }
}

/// The result types: complex (c2c, r2c) and real (c2r) of the compute precision of E.
template <class E>
using complex_result_t =
    tensor<complex<fft_real_t<typename std::remove_cvref_t<E>::value_type>>, std::remove_cvref_t<E>::rank>;
template <class E>
using real_result_t = tensor<fft_real_t<typename std::remove_cvref_t<E>::value_type>, std::remove_cvref_t<E>::rank>;

// Autograd: record the transform as one graph node (defined in tl/fft/detail/autograd.hpp).
template <class E>
complex_result_t<E> record_c2c(const char* op, const E& x, index_span s, index_span dim, norm_mode nm, bool inverse,
                               default_dims def);
template <class E>
complex_result_t<E> record_r2c(const char* op, const E& x, index_span s, index_span dim, norm_mode nm, default_dims def,
                               bool conj_out);
template <class E>
real_result_t<E> record_c2r(const char* op, const E& x, index_span s, index_span dim, norm_mode nm, default_dims def,
                            bool conj_in);

/// The pass of a transform over one dim of a contiguous host tensor x with n (s) given or not,
/// and the transform's length n; nullopt where anything is unusual (errors included: the general
/// path reports them).
template <std::size_t R>
struct direct_axis : axis_pass<R> {
  index_t n;
};
template <class X>
std::optional<direct_axis<X::rank>> direct_pass(const X& x, index_span s, index_span dim) {
  constexpr index_t r = static_cast<index_t>(X::rank);
  if (dim.size() != 1 || s.size() > 1 || x.is_cuda() || x.is_conj() || !x.is_contiguous()) return std::nullopt;
  if (dim[0] < -r || dim[0] >= r) return std::nullopt;
  const std::size_t d = static_cast<std::size_t>(dim[0] < 0 ? dim[0] + r : dim[0]);
  const index_t n = (s.empty() || s[0] == -1) ? x.shape()[d] : s[0];
  if (n < 1) return std::nullopt;
  return direct_axis<X::rank>{along(x.shape(), d, n), n};
}

/// fftn / ifftn on any expression.
template <class E>
complex_result_t<E> c2c_nd(const char* op, E&& x, index_span s, index_span dim, norm_mode nm, bool inverse,
                           default_dims def) {
  using D = std::remove_cvref_t<E>;
  constexpr std::size_t R = D::rank;
  using T = fft_real_t<typename D::value_type>;
  if constexpr (TL_AUTOGRAD && tl::detail::category<typename D::value_type>() >= 2)
    if (tl::detail::must_record(x)) return record_c2c(op, x, s, dim, nm, inverse, def);
  if constexpr (is_tensor_v<D> && std::is_same_v<typename D::value_type, complex<T>>) {
    // One dim of a contiguous host tensor (fft / ifft's usual call): straight to the pass, no
    // argument lists and no handle copies.
    if (const auto g = direct_pass(x, s, dim)) {
      tensor<complex<T>, R> out(g->out);
      c2c_pass<T>(x.data(), out.data(), g->outer, g->nin, g->n, g->inner, inverse, pass_scale<T>(nm, g->n, inverse));
      return out;
    }
  }
  const axes_spec a = prepare(op, x, s, dim, def, true);
  tensor<complex<T>, R> cur = tl::detail::contiguous_as<complex<T>>(std::forward<E>(x));
  if (cur.is_cuda())
    return device_c2c<T, R>(op, cur, a.dims, a.sizes, 0, a.dims.size(), inverse, scales_of<T>(a, nm, inverse), false);
  bool owned = false;
  c2c_axes(cur, owned, a, 0, a.dims.size(), inverse, nm, inverse);
  return cur;
}

/// fft / ifft into `out` (torch.fft.fft's out=, LibTorch's fft_fft_out). A contiguous host `out`
/// of the result's shape that does not overlap x (or is x itself, with n unchanged) is written
/// directly; otherwise the result is computed and copied into out. An empty or undefined out
/// takes a new tensor of the result's shape; any other shape is an error.
template <class O, class E>
O& c2c_out(const char* op, O& out, E&& x, index_span s, index_t dim, norm_mode nm, bool inverse) {
  using D = std::remove_cvref_t<E>;
  using Res = complex_result_t<E>;
  using T = fft_real_t<typename D::value_type>;
  constexpr std::size_t R = D::rank;
  static_assert(is_tensor_v<O>, "tl::fft: out must be a tensor");
  static_assert(std::is_same_v<typename O::value_type, complex<T>>,
                "tl::fft: out must have the result's dtype: complex<float> for float, complex<float> and integer "
                "input, complex<double> for double and complex<double> input");
  static_assert(O::rank == R, "tl::fft: out must have the input's rank");
  if constexpr (TL_AUTOGRAD) {
    if (tl::detail::must_record(x) || out.requires_grad())
      throw autograd_error(cat_str("tl::fft::", op, "_out: out= variants do not support automatic differentiation, "
                                   "but an argument requires grad (torch raises the same); call tl::fft::", op,
                                   " instead"));
  }
  if constexpr (is_tensor_v<D> && std::is_same_v<typename D::value_type, complex<T>>) {
    if (const auto g = direct_pass(x, s, index_span(&dim, 1));
        g && out.defined() && out.shape() == g->out && out.is_contiguous() && !out.is_cuda() && !out.is_conj()) {
      const complex<T>*xb = x.data(), *xe = xb + x.numel();
      complex<T>*ob = out.data(), *oe = ob + out.numel();
      const bool apart = std::less_equal<>{}(xe, ob) || std::less_equal<>{}(oe, xb);
      if (apart || (xb == ob && g->nin == g->n)) {
        c2c_pass<T>(xb, ob, g->outer, g->nin, g->n, g->inner, inverse, pass_scale<T>(nm, g->n, inverse));
        return out;
      }
    }
  }
  const Res r = c2c_nd(op, std::forward<E>(x), s, index_span(&dim, 1), nm, inverse, default_dims{0});
  if (!out.defined() || (out.numel() == 0 && out.shape() != r.shape())) {
    out = r;
  } else if (out.shape() != r.shape()) {
    throw shape_error(cat_str("tl::fft::", op, "_out: out has shape ", tl::detail::shape_str(out.shape()),
                              " but the result has shape ", tl::detail::shape_str(r.shape())));
  } else if (out.device() != r.device()) {
    throw device_error(cat_str("tl::fft::", op, "_out: out is on ", out.device(), " but the result is on ",
                               r.device()));
  } else {
    out.copy_(r);
  }
  return out;
}

/// rfftn (and ihfftn with `conj_out`): a real pass over the last transformed dim, complex passes
/// over the others.
template <class E>
complex_result_t<E> r2c_nd(const char* op, E&& x, index_span s, index_span dim, norm_mode nm, default_dims def,
                           bool conj_out) {
  using D = std::remove_cvref_t<E>;
  constexpr std::size_t R = D::rank;
  static_assert(!is_complex_v<typename D::value_type>,
                "tl::fft: rfft/rfftn/ihfft expect a real input tensor (torch raises the same); use fft for complex "
                "input");
  using T = fft_real_t<typename D::value_type>;
  if constexpr (TL_AUTOGRAD && tl::detail::category<typename D::value_type>() >= 2)
    if (tl::detail::must_record(x)) return record_r2c(op, x, s, dim, nm, def, conj_out);
  const axes_spec a = prepare(op, x, s, dim, def, true);
  const tensor<T, R> xr = tl::detail::contiguous_as<T>(std::forward<E>(x));
  const std::size_t last = a.dims.size() - 1;
  const std::size_t d = a.dims[last];
  const index_t n = a.sizes[last];
  if (xr.is_cuda()) {
    tensor<complex<T>, R> cur = device_r2c<T, R>(op, xr, d, n, pass_scale<T>(nm, n, false));
    cur = device_c2c<T, R>(op, cur, a.dims, a.sizes, 0, last, false, scales_of<T>(a, nm, false), true);
    if (conj_out) cur = cur.conj().resolve_conj();
    return cur;
  }
  const axis_pass<R> g = along(xr.shape(), d, n / 2 + 1);
  tensor<complex<T>, R> cur(g.out);
  r2c_pass<T>(xr.data(), cur.data(), g.outer, g.nin, n, g.inner, pass_scale<T>(nm, n, false));
  bool owned = true;
  c2c_axes(cur, owned, a, 0, last, false, nm, false);
  if (conj_out) {
    complex<T>* p = cur.data();
    for (index_t i = 0, e = cur.numel(); i < e; ++i) p[i].im = -p[i].im;
  }
  return cur;
}

/// irfftn (and hfftn with `conj_in`): complex inverse passes over all but the last transformed
/// dim, then a complex-to-real pass producing s[-1] (default 2 * (m - 1)) real values.
template <class E>
real_result_t<E> c2r_nd(const char* op, E&& x, index_span s, index_span dim, norm_mode nm, default_dims def,
                        bool conj_in) {
  using D = std::remove_cvref_t<E>;
  constexpr std::size_t R = D::rank;
  using T = fft_real_t<typename D::value_type>;
  if constexpr (TL_AUTOGRAD && tl::detail::category<typename D::value_type>() >= 2)
    if (tl::detail::must_record(x)) return record_c2r(op, x, s, dim, nm, def, conj_in);
  axes_spec a = prepare(op, x, s, dim, def, false);
  const std::size_t last = a.dims.size() - 1;
  const std::size_t d = a.dims[last];
  if (a.sizes[last] == -1) {
    const index_t m = x.shape()[d];
    a.sizes[last] = 2 * (m - 1);
    if (a.sizes[last] < 1)
      throw value_error(cat_str("tl::fft::", op, ": invalid number of data points (", a.sizes[last],
                                ") specified: the output length 2 * (m - 1) from m = ", m, " input elements along dim ",
                                d, " is < 1; pass n explicitly"));
  }
  tensor<complex<T>, R> cur = tl::detail::contiguous_as<complex<T>>(std::forward<E>(x));
  if (cur.is_cuda()) {
    if (conj_in) cur = cur.conj().resolve_conj();
    cur = device_c2c<T, R>(op, cur, a.dims, a.sizes, 0, last, true, scales_of<T>(a, nm, true), conj_in);
    const index_t n = a.sizes[last];
    return device_c2r<T, R>(op, cur, d, n, pass_scale<T>(nm, n, true), conj_in || last > 0);
  }
  bool owned = false;
  // The inverse of conj(x) is the conjugate of the forward transform of x: with conj_in the
  // complex passes run forward and the last pass conjugates.
  c2c_axes(cur, owned, a, 0, last, !conj_in, nm, true);
  const index_t n = a.sizes[last];
  const axis_pass<R> g = along(cur.shape(), d, n);
  tensor<T, R> out(g.out);
  c2r_pass<T>(cur.data(), out.data(), g.outer, g.nin, n, g.inner, pass_scale<T>(nm, n, true), conj_in);
  return out;
}

}  // namespace tl::fft::detail
