#pragma once
/// @file autograd.hpp
/// @brief Internal header: autograd rules of tl::linalg (included by tl/linalg/linalg.hpp when
/// TL_AUTOGRAD is on). The formulas are torch's (FunctionsManual.cpp); every backward is written
/// with recorded tl operations (matmul, solve, solve_triangular, inv, views, fused expressions),
/// and where it reads the forward result it recomputes it with the recorded operation under
/// create_graph, so second derivatives are exact.
///
/// - det: g conj(det) A^-H; slogdet: (g_logabsdet + i Im(conj(sign) g_sign)) A^-H. Both throw
///   tl::linalg_error at an exactly singular matrix (det = 0) instead of returning NaNs.
/// - inv: -A^-H G A^-H; solve: G_B = A^-H G (the system with A^H), G_A = -G_B X^H (right: -X^H G_B);
///   a batch of cotangents through one unbatched A is one solve with all of them as right-hand sides.
/// - cholesky: A^-H-congruence of tril(L^H G_L) with the diagonal halved, symmetrized (Murray 2016).
/// - det, inv and cholesky also have a batched rule (the same formula over a batch of cotangents),
///   so a vectorized jacobian or grad_batched runs them once rather than once per cotangent.
/// - solve_triangular: G_B from the system with A^H, G_A = -G_B X^H restricted to A's triangle; a
///   batch of cotangents with unbatched A and B is one triangular solve.
/// - lu_factor / lu: square P L^-H (tril(L^H G_L, -1) + triu(G_U U^H)) U^-H; wide and tall
///   matrices as torch 1.13 (see lu_backward).
/// - lu_solve: G_B and G_LU for every left/adjoint combination (G_LU from the gradient of A = P L U);
///   a batch of cotangents with unbatched LU and B is one lu_solve and one set of products.
/// - eigh: V (skew(V^H G_V) / E + diag(G_L)) V^H with E_ij = L_j - L_i; eigvalsh: V diag(G_L) V^H.
///   (Repeated eigenvalues make E_ij zero: the eigenvector gradient is then infinite or NaN, as in
///   torch.) eigh and eigvalsh get an overload here that records, since their header has no hook.
#include <array>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "tl/linalg/cholesky.hpp"
#include "tl/linalg/det.hpp"
#include "tl/linalg/eigh.hpp"
#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/inv.hpp"
#include "tl/linalg/lu.hpp"
#include "tl/linalg/lu_factor.hpp"
#include "tl/linalg/lu_solve.hpp"
#include "tl/linalg/solve.hpp"
#include "tl/linalg/solve_triangular.hpp"

// The autograd layer relies on the reductions and ops being declared first (the umbrella order).
#include "tl/reduce/reduce.hpp"

#include "tl/ops/ops.hpp"

#include "tl/autograd/autograd.hpp"

