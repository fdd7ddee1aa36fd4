#pragma once
/// @file autograd_factor.hpp
/// @brief Internal header: autograd rules of qr, matrix_exp, householder_product, vander and the
/// norms (included at the end of tl/linalg/detail/autograd.hpp). torch 1.13's formulas; every
/// backward is written with recorded tl operations, so second derivatives are exact.
///
/// - qr (FunctionsManual.cpp, linalg_qr_backward): for m >= n, gA = (gQ + Q N) R^-H with
///   N = tril(M, -1) + tril(M, -1)^H + Re diag(M), M = R gR^H - gQ^H Q; for m < n, with A = (X | Y),
///   R = (U | V): gY = Q gV and gX is the gradient of X = Q U for gQ + Y gV^H and gU. mode 'r' and
///   mode 'complete' with m > n are not differentiable (tl::autograd_error in backward, as torch).
/// - matrix_exp: the upper-right block of exp([[A^H, G], [0, A^H]]) (the Fréchet derivative of
///   exp at A^H in the direction G).
/// - householder_product: the product H(0) ... H(k-1) I[:, :n] formed with recorded operations.
/// - vander: the powers as a chain of recorded products (the derivative at 0 is exact).
/// - vector_norm: tl::norm's rule (torch's norm_backward: 0 at x = 0 for the 2-norm, ties of the
///   inf / -inf norms share the gradient equally); matrix_norm: torch's composition ('fro' as a
///   vector norm over both dims, 1 / inf as amax of column / row 1-norms, -1 / -inf with amin);
///   2 / -2 / 'nuc' as amax / amin / sum of svdvals; cond for 2 / -2 is the ratio of the first
///   and last singular values, for the other orders the norm product ‖A‖ ‖A^-1‖ of the recorded operations (torch's).
#include <array>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "tl/linalg/cond.hpp"
#include "tl/linalg/detail/autograd_factor_decl.hpp"
#include "tl/linalg/detail/autograd_spectral.hpp"  // pinv_backward, svdvals' rule
#include "tl/linalg/householder_product.hpp"
#include "tl/linalg/lstsq.hpp"
#include "tl/linalg/matrix_exp.hpp"
#include "tl/linalg/matrix_norm.hpp"
#include "tl/linalg/qr.hpp"
#include "tl/linalg/vander.hpp"
#include "tl/linalg/vector_norm.hpp"

namespace tl::linalg::detail {

// ---- QR ----------------------------------------------------------------------------------------

/// The Hermitian matrix with M's strictly lower triangle, its conjugate transpose above the
/// diagonal and Re diag(M) on it.
template <class M, class T = typename M::value_type>
M hermitian_from_lower(const M& x) {
  const M h = tri(x, false, 0, real_t<T>(0.5));
  return ad::materialize(h + h.mH());
}

/// The gradient of A = Q R for m >= n (Q m x n, R n x n upper): (gQ + Q N) R^-H.
template <class M>
M qr_backward_tall(const M& q, const M& r, const M& gq, const M& gr) {
  const M x = ad::materialize(tl::matmul(r, gr.mH()) - tl::matmul(gq.mH(), q));
  const M y = ad::materialize(gq + tl::matmul(q, hermitian_from_lower(x)));
  return tl::linalg::solve_triangular(r.mH(), y, false, false);
}

/// The gradient of A = Q R (any shape, Q with min(m, n) columns or m x m when m <= n).
template <class M, std::size_t R = M::rank>
M qr_backward(const M& a, const M& q, const M& r, const M& gq, const M& gr) {
  const index_t m = q.shape()[R - 2], n = r.shape()[R - 1];
  if (m >= n) return qr_backward_tall(q, r, gq, gr);
  const M u = r.narrow(R - 1, 0, m), v = r.narrow(R - 1, m, n - m);
  const M gu = gr.narrow(R - 1, 0, m), gv = gr.narrow(R - 1, m, n - m);
  const M y = a.narrow(R - 1, m, n - m);  // = Q V
  (void)v;
  const M gq2 = ad::materialize(gq + tl::matmul(y, gv.mH()));
  const M gx = qr_backward_tall(q, u, gq2, gu);
  const M gy = tl::matmul(q, gv);
  return tl::cat({gx, gy}, static_cast<index_t>(R - 1));
}

template <class E>
qr_result<ag_value_t<E>, ag_rank_v<E>> record_qr(const E& e, std::string_view mode) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  const M a = ad::materialize_forward(e);
  const qr_result<T, R> f = unrecorded([&] { return tl::linalg::qr(a, mode); });
  auto [q, r] = record_multi(
      "LinalgQrBackward", a, std::tuple<M, M>{f.Q, f.R},
      [md = std::string(mode), f](const std::tuple<M, M>& gs, const M& x) {
        const index_t m = x.shape()[R - 2], n = x.shape()[R - 1];
        if (md == "r")
          throw autograd_error(
              "tl::linalg::qr: backward: the derivative of qr depends on Q, which is not computed when mode = 'r'; "
              "use qr(A, \"reduced\") to differentiate through qr");
        if (md == "complete" && m > n)
          throw autograd_error(cat_str("tl::linalg::qr: backward: the QR decomposition is not differentiable when "
                                       "mode = 'complete' and nrows > ncols (input of shape ",
                                       shape_str(x.shape()), ")"));
        const qr_result<T, R> g = backward_records() ? tl::linalg::qr(x, md) : f;
        return qr_backward(x, g.Q, g.R, std::get<0>(gs), std::get<1>(gs));
      });
  return qr_result<T, R>{std::move(q), std::move(r)};
}

