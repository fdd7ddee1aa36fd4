#pragma once
/// @file erf.hpp
/// @brief tl::special error-function family: erf, erfc, erfcx, erfinv, ndtr, ndtri, log_ndtr.
///
/// Each is a lazy elementwise expression (it fuses with the ops around it), accepts float or
/// double (integer and bool operands compute in float, as torch does) and computes in double, except
/// for erfinv and ndtri on float packets, which form their logarithm in float (see
/// tl/special/detail/erf_kernel.hpp for the algorithms and docs/special.md for the accuracy).
/// @code
/// tl::tensor<double, 1> y = tl::special::erfcx(x) * tl::exp(-x * x);  // one pass
/// @endcode
#include <numbers>
#include <utility>

#include "tl/expr/node.hpp"
#include "tl/special/detail/erf_kernel.hpp"

namespace tl::special {
namespace detail {
TL_SPECIAL_VIA_DOUBLE(erf)
TL_SPECIAL_VIA_DOUBLE(erfc)
TL_SPECIAL_VIA_DOUBLE(erfcx)
TL_SPECIAL_VIA_DOUBLE(ndtr)
TL_SPECIAL_VIA_DOUBLE(log_ndtr)
TL_SPECIAL_VIA_DOUBLE(erfinv)
TL_SPECIAL_VIA_DOUBLE(ndtri)
// Their float packets form w in float and evaluate short polynomials in double (erfinv_float).
TL_SPECIAL_FLOAT_PACKET(erfinv)
TL_SPECIAL_FLOAT_PACKET(ndtri)
// Shorter fits, tl's logarithm and two divisions, in double (log_ndtr_float_kernel).
TL_SPECIAL_FLOAT_PACKET(log_ndtr)
// The double kernels' formulas with the same shorter fits and one division (erf_float_kernel ...).
TL_SPECIAL_FLOAT_PACKET(erf)
TL_SPECIAL_FLOAT_PACKET(erfc)
TL_SPECIAL_FLOAT_PACKET(erfcx)
TL_SPECIAL_FLOAT_PACKET(ndtr)
}  // namespace detail

/// @brief Error function 2/sqrt(pi) int_0^x exp(-t^2) dt (torch.special.erf).
TL_SPECIAL_UNARY_FACTORY(erf)
/// @brief Complementary error function 1 - erf(x), accurate in the tail (torch.special.erfc).
TL_SPECIAL_UNARY_FACTORY(erfc)
/// @brief Scaled complementary error function exp(x^2) erfc(x) (torch.special.erfcx).
TL_SPECIAL_UNARY_FACTORY(erfcx)
/// @brief Inverse error function on [-1, 1]; +-1 give +-inf (torch.special.erfinv).
TL_SPECIAL_UNARY_FACTORY(erfinv)
/// @brief Standard normal CDF (torch.special.ndtr).
TL_SPECIAL_UNARY_FACTORY(ndtr)
/// @brief Inverse of the standard normal CDF on [0, 1] (torch.special.ndtri).
TL_SPECIAL_UNARY_FACTORY(ndtri)
/// @brief log of the standard normal CDF, accurate for large negative x (torch.special.log_ndtr).
TL_SPECIAL_UNARY_FACTORY(log_ndtr)

}  // namespace tl::special

#if TL_AUTOGRAD
#include "tl/autograd/detail/adjoint.hpp"

namespace tl::detail {
#define TL_SPECIAL_RULE(FN, EXPR)                                                  \
  template <>                                                                      \
  struct unary_rule<tl::special::detail::FN> {                                     \
    template <class C, class G>                                                    \
    static auto d(const tl::special::detail::FN&, const C& c, const G& g) {        \
      return EXPR;                                                                 \
    }                                                                              \
  };
// torch's derivatives.yaml formulas.
TL_SPECIAL_RULE(erf_fn, g* tl::exp(-(c * c)) * (2 * std::numbers::inv_sqrtpi))
TL_SPECIAL_RULE(erfc_fn, g* tl::exp(-(c * c)) * (-2 * std::numbers::inv_sqrtpi))
TL_SPECIAL_RULE(erfcx_fn, g*(2 * c * tl::special::erfcx(c) - 2 * std::numbers::inv_sqrtpi))
TL_SPECIAL_RULE(erfinv_fn, g* tl::exp(tl::square(tl::special::erfinv(c))) * (0.5 / std::numbers::inv_sqrtpi))
TL_SPECIAL_RULE(ndtr_fn, g* tl::exp(c * c * -0.5) * (std::numbers::inv_sqrtpi / std::numbers::sqrt2))
TL_SPECIAL_RULE(ndtri_fn, g* tl::exp(tl::square(tl::special::ndtri(c)) * 0.5) * (std::numbers::sqrt2 / std::numbers::inv_sqrtpi))
TL_SPECIAL_RULE(log_ndtr_fn,
                g* tl::exp(c * c * -0.5 - tl::special::log_ndtr(c)) * (std::numbers::inv_sqrtpi / std::numbers::sqrt2))
#undef TL_SPECIAL_RULE
}  // namespace tl::detail
#endif