namespace tl::linalg::detail {

namespace ad = tl::detail;

template <class V>
struct grad_rules_included<V, std::void_t<V>> : std::true_type {};

/// The tensor type of a batch of gradients of X: one more leading dim (the vectorized backward's
/// cotangents). The rules with a batched form are written once over the gradient's type, their
/// operations broadcasting the forward's tensors over that dim.
template <class X>
using batched_t = tensor<typename X::value_type, X::rank + 1>;

/// f() evaluated without recording.
template <class F>
auto unrecorded(F&& f) {
  no_grad guard;
  return f();
}

/// a g for one matrix a and g one matrix or a batch of them. For a batch (g of higher rank than a)
/// it is formed as (g^H a^H)^H from contiguous copies: matmul runs a contiguous batch on the left
/// of one matrix as one product (the batch folded into its rows), but a batch on the right, or a
/// transposed batch, as one product per matrix. The result is contiguous.
template <class A, class G>
G times_batch(const A& a, const G& g) {
  if constexpr (G::rank > A::rank) return G(G(tl::matmul(G(g.mH()).contiguous(), a.mH())).mH()).contiguous();
  else return G(tl::matmul(a, g));
}

/// A linear map on the right-hand side of a system (a solve with A fixed: op(M) for a matrix M of
/// right-hand sides) applied to a whole batch of cotangents gbt ([batch] ++ X's shape) at once, so
/// that A is factored once for all of them. A left map takes the cotangents side by side as
/// columns ([m, batch * k], or [n, batch] for a vector X), a right one stacked as rows
/// ([batch * m, k], or [batch, n]); op returns a matrix of the shape it was given.
template <class X, class Op>
batched_t<X> through_rhs_batch(const batched_t<X>& gbt, bool left, Op&& op) {
  using M2 = tensor<typename X::value_type, 2>;
  static_assert(X::rank == 1 || X::rank == 2, "tl: through_rhs_batch takes a vector or a matrix rhs");
  if constexpr (X::rank == 1) {
    if (!left) return batched_t<X>(M2(op(M2(gbt.contiguous())))).contiguous();
    return batched_t<X>(M2(op(M2(gbt.mT()))).mT()).contiguous();
  } else {
    const index_t batch = gbt.shape()[0], m = gbt.shape()[1], k = gbt.shape()[2];
    if (!left) {
      const M2 rows = batched_t<X>(gbt).contiguous().reshape(shape_t<2>{batch * m, k});
      return batched_t<X>(M2(op(rows)).reshape(shape_t<3>{batch, m, k}));
    }
    const M2 cols = batched_t<X>(gbt.transpose(0, 1)).contiguous().reshape(shape_t<2>{m, batch * k});
    return batched_t<X>(M2(op(cols)).reshape(shape_t<3>{m, batch, k}).transpose(0, 1)).contiguous();
  }
}

/// The batched rule of a solve X = op(A)^-1 B with one unbatched A and B (Ok; otherwise it declines
/// and the plain rule runs per cotangent): G_B for every cotangent is adjoint_solve(A, rhs) (the
/// system with op(A)^H) with all of them as its right-hand sides (through_rhs_batch), so A is
/// factored once, and G_A is grad_a(A, X, G_B) over the batch. B has X's shape here (no
/// broadcasting), so G_B is B's gradient as it stands.
template <bool Ok, class X, class MA, class MB, class Solve, class GradA>
auto solve_batched_rule(bool left, Solve adjoint_solve, GradA grad_a) {
  return [left, adjoint_solve, grad_a](const batched_t<X>& gbt, const std::tuple<MA, MB>& in, const X& x,
                                       const std::array<bool, 2>& need)
             -> std::optional<std::tuple<batched_t<MA>, batched_t<MB>>> {
    if constexpr (!Ok) {
      return std::nullopt;
    } else {
      return unrecorded([&] {
        using T = typename X::value_type;
        const MA& x_a = std::get<0>(in);
        const batched_t<X> gbb =
            through_rhs_batch<X>(gbt, left, [&](const auto& rhs) { return adjoint_solve(x_a, rhs); });
        batched_t<MA> ga = ad::undefined_tensor<T, MA::rank + 1>();
        batched_t<MB> gbo = ad::undefined_tensor<T, MB::rank + 1>();
        if (need[1]) gbo = gbb;
        if (need[0]) ga = grad_a(x_a, x, gbb);
        return std::optional(std::make_tuple(ga, gbo));
      });
    }
  };
}

/// Whether the backward being run records itself (create_graph): then what it reads from the
/// forward result is recomputed with recorded operations.
inline bool backward_records() { return is_grad_enabled(); }

/// g of shape [*] as [*, 1, 1] (a recorded view), to scale a batch of matrices.
template <class G>
tensor<typename G::value_type, G::rank + 2> as_matrix_scale(const G& g) {
  constexpr std::size_t R = G::rank;
  return g.unsqueeze(static_cast<index_t>(R)).unsqueeze(static_cast<index_t>(R + 1));
}

/// x (a batch of m x n matrices) with the entries outside tril(x, k) (or triu(x, k) when `upper`)
/// set to zero and the main diagonal, where kept, scaled by `diag`.
template <class X, class T = typename X::value_type, std::size_t R = X::rank>
tensor<T, R> tri(const X& x, bool upper, index_t k, real_t<T> diag = 1) {
  const index_t m = x.shape()[R - 2], n = x.shape()[R - 1];
  tensor<T, 2> mask(shape_t<2>{m, n});
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      const index_t d = j - i;
      const bool keep = upper ? d >= k : d <= k;
      mask.data()[i * n + j] = keep ? T(d == 0 ? diag : real_t<T>(1)) : T(0);
    }
  return ad::materialize(x * mask);
}

/// Throws for an exactly singular matrix (a zero determinant or sign) in the backward of `op`.
template <class D, class T = typename D::value_type, std::size_t RB = D::rank>
void require_nonsingular(const char* op, const D& d) {
  const tensor<T, RB> c = d.detach().contiguous();
  for (index_t b = 0; b < c.numel(); ++b)
    if (c.data()[b] == T(0))
      throw linalg_error(cat_str("tl::linalg::", op, ": backward: the input matrix", batch_note(b, RB > 0),
                                 " is singular (its determinant is 0); the gradient at singular matrices is not "
                                 "implemented"));
}

/// Records `name` for several outputs of dtype T or real_t<T> computed from one input `a`: the
/// outputs are flattened and concatenated into one 1-D tensor (the node's output) and returned as
/// views of it. bw(output gradients, a) returns a's gradient (outputs that received no gradient
/// get zeros).
template <class X, class Bwd, class... Outs>
std::tuple<Outs...> record_multi(const char* name, const X& a, const std::tuple<Outs...>& outs, Bwd bw);

template <class T, class... Outs, std::size_t... K>
std::tuple<Outs...> split_outputs(const tensor<T, 1>& flat, const std::tuple<shape_t<Outs::rank>...>& shapes,
                                  std::index_sequence<K...>) {
  std::array<index_t, sizeof...(Outs) + 1> off{};
  ((off[K + 1] = off[K] + tl::detail::numel(std::get<K>(shapes))), ...);
  auto piece = [&](auto tag, const auto& s, index_t o) {
    using Out = typename decltype(tag)::type;
    const auto v = flat.narrow(0, o, tl::detail::numel(s)).reshape(s);
    if constexpr (std::is_same_v<typename Out::value_type, T>) return Out(v);
    else return Out(v.real().contiguous());  // a real output of a complex input
  };
  return std::tuple<Outs...>{piece(std::type_identity<Outs>{}, std::get<K>(shapes), off[K])...};
}

