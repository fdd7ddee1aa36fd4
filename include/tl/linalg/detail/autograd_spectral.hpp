#pragma once
/// @file autograd_spectral.hpp
/// @brief Internal header: autograd rules of svd, svdvals, eig, eigvals and pinv (included at the
/// end of tl/linalg/detail/autograd.hpp, whose helpers it uses). The formulas are torch 1.13's
/// (svd_backward, linalg_eig_backward, pinv_backward in FunctionsManual.cpp). As for the other
/// rules, the first-order backward reads the decomposition computed by the forward; a recorded
/// backward (create_graph) recomputes it with the recorded operation, so second derivatives are
/// exact.
///
/// - svd (A = U diag(S) Vh, k = min(m, n), U and Vh reduced): with skew(X) = X - X^H and
///   E_ij = S_j^2 - S_i^2 (1 on the diagonal),
///   G_A = U [(skew(U^H G_U) S + S skew(Vh G_Vh^H)) / E + diag(G_S) + diag(skew(U^H G_U)) / (2S)] Vh
///       + (I - U U^H) G_U S^-1 Vh      (m > n)
///       + U S^-1 G_Vh (I - Vh^H Vh)    (m < n).
///   The diagonal term with 1/(2S) is there for complex input only. With full_matrices the
///   gradients of the columns of U and rows of Vh beyond k are ignored (they span arbitrary bases
///   of the complementary subspaces), as in torch. When only S has a gradient (and always for
///   svdvals) G_A = U diag(G_S) Vh. (An output whose gradient is exactly zero counts as one that
///   received none: the multi-output node cannot tell them apart. torch's result differs from
///   this only where it would be NaN, at repeated singular values; the same holds for eig.)
/// - eig (A V = V diag(L), columns of V of unit norm): with E*_ij = conj(L_j - L_i) (1 on the
///   diagonal) and W = V^H G_V - V^H V diag(Re diag(V^H G_V)),
///   G_A = V^-H (W / E* + diag(G_L)) V^H; with no gradient on V (and for eigvals)
///   G_A = V^-H diag(G_L) V^H. A real input gets the real part (the forward runs on its complex
///   cast).
/// - pinv (X = A^+): torch's pinv_backward, the derivative of the Moore-Penrose inverse at constant
///   rank, also for hermitian = true (where the formula uses the whole input A, as torch).
///
/// Edge cases, as in torch: repeated singular values (or eigenvalues) make E zero off the diagonal,
/// so the gradient of the singular vectors (eigenvectors) is infinite or NaN; a zero singular value
/// gives infinities in the rectangular terms and in the complex diagonal term. Only when S (L) alone
/// receives a gradient is it finite there.
///
/// Gauge: singular vectors are determined up to a phase e^{i phi} per pair (u_i, v_i), eigenvectors
/// (of unit norm) up to a phase each. A loss that depends on these phases has no gradient; torch
/// then raises, and so does tl, with tl::autograd_error: for complex svd when
/// Im diag(skew(U^H G_U)) and -Im diag(skew(Vh G_Vh^H)) are not close (torch's allclose, rtol = atol
/// = 1e-2), for eig (complex results, any input) when Im diag(V^H G_V) is not close to 0. The check
/// runs on the first backward through the decomposition a user's call recorded. It is not made again
/// by later backward passes through that node (those of a double backward, whose gradient reaches
/// the forward's decomposition and the one recomputed in the recorded backward in two parts, phase
/// invariant only together), nor by the recomputed one.
#include <memory>
#include <optional>
#include <tuple>

#include "tl/linalg/detail/autograd_spectral_decl.hpp"
#include "tl/linalg/eig.hpp"
#include "tl/linalg/pinv.hpp"
#include "tl/linalg/svd.hpp"

