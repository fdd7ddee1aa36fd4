#pragma once
/// @file bessel.hpp
/// @brief tl::special Bessel and Airy functions: airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, i0, i0e, i1, i1e (and torch's modified_bessel_i0 /
/// modified_bessel_i1 names), modified_bessel_k0/k1, scaled_modified_bessel_k0/k1,
/// spherical_bessel_j0.
///
/// Lazy elementwise expressions, float or double (integer and bool operands compute in float),
/// computed in double (see tl/special/detail/bessel_kernel.hpp and docs/special.md).
/// @code
/// tl::tensor<double, 1> r = ts::i1e(x) / ts::i0e(x);  // I1 / I0 without overflow, one pass
/// @endcode
#include <utility>

#include "tl/expr/node.hpp"
#include "tl/special/detail/airy_kernel.hpp"
#include "tl/special/detail/bessel_jy_kernel.hpp"
#include "tl/special/detail/bessel_kernel.hpp"

namespace tl::special {
namespace detail {
TL_SPECIAL_VIA_DOUBLE(i0)
TL_SPECIAL_VIA_DOUBLE(i0e)
TL_SPECIAL_VIA_DOUBLE(i1)
TL_SPECIAL_VIA_DOUBLE(i1e)
TL_SPECIAL_VIA_DOUBLE(k0)
TL_SPECIAL_VIA_DOUBLE(k0e)
TL_SPECIAL_VIA_DOUBLE(k1)
TL_SPECIAL_VIA_DOUBLE(k1e)
TL_SPECIAL_FLOAT_PACKET(i0)
TL_SPECIAL_FLOAT_PACKET(i0e)
TL_SPECIAL_FLOAT_PACKET(i1)
TL_SPECIAL_FLOAT_PACKET(i1e)
TL_SPECIAL_FLOAT_PACKET(k0)
TL_SPECIAL_FLOAT_PACKET(k0e)
TL_SPECIAL_FLOAT_PACKET(k1)
TL_SPECIAL_FLOAT_PACKET(k1e)
TL_SPECIAL_VIA_DOUBLE(spherical_j0)
TL_SPECIAL_FLOAT_PACKET(spherical_j0)
TL_SPECIAL_VIA_DOUBLE(bessel_j0)
TL_SPECIAL_VIA_DOUBLE(bessel_j1)
TL_SPECIAL_VIA_DOUBLE(bessel_y0)
TL_SPECIAL_VIA_DOUBLE(bessel_y1)
TL_SPECIAL_FLOAT_PACKET(bessel_j0)
TL_SPECIAL_FLOAT_PACKET(bessel_j1)
TL_SPECIAL_FLOAT_PACKET(bessel_y0)
TL_SPECIAL_FLOAT_PACKET(bessel_y1)
TL_SPECIAL_VIA_DOUBLE_TWIN(airy_ai)
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

/// @brief Modified Bessel function of the second kind of order 0 (torch.special.modified_bessel_k0);
/// inf at 0, NaN for x < 0.
template <expression A>
auto modified_bessel_k0(A&& a) {
  return tl::detail::make_unary(detail::k0_fn{}, std::forward<A>(a));
}
/// @brief Modified Bessel function of the second kind of order 1 (torch.special.modified_bessel_k1).
template <expression A>
auto modified_bessel_k1(A&& a) {
  return tl::detail::make_unary(detail::k1_fn{}, std::forward<A>(a));
}
/// @brief e^x K0(x) (torch.special.scaled_modified_bessel_k0).
template <expression A>
auto scaled_modified_bessel_k0(A&& a) {
  return tl::detail::make_unary(detail::k0e_fn{}, std::forward<A>(a));
}
/// @brief e^x K1(x) (torch.special.scaled_modified_bessel_k1).
template <expression A>
auto scaled_modified_bessel_k1(A&& a) {
  return tl::detail::make_unary(detail::k1e_fn{}, std::forward<A>(a));
}
/// @brief sin(x) / x, 1 at 0, 0 at +-inf (torch.special.spherical_bessel_j0).
template <expression A>
auto spherical_bessel_j0(A&& a) {
  return tl::detail::make_unary(detail::spherical_j0_fn{}, std::forward<A>(a));
}

/// @brief Airy function Ai(x) (torch.special.airy_ai): decays as e^(-2/3 x^(3/2)) for x > 0 (0
/// past the underflow), oscillates for x < 0; 0 at +-inf.
TL_SPECIAL_UNARY_FACTORY(airy_ai)
/// @brief Bessel function of the first kind of order 0 (torch.special.bessel_j0); even, 0 at +-inf.
TL_SPECIAL_UNARY_FACTORY(bessel_j0)
/// @brief Bessel function of the first kind of order 1 (torch.special.bessel_j1); odd, +-0 at +-inf.
TL_SPECIAL_UNARY_FACTORY(bessel_j1)
/// @brief Bessel function of the second kind of order 0 (torch.special.bessel_y0); -inf at 0, NaN
/// for x < 0, 0 at +inf.
TL_SPECIAL_UNARY_FACTORY(bessel_y0)
/// @brief Bessel function of the second kind of order 1 (torch.special.bessel_y1); -inf at 0, NaN
/// for x < 0, 0 at +inf.
TL_SPECIAL_UNARY_FACTORY(bessel_y1)

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
// K0' = -K1, K1' = -K0 - K1 / x; scaled: (e^x K0)' = k0e - k1e, (e^x K1)' = k1e (1 - 1/x) - k0e;
// j0' = (cos x - j0(x)) / x (0 at 0). (torch 1.13 defines no derivative for these.)
template <>
struct unary_rule<tl::special::detail::k0_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::k0_fn&, const C& c, const G& g) {
    return -(g * tl::special::modified_bessel_k1(c));
  }
};
template <>
struct unary_rule<tl::special::detail::k1_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::k1_fn&, const C& c, const G& g) {
    return -(g * (tl::special::modified_bessel_k0(c) + tl::special::modified_bessel_k1(c) / c));
  }
};
template <>
struct unary_rule<tl::special::detail::k0e_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::k0e_fn&, const C& c, const G& g) {
    return g * (tl::special::scaled_modified_bessel_k0(c) - tl::special::scaled_modified_bessel_k1(c));
  }
};
template <>
struct unary_rule<tl::special::detail::k1e_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::k1e_fn&, const C& c, const G& g) {
    return g * (tl::special::scaled_modified_bessel_k1(c) * (1 - 1 / c) - tl::special::scaled_modified_bessel_k0(c));
  }
};
template <>
struct unary_rule<tl::special::detail::spherical_j0_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::spherical_j0_fn&, const C& c, const G& g) {
    return tl::where(c == 0, 0, g * (tl::cos(c) - tl::special::spherical_bessel_j0(c)) / c);
  }
};
// J0' = -J1, J1' = J0 - J1 / x (1/2 at 0), Y0' = -Y1, Y1' = Y0 - Y1 / x. (torch 1.13 defines no
// derivative for these; airy_ai has none here either, as in torch: no gradient flows through it.)
template <>
struct unary_rule<tl::special::detail::bessel_j0_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::bessel_j0_fn&, const C& c, const G& g) {
    return -(g * tl::special::bessel_j1(c));
  }
};
template <>
struct unary_rule<tl::special::detail::bessel_j1_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::bessel_j1_fn&, const C& c, const G& g) {
    return g * tl::where(c == 0, 0.5, tl::special::bessel_j0(c) - tl::special::bessel_j1(c) / c);
  }
};
template <>
struct unary_rule<tl::special::detail::bessel_y0_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::bessel_y0_fn&, const C& c, const G& g) {
    return -(g * tl::special::bessel_y1(c));
  }
};
template <>
struct unary_rule<tl::special::detail::bessel_y1_fn> {
  template <class C, class G>
  static auto d(const tl::special::detail::bessel_y1_fn&, const C& c, const G& g) {
    return g * (tl::special::bessel_y0(c) - tl::special::bessel_y1(c) / c);
  }
};
}  // namespace tl::detail
#endif
