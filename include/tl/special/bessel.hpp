#pragma once
/// @file bessel.hpp
/// @brief tl::special modified Bessel functions of the first kind: i0, i0e, i1, i1e (and torch's
/// modified_bessel_i0 / modified_bessel_i1 names).
///
/// Lazy elementwise expressions, float or double (integer and bool operands compute in float),
/// computed in double (see tl/special/detail/bessel_kernel.hpp and docs/special.md).
/// @code
/// tl::tensor<double, 1> r = ts::i1e(x) / ts::i0e(x);  // I1 / I0 without overflow, one pass
/// @endcode
#include <utility>

#include "tl/expr/node.hpp"
#include "tl/special/detail/bessel_kernel.hpp"

namespace tl::special {
namespace detail {
#define TL_SPECIAL_VIA_DOUBLE(NAME)                \
  struct NAME##_fn : via_double_unary<NAME##_fn> { \
    static constexpr const char* name = #NAME;     \
    template <class V>                             \
    static TL_SPECIAL_KERNEL V kernel(const V& x) { \
      return NAME##_kernel(x);                     \
    }                                              \
  };
TL_SPECIAL_VIA_DOUBLE(i0)
TL_SPECIAL_VIA_DOUBLE(i0e)
TL_SPECIAL_VIA_DOUBLE(i1)
TL_SPECIAL_VIA_DOUBLE(i1e)
#undef TL_SPECIAL_VIA_DOUBLE
}  // namespace detail

/// @brief Modified Bessel function of the first kind of order 0 (torch.special.i0); +inf at +-inf.
TL_SPECIAL_UNARY_FACTORY(i0)
/// @brief Exponentially scaled e^-|x| I0(x) (torch.special.i0e).
TL_SPECIAL_UNARY_FACTORY(i0e)
/// @brief Modified Bessel function of the first kind of order 1 (torch.special.i1); odd, +-inf at +-inf.
TL_SPECIAL_UNARY_FACTORY(i1)
/// @brief Exponentially scaled e^-|x| I1(x) (torch.special.i1e).
TL_SPECIAL_UNARY_FACTORY(i1e)
/// @brief torch.special.modified_bessel_i0: the same function as i0.
template <expression A>
auto modified_bessel_i0(A&& a) {
  return i0(std::forward<A>(a));
}
/// @brief torch.special.modified_bessel_i1: the same function as i1.
template <expression A>
auto modified_bessel_i1(A&& a) {
  return i1(std::forward<A>(a));
}

}  // namespace tl::special

#if TL_AUTOGRAD
#include "tl/autograd/detail/adjoint.hpp"

namespace tl::detail {
template <>
struct unary_rule<tl::special::detail::i0_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::i0_fn&, const C& c, const G& g) {
    return g * tl::special::i1(c);
  }
};
template <>
struct unary_rule<tl::special::detail::i0e_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::i0e_fn&, const C& c, const G& g) {
    return g * (tl::special::i1e(c) - tl::sign(c) * tl::special::i0e(c));
  }
};
template <>
struct unary_rule<tl::special::detail::i1_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::i1_fn&, const C& c, const G& g) {
    // I1' = I0 - I1 / x, 1/2 at 0.
    return g * tl::where(c == 0, 0.5, tl::special::i0(c) - tl::special::i1(c) / c);
  }
};
template <>
struct unary_rule<tl::special::detail::i1e_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::i1e_fn&, const C& c, const G& g) {
    return g * tl::where(c == 0, 0.5, tl::special::i0e(c) - tl::special::i1e(c) * (tl::sign(c) + 1 / c));
  }
};
}  // namespace tl::detail
#endif
