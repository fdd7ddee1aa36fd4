// Tests for the packed GEMM behind tl::matmul / tl::linalg::matmul: results against a naive
// reference accumulated in long double, over sizes around the register and cache blocks,
// transposed / sliced / conjugated views read without a copy, alpha and beta, strided C,
// batches, and the thread count.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <tl/linalg/linalg.hpp>

#include "linalg_test_util.hpp"

namespace {
using namespace tl_linalg_test;

// The entries of a 2-D operand, read through get() (views and lazy conjugates honoured), as long
// doubles: real and imaginary parts and magnitudes, row-major, or column-major when `by_column`.
struct ld_entries {
  std::vector<ld> re, im, mag;
};
template <class T, class E>
ld_entries entries_of(const tl::basic_tensor<T, E>& t, bool by_column) {
  const index_t r = t.shape()[0], c = t.shape()[1];
  ld_entries e{std::vector<ld>(static_cast<std::size_t>(r * c)), std::vector<ld>(static_cast<std::size_t>(r * c)),
               std::vector<ld>(static_cast<std::size_t>(r * c))};
  for (index_t i = 0; i < r; ++i)
    for (index_t j = 0; j < c; ++j) {
      const cld z = to_cld(t.get(i, j));
      const auto q = static_cast<std::size_t>(by_column ? j * r + i : i * c + j);
      e.re[q] = z.real();
      e.im[q] = z.imag();
      e.mag[q] = std::abs(z);
    }
  return e;
}

// max |C - A B| / (k * eps * max(1, |A||B| scale)) for 2-D operands viewed through get(). The
// reference sums run over raw long-double arrays: at -O0 under the sanitizers, this is most of the
// test's time.
template <class T, class EC, class EA, class EB>
ld gemm_error(const tl::basic_tensor<T, EC>& c, const tl::basic_tensor<T, EA>& a, const tl::basic_tensor<T, EB>& b) {
  const index_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  const ld_entries A = entries_of(a, false), B = entries_of(b, true);
  ld worst = 0;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      const ld *ar = A.re.data() + i * k, *ai = A.im.data() + i * k, *am = A.mag.data() + i * k;
      const ld *br = B.re.data() + j * k, *bi = B.im.data() + j * k, *bm = B.mag.data() + j * k;
      ld re = 0, im = 0, mag = 0;
      for (index_t p = 0; p < k; ++p) {
        if constexpr (tl::is_complex_v<T>) {
          re += ar[p] * br[p] - ai[p] * bi[p];
          im += ar[p] * bi[p] + ai[p] * br[p];
        } else {
          re += ar[p] * br[p];
        }
        mag += am[p] * bm[p];
      }
      const ld err = std::abs(to_cld(c.get(i, j)) - cld(re, im)) / (std::max<ld>(mag, 1e-30L) * eps_of<T>());
      worst = std::max(worst, err);
    }
  return worst / static_cast<ld>(std::max<index_t>(k, 1));
}

template <class T>
void check_sizes() {
  CAPTURE(sizeof(T));
  const std::array<std::array<index_t, 3>, 12> sizes{{{1, 1, 1},
                                                      {7, 7, 7},
                                                      {1, 33, 257},
                                                      {33, 1, 7},
                                                      {33, 33, 33},
                                                      {6, 16, 256},
                                                      {13, 17, 600},
                                                      {9, 520, 20},
                                                      {300, 257, 1},
                                                      {257, 33, 7},
                                                      {145, 257, 70},
                                                      {73, 19, 513}}};
  for (const auto& mkn : sizes) {
    const index_t m = mkn[0], k = mkn[1], n = mkn[2];
    CAPTURE(m);
    CAPTURE(k);
    CAPTURE(n);
    if (!tl_test::sweep_case<T>(m * n)) continue;
    const auto a = random_tensor<T, 2>({m, k}, static_cast<std::uint64_t>(m * 1000 + k));
    const auto b = random_tensor<T, 2>({k, n}, static_cast<std::uint64_t>(k * 1000 + n + 7));
    CHECK(gemm_error(tl::linalg::matmul(a, b), a, b) <= 2);
    // Transposed storage: A^T and B^T stored, used through .t() views.
    const auto at = random_tensor<T, 2>({k, m}, static_cast<std::uint64_t>(m + 11));
    const auto bt = random_tensor<T, 2>({n, k}, static_cast<std::uint64_t>(n + 13));
    CHECK(gemm_error(tl::matmul(at.t(), bt.t()), at.t(), bt.t()) <= 2);
    CHECK(gemm_error(tl::matmul(a, bt.t()), a, bt.t()) <= 2);
    if constexpr (tl::is_complex_v<T>) {
      CHECK(gemm_error(tl::matmul(at.mH(), b), at.mH(), b) <= 2);
      CHECK(gemm_error(tl::matmul(a.conj(), bt.mH()), a.conj(), bt.mH()) <= 2);
    }
  }
}

