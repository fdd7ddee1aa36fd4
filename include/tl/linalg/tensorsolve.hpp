#pragma once
/// @file tensorsolve.hpp
/// @brief tl::linalg::tensorsolve: the solution X of tensordot(A, X, X.ndim) = B
/// (torch.linalg.tensorsolve).
///
/// @code
/// auto x = tl::linalg::tensorsolve(a, b);           // a: [2, 3, 6], b: [2, 3] -> x: [6]
/// auto y = tl::linalg::tensorsolve(a, b, {0});      // dim 0 of a moved last first
/// @endcode
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "tl/linalg/solve.hpp"

namespace tl::linalg {

/// @brief X with tensordot(A, X, X.ndim) = B (torch.linalg.tensorsolve(A, B, dims=None)): A's
/// dims listed in `dims` are first moved to the end; then X has shape A.shape[B.ndim:] and A is
/// solved as a prod(A.shape[:B.ndim]) square system. The two products must agree and B must
/// have as many elements (shape_error); a singular system throws linalg_error; bad dims throw
/// index_error. Same dtype for A and B; the result's rank is A's minus B's.
template <expression EA, expression EB>
auto tensorsolve(EA&& A, EB&& B, const std::vector<index_t>& dims = {}) {
  using T = detail::value_of_t<EA>;
  constexpr std::size_t RA = std::remove_cvref_t<EA>::rank, RB = std::remove_cvref_t<EB>::rank;
  static_assert(detail::gemm_type_v<T>, "tl: linalg::tensorsolve takes float, double or complex tensors");
  static_assert(std::is_same_v<T, detail::value_of_t<EB>>,
                "tl: linalg::tensorsolve needs A and B of the same dtype (as torch); convert one with tl::astype");
  static_assert(RA > RB, "tl: linalg::tensorsolve: A must have more dims than B (X has A.ndim - B.ndim dims)");
  tensor<T, RA> a = detail::readable(std::forward<EA>(A));
  const tensor<T, RB> b = detail::readable(std::forward<EB>(B));
  if (!dims.empty()) {
    std::array<bool, RA> moved{};
    for (index_t d : dims) {
      const std::size_t w = tl::detail::wrap_dim("linalg::tensorsolve", d, RA);
      if (moved[w]) throw index_error(detail::cat_str("tl::linalg::tensorsolve: dim ", d, " appears twice in dims"));
      moved[w] = true;
    }
    std::array<index_t, RA> perm{};
    std::size_t o = 0;
    for (std::size_t q = 0; q < RA; ++q)
      if (!moved[q]) perm[o++] = static_cast<index_t>(q);
    for (index_t d : dims) perm[o++] = static_cast<index_t>(tl::detail::wrap_dim("linalg::tensorsolve", d, RA));
    a = a.permute(perm);
  }
  const auto& s = a.shape();
  index_t lead = 1, rest = 1;
  shape_t<RA - RB> xs{};
  for (std::size_t q = 0; q < RA; ++q) {
    if (q < RB) lead *= s[q];
    else {
      rest *= s[q];
      xs[q - RB] = s[q];
    }
  }
  if (lead != rest)
    throw shape_error(detail::cat_str("tl::linalg::tensorsolve: expected prod(A.shape[B.ndim:]) == "
                                      "prod(A.shape[:B.ndim]) for A of shape ",
                                      detail::shape_str(s), " and B of shape ", detail::shape_str(b.shape()), ", got ",
                                      rest, " != ", lead));
  if (b.numel() != lead)
    throw shape_error(detail::cat_str("tl::linalg::tensorsolve: B of shape ", detail::shape_str(b.shape()), " has ",
                                      b.numel(), " elements, A of shape ", detail::shape_str(s), " needs ", lead));
  const tensor<T, 2> m = a.reshape(shape_t<2>{lead, rest});
  const tensor<T, 1> v = b.reshape(shape_t<1>{lead});
  const tensor<T, 1> x = [&] {
    if constexpr (detail::records_grad<T>())
      if (tl::detail::must_record(m) || tl::detail::must_record(v))
        return detail::record_solve<true>("tensorsolve", m, v, true).result;
    return detail::solve_impl<true>("tensorsolve", m, v, true).result;
  }();
  return tensor<T, RA - RB>(x.reshape(xs));
}

}  // namespace tl::linalg
