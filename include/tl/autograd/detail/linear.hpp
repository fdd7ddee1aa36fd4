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
  record_fn("MatmulBackward", y, std::move(bw), std::array<bool, 2>{true, true}, false, xa, xb);
  return y;
}

}  // namespace tl::detail