/// The outputs' gradients for a batch of cotangents of the flat output ([batch, total]): each
/// [batch] ++ its output's shape.
template <class T, class... Outs, std::size_t... K>
std::tuple<batched_t<Outs>...> split_outputs_batched(const tensor<T, 2>& flat,
                                                     const std::tuple<shape_t<Outs::rank>...>& shapes,
                                                     std::index_sequence<K...>) {
  std::array<index_t, sizeof...(Outs) + 1> off{};
  ((off[K + 1] = off[K] + tl::detail::numel(std::get<K>(shapes))), ...);
  const index_t batch = flat.shape()[0];
  auto piece = [&](auto tag, const auto& s, index_t o) {
    using Out = batched_t<typename decltype(tag)::type>;
    const auto v = flat.narrow(1, o, tl::detail::numel(s)).contiguous().reshape(tl::detail::batched_shape(batch, s));
    if constexpr (std::is_same_v<typename Out::value_type, T>) return Out(v);
    else return Out(v.real().contiguous());
  };
  return std::tuple<batched_t<Outs>...>{piece(std::type_identity<Outs>{}, std::get<K>(shapes), off[K])...};
}

/// record_multi with a batched rule as well: bwb(the outputs' gradients for a batch of cotangents,
/// each [batch] ++ its output's shape, a) returns a's gradients for the batch ([batch] ++ a's
/// shape), so that a vectorized backward runs the formula once for all cotangents.
template <class X, class Bwd, class BwdB, class... Outs>
std::tuple<Outs...> record_multi(const char* name, const X& a, const std::tuple<Outs...>& outs, Bwd bw, BwdB bwb);

template <class X, class Bwd, class... Outs>
std::tuple<Outs...> record_multi(const char* name, const X& a, const std::tuple<Outs...>& outs, Bwd bw) {
  return record_multi(name, a, outs, std::move(bw), nullptr);
}

template <class X, class Bwd, class BwdB, class... Outs>
std::tuple<Outs...> record_multi(const char* name, const X& a, const std::tuple<Outs...>& outs, Bwd bw, BwdB bwb) {
  using T = typename X::value_type;
  using F = tensor<T, 1>;
  using shapes_t = std::tuple<shape_t<Outs::rank>...>;
  const shapes_t shapes = std::apply([](const auto&... o) { return shapes_t{o.shape()...}; }, outs);
  const index_t total = std::apply([](const auto&... o) { return (index_t{0} + ... + o.numel()); }, outs);
  F flat(shape_t<1>{total});
  {
    index_t off = 0;
    auto put = [&](const auto& o) {
      const auto c = o.contiguous();
      for (index_t i = 0; i < c.numel(); ++i) flat.data()[off + i] = T(c.data()[i]);
      off += c.numel();
    };
    std::apply([&](const auto&... o) { (put(o), ...); }, outs);
  }
  using seq = std::index_sequence_for<Outs...>;
  auto plain = [shapes, bw](const F& g, const std::tuple<X>& in, const F&, const std::array<bool, 1>&) {
    return std::make_tuple(X(bw(split_outputs<T, Outs...>(g, shapes, seq{}), std::get<0>(in))));
  };
  if constexpr (std::is_same_v<BwdB, std::nullptr_t>) {
    ad::record_fn(name, flat, std::move(plain), std::array<bool, 1>{true}, false, a);
  } else {
    ad::record_fn_batched(
        name, flat, std::move(plain),
        [shapes, bwb](const batched_t<F>& gb, const std::tuple<X>& in, const F&, const std::array<bool, 1>&) {
          return std::optional(std::make_tuple(
              batched_t<X>(unrecorded([&] { return bwb(split_outputs_batched<T, Outs...>(gb, shapes, seq{}), std::get<0>(in)); }))));
        },
        std::array<bool, 1>{true}, false, a);
  }
  return split_outputs<T, Outs...>(flat, shapes, seq{});
}

// ---- determinants ------------------------------------------------------------------------------

template <class E>
tensor<ag_value_t<E>, ag_rank_v<E> - 2> record_det(const E& e) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  using D = tensor<T, R - 2>;
  const M a = ad::materialize_forward(e);
  D d = unrecorded([&] { return tl::linalg::det(a); });
  // g ([*], or [B, *] for a batch of cotangents) times conj(det) A^-H, broadcast over the batch.
  const auto rule = [](const auto& g, const M& x, const D& dv) {
    require_nonsingular("det", dv);
    const M xi = tl::linalg::inv(x);
    return ad::materialize(as_matrix_scale(ad::materialize(g * tl::conj(dv))) * xi.mH());
  };
  ad::record_fn_batched(
      "LinalgDetBackward", d,
      [rule](const D& g, const std::tuple<M>& in, const D& res, const std::array<bool, 1>&) {
        const M& x = std::get<0>(in);
        return std::make_tuple(M(rule(g, x, backward_records() ? tl::linalg::det(x) : res)));
      },
      [rule](const batched_t<D>& gb, const std::tuple<M>& in, const D& res, const std::array<bool, 1>&) {
        return std::optional(std::make_tuple(batched_t<M>(rule(gb, std::get<0>(in), res))));
      },
      std::array<bool, 1>{true}, true, a);
  return d;
}