namespace tl::linalg::detail {

/// Whether a recorded decomposition's backward checks the loss's invariance to the phases of its
/// vectors: only the node a user's call recorded, and only on its first backward (see the file's
/// notes).
struct gauge_check {
  bool enabled = true;
  std::shared_ptr<bool> ran = std::make_shared<bool>(false);
  bool take() const {
    const bool c = enabled && !*ran;
    *ran = true;
    return c;
  }
};

/// Whether every element of t is zero (an output that received no gradient).
template <class X>
bool all_zero(const X& t) {
  using T = typename X::value_type;
  const tensor<T, X::rank> c = t.detach().contiguous();
  for (index_t i = 0; i < c.numel(); ++i)
    if (!(c.data()[i] == T(0))) return false;
  return true;
}

/// Calls bad(b, i, x, y) for the first diagonal entry i of matrix b (of a [*, k, k] batch) where
/// x = Im a_ii is not close to y = Im b_ii by torch's allclose(x, y, rtol = 1e-2, atol = 1e-2).
template <class M, class F>
void check_imag_diagonal(const M& a, const M* b, F&& bad) {
  constexpr std::size_t R = M::rank;
  const M ac = a.detach().contiguous();
  const M bc = b ? M(b->detach().contiguous()) : M();
  const index_t k = ac.shape()[R - 1];
  const index_t nb = k > 0 ? ac.numel() / (k * k) : 0;
  for (index_t q = 0; q < nb; ++q)
    for (index_t i = 0; i < k; ++i) {
      const double x = static_cast<double>(ac.data()[q * k * k + i * k + i].im);
      const double y = b ? -static_cast<double>(bc.data()[q * k * k + i * k + i].im) : 0.0;
      if (!(std::abs(x - y) <= 1e-2 + 1e-2 * std::abs(y))) {
        bad(q, i, x, y);
        return;
      }
    }
}

// ---- SVD ---------------------------------------------------------------------------------------

/// G_A = U diag(G_S) Vh (the gradient when only the singular values receive one), for one G_S or a
/// batch of them (one more leading dim; U and Vh broadcast).
template <class M, class GS, class GM = tensor<typename M::value_type, GS::rank + 1>>
GM svd_values_backward(const M& u, const GS& gs, const M& vh) {
  using T = typename M::value_type;
  constexpr std::size_t R = M::rank;
  const tensor<T, GS::rank> g = ad::as_dtype<T>(gs);
  const index_t m = u.shape()[R - 2], n = vh.shape()[R - 1];
  if (m >= n) return times_batch(u, GM(ad::materialize(vh * g.unsqueeze(-1))));
  return tl::matmul(GM(ad::materialize(u * g.unsqueeze(-2))), vh);
}

/// torch's svd_backward on the reduced factors U [*, m, k], S [*, k], Vh [*, k, n], for one set of
/// gradients (GM, GS of M's and S's ranks) or a batch of them (one more leading dim; the factors
/// broadcast, the products with a factor on the left of the batch formed by times_batch).
template <class M, class S, class GM, class GS>
GM svd_backward(const M& u, const S& s, const M& vh, const GM& gu, const GS& gs, const GM& gvh, bool check) {
  using T = typename M::value_type;
  constexpr std::size_t R = M::rank, RG = GM::rank;
  using V = tensor<T, R - 1>;
  const bool has_u = !all_zero(gu), has_vh = !all_zero(gvh);
  if (!has_u && !has_vh) return svd_values_backward(u, gs, vh);
  const index_t m = u.shape()[R - 2], n = vh.shape()[R - 1], k = s.shape()[R - 2];
  const M uh = u.mH();
  const GM uhgu0 = times_batch(uh, gu), vhgv0 = times_batch(vh, GM(gvh.mH()));
  const GM uhgu = ad::materialize(uhgu0 - uhgu0.mH()), vhgv = ad::materialize(vhgv0 - vhgv0.mH());
  if constexpr (is_complex_v<T>) {
    if (check)
      check_imag_diagonal(uhgu, &vhgv, [&](index_t b, index_t i, double x, double y) {
        throw autograd_error(cat_str(
            "tl::linalg::svd: backward: the singular vectors of a complex matrix are determined only up to a "
            "phase e^{i phi} per pair (u_i, v_i), and the loss depends on it (Im diag(U^H G_U - G_U^H U) = ", x,
            " but -Im diag(Vh G_Vh^H - G_Vh Vh^H) = ", y, " at singular value ", i, batch_note(b, R > 2),
            "), so its gradient is not defined (torch raises too). Use a loss invariant to the phases, e.g. one "
            "of |U|, U diag(S) Vh or U Vh"));
      });
  }
  const V sc = ad::as_dtype<T>(s);
  const V s2 = ad::materialize(sc * sc);
  const tensor<T, 2> id = tl::eye<T>(k);
  const M e = ad::materialize(s2.unsqueeze(-2) - s2.unsqueeze(-1) + id);  // E_ij = S_j^2 - S_i^2, 1 on the diagonal
  tensor<T, RG - 1> d = ad::as_dtype<T>(gs);
  if constexpr (is_complex_v<T>) d = ad::materialize(d + uhgu.diagonal(0, -2, -1) / (sc * real_t<T>(2)));
  const GM inner = ad::materialize((uhgu * sc.unsqueeze(-2) + sc.unsqueeze(-1) * vhgv) / e + diag_matrices<T>(d));
  if (m > n && has_u) {
    const GM gus = ad::materialize(gu / sc.unsqueeze(-2));  // G_U S^-1
    const GM left = ad::materialize(times_batch(u, inner) + gus - times_batch(u, times_batch(uh, gus)));
    return tl::matmul(left, vh);
  }
  if (m < n && has_vh) {
    const GM sgv = ad::materialize(gvh / sc.unsqueeze(-1));  // S^-1 G_Vh
    const GM right = ad::materialize(tl::matmul(inner, vh) + sgv - tl::matmul(tl::matmul(sgv, vh.mH()), vh));
    return times_batch(u, right);
  }
  return tl::matmul(times_batch(u, inner), vh);
}

template <class M, class T = typename M::value_type, std::size_t R = M::rank>
svd_result<T, R> record_svd_impl(const M& a, bool full, bool check) {
  using S = tensor<real_t<T>, R - 1>;
  const svd_result<T, R> r = unrecorded([&] { return tl::linalg::svd(a, full); });
  const gauge_check gauge{check};  // one for both rules (copies share the flag)
  auto [u, s, vh] = record_multi(
      "LinalgSvdBackward", a, std::tuple<M, S, M>{r.U, r.S, r.Vh},
      [r, full, gauge](const std::tuple<M, S, M>& gs, const M& x) {
        const svd_result<T, R> f = backward_records() ? record_svd_impl(x, full, false) : r;
        const index_t k = f.S.shape()[R - 2];
        // full_matrices: the columns of U and rows of Vh beyond k carry no gradient (as torch).
        auto thin_u = [&](const M& t) { return full ? M(t.narrow(-1, 0, k)) : t; };
        auto thin_vh = [&](const M& t) { return full ? M(t.narrow(-2, 0, k)) : t; };
        return svd_backward(thin_u(f.U), f.S, thin_vh(f.Vh), thin_u(std::get<0>(gs)), std::get<1>(gs),
                            thin_vh(std::get<2>(gs)), gauge.take());
      },
      // a batch of cotangents: the same formula once (the phase check looks at the whole batch)
      [r, full, gauge](const std::tuple<batched_t<M>, batched_t<S>, batched_t<M>>& gs, const M&) {
        using B = batched_t<M>;
        const index_t k = r.S.shape()[R - 2];
        const M u = full ? M(r.U.narrow(-1, 0, k)) : r.U, vh = full ? M(r.Vh.narrow(-2, 0, k)) : r.Vh;
        const B gu = full ? B(std::get<0>(gs).narrow(-1, 0, k)) : std::get<0>(gs);
        const B gvh = full ? B(std::get<2>(gs).narrow(-2, 0, k)) : std::get<2>(gs);
        return svd_backward(u, r.S, vh, gu, std::get<1>(gs), gvh, gauge.take());
      });
  return svd_result<T, R>{std::move(u), std::move(s), std::move(vh)};
}

template <class E>
svd_result<ag_value_t<E>, ag_rank_v<E>> record_svd(const E& e, bool full_matrices) {
  return record_svd_impl(tensor<value_of_t<E>, std::remove_cvref_t<E>::rank>(ad::materialize_forward(e)),
                         full_matrices, true);
}

template <class E>
tensor<real_t<ag_value_t<E>>, ag_rank_v<E> - 1> record_svdvals(const E& e) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  using S = tensor<real_t<T>, R - 1>;
  const M a = ad::materialize_forward(e);
  // As torch: with a gradient to compute, the singular vectors are formed too.
  const svd_result<T, R> r = unrecorded([&] { return tl::linalg::svd(a, false); });
  auto [s] = record_multi(
      "LinalgSvdBackward", a, std::tuple<S>{r.S},
      [r](const std::tuple<S>& gs, const M& x) {
        const svd_result<T, R> f = backward_records() ? record_svd_impl(x, false, false) : r;
        return svd_values_backward(f.U, std::get<0>(gs), f.Vh);
      },
      [r](const std::tuple<batched_t<S>>& gs, const M&) { return svd_values_backward(r.U, std::get<0>(gs), r.Vh); });
  return s;
}

