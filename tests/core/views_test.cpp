// Views: every view shares storage, has the right shape/strides, and reads the right elements.
// Reference: the element at a multi-index is computed by hand from the row-major fill value
// v(i, j, k) = 100 i + 10 j + k.
#include <doctest/doctest.h>

#include <tl/tensor.hpp>

namespace {
tl::tensor<double, 3> iota3(tl::index_t a, tl::index_t b, tl::index_t c) {
  tl::tensor<double, 3> t(tl::shape_t<3>{a, b, c});
  for (tl::index_t i = 0; i < a; ++i)
    for (tl::index_t j = 0; j < b; ++j)
      for (tl::index_t k = 0; k < c; ++k) t(i, j, k) = 100.0 * i + 10.0 * j + k;
  return t;
}
}  // namespace

TEST_CASE("tensor basics: shape, strides, sharing, clone") {
  auto t = iota3(2, 3, 4);
  CHECK(t.shape() == tl::shape_t<3>{2, 3, 4});
  CHECK(t.strides() == tl::shape_t<3>{12, 4, 1});
  CHECK(t.numel() == 24);
  CHECK(t.is_contiguous());
  auto u = t;  // shares storage
  u(1, 2, 3) = -1;
  CHECK(t(1, 2, 3) == -1);
  auto c = t.clone();
  c(0, 0, 0) = 42;
  CHECK(t(0, 0, 0) == 0);
  CHECK(c.data() != t.data());
  CHECK(t.extent(-1) == 4);
  CHECK_THROWS_WITH_AS(t.extent(3), doctest::Contains("tl::extent: dimension 3 is out of range"), tl::index_error);
}

TEST_CASE("at() checks bounds and accepts negative indices") {
  auto t = iota3(2, 3, 4);
  CHECK(t.at(-1, -1, -1) == 123.0);
  CHECK_THROWS_WITH_AS(t.at(0, 3, 0), doctest::Contains("tl::at: index 3 is out of range for dim 1 of extent 3"),
                       tl::index_error);
}

TEST_CASE("slice, narrow, select, python-style indexing") {
  auto t = iota3(4, 5, 6);
  auto s = t.slice(1, 1, 5, 2);  // j = 1, 3
  CHECK(s.shape() == tl::shape_t<3>{4, 2, 6});
  CHECK(s(2, 1, 4) == 234.0);
  auto neg = t.slice(2, -3, tl::index_t(6));  // k = 3, 4, 5
  CHECK(neg.shape()[2] == 3);
  CHECK(neg(0, 0, 0) == 3.0);
  auto n = t.narrow(0, 1, 2);
  CHECK(n.shape()[0] == 2);
  CHECK(n(1, 0, 0) == 200.0);
  CHECK_THROWS_WITH_AS(t.narrow(0, 3, 2), doctest::Contains("tl::narrow"), tl::index_error);
  auto sel = t.select(1, -1);  // j = 4
  CHECK(sel.shape() == tl::shape_t<2>{4, 6});
  CHECK(sel(3, 5) == 345.0);
  CHECK_THROWS_WITH_AS(t.select(2, 6), doctest::Contains("tl::select: index 6 is out of range for dim 2"),
                       tl::index_error);
  auto ix = t(tl::all, 2, tl::s(1, -1));  // t[:, 2, 1:-1]
  CHECK(ix.shape() == tl::shape_t<2>{4, 4});
  CHECK(ix(3, 0) == 321.0);
  auto rev = t(tl::every(-1), 0, 0 == 0 ? tl::all : tl::all);  // t[::-1, 0, :]
  CHECK(rev(0, 5) == 305.0);
  auto empty = t(tl::s(3, 1), tl::all, tl::all);
  CHECK(empty.numel() == 0);
  CHECK_THROWS_WITH_AS(t.slice(0, 0, 4, 0), doctest::Contains("slice step cannot be zero"), tl::value_error);
}

