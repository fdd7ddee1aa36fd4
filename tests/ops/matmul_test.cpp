// Tests for tl::matmul against a naive long-double reference.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

#include <tl/ops/ops.hpp>

namespace ops_matmul_test {  // one namespace per test file: the tests compile as unity builds
using tl::index_t;

struct lcg {
  std::uint64_t s;
  int next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((s >> 33) % 17) - 8;
  }
};

template <class T>
T value_of(lcg& g) {
  if constexpr (std::is_same_v<T, bool>) return (g.next() & 1) != 0;
  else if constexpr (tl::is_complex_v<T>) {
    const auto re = static_cast<tl::real_t<T>>(g.next());
    return T(re / 4, static_cast<tl::real_t<T>>(g.next()) / 4);
  } else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(g.next()) / T(4);
  else return static_cast<T>(g.next());
}

template <class T, std::size_t R>
tl::tensor<T, R> random_tensor(const tl::shape_t<R>& s, std::uint64_t seed) {
  tl::tensor<T, R> t(s);
  lcg g{seed};
  for (index_t i = 0; i < t.numel(); ++i) t.data()[i] = value_of<T>(g);
  return t;
}

using ld = long double;
using cld = std::complex<long double>;
template <class T>
cld to_cld(const T& v) {
  if constexpr (tl::is_complex_v<T>) return {static_cast<ld>(v.re), static_cast<ld>(v.im)};
  else return {static_cast<ld>(v), 0};
}

// Element (i, k) of the [m, k] matrix at batch index `b` of a tensor viewed through its strides
// (batch dims right-aligned with the output's batch dims, broadcast where the extent is 1).
template <class T, class Ext, std::size_t BR>
cld mat_elem(const tl::basic_tensor<T, Ext>& t, const std::array<index_t, BR>& b, index_t i, index_t j) {
  constexpr std::size_t R = Ext::rank;
  std::array<index_t, R> ix{};
  constexpr std::size_t nb = R > 2 ? R - 2 : 0;
  for (std::size_t q = 0; q < nb; ++q) {
    const index_t bq = b[BR - nb + q];
    ix[q] = t.shape()[q] == 1 ? 0 : bq;
  }
  if constexpr (R == 1) {
    ix[0] = i + j;  // exactly one of i, j is used for a vector
  } else {
    ix[R - 2] = i;
    ix[R - 1] = j;
  }
  return to_cld(std::apply([&](auto... k) { return t.get(k...); }, ix));
}

// Checks c == a @ b elementwise against a long-double triple loop, with a tolerance for T.
template <class V, class EO, class TA, class EA, class TB, class EB>
void check_matmul(const tl::basic_tensor<V, EO>& c, const tl::basic_tensor<TA, EA>& a, const tl::basic_tensor<TB, EB>& b) {
  constexpr std::size_t RO = EO::rank, RA = EA::rank, RB = EB::rank;
  constexpr std::size_t BR = std::max(RA > 2 ? RA - 2 : 0, RB > 2 ? RB - 2 : 0);
  const index_t m = RA == 1 ? 1 : a.shape()[RA - 2];
  const index_t k = a.shape()[RA - 1];
  const index_t n = RB == 1 ? 1 : b.shape()[RB - 1];
  std::array<index_t, BR> batch{};
  for (std::size_t q = 0; q < BR; ++q) batch[q] = c.shape()[q];
  index_t nbatch = 1;
  for (auto x : batch) nbatch *= x;
  const ld tol = std::is_same_v<tl::real_t<V>, float> ? 1e-4L : 1e-12L;
  for (index_t bi = 0; bi < nbatch; ++bi) {
    std::array<index_t, BR> bix{};
    index_t rem = bi;
    for (std::size_t q = BR; q-- > 0;) {
      bix[q] = rem % batch[q];
      rem /= batch[q];
    }
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        cld acc = 0;
        for (index_t kk = 0; kk < k; ++kk)
          acc += mat_elem(a, bix, RA == 1 ? 0 : i, kk) * mat_elem(b, bix, kk, RB == 1 ? 0 : j);
        std::array<index_t, RO> ox{};
        for (std::size_t q = 0; q < BR; ++q) ox[q] = bix[q];
        std::size_t o = BR;
        if constexpr (RA > 1) ox[o++] = i;
        if constexpr (RB > 1) ox[o++] = j;
        const cld got = to_cld(std::apply([&](auto... x) { return c.get(x...); }, ox));
        if constexpr (std::is_integral_v<V>) {
          CHECK(got.real() == acc.real());
        } else {
          CHECK(std::abs(got - acc) <= tol * (1 + std::abs(acc)) * static_cast<ld>(k + 1));
        }
      }
  }
}

