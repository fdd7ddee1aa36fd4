#pragma once
/// @file matrix_norm.hpp
/// @brief tl::linalg::matrix_norm: Frobenius, nuclear and induced 1 / 2 / inf norms (and their
/// minima) of matrices or batches of them over two dims (torch.linalg.matrix_norm).
///
/// @code
/// auto f = tl::linalg::matrix_norm(a);                          // 'fro' over the last two dims
/// auto c = tl::linalg::matrix_norm(a, 1);                       // max column sum of |a|
/// auto r = tl::linalg::matrix_norm(a, INFINITY, tl::dims{0, 2}, tl::keepdim);
/// @endcode
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "tl/linalg/svd.hpp"
#include "tl/linalg/vector_norm.hpp"

namespace tl::linalg {

namespace detail {

/// The orders matrix_norm knows.
enum class mat_ord { fro, nuc, one, neg_one, two, neg_two, inf, neg_inf };

inline mat_ord parse_mat_ord(std::string_view ord) {
  if (ord == "fro") return mat_ord::fro;
  if (ord == "nuc") return mat_ord::nuc;
  throw value_error(cat_str("tl::linalg::matrix_norm: order '", ord, "' is not supported (string orders are 'fro' "
                            "and 'nuc')"));
}

inline mat_ord parse_mat_ord(double ord) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (ord == 1) return mat_ord::one;
  if (ord == -1) return mat_ord::neg_one;
  if (ord == 2) return mat_ord::two;
  if (ord == -2) return mat_ord::neg_two;
  if (ord == inf) return mat_ord::inf;
  if (ord == -inf) return mat_ord::neg_inf;
  throw value_error(cat_str("tl::linalg::matrix_norm: order ", ord_str(ord),
                            " is not supported (numeric orders are 1, -1, 2, -2, inf and -inf)"));
}

inline const char* mat_ord_name(mat_ord o) {
  switch (o) {
    case mat_ord::fro: return "'fro'";
    case mat_ord::nuc: return "'nuc'";
    case mat_ord::one: return "1";
    case mat_ord::neg_one: return "-1";
    case mat_ord::two: return "2";
    case mat_ord::neg_two: return "-2";
    case mat_ord::inf: return "inf";
    default: return "-inf";
  }
}

/// The extreme (max when Max) of n values, NaN if any is NaN; n > 0.
template <bool Max, class R>
R extreme_of(const R* v, index_t n) {
  R m = v[0];
  for (index_t i = 0; i < n; ++i) {
    if (std::isnan(v[i])) return v[i];
    m = Max ? std::max(m, v[i]) : std::min(m, v[i]);
  }
  return m;
}

/// An induced 1 / -1 (Cols: extreme column sum) or inf / -inf norm of one m x n row-major matrix.
template <bool Cols, bool Max, class T>
real_t<T> induced_norm(const T* a, index_t m, index_t n, std::vector<real_t<T>>& sums) {
  using R = real_t<T>;
  sums.assign(static_cast<std::size_t>(Cols ? n : m), R(0));
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) sums[static_cast<std::size_t>(Cols ? j : i)] += abs_value(a[i * n + j]);
  return extreme_of<Max>(sums.data(), static_cast<index_t>(sums.size()));
}

/// Dims of a matrix norm: the two (wrapped) dims and whether they are kept.
template <std::size_t R, class... A>
struct mat_dims_args {
  using tr = tl::detail::reduce_args<R, std::remove_cvref_t<A>...>;
  static_assert(tr::valid && (tr::all || tr::count == 2),
                "tl: the dims of a matrix norm are two dims, tl::dims{d0, d1} (optionally followed by "
                "tl::keepdim), as torch's dim must be a 2-tuple");
  static constexpr bool keep = tr::keep;
  static constexpr std::size_t out_rank = keep ? R : R - 2;
};

template <std::size_t R, class... A>
std::array<std::size_t, 2> mat_dims(const char* op, const A&... args) {
  std::array<index_t, 2> d{-2, -1};
  auto one = [&](const auto& a) {
    using X = std::remove_cvref_t<decltype(a)>;
    if constexpr (tl::detail::is_dims<X>::value) {
      if constexpr (requires { a.values; }) d = {static_cast<index_t>(a.values[0]), static_cast<index_t>(a.values[1])};
      else d = {static_cast<index_t>(a[0]), static_cast<index_t>(a[1])};
    }
  };
  (one(args), ...);
  (void)one;
  const std::size_t d0 = tl::detail::wrap_dim(op, d[0], R), d1 = tl::detail::wrap_dim(op, d[1], R);
  if (d0 == d1) throw value_error(cat_str("tl::", op, ": dims must be different, got (", d[0], ", ", d[1], ")"));
  return {d0, d1};
}

/// A tensor with dims d0, d1 moved last (others in order) and made contiguous, with the shape of
/// the result (the other dims; with Keep, the input's shape with extents 1 at d0 and d1).
template <bool Keep, class V, class Ext>
auto matrices_last(const basic_tensor<V, Ext>& t, std::array<std::size_t, 2> d) {
  constexpr std::size_t R = Ext::rank;
  constexpr std::size_t RO = Keep ? R : R - 2;
  std::array<index_t, R> perm{};
  shape_t<RO> os{};
  std::size_t o = 0, k = 0;
  for (std::size_t q = 0; q < R; ++q) {
    if (q == d[0] || q == d[1]) {
      if constexpr (Keep) os[k++] = 1;
      continue;
    }
    perm[o++] = static_cast<index_t>(q);
    os[k++] = t.shape()[q];
  }
  perm[R - 2] = static_cast<index_t>(d[0]);
  perm[R - 1] = static_cast<index_t>(d[1]);
  tensor<V, R> p = t.permute(perm);
  if (!p.is_contiguous()) p = p.contiguous();
  return std::pair<tensor<V, R>, shape_t<RO>>{std::move(p), os};
}

