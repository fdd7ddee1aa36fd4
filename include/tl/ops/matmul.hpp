#pragma once
/// @file matmul.hpp
/// @brief tl::matmul with torch's semantics: dot, matrix-vector, matrix-matrix and batched products.
/// float, double and complex products run on the packed, cache-blocked GEMM of tl::linalg
/// (tl/linalg/detail/gemm.hpp); integer ones on the simple kernel in tl/ops/detail/gemm.hpp.
/// Products of CUDA tensors run on cuBLAS (tl/ops/detail/device_gemm.hpp, tl/ops/cuda/gemm.cuh).
#include <algorithm>
#include <type_traits>
#include <utility>

#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/expr/elementwise.hpp"
#include "tl/ops/detail/gemm.hpp"
#include "tl/ops/detail/loops.hpp"

namespace tl {

namespace detail {
/// Rank of matmul's result for operand ranks RA, RB (both >= 1), as torch.matmul defines it.
template <std::size_t RA, std::size_t RB>
inline constexpr std::size_t matmul_rank_v =
    (RA == 1 && RB == 1) ? 0 : (RA == 1 ? RB - 1 : (RB == 1 ? RA - 1 : (RA > RB ? RA : RB)));

/// A contiguous, conjugate-resolved tensor of dtype V holding the expression's values.
template <class V, expression E>
auto contiguous_as(E&& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (is_tensor_v<D> && std::is_same_v<typename D::value_type, V>) {
    if (e.is_contiguous() && !e.is_conj()) return tensor<V, D::rank>(std::forward<E>(e));  // one handle copy
    return tensor<V, D::rank>(e).contiguous();
  } else {
    return tensor<V, D::rank>(astype<V>(std::forward<E>(e)));
  }
}

/// The expression as a tensor of dtype V readable through its strides: a tensor of dtype V is
/// returned as a view (its lazy conjugate bit kept), anything else is evaluated once.
template <class V, expression E>
auto strided_as(E&& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (is_tensor_v<D> && std::is_same_v<typename D::value_type, V>) {
    return tensor<V, D::rank>(e);
  } else {
    return tensor<V, D::rank>(astype<V>(std::forward<E>(e)));
  }
}

// tl::matmul without the recording check (defined below).
template <expression A, expression B>
auto matmul_plain(A&& a, B&& b, tl::device da);

// Records matmul for autograd (defined in tl/autograd/detail/linear.hpp).
template <class Out, class F, class A, class B>
Out record_matmul(F fwd, const A& a, const B& b);
}  // namespace detail
}  // namespace tl

#include "tl/ops/detail/device_gemm.hpp"
#if defined(__CUDACC__)
#include "tl/ops/cuda/gemm.cuh"
#endif

