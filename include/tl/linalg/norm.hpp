#pragma once
/// @file norm.hpp
/// @brief tl::linalg::norm: torch.linalg.norm's choice between a vector and a matrix norm.
///
/// @code
/// auto a = tl::linalg::norm(x);                          // 2-norm of all elements (any rank)
/// auto b = tl::linalg::norm(m, 1);                       // m 2-D: induced 1-norm; 1-D: vector 1-norm
/// auto c = tl::linalg::norm(x, "fro", tl::dims{0, 1});   // matrix norm over dims 0 and 1
/// auto d = tl::linalg::norm(x, 3, -1, tl::keepdim);      // vector 3-norm over the last dim
/// @endcode
#include <optional>
#include <string_view>
#include <type_traits>

#include "tl/linalg/matrix_norm.hpp"
#include "tl/linalg/vector_norm.hpp"

namespace tl::linalg {

namespace detail {
/// How many dims a norm's dim arguments name: 0 (none given), 1 or 2.
template <std::size_t R, class... A>
inline constexpr std::size_t norm_dim_count =
    tl::detail::reduce_args<R, std::remove_cvref_t<A>...>::all ? 0
                                                               : tl::detail::reduce_args<R, std::remove_cvref_t<A>...>::count;

template <std::size_t R, class... A>
concept norm_dims = tl::detail::reduce_dim_args<R, A...> && norm_dim_count<R, A...> <= 2;
}  // namespace detail

/// @brief No order: the 2-norm of all elements (no dims; any rank), the vector 2-norm over one
/// dim, or the Frobenius norm over two dims (torch.linalg.norm(A, None, dim, keepdim, dtype=Dt)).
/// One dim is given as tl::dims{d} here (a bare integer in second place is the order), or use
/// norm(A, std::nullopt, d).
template <class Dt = void, expression E, class... A>
  requires detail::norm_dims<std::remove_cvref_t<E>::rank, A...> && (!std::is_integral_v<A> && ...)
auto norm(E&& A_, const A&... args) {
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  if constexpr (detail::norm_dim_count<R, A...> == 2) return matrix_norm<Dt>(std::forward<E>(A_), "fro", args...);
  else return vector_norm<Dt>(std::forward<E>(A_), 2.0, args...);
}

/// @brief A numeric order: a vector norm over one dim, a matrix norm over two; without dims the
/// input must be 1-D (vector norm) or 2-D (matrix norm) (torch.linalg.norm(A, ord, dim, keepdim)).
/// Orders a matrix norm does not have throw value_error.
template <class Dt = void, expression E, class... A>
  requires detail::norm_dims<std::remove_cvref_t<E>::rank, A...> &&
           (detail::norm_dim_count<std::remove_cvref_t<E>::rank, A...> > 0 || std::remove_cvref_t<E>::rank == 1 ||
            std::remove_cvref_t<E>::rank == 2)
auto norm(E&& A_, double ord, const A&... args) {
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  constexpr std::size_t k = detail::norm_dim_count<R, A...>;
  if constexpr (k == 2 || (k == 0 && R == 2)) return matrix_norm<Dt>(std::forward<E>(A_), ord, args...);
  else return vector_norm<Dt>(std::forward<E>(A_), ord, args...);
}

/// @brief A string order ('fro'): always a matrix norm, over two dims or, without dims, of a 2-D
/// input (torch.linalg.norm(A, 'fro', dim, keepdim)).
template <class Dt = void, expression E, class... A>
  requires detail::norm_dims<std::remove_cvref_t<E>::rank, A...> &&
           (detail::norm_dim_count<std::remove_cvref_t<E>::rank, A...> == 2 ||
            (detail::norm_dim_count<std::remove_cvref_t<E>::rank, A...> == 0 && std::remove_cvref_t<E>::rank == 2))
auto norm(E&& A_, std::string_view ord, const A&... args) {
  return matrix_norm<Dt>(std::forward<E>(A_), ord, args...);
}

/// @brief An order decided at run time (std::nullopt is torch's ord=None). With a value and no
/// dims, the input must be 1-D or 2-D; for other ranks this throws value_error (torch's check).
template <class Dt = void, expression E, class... A>
  requires detail::norm_dims<std::remove_cvref_t<E>::rank, A...>
auto norm(E&& A_, std::optional<double> ord, const A&... args) {
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  constexpr std::size_t k = detail::norm_dim_count<R, A...>;
  if constexpr (k == 0 && R != 1 && R != 2) {
    if (ord)
      throw value_error(detail::cat_str("tl::linalg::norm: if dim is not specified but ord is, the input must be 1-D "
                                        "or 2-D; got ",
                                        R, "-D"));
    return vector_norm<Dt>(std::forward<E>(A_), 2.0, args...);
  } else {
    if (!ord) {
      if constexpr (k == 2) return matrix_norm<Dt>(std::forward<E>(A_), "fro", args...);
      else return vector_norm<Dt>(std::forward<E>(A_), 2.0, args...);
    }
    return norm<Dt>(std::forward<E>(A_), *ord, args...);
  }
}

}  // namespace tl::linalg