template <class E>
slogdet_result<ag_value_t<E>, ag_rank_v<E> - 2> record_slogdet(const E& e) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  using S = tensor<T, R - 2>;
  using L = tensor<real_t<T>, R - 2>;
  const M a = ad::materialize_forward(e);
  auto r = unrecorded([&] { return tl::linalg::slogdet(a); });
  auto [sign, logabsdet] = record_multi(
      "LinalgSlogdetBackward", a, std::tuple<S, L>{r.sign, r.logabsdet},
      [](const std::tuple<S, L>& gs, const M& x) {
        const auto sl = tl::linalg::slogdet(x);  // recorded under create_graph
        require_nonsingular("slogdet", sl.sign);
        S h;
        if constexpr (is_complex_v<T>)
          h = ad::materialize(tl::astype<T>(std::get<1>(gs)) +
                              tl::astype<T>(tl::imag(tl::conj(sl.sign) * std::get<0>(gs))) * T(0, 1));
        else
          h = std::get<1>(gs);
        const M xi = tl::linalg::inv(x);
        return M(ad::materialize(as_matrix_scale(h) * xi.mH()));
      });
  return slogdet_result<T, R - 2>{std::move(sign), std::move(logabsdet)};
}

// ---- inverse and solves ------------------------------------------------------------------------

template <bool Throw, class E>
inv_ex_result<ag_value_t<E>, ag_rank_v<E>> record_inv(const char* op, const E& e) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  const M a = ad::materialize_forward(e);
  auto r = unrecorded([&] { return inv_impl<Throw>(op, a); });
  ad::record_fn_batched(
      "LinalgInvBackward", r.inverse,
      [](const M& g, const std::tuple<M>& in, const M& res, const std::array<bool, 1>&) {
        const M y = backward_records() ? tl::linalg::inv(std::get<0>(in)) : res;
        const M yh = y.mH();
        return std::make_tuple(M(ad::materialize(-tl::matmul(tl::matmul(yh, g), yh))));  // -Y^H G Y^H
      },
      // For a batch of cotangents, -Y^H G_b Y^H = ((G_b Y^H)^H (-Y))^H: both products take Y on
      // the right, where matmul folds the whole batch into one product (when Y itself has no
      // batch); the sign goes on Y, not on the batch.
      [](const batched_t<M>& gb, const std::tuple<M>&, const M& y, const std::array<bool, 1>&) {
        const batched_t<M> w = batched_t<M>(tl::matmul(gb, y.mH()).mH()).contiguous();
        return std::optional(std::make_tuple(batched_t<M>(tl::matmul(w, M(-y)).mH()).contiguous()));
      },
      std::array<bool, 1>{true}, true, a);
  return r;
}

template <bool Throw, class EA, class EB>
solve_ex_result<ag_value_t<EA>, ag_solve_rank_v<ag_rank_v<EA>, ag_rank_v<EB>>, ag_rank_v<EA> - 2> record_solve(
    const char* op, const EA& ea, const EB& eb, bool left) {
  using T = value_of_t<EA>;
  constexpr std::size_t RA = std::remove_cvref_t<EA>::rank, RB = std::remove_cvref_t<EB>::rank;
  constexpr bool vec = solve_vector_rhs_v<RA, RB>;
  using MA = tensor<T, RA>;
  using MB = tensor<T, RB>;
  const MA a = ad::materialize_forward(ea);
  const MB b = ad::materialize_forward(eb);
  auto r = unrecorded([&] { return solve_impl<Throw>(op, a, b, left); });
  using X = decltype(r.result);
  // For a batch of cotangents with one unbatched A: G_B = A^-H G (left) or G A^-H (right) for
  // every cotangent is one solve with all of them as its right-hand sides (through_rhs_batch), so one
  // factorization for them all; G_A = -G_B X^H (left) or -X^H G_B (right) is one product with X
  // shared (matmul broadcasts it over the batch). A batched A, or a batched b broadcast against an
  // unbatched A, declines: the plain rule runs per cotangent.
  auto batched = solve_batched_rule<RA == 2 && RB <= 2, X, MA, MB>(
      left, [left](const MA& x_a, const auto& rhs) { return tl::linalg::solve(x_a.mH(), rhs, left); },
      [left](const auto& x_a, const auto& x, const auto& gbb) {  // generic: instantiated only where Ok
        using BA = batched_t<std::remove_cvref_t<decltype(x_a)>>;
        if constexpr (vec) return BA(-tl::matmul(gbb.unsqueeze(-1), x.unsqueeze(-1).mH())).contiguous();
        else if (left) return BA(-tl::matmul(gbb, x.mH())).contiguous();
        else return BA(times_batch(X(-x).mH(), gbb));
      });
  ad::record_fn_batched(
      "LinalgSolveBackward", r.result,
      [left](const X& g, const std::tuple<MA, MB>& in, const X& res, const std::array<bool, 2>& need) {
        const MA& x_a = std::get<0>(in);
        const MB& x_b = std::get<1>(in);
        const X x = backward_records() ? tl::linalg::solve(x_a, x_b, left) : res;
        const X gb = tl::linalg::solve(x_a.mH(), g, left);  // A^-H G (left) or G A^-H (right)
        MA ga = ad::undefined_tensor<T, RA>();
        MB gbo = ad::undefined_tensor<T, RB>();
        if (need[1]) gbo = ad::sum_to(gb, x_b.shape());
        if (need[0]) {
          if constexpr (vec)
            ga = ad::sum_to(-tl::matmul(gb.unsqueeze(-1), x.unsqueeze(-1).mH()), x_a.shape());
          else if (left)
            ga = ad::sum_to(-tl::matmul(gb, x.mH()), x_a.shape());
          else
            ga = ad::sum_to(-tl::matmul(x.mH(), gb), x_a.shape());
        }
        return std::make_tuple(ga, gbo);
      },
      std::move(batched), std::array<bool, 2>{true, true}, true, a, b);
  return r;
}