// ---- eig ---------------------------------------------------------------------------------------

/// G_A = V^-H diag(G_L) V^H (the gradient when only the eigenvalues receive one).
template <class M, class W>
M eig_values_backward(const M& v, const W& gw) {
  const M vh = v.mH();
  return tl::linalg::solve(vh, M(ad::materialize(gw.unsqueeze(-1) * vh)));
}

/// torch's linalg_eig_backward (non-Hermitian case) for complex L [*, n] and V [*, n, n].
template <class M, class W>
M eig_backward(const W& w, const M& v, const W& gw, const M& gv, bool check) {
  using T = typename M::value_type;
  constexpr std::size_t R = M::rank;
  if (all_zero(gv)) return eig_values_backward(v, gw);
  const M vh = v.mH();
  const M vhgv = tl::matmul(vh, gv);
  if (check)
    check_imag_diagonal(vhgv, static_cast<const M*>(nullptr), [&](index_t b, index_t i, double x, double) {
      throw autograd_error(cat_str(
          "tl::linalg::eig: backward: the eigenvectors are determined only up to a phase e^{i phi} each (after "
          "normalization to unit norm), and the loss depends on it (Im diag(V^H G_V) = ",
          x, " at eigenvalue ", i, batch_note(b, R > 2),
          ", not 0), so its gradient is not defined (torch raises too). Use a loss invariant to the phases, e.g. "
          "one of |V| or V diag(L) V^-1"));
    });
  // Project onto the tangent space of matrices with unit-norm columns: W = V^H G_V - V^H V diag(Re diag(V^H G_V)).
  const tensor<T, R - 1> re = ad::as_dtype<T>(tl::real(vhgv.diagonal(0, -2, -1)));
  const M proj = ad::materialize(vhgv - tl::matmul(vh, M(ad::materialize(v * re.unsqueeze(-2)))));
  const index_t n = w.shape()[R - 2];
  const tensor<T, 2> id = tl::eye<T>(n);
  const tensor<T, R - 1> wc = w.conj();  // a recorded view (its gradient reaches L under create_graph)
  const M e = ad::materialize(wc.unsqueeze(-2) - wc.unsqueeze(-1) + id);  // conj(L_j - L_i), 1 on the diagonal
  const M inner = ad::materialize(proj / e + diag_matrices<T>(gw));
  return tl::linalg::solve(vh, tl::matmul(inner, vh));
}

