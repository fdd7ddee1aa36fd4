#pragma once
/// @file autograd.hpp
/// @brief Internal header: autograd rules of the transforms (included by tl/fft/fft.hpp when
/// TL_AUTOGRAD is on). Every transform is linear, so its backward is its adjoint, written with the
/// transforms themselves (so create_graph records it and higher derivatives work):
///
/// - c2c (fftn / ifftn): the transform in the other direction with the dual normalization, then
///   the gradient cropped (or zero-padded) back to the input's extents;
/// - r2c (rfftn, and ihfftn with a conjugate): the one-sided gradient zero-extended to the full
///   length, an inverse c2c transform with the dual normalization, its real part;
/// - c2r (irfftn, and hfftn with a conjugate): an r2c transform with the dual normalization whose
///   bins that stand for two (conjugate) bins of the full spectrum are doubled, as torch does.
#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

#include "tl/fft/detail/driver.hpp"

// The autograd layer relies on the reductions and ops being declared first (the umbrella order).
#include "tl/reduce/reduce.hpp"

#include "tl/ops/ops.hpp"

#include "tl/autograd/autograd.hpp"

namespace tl::fft::detail {

/// t cropped or zero-padded (at the end) along `dims` to the extents of `target`.
template <class Tn, std::size_t R>
Tn fit_to(const Tn& t, const shape_t<R>& target, const dim_list<std::size_t>& dims) {
  using V = typename Tn::value_type;
  Tn v = t;
  bool pad = false;
  for (std::size_t d : dims) {
    if (v.shape()[d] > target[d])
      v = v.slice(static_cast<index_t>(d), 0, target[d]);
    else if (v.shape()[d] < target[d])
      pad = true;
  }
  if (!pad) return v;
  Tn out(target);
  std::fill(out.data(), out.data() + out.numel(), V{});
  Tn part = out;
  for (std::size_t d : dims) part = part.slice(static_cast<index_t>(d), 0, v.shape()[d]);
  std::move(part) = v;
  return out;
}

inline dim_list<index_t> dims_of(const axes_spec& a) { return {a.dims.begin(), a.dims.end()}; }

/// Runs fwd(x) without recording and records it as one node whose backward is bw(g).
template <class Out, class X, class Fwd, class Bwd>
Out record_linear(const char* name, const X& x, Fwd fwd, Bwd bw) {
  Out y = [&] {
    no_grad guard;
    return fwd(x);
  }();
  tl::detail::record_fn(
      name, y,
      [bw](const Out& g, const std::tuple<X>&, const Out&, const std::array<bool, 1>&) {
        return std::make_tuple(bw(g));
      },
      std::array<bool, 1>{false}, false, x);
  return y;
}

/// A transform's input as a tensor of its dtype (an expression is evaluated and recorded as one
/// node), its resolved dims and lengths, and its shape.
template <class E>
struct recorded_input {
  tensor<typename E::value_type, E::rank> x;
  axes_spec a;
  shape_t<E::rank> shape;
  recorded_input(const char* op, const E& e, index_span s, index_span dim, default_dims def, bool all_defaults)
      : x(e), a(prepare(op, x, s, dim, def, all_defaults)), shape(x.shape()) {}
};

template <class E>
complex_result_t<E> record_c2c(const char* op, const E& x, index_span s, index_span dim, norm_mode nm, bool inverse,
                               default_dims def) {
  using V = typename E::value_type;
  constexpr std::size_t R = E::rank;
  using C = complex<fft_real_t<V>>;
  const recorded_input<E> in(op, x, s, dim, def, true);
  return record_linear<tensor<C, R>>(
      inverse ? "FftC2CBackward(inverse)" : "FftC2CBackward", in.x,
      [&](const tensor<V, R>& v) { return c2c_nd(op, v, s, dim, nm, inverse, def); },
      [a = in.a, in_shape = in.shape, nm, inverse](const tensor<C, R>& g) {
        const tensor<C, R> gx =
            fit_to(c2c_nd("fft_backward", g, {}, dims_of(a), dual(nm), !inverse, default_dims{0}), in_shape, a.dims);
        if constexpr (is_complex_v<V>)
          return gx;
        else
          return tensor<V, R>(tl::real(gx));
      });
}

template <class E>
complex_result_t<E> record_r2c(const char* op, const E& x, index_span s, index_span dim, norm_mode nm, default_dims def,
                               bool conj_out) {
  using V = typename E::value_type;
  constexpr std::size_t R = E::rank;
  using C = complex<fft_real_t<V>>;
  const recorded_input<E> in(op, x, s, dim, def, true);
  return record_linear<tensor<C, R>>(
      "FftR2CBackward", in.x, [&](const tensor<V, R>& v) { return r2c_nd(op, v, s, dim, nm, def, conj_out); },
      [a = in.a, in_shape = in.shape, nm, conj_out](const tensor<C, R>& g) {
        const tensor<C, R> gc = conj_out ? tensor<C, R>(tl::conj(g)) : g;
        // The one-sided gradient zero-extended to the full lengths (the n of c2c pads at the end).
        const tensor<C, R> full = c2c_nd("rfft_backward", gc, a.sizes, dims_of(a), dual(nm), true, default_dims{0});
        return fit_to(tensor<V, R>(tl::real(full)), in_shape, a.dims);
      });
}

template <class E>
real_result_t<E> record_c2r(const char* op, const E& x, index_span s, index_span dim, norm_mode nm, default_dims def,
                            bool conj_in) {
  using V = typename E::value_type;
  constexpr std::size_t R = E::rank;
  using T = fft_real_t<V>;
  using C = complex<T>;
  const recorded_input<E> in(op, x, s, dim, def, false);
  const std::size_t last = in.a.dims.back();
  const index_t n = in.a.sizes.back() == -1 ? 2 * (in.shape[last] - 1) : in.a.sizes.back();
  return record_linear<tensor<T, R>>(
      "FftC2RBackward", in.x, [&](const tensor<V, R>& v) { return c2r_nd(op, v, s, dim, nm, def, conj_in); },
      [a = in.a, in_shape = in.shape, nm, conj_in, last, n](const tensor<T, R>& g) {
        const tensor<C, R> gi = r2c_nd("irfft_backward", g, {}, dims_of(a), dual(nm), default_dims{0}, false);
        // Bins 1 .. n - (n / 2 + 1) stand for themselves and their mirror images: doubled.
        shape_t<R> ws{};
        ws.fill(1);
        ws[last] = n / 2 + 1;
        tensor<T, R> w(ws);
        for (index_t k = 0; k < ws[last]; ++k) w.data()[k] = (k >= 1 && k <= n - (n / 2 + 1)) ? T(2) : T(1);
        tensor<C, R> gd = gi * w;
        if (conj_in) gd = tensor<C, R>(tl::conj(gd));
        gd = fit_to(gd, in_shape, a.dims);
        if constexpr (is_complex_v<V>)
          return gd;
        else
          return tensor<V, R>(tl::real(gd));
      });
}

}  // namespace tl::fft::detail