template <bool Keep, class V, class Ext>
auto matrix_norm_impl(const basic_tensor<V, Ext>& t, mat_ord o, std::array<std::size_t, 2> d) {
  constexpr std::size_t R = Ext::rank;
  using Rt = real_t<V>;
  auto [p, os] = matrices_last<Keep>(t, d);
  tensor<Rt, (Keep ? R : R - 2)> out(os);
  const index_t m = p.shape()[R - 2], n = p.shape()[R - 1], nb = batch_count(p.shape());
  if (nb == 0) return out;
  const bool cols = o == mat_ord::one || o == mat_ord::neg_one;
  const bool svd = o == mat_ord::two || o == mat_ord::neg_two || o == mat_ord::nuc;
  const index_t k = std::min(m, n);
  if (((o == mat_ord::one || o == mat_ord::neg_one || o == mat_ord::inf || o == mat_ord::neg_inf) &&
       (cols ? n : m) == 0) ||
      (o == mat_ord::neg_two && k == 0))
    throw index_error(cat_str("tl::linalg::matrix_norm: cannot compute the ", mat_ord_name(o), " norm of ",
                              m, " x ", n, " matrices (input shape ", shape_str(t.shape()),
                              "): the reduction over an empty dim has no identity"));
  const V* a = p.data();
  Rt* r = out.data();
  if (svd) {
    // max / min / sum of the singular values (descending), per matrix
    if (k == 0) {
      std::fill(r, r + nb, Rt(0));
      return out;
    }
    const auto sv = svdvals(p);
    const Rt* sp = sv.data();
    for (index_t b = 0; b < nb; ++b) {
      const Rt* sb = sp + b * k;
      if (o == mat_ord::two) r[b] = extreme_of<true>(sb, k);
      else if (o == mat_ord::neg_two) r[b] = extreme_of<false>(sb, k);
      else {
        Rt acc = 0;
        for (index_t i = 0; i < k; ++i) acc += sb[i];
        r[b] = acc;
      }
    }
    return out;
  }
  for_each_matrix(nb, std::max(m, n), [&](index_t b) {
    const V* ab = a + b * m * n;
    std::vector<Rt> sums;
    switch (o) {
      case mat_ord::fro: r[b] = norm_run(ab, m * n, 2.0, false); break;
      case mat_ord::one: r[b] = induced_norm<true, true>(ab, m, n, sums); break;
      case mat_ord::neg_one: r[b] = induced_norm<true, false>(ab, m, n, sums); break;
      case mat_ord::inf: r[b] = induced_norm<false, true>(ab, m, n, sums); break;
      default: r[b] = induced_norm<false, false>(ab, m, n, sums); break;
    }
  });
  return out;
}

template <class Dt, class Ord, expression E, class... A>
auto matrix_norm_entry(E&& A_, const Ord& ord, const A&... args) {
  using V0 = value_of_t<E>;
  check_norm_dtype<V0>();
  constexpr std::size_t R = std::remove_cvref_t<E>::rank;
  static_assert(R >= 2, "tl: linalg::matrix_norm: the input tensor A must have at least 2 dimensions");
  using da = mat_dims_args<R, A...>;
  const mat_ord o = parse_mat_ord(ord);
  const auto d = mat_dims<R>("linalg::matrix_norm", args...);
  auto t = norm_input<Dt>(std::forward<E>(A_));
  if constexpr (records_grad<V0>())
    if (tl::detail::must_record(t)) return record_matrix_norm<da::keep>(t, o, d);
  return matrix_norm_impl<da::keep>(t, o, d);
}

}  // namespace detail

/// @brief Matrix norm over dims (-2, -1) or `tl::dims{d0, d1}`, optionally followed by
/// `tl::keepdim` (torch.linalg.matrix_norm(A, ord, dim, keepdim, dtype=Dt)); string orders:
/// 'fro' (default) and 'nuc' (the sum of the singular values).
///
/// The result is real (float for complex<float>). 'fro' of an empty matrix is 0. With autograd,
/// differentiable through torch's composition (vector norms, amax / amin, svdvals).
template <class Dt = void, expression E, class... A>
auto matrix_norm(E&& A_, std::string_view ord = "fro", const A&... args) {
  return detail::matrix_norm_entry<Dt>(std::forward<E>(A_), ord, args...);
}

/// @brief Matrix norm of a numeric order: 1 / -1 (max / min over columns of the sum of |a_ij|
/// down the column), inf / -inf (the same over rows), 2 / -2 (the largest / smallest singular
/// value, from tl::linalg::svdvals). Other orders throw value_error.
template <class Dt = void, expression E, class... A>
auto matrix_norm(E&& A_, double ord, const A&... args) {
  return detail::matrix_norm_entry<Dt>(std::forward<E>(A_), ord, args...);
}

}  // namespace tl::linalg