template <class M, class C = typename M::value_type, std::size_t R = M::rank>
eig_result<C, R> record_eig_impl(const M& a, bool check) {
  using W = tensor<C, R - 1>;
  const eig_result<C, R> r = unrecorded([&] { return eig_impl<true>("eig", a); });
  auto [w, v] = record_multi("LinalgEigBackward", a, std::tuple<W, M>{r.eigenvalues, r.eigenvectors},
                             [r, gauge = gauge_check{check}](const std::tuple<W, M>& gs, const M& x) {
                               const eig_result<C, R> f = backward_records() ? record_eig_impl(x, false) : r;
                               return eig_backward(f.eigenvalues, f.eigenvectors, std::get<0>(gs), std::get<1>(gs),
                                                   gauge.take());
                             });
  return eig_result<C, R>{std::move(w), std::move(v)};
}

/// The input as a complex tensor (a recorded cast for real input, whose gradient is then the real part).
template <class E, class C = eig_complex_t<value_of_t<E>>, std::size_t R = std::remove_cvref_t<E>::rank>
tensor<C, R> eig_input(const E& e) {
  if constexpr (is_complex_v<value_of_t<E>>) return ad::materialize_forward(e);
  else return tensor<C, R>(tl::astype<C>(ad::materialize_forward(e)));
}