// ---- matrix exponential ------------------------------------------------------------------------

/// The gradient of exp at A for the output gradient G: exp([[A^H, G], [0, A^H]])[:n, n:].
template <class M, std::size_t R = M::rank>
M matrix_exp_backward(const M& a, const M& g) {
  const index_t n = a.shape()[R - 1];
  const M ah = a.mH();
  const M z = zeros<typename M::value_type>(a.shape());
  const M top = tl::cat({ah, g}, static_cast<index_t>(R - 1));
  const M bottom = tl::cat({z, ah}, static_cast<index_t>(R - 1));
  const M big = tl::linalg::matrix_exp(tl::cat({top, bottom}, static_cast<index_t>(R - 2)));
  return big.narrow(R - 2, 0, n).narrow(R - 1, n, n);
}

template <class E>
tensor<ag_value_t<E>, ag_rank_v<E>> record_matrix_exp(const E& e) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  const M a = ad::materialize_forward(e);
  M out = unrecorded([&] { return tl::linalg::matrix_exp(a); });
  ad::record_fn(
      "LinalgMatrixExpBackward", out,
      [](const M& g, const std::tuple<M>& in, const M&, const std::array<bool, 1>&) {
        return std::make_tuple(matrix_exp_backward(std::get<0>(in), g));
      },
      std::array<bool, 1>{true}, false, a);
  return out;
}

// ---- Householder product, Vandermonde matrices -------------------------------------------------

/// A column vector [m, 1] with ones where rows satisfy `keep`.
template <class T, class F>
tensor<T, 2> column_mask(index_t m, F keep) {
  tensor<T, 2> c(shape_t<2>{m, 1});
  for (index_t r = 0; r < m; ++r) c.data()[r] = keep(r) ? T(1) : T(0);
  return c;
}

template <class EA, class ET>
tensor<ag_value_t<EA>, ag_rank_v<EA>> record_householder_product(const EA& ea, const ET& et) {
  using T = value_of_t<EA>;
  constexpr std::size_t R = std::remove_cvref_t<EA>::rank;
  using M = tensor<T, R>;
  const M a = ad::materialize_forward(ea);
  const tensor<T, R - 1> tau = ad::materialize_forward(et);
  const auto& s = a.shape();
  const index_t m = s[R - 2], n = s[R - 1], k = tau.shape()[R - 2], nb = batch_count(s);
  M q = zeros<T>(s);  // the first n columns of the identity, then H(i) applied from the left
  for (index_t b = 0; b < nb; ++b)
    for (index_t i = 0; i < n; ++i) q.data()[(b * m + i) * n + i] = T(1);
  for (index_t i = k; i-- > 0;) {
    const tensor<T, 2> below = column_mask<T>(m, [i](index_t r) { return r > i; });
    const tensor<T, 2> unit = column_mask<T>(m, [i](index_t r) { return r == i; });
    const M v = ad::materialize(M(a.narrow(R - 1, i, 1)) * below + unit);
    const M t = tau.narrow(R - 2, i, 1).unsqueeze(static_cast<index_t>(R - 1));
    const M w = ad::materialize(t * tl::matmul(v.mH(), q));
    q = ad::materialize(q - tl::matmul(v, w));
  }
  return q;
}

