#pragma once
/// @file batch.hpp
/// @brief Internal header: what every tl::linalg op shares: dtype checks, shape checks with
/// torch's messages, working copies, batch broadcasting and running one matrix per task.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/expr/elementwise.hpp"
#include "tl/linalg/detail/gemm.hpp"
#include "tl/linalg/detail/trsm.hpp"
#include "tl/linalg/error.hpp"
#include "tl/ops/detail/loops.hpp"

namespace tl::linalg::detail {

using tl::detail::cat_str;
using tl::detail::shape_str;

/// The value type of an expression argument.
template <class E>
using value_of_t = typename std::remove_cvref_t<E>::value_type;

/// Compile-time checks shared by the ops taking matrices: dtype float, double or complex, rank >= 2.
template <class E, std::size_t MinRank = 2>
constexpr void check_matrix_arg() {
  using V = value_of_t<E>;
  static_assert(gemm_type_v<V>,
                "tl: tl::linalg operations take float, double, complex<float> or complex<double> tensors "
                "(as torch.linalg does); convert integer tensors with tl::astype<double>(x) first");
  static_assert(std::remove_cvref_t<E>::rank >= MinRank,
                "tl: this tl::linalg operation takes a matrix or a batch of matrices (rank >= 2)");
}

/// Throws shape_error unless the last two extents are equal.
template <std::size_t R>
void require_square(const char* op, const shape_t<R>& s) {
  if (s[R - 1] != s[R - 2])
    throw shape_error(cat_str("tl::linalg::", op, ": expected a square matrix or a batch of square matrices, got shape ",
                              shape_str(s)));
}

/// Product of the leading R - 2 extents (the number of matrices).
template <std::size_t R>
index_t batch_count(const shape_t<R>& s) {
  index_t b = 1;
  for (std::size_t q = 0; q + 2 < R; ++q) b *= s[q];
  return b;
}

/// Throws tl::autograd_error when an input of `op` (a tl::linalg function without a backward rule)
/// needs a gradient: the result could not carry it, and a silently missing gradient is worse than
/// an error.
template <class... E>
void require_no_grad(const char* op, const E&... e) {
  if constexpr (TL_AUTOGRAD != 0) {
    if ((tl::detail::must_record(e) || ...))
      throw autograd_error(cat_str("tl::linalg::", op, ": an input requires grad, but ", op,
                                   " records no gradient in tl; call it on x.detach() or under tl::no_grad "
                                   "if its gradient is not needed"));
  }
}

/// Throws tl::device_error for an operand on a CUDA device: the linalg factorizations run on the host.
template <class E>
void require_host_operand(const E& e) {
  tl::detail::require_host("linalg (the CPU implementation)", e);
}

/// A contiguous tensor of the expression's values that the op may overwrite (a lazy conjugate is
/// resolved; the input is never modified).
template <expression E>
auto working_copy(E&& e) {
  using D = std::remove_cvref_t<E>;
  using V = typename D::value_type;
  require_host_operand(e);
  if constexpr (is_tensor_v<D>) {
    return tensor<V, D::rank>(e).clone();
  } else {
    return tensor<V, D::rank>(std::forward<E>(e));
  }
}

/// The expression as a tensor readable through its strides (a tensor is returned as a view, its
/// lazy conjugate bit kept; an expression is evaluated once).
template <expression E>
auto readable(E&& e) {
  using D = std::remove_cvref_t<E>;
  require_host_operand(e);
  return tensor<typename D::value_type, D::rank>(std::forward<E>(e));
}

/// Runs f(b) for every matrix b < nbatch: over the thread pool, one matrix per task, when the
/// matrices are small (n <= 128) and several; otherwise in order, each op threading its GEMMs.
template <class F>
void for_each_matrix(index_t nbatch, index_t n, F&& f) {
  if (nbatch > 1 && n <= 128) {
    const index_t grain = std::max<index_t>(1, 4096 / std::max<index_t>(1, n * n));
    tl::detail::parallel_ranges(nbatch, grain, [&](index_t lo, index_t hi) {
      for (index_t b = lo; b < hi; ++b) f(b);
    });
  } else {
    for (index_t b = 0; b < nbatch; ++b) f(b);
  }
}

/// " (batch element b)" for batched inputs, "" for a single matrix.
inline std::string batch_note(index_t b, bool batched) {
  return batched ? cat_str(" (batch element ", b, ")") : std::string();
}

/// Broadcast of two batch shapes (right-aligned, torch's rules): the result's shape and, for each
/// operand, the strides in elements of its batch dims (0 where broadcast).
template <std::size_t BR>
struct batch_bcast {
  shape_t<BR> shape{};
  shape_t<BR> astr{}, bstr{};
  index_t count() const { return tl::detail::numel(shape); }
  index_t a_offset(index_t b) const { return offset(b, astr); }
  index_t b_offset(index_t b) const { return offset(b, bstr); }

 private:
  index_t offset(index_t b, const shape_t<BR>& str) const {
    index_t off = 0;
    for (std::size_t q = BR; q-- > 0;) {
      const index_t e = shape[q] > 0 ? shape[q] : 1;
      off += (b % e) * str[q];
      b /= e;
    }
    return off;
  }
};

/// Broadcasts the first BA dims of `as` (strides `ast`) with the first BB dims of `bs`.
template <std::size_t BA, std::size_t BB, std::size_t RA, std::size_t RB>
auto broadcast_batches(const char* op, const shape_t<RA>& as, const shape_t<RA>& ast, const shape_t<RB>& bs,
                       const shape_t<RB>& bst) {
  constexpr std::size_t BR = BA > BB ? BA : BB;
  batch_bcast<BR> r;
  for (std::size_t q = 0; q < BR; ++q) {
    const std::ptrdiff_t qa = static_cast<std::ptrdiff_t>(q) - static_cast<std::ptrdiff_t>(BR - BA);
    const std::ptrdiff_t qb = static_cast<std::ptrdiff_t>(q) - static_cast<std::ptrdiff_t>(BR - BB);
    const index_t ea = qa >= 0 ? as[qa] : 1, eb = qb >= 0 ? bs[qb] : 1;
    if (ea != eb && ea != 1 && eb != 1)
      throw shape_error(cat_str("tl::linalg::", op, ": the batch dims of shapes ", shape_str(as), " and ",
                                shape_str(bs), " cannot be broadcast (extent ", ea, " vs ", eb, ")"));
    r.shape[q] = ea == 1 ? eb : ea;
    r.astr[q] = qa >= 0 && ea != 1 ? ast[qa] : 0;
    r.bstr[q] = qb >= 0 && eb != 1 ? bst[qb] : 0;
  }
  return r;
}

}  // namespace tl::linalg::detail
