#pragma once
/// @file linear.hpp
/// @brief Internal: the gradient of matmul with torch's batch broadcasting (detail header).
///
/// For C = A B (1-D operands lifted to matrices as matmul does): grad_A = G B^H and grad_B = A^H G,
/// each summed over the batch dims its operand was broadcast along.
#include <tuple>

#include "tl/autograd/detail/expr_node.hpp"
#include "tl/autograd/detail/views.hpp"
#include "tl/ops/matmul.hpp"

namespace tl::detail {

template <class V, class X>
tensor<V, rank_of<X>> as_dtype(const X& x) {
  if constexpr (std::is_same_v<value_of<X>, V>) return materialize_forward(x);
  else return materialize_forward(tl::astype<V>(x));
}

/// A new contiguous tensor t viewed as [batch] ++ s (the same elements).
template <class V, std::size_t R, std::size_t RS>
tensor<V, RS + 1> as_batched_view(const tensor<V, R>& t, index_t batch, const shape_t<RS>& s) {
  const auto bs = batched_shape(batch, s);
  return tensor<V, RS + 1>(t.storage_handle(), t.data(), bs, contiguous_strides(bs));
}

/// B^H as the right operand of grad_A = G B^H for a B without batch dims: a matrix's conjugate
/// transpose, a vector b's conj(b) as a [1, k] row.
template <class V, std::size_t RB>
tensor<V, 2> adjoint_right(const tensor<V, RB>& xb) {
  if constexpr (RB == 2) return tensor<V, 2>(xb.mH());
  else return tensor<V, 2>(xb.unsqueeze(0).conj());
}

/// The batched rule of matmul for operands without batch dims (rank 1 or 2), for the vectorized
/// backward. grad_A for every cotangent is ONE product of the stacked output gradients with B^H
/// ([batch m, n] x [n, k]), and so is grad_b of a vector b ([batch, m] x conj(A)); grad_B of a
/// matrix B is one broadcast product A^H G ([k, m] x [batch, m, n], matmul_plain: the small
/// products run one per task, into one result). Nothing records (gradients are off in a vectorized
/// backward).
template <class V, std::size_t RA, std::size_t RB>
auto matmul_batched_rule() {
  constexpr std::size_t RO = matmul_rank_v<RA, RB>;
  return [](const tensor<V, RO + 1>& gb, const std::tuple<tensor<V, RA>, tensor<V, RB>>& in, const auto&,
            const std::array<bool, 2>& need) {
    const auto& xa = std::get<0>(in);
    const auto& xb = std::get<1>(in);
    const index_t batch = gb.shape()[0];
    const index_t m = RA == 2 ? xa.shape()[0] : 1, n = RB == 2 ? xb.shape()[1] : 1;
    const tensor<V, 1> gf = flat_view(gb);
    auto rows = [&](index_t r, index_t c, index_t off) {
      return tensor<V, 2>(gf.storage_handle(), gf.data() + off, shape_t<2>{r, c}, shape_t<2>{c, 1}, gf.is_conj());
    };
    tensor<V, RA + 1> ga = undefined_tensor<V, RA + 1>();
    tensor<V, RB + 1> gbo = undefined_tensor<V, RB + 1>();
    if (need[0])
      ga = as_batched_view<V, 2, RA>(tl::matmul(rows(batch * m, n, 0), adjoint_right<V, RB>(xb)), batch, xa.shape());
    if (need[1]) {
      const tensor<V, 2> a2 = [&] {
        if constexpr (RA == 2) return xa;
        else return tensor<V, 2>(xa.unsqueeze(0));
      }();
      if constexpr (RB == 1) {
        const tensor<V, 2> p = tl::matmul(rows(batch, m, 0), tensor<V, 2>(a2.conj()));
        gbo = as_batched_view<V, 2, RB>(p, batch, xb.shape());
      } else {
        const tensor<V, 3> g3(gf.storage_handle(), gf.data(), shape_t<3>{batch, m, n}, shape_t<3>{m * n, n, 1},
                              gf.is_conj());
        gbo = matmul_plain(tensor<V, 2>(a2.mH()), g3, gb.device());
      }
    }
    return std::make_tuple(ga, gbo);
  };
}

/// The batched rule of matmul with batch dims (either operand of rank > 2): the cotangents are one
/// more leading batch dim of the output gradient, G: [c] ++ batch ++ [m, n]. grad_A = G B^H and
/// grad_B = A^H G are each one broadcast product (matmul_plain, which records nothing and so
/// instantiates no rule of its own at the higher rank), summed to [c] ++ the operand's shape. When B
/// has no batch dims, G B^H is a single [c * batch * m, n] x [n, k] product.
template <class V, std::size_t RA, std::size_t RB>
auto matmul_batched_bcast_rule() {
  constexpr std::size_t RO = matmul_rank_v<RA, RB>;
  constexpr std::size_t BA = RA > 2 ? RA - 2 : 0, BB = RB > 2 ? RB - 2 : 0, BR = BA > BB ? BA : BB;
  constexpr std::size_t RG = BR + 3;  // [c] ++ batch ++ [m, n]
  return [](const tensor<V, RO + 1>& gb, const std::tuple<tensor<V, RA>, tensor<V, RB>>& in, const auto&,
            const std::array<bool, 2>& need) {
    const auto& xa = std::get<0>(in);
    const auto& xb = std::get<1>(in);
    const index_t c = gb.shape()[0];
    const index_t m = RA == 1 ? 1 : xa.shape()[RA - 2], k = xa.shape()[RA - 1];
    const index_t n = RB == 1 ? 1 : xb.shape()[RB - 1];
    shape_t<RG> gs{};
    gs[0] = c;
    for (std::size_t q = 0; q < BR; ++q) gs[1 + q] = gb.shape()[1 + q];
    gs[BR + 1] = m;
    gs[BR + 2] = n;
    const tensor<V, RG> g(gb.storage_handle(), gb.data(), gs, contiguous_strides(gs), gb.is_conj());
    // A [c] ++ batch ++ [r, s] product summed over the batch dims along which an operand of shape
    // `os` (with `nb` batch dims) was broadcast, as [c] ++ os.
    auto reduce = [&]<std::size_t RS>(const tensor<V, RG>& full, const shape_t<RS>& os, std::size_t nb, index_t r,
                                      index_t s) {
      shape_t<RG> ts{};
      ts[0] = c;
      for (std::size_t q = 0; q < BR; ++q) ts[1 + q] = q >= BR - nb ? os[q - (BR - nb)] : 1;
      ts[BR + 1] = r;
      ts[BR + 2] = s;
      return as_batched_view<V, RG, RS>(sum_to_tensor<V, RG, RG>(full, ts), c, os);
    };
    tensor<V, RA + 1> ga = undefined_tensor<V, RA + 1>();
    tensor<V, RB + 1> gbo = undefined_tensor<V, RB + 1>();
    if (need[0]) {
      tensor<V, RG> full = undefined_tensor<V, RG>();
      if constexpr (RB <= 2) {  // one product: [c * batch * m, n] x [n, k]
        index_t rows = 1;
        for (std::size_t q = 0; q <= BR + 1; ++q) rows *= gs[q];
        const tensor<V, 2> g2(g.storage_handle(), g.data(), shape_t<2>{rows, n}, shape_t<2>{n, 1}, g.is_conj());
        const tensor<V, 2> p = matmul_plain(g2, adjoint_right<V, RB>(xb), gb.device());
        shape_t<RG> fs = gs;
        fs[BR + 2] = k;
        full = tensor<V, RG>(p.storage_handle(), p.data(), fs, contiguous_strides(fs));
      } else {
        full = matmul_plain(g, xb.mH(), gb.device());
      }
      ga = reduce(full, xa.shape(), BA, m, k);
    }
    if (need[1]) {
      const auto a2 = [&] {
        if constexpr (RA == 1) return xa.unsqueeze(0);
        else return xa;
      }();
      const tensor<V, RG> full = matmul_plain(a2.mH(), g, gb.device());
      gbo = reduce(full, xb.shape(), BB, k, n);
    }
    return std::make_tuple(ga, gbo);
  };
}

template <class Out, class F, class A, class B>
Out record_matmul(F fwd, const A& a, const B& b) {
  using V = typename Out::value_type;
  constexpr std::size_t RA = rank_of<A>, RB = rank_of<B>;
  const tensor<V, RA> xa = as_dtype<V>(a);
  const tensor<V, RB> xb = as_dtype<V>(b);
  Out y = [&]() -> Out {
    no_grad guard;
    return fwd(xa, xb);
  }();
  auto bw = [](const Out& g, const std::tuple<tensor<V, RA>, tensor<V, RB>>& in, const Out&,
               const std::array<bool, 2>& need) {
    const auto& xa = std::get<0>(in);
    const auto& xb = std::get<1>(in);
    const auto a2 = [&] {
      if constexpr (RA == 1) return xa.unsqueeze(0);
      else return xa;
    }();
    const auto b2 = [&] {
      if constexpr (RB == 1) return xb.unsqueeze(1);
      else return xb;
    }();
    const auto g2 = [&] {
      if constexpr (RA == 1 && RB == 1) return g.reshape(1, 1);
      else if constexpr (RA == 1) return g.unsqueeze(-2);
      else if constexpr (RB == 1) return g.unsqueeze(-1);
      else return g;
    }();
    tensor<V, RA> ga = undefined_tensor<V, RA>();
    tensor<V, RB> gb = undefined_tensor<V, RB>();
    if (need[0]) {
      const auto full = tl::matmul(g2, b2.mH());
      const auto s = sum_to(full, a2.shape());
      ga = s.reshape(xa.shape());
    }
    if (need[1]) {
      const auto full = tl::matmul(a2.mH(), g2);
      const auto s = sum_to(full, b2.shape());
      gb = s.reshape(xb.shape());
    }
    return std::make_tuple(ga, gb);
  };
  if constexpr (RA <= 2 && RB <= 2)
    record_fn_batched("MatmulBackward", y, std::move(bw), matmul_batched_rule<V, RA, RB>(),
                      std::array<bool, 2>{true, true}, false, xa, xb);
  else
    record_fn_batched("MatmulBackward", y, std::move(bw), matmul_batched_bcast_rule<V, RA, RB>(),
                      std::array<bool, 2>{true, true}, false, xa, xb);
  return y;
}

}  // namespace tl::detail