TEST_CASE("gemm: odd sizes, transposed and conjugated views, every floating dtype") {
  check_sizes<float>();
  check_sizes<double>();
  check_sizes<tl::complex<float>>();
  check_sizes<tl::complex<double>>();
}

TEST_CASE("gemm: sliced and strided views, large enough for several cache blocks") {
  const auto big = random_tensor<double, 2>({700, 900}, 5);
  const auto a = big.slice(0, 3, 203, 2).slice(1, 1, 301);  // [100, 300], row stride 1800
  const auto b = big.slice(1, 0, 900, 3);                   // [700, 300], column stride 3
  const auto b2 = b.slice(0, 0, 300);
  CHECK(gemm_error(tl::matmul(a, b2), a, b2) <= 2);
  const auto af = random_tensor<float, 2>({20, 300}, 6);
  const auto bf = random_tensor<float, 2>({300, 4200}, 7);  // n > NC: two column blocks
  CHECK(gemm_error(tl::matmul(af, bf), af, bf) <= 2);
}

TEST_CASE("gemm: alpha, beta and a strided C through the detail interface") {
  using T = tl::complex<double>;
  const index_t m = 37, n = 41, k = 29;
  auto a = random_tensor<T, 2>({m, k}, 1);
  auto b = random_tensor<T, 2>({k, n}, 2);
  auto c0 = random_tensor<T, 2>({n, m}, 3);  // C stored transposed: row stride 1, column stride m
  std::vector<T> c(c0.data(), c0.data() + c0.numel());
  const T alpha(0.5, -2), beta(-1, 0.25);
  tl::linalg::detail::gemm<T>(m, n, k, alpha, {a.data(), k, 1, true}, {b.data(), n, 1, false}, beta, c.data(), 1, m);
  ld worst = 0;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      cld acc = 0;
      for (index_t p = 0; p < k; ++p) acc += std::conj(to_cld(a(i, p))) * to_cld(b(p, j));
      const cld want = to_cld(alpha) * acc + to_cld(beta) * to_cld(c0(j, i));
      worst = std::max(worst, std::abs(to_cld(c[static_cast<std::size_t>(i + j * m)]) - want));
    }
  CHECK(worst <= 1e-13L);

  // beta == 0 does not read C: NaNs there are overwritten.
  std::vector<double> cn(static_cast<std::size_t>(m * n), std::nan(""));
  auto ar = random_tensor<double, 2>({m, k}, 4);
  auto br = random_tensor<double, 2>({k, n}, 5);
  tl::linalg::detail::gemm<double>(m, n, k, 2.0, {ar.data(), k, 1}, {br.data(), n, 1}, 0.0, cn.data(), n, 1);
  bool finite = true;
  for (double v : cn) finite = finite && std::isfinite(v);
  CHECK(finite);
  // k == 0: C = beta * C.
  std::vector<double> ck(4, 3.0);
  tl::linalg::detail::gemm<double>(2, 2, 0, 1.0, {ar.data(), 0, 1}, {br.data(), 2, 1}, 0.5, ck.data(), 2, 1);
  CHECK(ck[0] == 1.5);
}

