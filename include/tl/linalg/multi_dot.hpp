#pragma once
/// @file multi_dot.hpp
/// @brief tl::linalg::multi_dot: the product of a chain of matrices in the cheapest order
/// (torch.linalg.multi_dot); the order comes from the classic matrix-chain dynamic program.
///
/// @code
/// auto p = tl::linalg::multi_dot(a, b, c, d);   // a: [m, k] or [k], d: [k, n] or [k]
/// auto q = tl::linalg::multi_dot(std::vector<tl::tensor<double, 2>>{a, b, c});
/// @endcode
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tl/linalg/detail/batch.hpp"
#include "tl/ops/matmul.hpp"

namespace tl::linalg {

namespace detail {

/// The cheapest order of a chain of n = p.size() - 1 matrices, matrix i of shape p[i] x p[i+1]
/// (the matrix-chain dynamic program: cost[i][j] = min over s of cost[i][s] + cost[s+1][j] +
/// p_i p_{s+1} p_{j+1}): the multiply-adds of the best order and split[i * n + j], the last
/// product's split point of the sub-chain i..j.
struct chain_order {
  double cost = 0;
  std::vector<std::size_t> split;
};

inline chain_order best_chain_order(const std::vector<double>& p) {
  const std::size_t n = p.size() - 1;
  std::vector<double> cost(n * n, 0.0);
  chain_order r;
  r.split.assign(n * n, 0);
  for (std::size_t len = 2; len <= n; ++len)
    for (std::size_t i = 0; i + len <= n; ++i) {
      const std::size_t j = i + len - 1;
      cost[i * n + j] = -1;
      for (std::size_t s = i; s < j; ++s) {
        const double c = cost[i * n + s] + cost[(s + 1) * n + j] + p[i] * p[s + 1] * p[j + 1];
        if (cost[i * n + j] < 0 || c < cost[i * n + j]) {
          cost[i * n + j] = c;
          r.split[i * n + j] = s;
        }
      }
    }
  r.cost = cost[n - 1];
  return r;
}

/// The product mats[0] ... mats[n-1] (n >= 2, shapes already checked) in the cheapest order.
template <class T>
tensor<T, 2> chain_product(const std::vector<tensor<T, 2>>& mats) {
  const std::size_t n = mats.size();
  if (n == 2) return tensor<T, 2>(tl::matmul(mats[0], mats[1]));
  std::vector<double> p(n + 1);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<double>(mats[i].shape()[0]);
  p[n] = static_cast<double>(mats[n - 1].shape()[1]);
  const chain_order order = best_chain_order(p);
  auto prod = [&](auto&& self, std::size_t i, std::size_t j) -> tensor<T, 2> {
    if (i == j) return mats[i];
    const std::size_t s = order.split[i * n + j];
    return tensor<T, 2>(tl::matmul(self(self, i, s), self(self, s + 1, j)));
  };
  return prod(prod, 0, n - 1);
}

/// Throws torch's error when tensors i and i + 1 cannot be multiplied.
template <class T>
void check_chain(const std::vector<tensor<T, 2>>& mats, const std::vector<std::string>& shapes) {
  for (std::size_t i = 0; i + 1 < mats.size(); ++i)
    if (mats[i].shape()[1] != mats[i + 1].shape()[0])
      throw shape_error(cat_str("tl::linalg::multi_dot: tensors ", i, " and ", i + 1, " with shapes ", shapes[i],
                                " and ", shapes[i + 1], " cannot be multiplied"));
}

}  // namespace detail

/// @brief The product of two or more tensors, multiplied in the cheapest order
/// (torch.linalg.multi_dot([t0, t1, ...])). The first and the last may be 1-D (a row / a column
/// vector, removed from the result, as in torch); the others must be 2-D; the result has rank
/// (first is 2-D) + (last is 2-D). All of one dtype (float, double, complex). Mismatched inner
/// extents throw shape_error naming the two tensors and their shapes.
template <expression... E>
  requires(sizeof...(E) >= 2)
auto multi_dot(E&&... ts) {
  using T = detail::value_of_t<std::tuple_element_t<0, std::tuple<E...>>>;
  static_assert((std::is_same_v<T, detail::value_of_t<E>> && ...),
                "tl: linalg::multi_dot: all tensors must have the same dtype (as in torch)");
  static_assert(detail::gemm_type_v<T>, "tl: linalg::multi_dot takes float, double or complex tensors");
  constexpr std::size_t n = sizeof...(E);
  constexpr std::size_t ranks[] = {std::remove_cvref_t<E>::rank...};
  static_assert(ranks[0] == 1 || ranks[0] == 2, "tl: linalg::multi_dot: the first tensor must be 1-D or 2-D");
  static_assert(ranks[n - 1] == 1 || ranks[n - 1] == 2, "tl: linalg::multi_dot: the last tensor must be 1-D or 2-D");
  static_assert(((std::remove_cvref_t<E>::rank == 2) + ...) + (ranks[0] == 1) + (ranks[n - 1] == 1) == n,
                "tl: linalg::multi_dot: the tensors between the first and the last must be 2-D");
  std::vector<tensor<T, 2>> mats;
  std::vector<std::string> shapes;
  mats.reserve(n);
  auto add = [&](auto&& e) {
    auto t = detail::readable(std::forward<decltype(e)>(e));
    shapes.push_back(detail::shape_str(t.shape()));
    if constexpr (decltype(t)::rank == 1) {
      const index_t k = t.shape()[0];
      const tensor<T, 1> c = t.contiguous();
      mats.push_back(mats.empty() ? tensor<T, 2>(c.reshape(shape_t<2>{1, k})) : tensor<T, 2>(c.reshape(shape_t<2>{k, 1})));
    } else {
      mats.push_back(tensor<T, 2>(t));
    }
  };
  (add(std::forward<E>(ts)), ...);
  detail::check_chain(mats, shapes);
  tensor<T, 2> r = detail::chain_product(mats);
  constexpr std::size_t RO = (ranks[0] == 2) + (ranks[n - 1] == 2);
  if constexpr (RO == 2) return r;
  else if constexpr (RO == 0) return tensor<T, 0>(r.contiguous().reshape(shape_t<0>{}));
  else if constexpr (ranks[0] == 1) return tensor<T, 1>(r.contiguous().reshape(shape_t<1>{r.shape()[1]}));
  else return tensor<T, 1>(r.contiguous().reshape(shape_t<1>{r.shape()[0]}));
}

/// @brief multi_dot of a list of matrices known at run time (all 2-D). Fewer than two throw
/// value_error (torch: "expected at least 2 tensors").
template <class T, class Ext>
tensor<T, 2> multi_dot(const std::vector<basic_tensor<T, Ext>>& list) {
  static_assert(Ext::rank == 2, "tl: linalg::multi_dot of a std::vector takes 2-D tensors");
  static_assert(detail::gemm_type_v<T>, "tl: linalg::multi_dot takes float, double or complex tensors");
  if (list.size() < 2)
    throw value_error(detail::cat_str("tl::linalg::multi_dot: expected at least 2 tensors but got ", list.size()));
  std::vector<tensor<T, 2>> mats(list.begin(), list.end());
  std::vector<std::string> shapes;
  for (const auto& m : mats) shapes.push_back(detail::shape_str(m.shape()));
  detail::check_chain(mats, shapes);
  return detail::chain_product(mats);
}

}  // namespace tl::linalg