TEST_CASE("transpose, permute, t, mT") {
  auto t = iota3(2, 3, 4);
  auto p = t.permute(2, 0, 1);
  CHECK(p.shape() == tl::shape_t<3>{4, 2, 3});
  CHECK(p(3, 1, 2) == 123.0);
  CHECK(!p.is_contiguous());
  auto m = t.mT();
  CHECK(m.shape() == tl::shape_t<3>{2, 4, 3});
  CHECK(m(1, 3, 2) == 123.0);
  auto tr = t.transpose(0, -1);
  CHECK(tr(3, 2, 1) == 123.0);
  CHECK_THROWS_WITH_AS(t.permute(0, 0, 1), doctest::Contains("appears twice"), tl::value_error);
  auto mat = t.select(0, 0);
  CHECK(mat.t()(3, 2) == 23.0);
}

TEST_CASE("reshape is a view when possible, a copy otherwise; view errors") {
  auto t = iota3(2, 3, 4);
  auto r = t.reshape(6, -1);
  CHECK(r.shape() == tl::shape_t<2>{6, 4});
  CHECK(r.data() == t.data());
  CHECK(r(5, 3) == 123.0);
  auto tt = t.transpose(1, 2);  // [2, 4, 3], not contiguous
  auto rc = tt.reshape(2, 12);
  CHECK(rc.data() != t.data());
  CHECK(rc(1, 11) == 123.0);  // tt(1, 3, 2) = t(1, 2, 3)
  CHECK(rc(0, 1) == 10.0);    // tt(0, 0, 1) = t(0, 1, 0)
  CHECK_THROWS_WITH_AS(tt.view(2, 12), doctest::Contains("cannot be viewed as [2, 12]"), tl::shape_error);
  // A view that merges only compatible dims works on a non-contiguous tensor.
  auto v = tt.view(2, 4, 3, 1);
  CHECK(v(1, 3, 2, 0) == 123.0);
  CHECK_THROWS_WITH_AS(t.reshape(5, -1), doctest::Contains("cannot infer -1"), tl::shape_error);
  CHECK_THROWS_WITH_AS(t.reshape(5, 5), doctest::Contains("has 25 elements"), tl::shape_error);
  auto f = t.flatten();
  CHECK(f.shape()[0] == 24);
  CHECK(f(23) == 123.0);
  auto f12 = t.flatten<1, 2>();
  CHECK(f12.shape() == tl::shape_t<2>{2, 12});
  auto uf = f.unflatten(0, tl::shape_t<2>{4, -1});
  CHECK(uf.shape() == tl::shape_t<2>{4, 6});
  CHECK(uf(3, 5) == 123.0);
  CHECK_THROWS_AS(f.unflatten(0, tl::shape_t<2>{5, 5}), tl::shape_error);
}

TEST_CASE("squeeze, unsqueeze, expand, broadcast_to") {
  auto t = iota3(2, 1, 4);
  auto sq = t.squeeze(1);
  CHECK(sq.shape() == tl::shape_t<2>{2, 4});
  CHECK(sq(1, 3) == 103.0);
  CHECK_THROWS_WITH_AS(t.squeeze(0), doctest::Contains("dim 0 has extent 2, not 1"), tl::shape_error);
  auto un = sq.unsqueeze(-1);
  CHECK(un.shape() == tl::shape_t<3>{2, 4, 1});
  auto un0 = sq.unsqueeze(0);
  CHECK(un0.shape() == tl::shape_t<3>{1, 2, 4});
  auto e = t.expand(3, 2, 5, 4);
  CHECK(e.shape() == tl::shape_t<4>{3, 2, 5, 4});
  CHECK(e(2, 1, 4, 3) == 103.0);
  CHECK(e.strides()[0] == 0);
  CHECK(e.strides()[2] == 0);
  auto e2 = t.expand(-1, 7, -1);
  CHECK(e2.shape() == tl::shape_t<3>{2, 7, 4});
  CHECK_THROWS_WITH_AS(t.expand(3, 1, 4), doctest::Contains("cannot expand shape [2, 1, 4] to [3, 1, 4]"),
                       tl::shape_error);
}

