#pragma once
/// @file vector_norm.hpp
/// @brief tl::linalg::vector_norm: vector norms of any real order over all dims or the given ones
/// (torch.linalg.vector_norm). The 2-norm neither overflows nor underflows (scaled as LAPACK's
/// nrm2) and runs on SIMD sums of squares.
///
/// @code
/// auto n2 = tl::linalg::vector_norm(x);                                   // rank 0, all dims
/// auto n1 = tl::linalg::vector_norm(x, 1, -1);                            // over the last dim
/// auto ni = tl::linalg::vector_norm(x, INFINITY, tl::dims{0, 1}, tl::keepdim);
/// auto nd = tl::linalg::vector_norm<double>(xf);                          // computed in double
/// @endcode
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "tl/expr/elementwise.hpp"
#include "tl/linalg/detail/autograd_decl.hpp"
#include "tl/linalg/detail/batch.hpp"
#include "tl/linalg/detail/vector_norm_kernels.hpp"
#include "tl/reduce/dims.hpp"

namespace tl::linalg {

namespace detail {

/// torch's text for an order in messages: "2", "-1", "inf", "-inf", "0.5".
inline std::string ord_str(double ord) {
  if (std::isinf(ord)) return ord > 0 ? "inf" : "-inf";
  std::string s = cat_str(ord);
  return s;
}

/// The expression as a tensor in the dtype the norm is computed in (Dt, or its own when void).
template <class Dt, expression E>
auto norm_input(E&& x) {
  if constexpr (std::is_void_v<Dt>) {
    return readable(std::forward<E>(x));
  } else {
    static_assert(is_complex_v<Dt> == is_complex_v<value_of_t<E>>,
                  "tl: the dtype of a norm must be complex exactly when the input is (as in torch.linalg)");
    return readable(tl::astype<Dt>(std::forward<E>(x)));
  }
}

template <class V>
constexpr void check_norm_dtype() {
  static_assert(std::is_floating_point_v<V> || is_complex_v<V>,
                "tl: tl::linalg norms take floating or complex tensors (as torch.linalg does); convert integer "
                "tensors with tl::astype<double>(x) first");
}

/// vector_norm of a tensor along a resolved plan: the reduced dims are moved last (a copy only
/// when that view is not contiguous), then each output is the norm of one contiguous run.
template <class V, std::size_t R, std::size_t RO>
tensor<real_t<V>, RO> vector_norm_plan(const tensor<V, R>& t, double ord,
                                       const tl::detail::reduce_plan<R, RO>& plan) {
  using Rt = real_t<V>;
  if (plan.n == 0 && (ord < 0 || std::isinf(ord))) {
    std::string where = "an empty tensor";
    if constexpr (R > 0) {
      bool all = true;
      for (std::size_t d = 0; d < R; ++d) all = all && plan.mask[d];
      if (!all)
        for (std::size_t d = 0; d < R; ++d)
          if (plan.mask[d] && t.shape()[d] == 0) {
            where = cat_str("the empty dimension ", d);
            break;
          }
    }
    throw value_error(cat_str("tl::linalg::vector_norm: cannot compute the ", ord_str(ord), " norm on ", where,
                              " (input shape ", shape_str(t.shape()),
                              ") because the operation does not have an identity"));
  }
  tensor<Rt, RO> out(plan.out_shape);
  const index_t rows = plan.out_numel, n = plan.n;
  if (rows == 0) return out;
  tensor<V, R> run = t;
  if constexpr (R > 0) {
    std::array<index_t, R> perm{};
    std::size_t o = 0;
    for (std::size_t d = 0; d < R; ++d)
      if (!plan.mask[d]) perm[o++] = static_cast<index_t>(d);
    for (std::size_t d = 0; d < R; ++d)
      if (plan.mask[d]) perm[o++] = static_cast<index_t>(d);
    run = t.permute(perm);
  }
  if (!run.is_contiguous()) run = run.contiguous();
  const V* p = run.data();  // a lazy conjugate does not change any norm
  Rt* d = out.data();
  if (rows == 1) {
    d[0] = norm_run(p, n, ord, true);
  } else {
    const index_t grain = std::max<index_t>(1, nrm2_chunk / std::max<index_t>(n, 1));
    tl::detail::parallel_ranges(rows, grain, [&](index_t lo, index_t hi) {
      for (index_t r = lo; r < hi; ++r) d[r] = norm_run(p + r * n, n, ord, false);
    });
  }
  return out;
}

}  // namespace detail

/// @brief The vector `ord`-norm over every dim, or over `dim` / `tl::dims{...}`, optionally
/// followed by `tl::keepdim` (torch.linalg.vector_norm(x, ord, dim, keepdim, dtype=Dt)).
///
/// ord: any real; inf (max |x|), -inf (min |x|), 0 (the number of nonzeros, as a real), others
/// (sum |x|^ord)^(1/ord). Float, double and complex input; the result is real (float for
/// complex<float>). Dt, when given, is the dtype the input is converted to first (complex exactly
/// when the input is). The norms of nothing are 0, except for ord < 0 and ord = inf, which have no
/// identity and throw value_error. NaN anywhere in a reduced run gives NaN. With autograd, the
/// gradient is torch's (0 at a zero vector for ord 2; ties of inf / -inf share it equally).
template <class Dt = void, expression E, class... A>
  requires tl::detail::reduce_dim_args<std::remove_cvref_t<E>::rank, A...>
auto vector_norm(E&& x, double ord = 2, const A&... args) {
  using V0 = detail::value_of_t<E>;
  detail::check_norm_dtype<V0>();
  auto t = detail::norm_input<Dt>(std::forward<E>(x));
  constexpr std::size_t R = decltype(t)::rank;
  const auto plan = tl::detail::make_plan<R>("linalg::vector_norm", t.shape(), args...);
  if constexpr (detail::records_grad<V0>())
    if (tl::detail::must_record(t))
      return detail::record_vector_norm<decltype(detail::vector_norm_plan(t, ord, plan))>(
          [ord, plan](const auto& y) { return detail::vector_norm_plan(y, ord, plan); }, t, ord, args...);
  return detail::vector_norm_plan(t, ord, plan);
}

}  // namespace tl::linalg
