#pragma once
/// @file incomplete_gamma.hpp
/// @brief tl::special regularized incomplete gamma functions gammainc, gammaincc and the Hurwitz
/// zeta function zeta (torch.special).
///
/// Lazy binary expressions (operands broadcast; either may be a scalar), float or double (integer
/// operands compute in float), computed in double by scalar kernels with a data-dependent
/// iteration count (tl/special/detail/igamma_kernel.hpp), run lane by lane on packets.
/// @code
/// tl::tensor<double, 1> p = ts::gammainc(a, x);   // P(a, x)
/// tl::tensor<double, 1> z = ts::zeta(2.0, q);     // sum_k (q + k)^-2
/// @endcode
#include <utility>

#include "tl/expr/node.hpp"
#include "tl/special/detail/igamma_kernel.hpp"

namespace tl::special {
namespace detail {
struct gammainc_fn : lanewise_binary<gammainc_fn> {
  static constexpr const char* name = "gammainc";
  static TL_HDI double eval(double a, double x) { return gammainc_eval(a, x); }
};
struct gammaincc_fn : lanewise_binary<gammaincc_fn> {
  static constexpr const char* name = "gammaincc";
  static TL_HDI double eval(double a, double x) { return gammaincc_eval(a, x); }
};
struct zeta_fn : lanewise_binary<zeta_fn> {
  static constexpr const char* name = "zeta";
  static TL_HDI double eval(double s, double q) { return zeta_eval(s, q); }
};
}  // namespace detail

/// @brief Regularized lower incomplete gamma function P(a, x) = gamma(a, x) / Gamma(a)
/// (torch.special.gammainc). NaN for a < 0, x < 0 and at a = x = 0; 1 for a = 0 < x and x = inf;
/// 0 at x = 0 and a = inf.
TL_SPECIAL_BINARY_FACTORY(gammainc)
/// @brief Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (torch.special.gammaincc),
/// accurate where it is small.
TL_SPECIAL_BINARY_FACTORY(gammaincc)
/// @brief Hurwitz zeta function sum_k>=0 (q + k)^-x (torch.special.zeta): inf at x = 1 and at
/// q = 0, -1, -2, ...; NaN for x < 1 and for negative q with non-integer x.
TL_SPECIAL_BINARY_FACTORY(zeta)

}  // namespace tl::special

#if TL_AUTOGRAD
#include "tl/autograd/detail/adjoint.hpp"
#include "tl/core/error.hpp"
#include "tl/special/gamma.hpp"

namespace tl::special::detail {
/// Rules that torch 1.13 does not implement: a clear error when a gradient would flow there.
[[noreturn]] inline void no_derivative(const char* what) {
  throw tl::autograd_error(std::string("tl::special::") + what + " is not implemented (as in torch)");
}
}  // namespace tl::special::detail

namespace tl::detail {
// d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) = -d/dx Q(a, x); d/da: not implemented (torch).
template <>
struct binary_rule<tl::special::detail::gammainc_fn> {
  template <class L, class R, class G>
  static auto dl(const tl::special::detail::gammainc_fn&, const L&, const R&, const G& g) {
    tl::special::detail::no_derivative("gammainc: the derivative with respect to a");
    return g;
  }
  template <class L, class R, class G>
  static auto dr(const tl::special::detail::gammainc_fn&, const L& l, const R& r, const G& g) {
    return g * tl::exp((l - 1) * tl::log(r) - r - tl::special::gammaln(l));
  }
};
template <>
struct binary_rule<tl::special::detail::gammaincc_fn> {
  template <class L, class R, class G>
  static auto dl(const tl::special::detail::gammaincc_fn&, const L&, const R&, const G& g) {
    tl::special::detail::no_derivative("gammaincc: the derivative with respect to a");
    return g;
  }
  template <class L, class R, class G>
  static auto dr(const tl::special::detail::gammaincc_fn&, const L& l, const R& r, const G& g) {
    return -(g * tl::exp((l - 1) * tl::log(r) - r - tl::special::gammaln(l)));
  }
};
// d/dq zeta(x, q) = -x zeta(x + 1, q); d/dx: not implemented (torch).
template <>
struct binary_rule<tl::special::detail::zeta_fn> {
  template <class L, class R, class G>
  static auto dl(const tl::special::detail::zeta_fn&, const L&, const R&, const G& g) {
    tl::special::detail::no_derivative("zeta: the derivative with respect to x");
    return g;
  }
  template <class L, class R, class G>
  static auto dr(const tl::special::detail::zeta_fn&, const L& l, const R& r, const G& g) {
    return -(g * l * tl::special::zeta(l + 1, r));
  }
};
}  // namespace tl::detail
#endif