template <class EA, class EB>
tensor<ag_value_t<EA>, std::max(ag_rank_v<EA>, ag_rank_v<EB>)> record_solve_triangular(const EA& ea, const EB& eb,
                                                                                      bool upper, bool left,
                                                                                      bool unitriangular) {
  using T = value_of_t<EA>;
  constexpr std::size_t RA = std::remove_cvref_t<EA>::rank, RB = std::remove_cvref_t<EB>::rank;
  using MA = tensor<T, RA>;
  using MB = tensor<T, RB>;
  const MA a = ad::materialize_forward(ea);
  const MB b = ad::materialize_forward(eb);
  auto x = unrecorded([&] { return tl::linalg::solve_triangular(a, b, upper, left, unitriangular); });
  using X = decltype(x);
  // For a batch of cotangents with unbatched A and B: G_B for every cotangent is one triangular
  // solve with all of them as its right-hand sides (through_rhs_batch); G_A = -G_B X^H (left) or
  // -X^H G_B (right) over the batch, restricted to A's triangle. A batched A or B declines.
  auto batched = solve_batched_rule<RA == 2 && RB == 2, X, MA, MB>(
      left,
      [upper, left, unitriangular](const MA& x_a, const auto& rhs) {
        return tl::linalg::solve_triangular(x_a.mH(), rhs, !upper, left, unitriangular);
      },
      [upper, left, unitriangular](const auto& x_a, const auto& xs, const auto& gbb) {
        using BA = batched_t<std::remove_cvref_t<decltype(x_a)>>;
        const X mxs = -xs;
        const BA full = left ? BA(tl::matmul(gbb, mxs.mH())) : BA(times_batch(mxs.mH(), gbb));
        const index_t kd = upper ? (unitriangular ? 1 : 0) : (unitriangular ? -1 : 0);
        return BA(tri(full, upper, kd).contiguous());
      });
  ad::record_fn_batched(
      "LinalgSolveTriangularBackward", x,
      [upper, left, unitriangular](const X& g, const std::tuple<MA, MB>& in, const X& res,
                                   const std::array<bool, 2>& need) {
        const MA& x_a = std::get<0>(in);
        const MB& x_b = std::get<1>(in);
        const X xs = backward_records() ? tl::linalg::solve_triangular(x_a, x_b, upper, left, unitriangular) : res;
        const X gb = tl::linalg::solve_triangular(x_a.mH(), g, !upper, left, unitriangular);
        MA ga = ad::undefined_tensor<T, RA>();
        MB gbo = ad::undefined_tensor<T, RB>();
        if (need[1]) gbo = ad::sum_to(gb, x_b.shape());
        if (need[0]) {
          const X full = ad::materialize(-(left ? tl::matmul(gb, xs.mH()) : tl::matmul(xs.mH(), gb)));
          const index_t k = upper ? (unitriangular ? 1 : 0) : (unitriangular ? -1 : 0);
          ga = ad::sum_to(tri(full, upper, k), x_a.shape());
        }
        return std::make_tuple(ga, gbo);
      },
      std::move(batched), std::array<bool, 2>{true, true}, true, a, b);
  return x;
}

template <bool Throw, class E>
cholesky_ex_result<ag_value_t<E>, ag_rank_v<E>> record_cholesky(const char* op, const E& e, bool upper) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  const M a = ad::materialize_forward(e);
  auto r = unrecorded([&] { return cholesky_impl<Throw>(op, a, upper); });
  // G of the factor's shape or a batch of them ([B] ++ that shape; the factor broadcasts).
  const auto rule = [upper](const auto& g, const M& f) {
    using G = std::remove_cvref_t<decltype(g)>;
    const M l = upper ? M(f.mH()) : f;  // A = L L^H
    const G gl = upper ? G(g.mH()) : g;
    const G phi = tri(G(tl::matmul(l.mH(), gl)), false, 0, real_t<T>(0.5));
    const G y = tl::linalg::solve_triangular(l.mH(), phi, true);     // L^-H phi
    const G ga = tl::linalg::solve_triangular(l, y, false, false);  // L^-H phi L^-1
    return ad::materialize((ga + ga.mH()) * real_t<T>(0.5));
  };
  ad::record_fn_batched(
      "LinalgCholeskyBackward", r.L,
      [rule, upper](const M& g, const std::tuple<M>& in, const M& res, const std::array<bool, 1>&) {
        return std::make_tuple(M(rule(g, backward_records() ? tl::linalg::cholesky(std::get<0>(in), upper) : res)));
      },
      [rule](const batched_t<M>& gb, const std::tuple<M>&, const M& res, const std::array<bool, 1>&) {
        return std::optional(std::make_tuple(batched_t<M>(rule(gb, res))));
      },
      std::array<bool, 1>{true}, true, a);
  return r;
}