TEST_CASE("flip and diagonal") {
  auto t = iota3(2, 3, 4);
  auto f = t.flip({0, 2});
  CHECK(f(0, 1, 0) == 113.0);
  CHECK(f(1, 2, 3) == 20.0);
  auto sq = iota3(1, 4, 4).select(0, 0);
  auto d = sq.diagonal();
  CHECK(d.shape()[0] == 4);
  CHECK(d(3) == 33.0);
  auto d1 = sq.diagonal(1);
  CHECK(d1.shape()[0] == 3);
  CHECK(d1(0) == 1.0);
  auto dm = sq.diagonal(-2);
  CHECK(dm.shape()[0] == 2);
  CHECK(dm(1) == 31.0);
  CHECK(sq.diagonal(5).numel() == 0);
  auto bd = t.diagonal(0, 1, 2);  // [2, 3]
  CHECK(bd.shape() == tl::shape_t<2>{2, 3});
  CHECK(bd(1, 2) == 122.0);
}

TEST_CASE("real, imag and lazy conj views of complex tensors") {
  using C = tl::complex<double>;
  tl::tensor<C, 1> z(tl::shape_t<1>{3});
  for (int i = 0; i < 3; ++i) z(i) = C(i, 10 + i);
  auto re = z.real();
  auto im = z.imag();
  CHECK(re(2) == 2.0);
  CHECK(im(2) == 12.0);
  im(0) = -5;  // writes through
  CHECK(z(0).im == -5.0);
  auto zc = z.conj();
  CHECK(zc.is_conj());
  CHECK(zc.data() == z.data());  // O(1): no copy
  CHECK(zc.get(1) == C(1, -11));
  tl::tensor<C, 1> m = zc * 2.0;  // conjugation fused into the consumer
  CHECK(m(1) == C(2, -22));
  CHECK(zc.conj().is_conj() == false);
  auto rc = zc.resolve_conj();
  CHECK(!rc.is_conj());
  CHECK(rc(1) == C(1, -11));
  // Writing into a conjugate view stores the conjugate, like torch.
  zc.slice(0, 2, 3) = C(7, 8);
  CHECK(z(2) == C(7, -8));
}

TEST_CASE("contiguous, static extents") {
  auto t = iota3(2, 3, 4);
  auto tr = t.transpose(0, 2);
  auto c = tr.contiguous();
  CHECK(c.is_contiguous());
  CHECK(c(3, 2, 1) == 123.0);
  CHECK(t.contiguous().data() == t.data());
  tl::stensor<float, 3, tl::dyn> s(tl::shape_t<2>{3, 5});
  CHECK(s.shape() == tl::shape_t<2>{3, 5});
  CHECK_THROWS_WITH_AS((tl::stensor<float, 3, tl::dyn>(tl::shape_t<2>{4, 5})),
                       doctest::Contains("does not match the static extent 3 of dim 0"), tl::shape_error);
  tl::tensor<float, 2> d = s;  // static -> dynamic
  CHECK(d.data() == s.data());
  tl::stensor<float, 2, 2> fixed;  // fully static: allocated
  CHECK(fixed.numel() == 4);
}

TEST_CASE("assignment to views writes through; assignment to a named tensor rebinds") {
  auto t = iota3(2, 3, 4);
  auto shared = t;
  t.select(0, 1) = 0.0;  // temporary view: writes
  CHECK(shared(1, 2, 3) == 0.0);
  CHECK(shared(0, 2, 3) == 23.0);
  tl::tensor<double, 3> a = iota3(2, 3, 4);
  auto alias = a;  // a no longer owns its storage alone
  a = a * 2.0;     // rebinds a; alias keeps the old values
  CHECK(alias(0, 0, 1) == 1.0);
  CHECK(a(0, 0, 1) == 2.0);
  tl::tensor<double, 3> solo = iota3(2, 3, 4);
  const double* before = solo.data();
  solo = solo + 1.0;  // sole owner, same shape: memory reused
  CHECK(solo.data() == before);
  CHECK(solo(1, 2, 3) == 124.0);
}