template <class E>
eig_result<eig_complex_t<ag_value_t<E>>, ag_rank_v<E>> record_eig(const E& e) {
  using C = eig_complex_t<value_of_t<E>>;
  return record_eig_impl(tensor<C, std::remove_cvref_t<E>::rank>(eig_input(e)), true);
}

template <class E>
tensor<eig_complex_t<ag_value_t<E>>, ag_rank_v<E> - 1> record_eigvals(const E& e) {
  using C = eig_complex_t<value_of_t<E>>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<C, R>;
  using W = tensor<C, R - 1>;
  const M a = eig_input(e);
  // As torch: with a gradient to compute, the eigenvectors are formed too.
  const eig_result<C, R> r = unrecorded([&] { return eig_impl<true>("eigvals", a); });
  auto [w] = record_multi("LinalgEigBackward", a, std::tuple<W>{r.eigenvalues}, [r](const std::tuple<W>& gs, const M& x) {
    const eig_result<C, R> f = backward_records() ? record_eig_impl(x, false) : r;
    return eig_values_backward(f.eigenvectors, std::get<0>(gs));
  });
  return w;
}

// ---- pinv --------------------------------------------------------------------------------------

/// torch's pinv_backward: the gradient of A from that of X = A^+ (products ordered to keep the
/// intermediate matrices of size min(m, n)).
template <class M>
M pinv_backward(const M& g, const M& p, const M& a) {
  constexpr std::size_t R = M::rank;
  const index_t m = a.shape()[R - 2], n = a.shape()[R - 1];
  const M ph = p.mH(), gh = g.mH();
  if (m <= n) {
    const M k = tl::matmul(gh, p);
    const M kph = tl::matmul(k, ph);
    const M rest = ad::materialize(gh - tl::matmul(k, a));
    return ad::materialize(kph - tl::matmul(p, k).mH() - tl::matmul(tl::matmul(a, p), kph) +
                           tl::matmul(tl::matmul(ph, p), rest));
  }
  const M k = tl::matmul(p, gh);
  const M phk = tl::matmul(ph, k);
  const M rest = ad::materialize(gh - tl::matmul(a, k));
  return ad::materialize(phk - tl::matmul(k, p).mH() + tl::matmul(tl::matmul(rest, p), ph) -
                         tl::matmul(tl::matmul(phk, p), a));
}

template <class E>
tensor<ag_value_t<E>, ag_rank_v<E>> record_pinv(const E& e, std::optional<double> atol, std::optional<double> rtol,
                                                bool hermitian) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  const M a = ad::materialize_forward(e);
  M x = unrecorded([&] { return tl::linalg::pinv(a, atol, rtol, hermitian); });
  ad::record_fn(
      "LinalgPinvBackward", x,
      [atol, rtol, hermitian](const M& g, const std::tuple<M>& in, const M& res, const std::array<bool, 1>&) {
        const M& xa = std::get<0>(in);
        const M p = backward_records() ? tl::linalg::pinv(xa, atol, rtol, hermitian) : res;
        return std::make_tuple(pinv_backward(g, p, xa));
      },
      std::array<bool, 1>{true}, true, a);
  return x;
}

}  // namespace tl::linalg::detail