// ---- LU ----------------------------------------------------------------------------------------

/// The permutation matrices P (A = P L U) of a batch of m x m factorizations from their 1-based
/// pivots [*, k] (constants: pivots carry no gradient).
template <class T, class PV, std::size_t RP = PV::rank>
tensor<T, RP + 1> permutation_matrices(const PV& pivots, index_t m) {
  const tensor<std::int32_t, RP> pv = pivots.contiguous();
  const index_t k = pv.shape()[RP - 1];
  shape_t<RP + 1> s{};
  for (std::size_t q = 0; q + 1 < RP; ++q) s[q] = pv.shape()[q];
  s[RP - 1] = s[RP] = m;
  tensor<T, RP + 1> p = zeros<T>(s);
  const index_t nb = k > 0 ? pv.numel() / k : tl::detail::numel(s) / std::max<index_t>(m * m, 1);
  std::vector<index_t> perm(static_cast<std::size_t>(m));
  for (index_t b = 0; b < nb; ++b) {
    std::iota(perm.begin(), perm.end(), index_t{0});
    for (index_t i = 0; i < k; ++i)
      std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(pv.data()[b * k + i] - 1)]);
    for (index_t i = 0; i < m; ++i) p.data()[b * m * m + perm[static_cast<std::size_t>(i)] * m + i] = T(1);
  }
  return p;
}

/// The gradient of A = P L U (square) from those of L (unit lower) and U (upper):
/// P L^-H (tril(L^H G_L, -1) + triu(G_U U^H)) U^-H.
template <class M>
M lu_backward_square(const M& p, const M& l, const M& u, const M& gl, const M& gu) {
  const M phi = ad::materialize(tri(M(tl::matmul(l.mH(), gl)), false, -1) + tri(M(tl::matmul(gu, u.mH())), true, 0));
  const M y = tl::linalg::solve_triangular(l.mH(), phi, true, true, true);  // L^-H phi
  const M z = tl::linalg::solve_triangular(u.mH(), y, false, false);        // L^-H phi U^-H
  return tl::matmul(p, z);
}

/// The gradient of A = P L U (m x n, k = min(m, n): L m x k unit lower, U k x n upper) from
/// those of L and U (only their triangles enter). Wide (m < n, A = P L (U1 | U2)):
/// P L^-H (tril(L^H G_L - G_U U^H, -1) U1^-H + G_U1 | G_U2); tall (m > n, A = P (L1; L2) U):
/// P (L1^-H triu(G_U U^H - L^H G_L) + G_L1; G_L2) U^-H (torch 1.13's linalg_lu_backward).
template <class M, std::size_t R = M::rank>
M lu_backward(const M& p, const M& l, const M& u, const M& gl_any, const M& gu_any) {
  const index_t m = l.shape()[R - 2], n = u.shape()[R - 1];
  const M gl = tri(gl_any, false, -1), gu = tri(gu_any, true, 0);
  if (m == n) return lu_backward_square(p, l, u, gl, gu);
  if (m < n) {
    const M u1 = u.narrow(R - 1, 0, m);
    const M x = tri(M(ad::materialize(tl::matmul(l.mH(), gl) - tl::matmul(gu, u.mH()))), false, -1);
    const M y = ad::materialize(tl::linalg::solve_triangular(u1.mH(), x, false, false) + gu.narrow(R - 1, 0, m));
    const M z = tl::cat({y, M(gu.narrow(R - 1, m, n - m))}, static_cast<index_t>(R - 1));
    return tl::matmul(p, tl::linalg::solve_triangular(l.mH(), z, true, true, true));
  }
  const M l1 = l.narrow(R - 2, 0, n);
  const M x = tri(M(ad::materialize(tl::matmul(gu, u.mH()) - tl::matmul(l.mH(), gl))), true, 0);
  const M y = ad::materialize(tl::linalg::solve_triangular(l1.mH(), x, true, true, true) + gl.narrow(R - 2, 0, n));
  const M z = tl::cat({y, M(gl.narrow(R - 2, n, m - n))}, static_cast<index_t>(R - 2));
  return tl::matmul(p, tl::linalg::solve_triangular(u.mH(), z, false, false));
}

/// L (m x k, unit lower, with its diagonal) and U (k x n) of a packed LU factorization, recorded.
template <class M, class T = typename M::value_type, std::size_t R = M::rank>
std::pair<M, M> unpack_lu(const M& f) {
  const index_t m = f.shape()[R - 2], n = f.shape()[R - 1], k = std::min(m, n);
  const tensor<T, 2> id = tl::eye<T>(m, k);
  const M lo = tri(f, false, -1), up = tri(f, true, 0);
  return {ad::materialize(M(lo.narrow(R - 1, 0, k)) + id), up.narrow(R - 2, 0, k)};
}