// Every width of the last column panel: the register tile is NR = NV packets wide, and a last
// panel of at most one or two packets runs a narrower kernel over the same packed panel. k spans
// two k blocks, so the second block accumulates onto C (beta = 1) in each kernel; m = 13 gives two
// whole row tiles and a one-row edge tile. Complex tiles that are whole store by packets when beta
// is 0 or 1 (each k block after the first), element by element otherwise, so beta takes 0, 1 and
// a general value; C starts with values (NaNs where beta = 0, which must not be read).
template <class T>
void check_panel_widths() {
  using tr = tl::linalg::detail::gemm_traits<T>;
  constexpr index_t W = tr::W, NR = tr::NR;
  CAPTURE(sizeof(T));
  CAPTURE(NR);
  const index_t m = 13, k = tr::KC + 8;
  std::vector<index_t> widths{1, W - 1, W, W + 1, 2 * W - 1, 2 * W, 2 * W + 1, NR - 1, NR, NR + 1, NR + W, NR + 2 * W + 1, 2 * NR + 1};
  const auto a = random_tensor<T, 2>({m, k}, 21);
  T alpha = T(0.75), beta_general = T(-0.5);
  if constexpr (tl::is_complex_v<T>) {
    alpha = T(0.75, -0.25);
    beta_general = T(-0.5, 0.25);
  }
  for (const T beta : {T(0), T(1), beta_general})
    for (const index_t n : widths) {
      if (n < 1) continue;
      CAPTURE(n);
      const cld beta_value = to_cld(beta);
      CAPTURE(beta_value);
      const auto b = random_tensor<T, 2>({k, n}, static_cast<std::uint64_t>(100 + n));
      const auto c0 = random_tensor<T, 2>({m, n}, static_cast<std::uint64_t>(200 + n));
      std::vector<T> c(c0.data(), c0.data() + c0.numel());
      if (beta == T(0)) std::fill(c.begin(), c.end(), T(std::numeric_limits<tl::real_t<T>>::quiet_NaN()));
      tl::linalg::detail::gemm<T>(m, n, k, alpha, {a.data(), k, 1}, {b.data(), n, 1}, beta, c.data(), n, 1);
      ld worst = 0;
      for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < n; ++j) {
          cld acc = 0;
          ld mag = 0;
          for (index_t p = 0; p < k; ++p) {
            const cld t = to_cld(a(i, p)) * to_cld(b(p, j));
            acc += t;
            mag += std::abs(t);
          }
          cld want = to_cld(alpha) * acc;
          ld scale = std::abs(to_cld(alpha)) * mag;
          if (beta != T(0)) {
            want += to_cld(beta) * to_cld(c0(i, j));
            scale += std::abs(to_cld(beta) * to_cld(c0(i, j)));
          }
          worst = std::max(worst, std::abs(to_cld(c[static_cast<std::size_t>(i * n + j)]) - want) /
                                      (std::max<ld>(scale, 1e-30L) * eps_of<T>() * static_cast<ld>(k)));
        }
      CHECK(worst <= 2);  // NaN fails too
    }
}

TEST_CASE("gemm: every width of the last column panel, two k blocks, alpha and beta") {
  check_panel_widths<float>();
  check_panel_widths<double>();
  check_panel_widths<tl::complex<float>>();
  check_panel_widths<tl::complex<double>>();
}