namespace tl {

/// @brief Matrix product with torch.matmul's rules: 1-D x 1-D is a dot product (rank 0); 2-D x 2-D
/// the matrix product; a 1-D first (second) operand gets a dim of 1 prepended (appended) that is
/// removed from the result; otherwise the leading (batch) dims broadcast, e.g. [2, 1, 3, 4] x
/// [5, 4, 6] -> [2, 5, 3, 6]. The result has the promoted dtype and a rank fixed at compile time.
///
/// @code
/// tl::tensor<float, 2> c = tl::matmul(a, b);       // [m, k] x [k, n]
/// tl::tensor<double, 1> y = tl::matmul(m, x);      // [m, k] x [k]
/// @endcode
template <expression A, expression B>
auto matmul(A&& a, B&& b) {
  const tl::device da = detail::expression_device(a), db = detail::expression_device(b);
  if (da != db)
    throw device_error(
        detail::cat_str("tl::matmul: expected both operands on the same device, got ", da.str(), " and ", db.str()));
  using DA = std::remove_cvref_t<A>;
  using DB = std::remove_cvref_t<B>;
  constexpr std::size_t RA = DA::rank, RB = DB::rank;
  using V = promote_t<typename DA::value_type, typename DB::value_type>;
  static_assert(RA >= 1 && RB >= 1, "tl: both arguments to matmul need to be at least 1-D (torch raises the same)");
  static_assert(!std::is_same_v<V, bool>,
                "tl: matmul does not support bool tensors (torch rejects them too); "
                "cast with tl::astype<int64_t> first");
  constexpr std::size_t RO = detail::matmul_rank_v<RA, RB>;
  if constexpr (TL_AUTOGRAD && detail::category<V>() >= 2)
    if (detail::must_record(a) || detail::must_record(b))
      return detail::record_matmul<tensor<V, RO>>([](const auto& x, const auto& y) { return tl::matmul(x, y); }, a,
                                                  b);
  return detail::matmul_plain(std::forward<A>(a), std::forward<B>(b), da);
}

namespace detail {
/// tl::matmul without the recording: the product of two expressions on device `da` (the operands'
/// device, already checked to agree). Gradient rules call it for products at ranks that user code
/// never records (e.g. with a leading dim of cotangents), so that no recording code is instantiated
/// for them.
template <expression A, expression B>
auto matmul_plain(A&& a, B&& b, tl::device da) {
  using DA = std::remove_cvref_t<A>;
  using DB = std::remove_cvref_t<B>;
  constexpr std::size_t RA = DA::rank, RB = DB::rank;
  using V = promote_t<typename DA::value_type, typename DB::value_type>;
  constexpr std::size_t RO = detail::matmul_rank_v<RA, RB>;
  constexpr std::size_t BA = RA > 2 ? RA - 2 : 0, BB = RB > 2 ? RB - 2 : 0, BR = BA > BB ? BA : BB;

  const shape_t<RA> as = a.shape();
  const shape_t<RB> bs = b.shape();
  const index_t m = RA == 1 ? 1 : as[RA - 2];
  const index_t ka = as[RA - 1];
  const index_t kb = RB == 1 ? bs[0] : bs[RB - 2];
  const index_t n = RB == 1 ? 1 : bs[RB - 1];
  if (ka != kb)
    throw shape_error(detail::cat_str("tl::matmul: shapes ", detail::shape_str(as), " and ", detail::shape_str(bs),
                                      " cannot be multiplied (inner extents ", ka, " and ", kb, " differ)"));
  const index_t k = ka;

  // Broadcast the batch dims (right-aligned); batch strides count whole matrices, 0 on broadcast.
  shape_t<BR> batch{}, astr{}, bstr{};
  {
    index_t acc_a = 1, acc_b = 1;
    for (std::size_t q = BR; q-- > 0;) {
      const std::ptrdiff_t qa = static_cast<std::ptrdiff_t>(q) - static_cast<std::ptrdiff_t>(BR - BA);
      const std::ptrdiff_t qb = static_cast<std::ptrdiff_t>(q) - static_cast<std::ptrdiff_t>(BR - BB);
      const index_t ea = qa >= 0 ? as[qa] : 1, eb = qb >= 0 ? bs[qb] : 1;
      if (ea != eb && ea != 1 && eb != 1)
        throw shape_error(detail::cat_str("tl::matmul: the batch dims of shapes ", detail::shape_str(as), " and ",
                                          detail::shape_str(bs), " cannot be broadcast (extent ", ea, " vs ", eb,
                                          ")"));
      batch[q] = ea == 1 ? eb : ea;
      astr[q] = (ea == 1) ? 0 : acc_a;
      bstr[q] = (eb == 1) ? 0 : acc_b;
      acc_a *= ea;
      acc_b *= eb;
    }
  }

  shape_t<RO> os{};
  {
    std::size_t o = 0;
    for (std::size_t q = 0; q < BR; ++q) os[o++] = batch[q];
    if constexpr (RA > 1) os[o++] = m;
    if constexpr (RB > 1) os[o++] = n;
  }
  if (da.is_cuda()) return detail::device_matmul<V, RO>(a, b, os, batch, m, n, k, da);
  tensor<V, RO> out(os);
  if (out.numel() == 0) return out;
  if (k == 0) {
    std::fill(out.data(), out.data() + out.numel(), V{});
    return out;
  }

  if constexpr (linalg::detail::gemm_type_v<V>) {
    // Floating and complex dtypes: the packed GEMM reads tensors of dtype V through their strides
    // (transposed, sliced and lazily conjugated views are not copied); other operands are
    // evaluated once into contiguous tensors.
    const auto av = detail::strided_as<V>(std::forward<A>(a));
    const auto bv = detail::strided_as<V>(std::forward<B>(b));
    shape_t<BR> abs{}, bbs{};  // element strides of the batch dims, 0 where broadcast
    for (std::size_t q = 0; q < BR; ++q) {
      const std::ptrdiff_t qa = static_cast<std::ptrdiff_t>(q) - static_cast<std::ptrdiff_t>(BR - BA);
      const std::ptrdiff_t qb = static_cast<std::ptrdiff_t>(q) - static_cast<std::ptrdiff_t>(BR - BB);
      abs[q] = qa >= 0 && as[qa] != 1 ? av.strides()[qa] : 0;
      bbs[q] = qb >= 0 && bs[qb] != 1 ? bv.strides()[qb] : 0;
    }
    const index_t rsa = RA == 1 ? 0 : av.strides()[RA - 2], csa = av.strides()[RA - 1];
    const index_t rsb = bv.strides()[RB == 1 ? 0 : RB - 2], csb = RB == 1 ? 0 : bv.strides()[RB - 1];
    const index_t nbatch = detail::numel(batch);
    V* cp = out.data();
    // B shared by the whole batch and A's batch dims merging with its rows (element (b, i) of the
    // batch's rows at (b m + i) rsa, as in a contiguous batch): one product of nbatch * m rows.
    if constexpr (BR > 0 && RA >= 2) {
      bool fold = nbatch > 1;
      index_t expected = m * rsa;
      for (std::size_t q = BR; q-- > 0;) {
        if (batch[q] == 1) continue;
        fold = fold && bbs[q] == 0 && abs[q] == expected;
        expected *= batch[q];
      }
      if (fold) {
        linalg::detail::gemm<V>(nbatch * m, n, k, V(1), {av.data(), rsa, csa, av.is_conj()},
                                {bv.data(), rsb, csb, bv.is_conj()}, V(0), cp, n, 1);
        return out;
      }
    }
    auto one = [&](index_t bi) {
      std::array<index_t, BR> bix{};
      detail::unravel(batch, bi, bix);
      const linalg::detail::mat_ref<V> am{av.data() + detail::offset_of(bix, abs), rsa, csa, av.is_conj()};
      const linalg::detail::mat_ref<V> bm{bv.data() + detail::offset_of(bix, bbs), rsb, csb, bv.is_conj()};
      linalg::detail::gemm<V>(m, n, k, V(1), am, bm, V(0), cp + bi * m * n, n, 1);
    };
    // Many small products run one per task; large ones use the threads inside the GEMM.
    const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    if (nbatch > 1 && work < double(1 << 21)) {
      const index_t grain = std::max<index_t>(1, static_cast<index_t>(double(1 << 16) / std::max(work, 1.0)));
      detail::parallel_ranges(nbatch, grain, [&](index_t lo, index_t hi) {
        for (index_t bi = lo; bi < hi; ++bi) one(bi);
      });
    } else {
      for (index_t bi = 0; bi < nbatch; ++bi) one(bi);
    }
    return out;
  } else {
    const auto ac = detail::contiguous_as<V>(std::forward<A>(a));
    const auto bc = detail::contiguous_as<V>(std::forward<B>(b));
    const V* ap = ac.data();
    const V* bp = bc.data();
    V* cp = out.data();
    const index_t nbatch = detail::numel(batch);
    // Tasks are (batch, block of rows) pairs; a range of tasks does at least ~64k multiply-adds.
    const index_t rows_per_block = std::max<index_t>(4, std::min<index_t>(64, (m + 3) / 4 * 4));
    const index_t blocks = (m + rows_per_block - 1) / rows_per_block;
    const index_t work = std::max<index_t>(1, rows_per_block * k * n);
    const index_t grain = std::max<index_t>(1, (index_t{1} << 16) / work);
    detail::parallel_ranges(nbatch * blocks, grain, [&](index_t lo, index_t hi) {
      for (index_t t = lo; t < hi; ++t) {
        const index_t bi = t / blocks, blk = t % blocks;
        std::array<index_t, BR> bix{};
        detail::unravel(batch, bi, bix);
        const index_t aoff = detail::offset_of(bix, astr) * m * k;
        const index_t boff = detail::offset_of(bix, bstr) * k * n;
        const index_t i0 = blk * rows_per_block, i1 = std::min(m, i0 + rows_per_block);
        detail::gemm_rows(ap + aoff, bp + boff, cp + bi * m * n, i0, i1, k, n);
      }
    });
    return out;
  }
}
}  // namespace detail

}  // namespace tl
