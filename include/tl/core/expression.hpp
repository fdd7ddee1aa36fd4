#pragma once
/// @file expression.hpp
/// @brief The tl::expression concept that tensors and lazy expression nodes model.
#include <concepts>
#include <cstddef>
#include <type_traits>

#include "tl/core/dtype.hpp"
#include "tl/core/extents.hpp"

namespace tl {

template <class T, class Ext>
class basic_tensor;

template <class T>
struct is_tensor : std::false_type {};
template <class T, class Ext>
struct is_tensor<basic_tensor<T, Ext>> : std::true_type {};
/// @brief True for tl::basic_tensor (and its aliases), after removing cv-ref.
template <class T>
inline constexpr bool is_tensor_v = is_tensor<std::remove_cvref_t<T>>::value;

/// @brief Anything that can be evaluated element by element: a tensor or a lazy expression node.
///
/// It exposes `value_type` (a tl::dtype), `extents_type` (static extents, tl::dyn where unknown),
/// a static `rank` and `shape()`.
template <class E>
concept expression = requires {
  typename std::remove_cvref_t<E>::value_type;
  typename std::remove_cvref_t<E>::extents_type;
  { std::remove_cvref_t<E>::rank } -> std::convertible_to<std::size_t>;
} && requires(const std::remove_cvref_t<E>& e) {
  { e.shape() } -> std::convertible_to<shape_t<std::remove_cvref_t<E>::rank>>;
} && dtype<typename std::remove_cvref_t<E>::value_type>;

/// @brief An expression or a scalar: what elementwise functions accept as operands.
template <class E>
concept operand = expression<E> || scalar<std::remove_cvref_t<E>>;

}  // namespace tl