template <class E>
lu_factor_ex_result<ag_value_t<E>, ag_rank_v<E>> record_lu_factor_ex(const E& e, bool pivot, bool check_errors) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  const M a = ad::materialize_forward(e);
  auto r = unrecorded([&] { return tl::linalg::lu_factor_ex(a, pivot, check_errors); });
  ad::record_fn(
      "LinalgLuFactorExBackward", r.LU,
      [piv = r.pivots, pivot](const M& g, const std::tuple<M>& in, const M& res, const std::array<bool, 1>&) {
        const M& x = std::get<0>(in);
        const M f = backward_records() ? tl::linalg::lu_factor_ex(x, pivot).LU : res;
        const index_t m = f.shape()[R - 2], k = std::min(m, f.shape()[R - 1]);
        const auto [l, u] = unpack_lu(f);
        const M p = permutation_matrices<T>(piv, m);
        return std::make_tuple(lu_backward(p, l, u, M(g.narrow(R - 1, 0, k)), M(g.narrow(R - 2, 0, k))));
      },
      std::array<bool, 1>{true}, true, a);
  return r;
}

template <class E>
lu_result<ag_value_t<E>, ag_rank_v<E>> record_lu(const E& e, bool pivot) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  const M a = ad::materialize_forward(e);
  auto r = unrecorded([&] { return tl::linalg::lu(a, pivot); });
  auto [p, l, u] = record_multi("LinalgLuBackward", a, std::tuple<M, M, M>{r.P, r.L, r.U},
                                [pivot](const std::tuple<M, M, M>& gs, const M& x) {
                                  const lu_result<T, R> f = backward_records()
                                                                ? tl::linalg::lu(x, pivot)
                                                                : unrecorded([&] { return tl::linalg::lu(x, pivot); });
                                  return lu_backward(M(f.P.detach()), f.L, f.U, std::get<1>(gs), std::get<2>(gs));
                                });
  return lu_result<T, R>{std::move(p), std::move(l), std::move(u)};
}

template <class EL, class EP, class EB>
tensor<ag_value_t<EL>, std::max(ag_rank_v<EL>, ag_rank_v<EB>)> record_lu_solve(const EL& el, const EP& ep,
                                                                              const EB& eb, bool left, bool adjoint) {
  using T = value_of_t<EL>;
  constexpr std::size_t RA = std::remove_cvref_t<EL>::rank, RB = std::remove_cvref_t<EB>::rank;
  using MA = tensor<T, RA>;
  using MB = tensor<T, RB>;
  const MA f = ad::materialize_forward(el);
  const tensor<std::int32_t, RA - 1> piv = tensor<std::int32_t, RA - 1>(ep).contiguous();
  const MB b = ad::materialize_forward(eb);
  auto x = unrecorded([&] { return tl::linalg::lu_solve(f, piv, b, left, adjoint); });
  using X = decltype(x);
  // G_LU from G_B (the solution of the system with op(A)^H) and X, for one G_B or a batch of them
  // (G [batch] ++ X's shape; LU, the pivots and X broadcast): G_A of op(A) X = B (left) or
  // X op(A) = B is -G_B X^H, -X G_B^H, -X^H G_B or -G_B^H X; with A = P L U, G_L = tril(P^T G_A U^H, -1)
  // and G_U = triu(L^H P^T G_A), packed into one matrix as LU is.
  const auto grad_lu = [left, adjoint](const MA& x_f, const auto& piv_, const X& xs, const auto& gb) {
    using G = std::remove_cvref_t<decltype(gb)>;
    const X mxs = -xs;
    const G ga = left ? (adjoint ? times_batch(mxs, G(gb.mH())) : G(tl::matmul(gb, mxs.mH())))
                      : (adjoint ? G(tl::matmul(G(gb.mH()), mxs)) : times_batch(mxs.mH(), gb));
    const auto [l, u] = unpack_lu(x_f);
    const MA p = permutation_matrices<T>(piv_, x_f.shape()[RA - 1]);
    const G pga = times_batch(p.mT(), ga);
    return ad::materialize(tri(G(tl::matmul(pga, u.mH())), false, -1) + tri(times_batch(l.mH(), pga), true, 0));
  };
  // For a batch of cotangents with unbatched LU and B: G_B for every cotangent is one lu_solve with
  // all of them as its right-hand sides (through_rhs_batch), and G_LU one set of products over the
  // batch. A batched LU or B declines.
  auto batched = solve_batched_rule<RA == 2 && RB == 2, X, MA, MB>(
      left, [piv, left, adjoint](const MA& x_f, const auto& rhs) { return tl::linalg::lu_solve(x_f, piv, rhs, left, !adjoint); },
      [piv, grad_lu](const auto& x_f, const auto& xs, const auto& gbb) {
        return batched_t<std::remove_cvref_t<decltype(x_f)>>(grad_lu(x_f, piv, xs, gbb));
      });
  ad::record_fn_batched(
      "LinalgLuSolveBackward", x,
      [piv, left, adjoint, grad_lu](const X& g, const std::tuple<MA, MB>& in, const X& res,
                                    const std::array<bool, 2>& need) {
        const MA& x_f = std::get<0>(in);
        const MB& x_b = std::get<1>(in);
        // G_B solves the system with op(A)^H.
        const X gb = tl::linalg::lu_solve(x_f, piv, g, left, !adjoint);
        MA gf = ad::undefined_tensor<T, RA>();
        MB gbo = ad::undefined_tensor<T, RB>();
        if (need[1]) gbo = ad::sum_to(gb, x_b.shape());
        if (need[0]) {
          const X xs = backward_records() ? tl::linalg::lu_solve(x_f, piv, x_b, left, adjoint) : res;
          gf = ad::sum_to(grad_lu(x_f, piv, xs, gb), x_f.shape());
        }
        return std::make_tuple(gf, gbo);
      },
      std::move(batched), std::array<bool, 2>{true, true}, true, f, b);
  return x;
}

}  // namespace tl::linalg::detail