template <class E>
tensor<ag_value_t<E>, ag_rank_v<E> + 1> record_vander(const E& e, index_t cols) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using X = tensor<T, R>;
  const X x = ad::materialize_forward(e);
  std::vector<X> p{tl::ones<T>(x.shape())};
  for (index_t j = 1; j < cols; ++j) p.push_back(ad::materialize(p.back() * x));
  return tl::stack(p, -1);
}

// ---- norms -------------------------------------------------------------------------------------

template <class Out, class F, class E, class... A>
Out record_vector_norm(F fwd, const E& x, double ord, const A&... args) {
  return tl::detail::record_reduction<tl::detail::red_kind::norm, Out>(fwd, x, tl::detail::grad_info{ord, 1},
                                                                       args...);
}

template <bool Keep, class E>
tensor<real_t<ag_value_t<E>>, Keep ? ag_rank_v<E> : ag_rank_v<E> - 2> record_matrix_norm(
    const E& e, mat_ord o, std::array<std::size_t, 2> d) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using K = tensor<real_t<T>, R>;
  const tensor<T, R> a = ad::materialize_forward(e);
  const index_t d0 = static_cast<index_t>(d[0]), d1 = static_cast<index_t>(d[1]);
  shape_t<R> ks = a.shape();  // the keepdim shape
  ks[d[0]] = ks[d[1]] = 1;
  K r;
  if (o == mat_ord::fro) {
    r = tl::norm(a, 2.0, tl::dims{d0, d1}, tl::keepdim);
  } else if (o == mat_ord::two || o == mat_ord::neg_two || o == mat_ord::nuc) {
    // 2 / -2: amax / amin of the singular values, 'nuc' their sum, of A with d0, d1 moved last
    std::array<index_t, R> perm{};
    for (std::size_t q = 0, k = 0; q < R; ++q)
      if (q != d[0] && q != d[1]) perm[k++] = static_cast<index_t>(q);
    perm[R - 2] = d0;
    perm[R - 1] = d1;
    const tensor<real_t<T>, R - 1> s = tl::linalg::svdvals(tensor<T, R>(a.permute(perm)));
    const tensor<real_t<T>, R - 2> e = o == mat_ord::nuc   ? tl::sum(s, -1)
                                       : o == mat_ord::two ? tl::amax(s, -1)
                                                           : tl::amin(s, -1);
    r = e.reshape(ks);
  } else {
    // 1 / -1: the extreme column sum; inf / -inf: the extreme row sum
    const bool rows = o == mat_ord::inf || o == mat_ord::neg_inf;
    const bool max = o == mat_ord::one || o == mat_ord::inf;
    const K sums = tl::norm(a, 1.0, rows ? d1 : d0, tl::keepdim);
    r = max ? K(tl::amax(sums, rows ? d0 : d1, tl::keepdim)) : K(tl::amin(sums, rows ? d0 : d1, tl::keepdim));
  }
  if constexpr (Keep) {
    return r;
  } else {
    shape_t<R - 2> os{};
    for (std::size_t q = 0, k = 0; q < R; ++q)
      if (q != d[0] && q != d[1]) os[k++] = a.shape()[q];
    return r.reshape(os);
  }
}