TEST_CASE_TEMPLATE("matmul 2-D x 2-D for every dtype, sizes around the SIMD tiles", T, std::int32_t, std::int64_t,
                   float, double, tl::complex<float>, tl::complex<double>) {
  for (auto [m, k, n] : {std::array<index_t, 3>{1, 1, 1}, {3, 5, 7}, {9, 17, 33}, {4, 300, 20}, {13, 7, 1}, {1, 9, 16}}) {
    auto a = random_tensor<T, 2>({m, k}, static_cast<std::uint64_t>(m * 100 + k));
    auto b = random_tensor<T, 2>({k, n}, static_cast<std::uint64_t>(k * 100 + n));
    auto c = tl::matmul(a, b);
    static_assert(std::is_same_v<decltype(c), tl::tensor<T, 2>>);
    REQUIRE(c.shape() == tl::shape_t<2>{m, n});
    check_matmul(c, a, b);
  }
}

TEST_CASE("matmul hand-computed values and the 1-D cases") {
  tl::tensor<double, 2> a(tl::shape_t<2>{2, 3});
  tl::tensor<double, 2> b(tl::shape_t<2>{3, 2});
  for (index_t i = 0; i < 6; ++i) {
    a.data()[i] = static_cast<double>(i + 1);  // [[1, 2, 3], [4, 5, 6]]
    b.data()[i] = static_cast<double>(i + 7);  // [[7, 8], [9, 10], [11, 12]]
  }
  auto c = tl::matmul(a, b);
  CHECK(c(0, 0) == 58.0);
  CHECK(c(0, 1) == 64.0);
  CHECK(c(1, 0) == 139.0);
  CHECK(c(1, 1) == 154.0);

  tl::tensor<double, 1> x(tl::shape_t<1>{3});
  x(0) = 1;
  x(1) = -1;
  x(2) = 2;
  auto dot = tl::matmul(x, x);
  static_assert(decltype(dot)::rank == 0);
  CHECK(dot() == 6.0);
  auto mv = tl::matmul(a, x);  // [2, 3] x [3] -> [2]
  static_assert(decltype(mv)::rank == 1);
  REQUIRE(mv.shape() == tl::shape_t<1>{2});
  CHECK(mv(0) == 5.0);
  CHECK(mv(1) == 11.0);
  auto vm = tl::matmul(x, b);  // [3] x [3, 2] -> [2]
  REQUIRE(vm.shape() == tl::shape_t<1>{2});
  CHECK(vm(0) == 7.0 - 9.0 + 22.0);
  CHECK(vm(1) == 8.0 - 10.0 + 24.0);

  // complex: (1+2i)(3-i) + (i)(2) = 5+5i + 2i = 5+7i
  tl::tensor<tl::complex<float>, 1> z(tl::shape_t<1>{2}), w(tl::shape_t<1>{2});
  z(0) = {1, 2};
  z(1) = {0, 1};
  w(0) = {3, -1};
  w(1) = {2, 0};
  CHECK(tl::matmul(z, w)() == tl::complex<float>(5, 7));
  // conj view: (1-2i)(3-i) + (-i)(2) = 1-7i - 2i = 1-9i
  CHECK(tl::matmul(z.conj(), w)() == tl::complex<float>(1, -9));
}

TEST_CASE("matmul batched with broadcasting and 1-D operands") {
  {
    auto a = random_tensor<float, 4>({2, 1, 3, 4}, 1);
    auto b = random_tensor<float, 3>({5, 4, 6}, 2);
    auto c = tl::matmul(a, b);
    static_assert(decltype(c)::rank == 4);
    REQUIRE(c.shape() == tl::shape_t<4>{2, 5, 3, 6});
    check_matmul(c, a, b);
  }
  {
    auto a = random_tensor<double, 3>({3, 2, 4}, 3);
    auto b = random_tensor<double, 2>({4, 5}, 4);
    auto c = tl::matmul(a, b);
    REQUIRE(c.shape() == tl::shape_t<3>{3, 2, 5});
    check_matmul(c, a, b);
    auto c2 = tl::matmul(b.t(), a.mT());  // [5, 4] x [3, 4, 2] -> [3, 5, 2], transposed inputs
    REQUIRE(c2.shape() == tl::shape_t<3>{3, 5, 2});
    check_matmul(c2, b.t(), a.mT());
  }
  {
    auto v = random_tensor<std::int64_t, 1>({4}, 5);
    auto b = random_tensor<std::int64_t, 4>({2, 3, 4, 6}, 6);
    auto c = tl::matmul(v, b);  // [4] x [2, 3, 4, 6] -> [2, 3, 6]
    static_assert(decltype(c)::rank == 3);
    REQUIRE(c.shape() == tl::shape_t<3>{2, 3, 6});
    check_matmul(c, v, b);
    auto d = tl::matmul(b.mT(), v);  // [2, 3, 6, 4] x [4] -> [2, 3, 6]
    REQUIRE(d.shape() == tl::shape_t<3>{2, 3, 6});
    check_matmul(d, b.mT(), v);
  }
  {
    auto a = random_tensor<float, 3>({1, 3, 2}, 7);
    auto b = random_tensor<float, 3>({4, 2, 3}, 8);
    auto c = tl::matmul(a, b);
    REQUIRE(c.shape() == tl::shape_t<3>{4, 3, 3});
    check_matmul(c, a, b);
  }
  {
    // many small matrices (parallel over batches)
    auto a = random_tensor<double, 3>({300, 3, 3}, 9);
    auto b = random_tensor<double, 3>({300, 3, 3}, 10);
    check_matmul(tl::matmul(a, b), a, b);
  }
}