namespace tl::linalg::detail {

// ---- Hermitian eigendecomposition -------------------------------------------------------------

/// A batch of diagonal matrices [*, n, n] of dtype T from d [*, n] (recorded).
template <class T, class D>
tensor<T, D::rank + 1> diag_matrices(const D& d) {
  const index_t n = d.shape()[D::rank - 1];
  const tensor<T, D::rank> dt = ad::materialize(tl::astype<T>(d));
  return ad::materialize(dt.unsqueeze(-1) * tl::eye<T>(n));
}

/// The gradient of A from those of the eigenvalues L and eigenvectors V of A = V diag(L) V^H: one
/// pair of gradients (GL, GM of L's and M's ranks) or a batch of them (one more leading dim; L and
/// V broadcast, the products with V on the left of the batch formed by times_batch).
template <class M, class L, class GL, class GM>
GM eigh_backward(const L& w, const M& v, const GL& gw, const GM& gv) {
  using T = typename M::value_type;
  const index_t n = v.shape()[M::rank - 1];
  const tensor<T, 2> id = tl::eye<T>(n);
  const tensor<T, 2> offd = ad::materialize(T(1) - id);
  const GM vhgv = times_batch(M(v.mH()), gv);
  // Only the skew-Hermitian part of V^H G_V enters: the part of the gradient along the phases of
  // the eigenvectors (which eigh does not determine) is dropped. torch raises when that part is
  // not negligible; a per-node check cannot be made here, because under double backward the
  // forward's and the recomputed decomposition each receive a part of the gradient and only their
  // sum is phase invariant. (Skew-Hermitian: the tangent space of the unitary group.)
  const GM skew = ad::materialize((vhgv - vhgv.mH()) * real_t<T>(0.5));
  const L wi = w;
  const M e = ad::materialize(tl::astype<T>(wi.unsqueeze(-2) - wi.unsqueeze(-1)) + id);  // E_ij = L_j - L_i
  const GM inner = ad::materialize(skew / e * offd + diag_matrices<T>(gw));
  return tl::matmul(times_batch(v, inner), v.mH());
}

template <class E>
eigh_result<ag_value_t<E>, ag_rank_v<E>> record_eigh(const E& e, std::string_view uplo) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  using L = tensor<real_t<T>, R - 1>;
  const M a = ad::materialize_forward(e);
  auto r = unrecorded([&] { return eigh_impl<true>("eigh", a, uplo); });
  // The backward takes the forward's decomposition (recomputed, recorded, only under create_graph);
  // a batch of cotangents runs the formula once.
  auto [w, v] = record_multi(
      "LinalgEighBackward", a, std::tuple<L, M>{r.eigenvalues, r.eigenvectors},
      [r, u = std::string(uplo)](const std::tuple<L, M>& gs, const M& x) {
        const auto f = backward_records() ? tl::linalg::eigh(x, u) : r;
        return eigh_backward(f.eigenvalues, f.eigenvectors, std::get<0>(gs), std::get<1>(gs));
      },
      [r](const std::tuple<batched_t<L>, batched_t<M>>& gs, const M&) {
        return eigh_backward(r.eigenvalues, r.eigenvectors, std::get<0>(gs), std::get<1>(gs));
      });
  return eigh_result<T, R>{std::move(w), std::move(v)};
}

template <class E>
tensor<real_t<ag_value_t<E>>, ag_rank_v<E> - 1> record_eigvalsh(const E& e, std::string_view uplo) {
  using T = value_of_t<E>;
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  using M = tensor<T, R>;
  using L = tensor<real_t<T>, R - 1>;
  const M a = ad::materialize_forward(e);
  // As torch: with a gradient to compute, the eigenvectors are formed too (the backward needs them).
  const auto r = unrecorded([&] { return eigh_impl<true>("eigvalsh", a, uplo); });
  // G_A = V diag(G_L) V^H, for one G_L or a batch of them
  const auto rule = [](const M& v, const auto& gw) {
    using G = tensor<T, std::remove_cvref_t<decltype(gw)>::rank + 1>;  // a matrix per gradient
    return G(tl::matmul(times_batch(v, G(diag_matrices<T>(gw))), v.mH()));
  };
  auto [wo] = record_multi(
      "LinalgEigvalshBackward", a, std::tuple<L>{r.eigenvalues},
      [r, rule, u = std::string(uplo)](const std::tuple<L>& gs, const M& x) {
        return M(rule(backward_records() ? M(tl::linalg::eigh(x, u).eigenvectors) : r.eigenvectors, std::get<0>(gs)));
      },
      [r, rule](const std::tuple<batched_t<L>>& gs, const M&) { return rule(r.eigenvectors, std::get<0>(gs)); });
  return wo;
}

}  // namespace tl::linalg::detail
#include "tl/linalg/detail/autograd_spectral.hpp"
#include "tl/linalg/detail/autograd_factor.hpp"