template <class E>
tensor<real_t<ag_value_t<E>>, ag_rank_v<E> - 2> record_cond(const E& e, cond_norm p, std::string_view pname) {
  using T = value_of_t<E>;
  using Rl = real_t<T>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  const tensor<T, R> a = ad::materialize_forward(e);
  const auto& sh = a.shape();
  shape_t<R - 2> bs{};
  for (std::size_t q = 0; q + 2 < R; ++q) bs[q] = sh[q];
  const index_t k = std::min(sh[R - 2], sh[R - 1]);
  if (p == cond_norm::two || p == cond_norm::minus_two) {
    // torch: the first over the last singular value (or the reverse for -2); empty matrices give 0
    if (k == 0) return zeros<Rl>(bs);
    const tensor<Rl, R - 1> s = tl::linalg::svdvals(a);
    const tensor<Rl, R - 1> hi = s.narrow(R - 2, 0, 1), lo = s.narrow(R - 2, k - 1, 1);
    return ad::materialize(p == cond_norm::two ? hi / lo : lo / hi).reshape(bs);
  }
  if (sh[R - 2] != sh[R - 1])
    throw shape_error(cat_str("tl::linalg::cond(p = ", pname,
                              "): expected a square matrix or a batch of square matrices, got shape ", shape_str(sh)));
  // torch: the inverse of a singular matrix is replaced by inf, and a NaN or inf product by inf
  // (whose gradient is then 0).
  const Rl inf = std::numeric_limits<Rl>::infinity();
  if (k == 0) return zeros<Rl>(bs);
  const auto r = tl::linalg::inv_ex(a);
  shape_t<R> ks = sh;
  ks[R - 2] = ks[R - 1] = 1;
  const tensor<T, R> ai = ad::materialize(tl::where(r.info.reshape(ks) != 0, T(inf), r.inverse));
  const tensor<Rl, R - 2> c = ad::materialize(cond_matrix_norm(a, p) * cond_matrix_norm(ai, p));
  return ad::materialize(tl::where(tl::isfinite(c), c, inf));
}

// ---- least squares -----------------------------------------------------------------------------

/// `t` with leading extents 1 up to rank R (a recorded view).
template <std::size_t R, class X>
tensor<typename X::value_type, R> with_rank(const X& t) {
  shape_t<R> s{};
  for (std::size_t q = 0; q < R; ++q) s[q] = q + X::rank < R ? 1 : t.shape()[q + X::rank - R];
  return t.reshape(s);
}

/// Records lstsq's solution X (the minimum-norm least-squares solution): torch 1.13's gradient is
/// that of X = pinv(A) B, G_A = pinv_backward(G_X B^H, pinv(A), A) and G_B = pinv(A)^H G_X.
template <class X, class EA, class EB>
void record_lstsq(X& solution, const EA& ea, const EB& eb) {
  using T = value_of_t<EA>;
  constexpr std::size_t RA = std::remove_cvref_t<EA>::rank, RB = std::remove_cvref_t<EB>::rank, RX = X::rank;
  constexpr bool vec = RB + 1 == RA;
  constexpr std::size_t RM = vec ? RX + 1 : RX;  // the rank of the solution as matrices
  using MA = tensor<T, RA>;
  using MB = tensor<T, RB>;
  using M = tensor<T, RM>;
  const MA a = ad::materialize_forward(ea);
  const MB b = ad::materialize_forward(eb);
  ad::record_fn(
      "LinalgLstsqBackward", solution,
      [](const X& g, const std::tuple<MA, MB>& in, const X&, const std::array<bool, 2>& need) {
        const MA& x_a = std::get<0>(in);
        const MB& x_b = std::get<1>(in);
        const auto as_matrices = [](const auto& t) {  // a batch of vectors as n x 1 matrices, rank RM
          if constexpr (vec) return with_rank<RM>(t.unsqueeze(static_cast<index_t>(std::remove_cvref_t<decltype(t)>::rank)));
          else return with_rank<RM>(t);
        };
        const M gm = as_matrices(g), bm = as_matrices(x_b);
        const M am = with_rank<RM>(x_a);
        const M p = tl::linalg::pinv(am);
        MA ga = ad::undefined_tensor<T, RA>();
        MB gb = ad::undefined_tensor<T, RB>();
        if (need[0]) ga = ad::sum_to(pinv_backward(M(tl::matmul(gm, bm.mH())), p, am), x_a.shape());
        if (need[1]) {
          const M full = tl::matmul(p.mH(), gm);
          if constexpr (vec) gb = ad::sum_to(full.squeeze(-1), x_b.shape());
          else gb = ad::sum_to(full, x_b.shape());
        }
        return std::make_tuple(ga, gb);
      },
      std::array<bool, 2>{true, true}, false, a, b);
}

}  // namespace tl::linalg::detail
