#pragma once
/// @file gradcheck.hpp
/// @brief gradcheck and gradgradcheck (torch.autograd.gradcheck): analytical gradients against
/// central finite differences, complex aware.
///
/// @code
/// auto x = tl::randn<double>(3, 4);
/// tl::autograd::gradcheck([](const auto& v) { return tl::eval(tl::tanh(v) * v); }, x);  // throws on mismatch
/// @endcode
/// The check passes when |analytical - numerical| <= atol + rtol |numerical| for every Jacobian
/// entry (torch's defaults: eps 1e-6, atol 1e-5, rtol 1e-3; use double precision inputs). For a
/// complex input, the real and imaginary parts are perturbed separately; for a complex output, its
/// real and imaginary parts are checked as two real outputs, as torch does. On failure the error
/// names the worst entry. Cost, for n input and m output elements: 2n evaluations of f (4n for a
/// complex input) and m backward passes (2m for a complex output).
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tl/autograd/functional.hpp"

namespace tl::autograd {

/// @brief Options of gradcheck / gradgradcheck (torch's defaults).
struct gradcheck_options {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
  bool raise_exception = true;  ///< throw tl::autograd_error on failure (else return false)
};

namespace detail {
template <class T>
complex<double> to_cd(const T& v) {
  if constexpr (is_complex_v<T>) return complex<double>(static_cast<double>(v.re), static_cast<double>(v.im));
  else return complex<double>(static_cast<double>(v), 0.0);
}

/// The checked function with its input and output types fixed: the check below is compiled once
/// per (input, output) tensor type rather than once per function.
template <class XT, class YT>
using checked_fn = std::function<YT(const XT&)>;

/// The output tensor type of f at an input of type XT.
template <class F, class XT>
using checked_output_t = tl::detail::dyn_tensor_t<decltype(tl::eval(std::declval<F&>()(std::declval<const XT&>())))>;

template <class XT, class F>
auto erase_checked(F& f) {
  using YT = checked_output_t<F, XT>;
  return checked_fn<XT, YT>([&f](const XT& v) { return YT(tl::eval(f(v))); });
}

/// Row-major [m, n] analytical and numerical Jacobians of the real-valued map
/// (x_re, x_im) -> (y_re, y_im), compared entry by entry.
template <class XT, class YT>
bool gradcheck_impl(const checked_fn<XT, YT>& f, const XT& x0, const gradcheck_options& o, const char* what) {
  using T = typename XT::value_type;
  constexpr bool cx_in = is_complex_v<T>;
  const XT xi = fresh_input(XT(x0.detach()));
  const YT y = f(xi);
  using U = typename YT::value_type;
  constexpr bool cx_out = is_complex_v<U>;
  const index_t n = xi.numel(), m = y.numel();
  // Analytical: for each output element and real/imaginary unit, one backward.
  struct worst_t {
    double err = -1;
    index_t i = 0, j = 0;
    int out_part = 0, in_part = 0;
    double a = 0, num = 0;
  } worst;
  bool ok = true;
  const XT xc = [&] {
    no_grad g;
    return XT(xi.detach().clone());
  }();
  auto eval_at = [&](const XT& xp) {
    enable_grad g;  // f may itself differentiate (gradgradcheck)
    const XT xq = fresh_input(xp);
    return f(xq).detach().contiguous();
  };
  constexpr int in_parts = cx_in ? 2 : 1, out_parts = cx_out ? 2 : 1;
  // Numerical Jacobian, one column per real or imaginary part of an input element: f at x ± eps
  // in that part gives the column's m outputs (2 n evaluations of f, n of them per part).
  // numerical[((j * in_parts + ip) * out_parts + op) * m + i] = d(op part of y_i) / d(ip part of x_j).
  std::vector<double> numerical(static_cast<std::size_t>(n * in_parts * out_parts * m));
  for (index_t j = 0; j < n; ++j) {
    for (int ip = 0; ip < in_parts; ++ip) {
      XT xp = XT(xc.clone()), xm = XT(xc.clone());
      auto pf = xp.reshape(n), mf = xm.reshape(n);
      if constexpr (cx_in) {
        const auto d = ip == 0 ? T(static_cast<real_t<T>>(o.eps), 0) : T(0, static_cast<real_t<T>>(o.eps));
        pf(j) = pf(j) + d;
        mf(j) = mf(j) - d;
      } else {
        pf(j) = pf(j) + static_cast<T>(o.eps);
        mf(j) = mf(j) - static_cast<T>(o.eps);
      }
      const auto yp = eval_at(xp).reshape(m), ym = eval_at(xm).reshape(m);
      double* col = numerical.data() + (j * in_parts + ip) * out_parts * m;
      for (index_t i = 0; i < m; ++i) {
        const complex<double> dp = to_cd(yp(i)), dm = to_cd(ym(i));
        col[i] = (dp.re - dm.re) / (2 * o.eps);
        if constexpr (cx_out) col[m + i] = (dp.im - dm.im) / (2 * o.eps);
      }
    }
  }
  for (int op = 0; op < out_parts; ++op) {
    for (index_t i = 0; i < m; ++i) {
      auto e = zeros<U>(shape_t<1>{m}, y.device());
      if constexpr (cx_out) e(i) = op == 0 ? U(1) : U(0, 1);
      else e(i) = U(1);
      XT ga = zeros<T>(xi.shape(), xi.device());
      if (y.requires_grad()) {
        auto [g] = grad(y, std::tie(xi), tl::detail::dyn_tensor_t<YT>(e.reshape(y.shape())), {true, false, true});
        if (g.defined()) ga = g.contiguous();
      }
      const auto gaf = ga.reshape(n);
      for (index_t j = 0; j < n; ++j) {
        const complex<double> a = to_cd(gaf(j));
        for (int ip = 0; ip < in_parts; ++ip) {
          const double num = numerical[static_cast<std::size_t>(((j * in_parts + ip) * out_parts + op) * m + i)];
          const double an = ip == 0 ? a.re : a.im;
          const double err = std::abs(an - num);
          const bool bad = !(err <= o.atol + o.rtol * std::abs(num));
          if (bad) ok = false;
          const double score = bad ? err + 1e300 : err;
          if (score > worst.err) worst = {score, i, j, op, ip, an, num};
        }
      }
    }
  }
  if (!ok && o.raise_exception)
    throw autograd_error(tl::detail::cat_str(
        "tl::autograd::", what, ": Jacobian mismatch for output ", worst.i, (cx_out ? (worst.out_part ? " (imag)" : " (real)") : ""),
        " with respect to input element ", worst.j, (cx_in ? (worst.in_part ? " (imag)" : " (real)") : ""),
        ": analytical ", worst.a, ", numerical ", worst.num, " (atol ", o.atol, ", rtol ", o.rtol, ", eps ", o.eps,
        ")"));
  return ok;
}
}  // namespace detail

/// @brief Checks f's gradients at x against finite differences (torch.autograd.gradcheck).
template <class F, class X>
bool gradcheck(F&& f, const X& x, const gradcheck_options& o = {}) {
  using XT = tl::detail::dyn_tensor_t<X>;
  return detail::gradcheck_impl(detail::erase_checked<XT>(f), XT(x), o, "gradcheck");
}

/// @brief Checks the gradients of f's gradient (a vector-Jacobian product with a fixed random
/// vector) at x against finite differences (torch.autograd.gradgradcheck; needs TL_AUTOGRAD=2).
template <class F, class X>
bool gradgradcheck(F&& f, const X& x, const gradcheck_options& o = {}) {
  using XT = tl::detail::dyn_tensor_t<X>;
  const auto y0 = [&] {
    no_grad g;
    return tl::eval(f(XT(x.detach())));
  }();
  using YT = std::remove_cvref_t<decltype(y0)>;
  const tl::detail::dyn_tensor_t<YT> v = [&] {
    no_grad g;
    auto r = randn<real_t<typename YT::value_type>>(y0.shape());
    return tl::detail::dyn_tensor_t<YT>(tl::astype<typename YT::value_type>(r));
  }();
  auto h = [&](const XT& xv) {
    const auto y = tl::eval(f(xv));
    auto [g] = grad(y, std::tie(xv), v, {true, true, true});
    if (!g.defined()) return XT(zeros_like(xv));
    return g;
  };
  return detail::gradcheck_impl(detail::erase_checked<XT>(h), XT(x), o, "gradgradcheck");
}

}  // namespace tl::autograd