TEST_CASE("matmul dtype promotion, expressions, sliced inputs") {
  auto a = random_tensor<std::int32_t, 2>({3, 4}, 11);
  auto b = random_tensor<float, 2>({4, 2}, 12);
  auto c = tl::matmul(a, b);
  static_assert(std::is_same_v<decltype(c), tl::tensor<float, 2>>);
  check_matmul(c, a, b);
  auto ii = tl::matmul(a, random_tensor<std::int64_t, 2>({4, 2}, 13));
  static_assert(std::is_same_v<decltype(ii)::value_type, std::int64_t>);
  auto zc = tl::matmul(b.t(), random_tensor<tl::complex<double>, 1>({4}, 14));
  static_assert(std::is_same_v<decltype(zc)::value_type, tl::complex<double>>);
  // bool with int promotes to int
  tl::tensor<bool, 2> mask(tl::shape_t<2>{2, 3});
  mask.fill_(true);
  auto cnt = tl::matmul(mask, a);
  static_assert(std::is_same_v<decltype(cnt)::value_type, std::int32_t>);
  for (index_t j = 0; j < 4; ++j) CHECK(cnt(1, j) == a(0, j) + a(1, j) + a(2, j));
  // a lazy expression operand
  tl::tensor<float, 2> bf = b * 2.0f;
  auto ce = tl::matmul(a, b * 2.0f);
  check_matmul(ce, a, bf);
  // strided slices
  auto big = random_tensor<double, 2>({8, 10}, 15);
  auto s1 = big(tl::every(2), tl::s(1, 6));  // [4, 5]
  auto s2 = big(tl::s(0, 5), tl::every(3));  // [5, 4]
  check_matmul(tl::matmul(s1, s2), tl::tensor<double, 2>(s1), tl::tensor<double, 2>(s2));
}

TEST_CASE("matmul integer overflow wraps like torch") {
  tl::tensor<std::int32_t, 2> a(tl::shape_t<2>{1, 2});
  a(0, 0) = 2147483647;
  a(0, 1) = 2;
  tl::tensor<std::int32_t, 2> b(tl::shape_t<2>{2, 1});
  b(0, 0) = 2;
  b(1, 0) = 1;
  CHECK(tl::matmul(a, b)(0, 0) == 0);  // 2 * (2^31 - 1) + 2 = 2^32 -> 0
}

TEST_CASE("matmul empty and size-1 shapes") {
  auto a = random_tensor<float, 2>({3, 0}, 1);
  auto b = random_tensor<float, 2>({0, 4}, 2);
  auto c = tl::matmul(a, b);  // k = 0: zeros
  REQUIRE(c.shape() == tl::shape_t<2>{3, 4});
  for (index_t i = 0; i < 12; ++i) CHECK(c.data()[i] == 0.0f);
  auto e = tl::matmul(random_tensor<float, 2>({0, 3}, 3), random_tensor<float, 2>({3, 4}, 4));
  CHECK(e.shape() == tl::shape_t<2>{0, 4});
  auto eb = tl::matmul(random_tensor<double, 3>({0, 2, 3}, 5), random_tensor<double, 2>({3, 4}, 6));
  CHECK(eb.shape() == tl::shape_t<3>{0, 2, 4});
  tl::tensor<double, 1> v0(tl::shape_t<1>{0});
  CHECK(tl::matmul(v0, v0)() == 0.0);
}

TEST_CASE("matmul errors") {
  auto a = random_tensor<float, 2>({2, 3}, 1);
  auto b = random_tensor<float, 2>({4, 5}, 2);
  CHECK_THROWS_WITH_AS(tl::matmul(a, b),
                       doctest::Contains("tl::matmul: shapes [2, 3] and [4, 5] cannot be multiplied (inner extents 3 "
                                         "and 4 differ)"),
                       tl::shape_error);
  auto v = random_tensor<float, 1>({4}, 3);
  CHECK_THROWS_WITH_AS(tl::matmul(a, v), doctest::Contains("tl::matmul: shapes [2, 3] and [4] cannot be multiplied"),
                       tl::shape_error);
  CHECK_THROWS_WITH_AS(tl::matmul(v, random_tensor<float, 1>({3}, 4)),
                       doctest::Contains("tl::matmul: shapes [4] and [3] cannot be multiplied"), tl::shape_error);
  auto x = random_tensor<float, 3>({2, 2, 3}, 5);
  auto y = random_tensor<float, 3>({3, 3, 2}, 6);
  CHECK_THROWS_WITH_AS(tl::matmul(x, y),
                       doctest::Contains("tl::matmul: the batch dims of shapes [2, 2, 3] and [3, 3, 2] cannot be "
                                         "broadcast (extent 2 vs 3)"),
                       tl::shape_error);
}

}  // namespace ops_matmul_test