TEST_CASE("gemm: batched products with broadcasting, one thread and two") {
  for (int threads : {1, 2}) {
    tl::set_num_threads(threads);
    CAPTURE(threads);
    const auto a = random_tensor<float, 3>({5, 33, 17}, 8);
    const auto b = random_tensor<float, 2>({17, 65}, 9);
    const auto c = tl::matmul(a, b);
    REQUIRE(c.shape() == tl::shape_t<3>{5, 33, 65});
    for (index_t q = 0; q < 5; ++q) CHECK(gemm_error(c.select(0, q), a.select(0, q), b) <= 2);
    const auto az = random_tensor<tl::complex<double>, 4>({2, 1, 70, 40}, 10);
    const auto bz = random_tensor<tl::complex<double>, 3>({3, 60, 40}, 11);
    const auto cz = tl::matmul(az, bz.mT());  // [2, 3, 70, 60]
    REQUIRE(cz.shape() == tl::shape_t<4>{2, 3, 70, 60});
    for (index_t p = 0; p < 2; ++p)
      for (index_t q = 0; q < 3; ++q)
        CHECK(gemm_error(cz.select(0, p).select(0, q), az.select(0, p).select(0, 0), bz.select(0, q).mT()) <= 2);
    // A large product split over threads gives the same bits as one thread (same blocking).
    const auto x = random_tensor<double, 2>({300, 280}, 12);
    const auto y = random_tensor<double, 2>({280, 310}, 13);
    const auto z = tl::matmul(x, y);
    tl::set_num_threads(1);
    const auto z1 = tl::matmul(x, y);
    bool same = true;
    for (index_t i = 0; i < z.numel(); ++i) same = same && z.data()[i] == z1.data()[i];
    CHECK(same);
  }
  tl::set_num_threads(2);
}

// A batch times one shared matrix: when A's batch dims merge with its rows (a contiguous batch,
// possibly conjugated, or rows of one element each), matmul runs one product of all the rows;
// sliced, expanded and transposed batches take the product per batch element. Both must agree
// with the reference for every element.
TEST_CASE("gemm: a batch times one shared matrix, folded into one product where the layout allows") {
  using C = tl::complex<double>;
  const auto b = random_tensor<C, 2>({5, 9}, 30);
  const auto check_all = [&](const auto& a) {  // a: [p, q, m, 5] (a view of any layout)
    const auto c = tl::matmul(a, b);
    REQUIRE(c.shape() == tl::shape_t<4>{a.shape()[0], a.shape()[1], a.shape()[2], 9});
    for (index_t p = 0; p < a.shape()[0]; ++p)
      for (index_t q = 0; q < a.shape()[1]; ++q) {
        CAPTURE(p);
        CAPTURE(q);
        CHECK(gemm_error(c.select(0, p).select(0, q), a.select(0, p).select(0, q), b) <= 2);
      }
  };
  const auto a = random_tensor<C, 4>({2, 3, 7, 5}, 31);
  check_all(a);                                              // contiguous: folded
  check_all(a.conj());                                       // lazily conjugated: folded
  check_all(random_tensor<C, 4>({2, 3, 1, 5}, 32));          // one row per element: folded
  check_all(random_tensor<C, 4>({2, 6, 7, 5}, 33).slice(1, 0, 6, 2));  // every other element
  check_all(random_tensor<C, 4>({2, 3, 10, 5}, 34).slice(2, 0, 7));    // rows sliced
  check_all(random_tensor<C, 4>({2, 3, 5, 7}, 35).mT());               // transposed elements
  check_all(random_tensor<C, 2>({7, 5}, 36).expand(2, 3, 7, 5));       // broadcast A
  // B with batch extent 1 is shared as well; a real batch against a [1, 5, 9] B
  const auto ar = random_tensor<double, 3>({4, 6, 5}, 37);
  const auto br = random_tensor<double, 3>({1, 5, 9}, 38);
  const auto cr = tl::matmul(ar, br);
  REQUIRE(cr.shape() == tl::shape_t<3>{4, 6, 9});
  for (index_t p = 0; p < 4; ++p) CHECK(gemm_error(cr.select(0, p), ar.select(0, p), br.select(0, 0)) <= 2);
}

TEST_CASE("gemm: empty operands") {
  const tl::tensor<double, 2> a(tl::shape_t<2>{3, 0}), b(tl::shape_t<2>{0, 4});
  const auto c = tl::linalg::matmul(a, b);
  REQUIRE(c.shape() == tl::shape_t<2>{3, 4});
  for (index_t i = 0; i < 12; ++i) CHECK(c.data()[i] == 0.0);
  const tl::tensor<float, 2> e(tl::shape_t<2>{0, 5}), f(tl::shape_t<2>{5, 2});
  CHECK(tl::matmul(e, f).shape() == tl::shape_t<2>{0, 2});
}
}  // namespace
