// Tests for tensor printing; expected strings are torch's repr of the same tensors (with tl. for torch.).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include <tl/core/core.hpp>
#include <tl/eval/eval.hpp>
#include <tl/expr/expr.hpp>

namespace {
const float nan_f = std::numeric_limits<float>::quiet_NaN();
const float inf_f = std::numeric_limits<float>::infinity();
}  // namespace

TEST_CASE("print floats: integer mode, fixed point, negative numbers") {
  CHECK(tl::to_string(tl::from<float>({{1, 2}, {3, 4}})) == "tensor([[1., 2.],\n        [3., 4.]])");
  CHECK(tl::to_string(tl::from<float>({1.5f, -2.25f, 0.0f})) == "tensor([ 1.5000, -2.2500,  0.0000])");
  CHECK(tl::to_string(tl::from<float>({0.1f, 10.0f})) == "tensor([ 0.1000, 10.0000])");
  CHECK(tl::to_string(tl::from<float>({-0.0f, 1.0f})) == "tensor([-0., 1.])");
  CHECK(tl::to_string(tl::zeros<float>(3)) == "tensor([0., 0., 0.])");
  CHECK(tl::to_string(tl::from<float>({-3, 100})) == "tensor([ -3., 100.])");
  std::ostringstream os;
  os << tl::from<float>({0.5f});
  CHECK(os.str() == "tensor([0.5000])");
}

TEST_CASE("print nan and inf") {
  CHECK(tl::to_string(tl::from<float>({1.0f, nan_f, inf_f, -inf_f})) == "tensor([1., nan, inf, -inf])");
  CHECK(tl::to_string(tl::from<float>({1.5f, nan_f})) == "tensor([1.5000,    nan])");
  CHECK(tl::to_string(tl::from<float>({-nan_f, 0.0f})) == "tensor([nan, 0.])");
}

TEST_CASE("print scientific notation and the float64 suffix") {
  CHECK(tl::to_string(tl::from<double>({1e-5, 1.0})) == "tensor([1.0000e-05, 1.0000e+00], dtype=tl.float64)");
  CHECK(tl::to_string(tl::from<float>({1.0f, 1e9f})) == "tensor([1.0000e+00, 1.0000e+09])");
  CHECK(tl::to_string(tl::from<double>({1.5, -2})) == "tensor([ 1.5000, -2.0000], dtype=tl.float64)");
}

TEST_CASE("print rank 0 and empty tensors") {
  CHECK(tl::to_string(tl::full<float>(tl::shape_t<0>{}, 3.5)) == "tensor(3.5000)");
  CHECK(tl::to_string(tl::full<std::int64_t>(tl::shape_t<0>{}, -7)) == "tensor(-7)");
  CHECK(tl::to_string(tl::full<double>(tl::shape_t<0>{}, 2)) == "tensor(2., dtype=tl.float64)");
  CHECK(tl::to_string(tl::zeros<float>(0, 3)) == "tensor([], size=(0, 3))");
  CHECK(tl::to_string(tl::zeros<float>(0)) == "tensor([])");
  CHECK(tl::to_string(tl::zeros<std::int64_t>(0)) == "tensor([], dtype=tl.int64)");
  CHECK(tl::to_string(tl::zeros<bool>(2, 0, 1)) == "tensor([], size=(2, 0, 1), dtype=tl.bool)");
}

TEST_CASE("print bool and integer tensors") {
  CHECK(tl::to_string(tl::from<bool>({true, false})) == "tensor([ True, False])");
  CHECK(tl::to_string(tl::from<bool>({true, true})) == "tensor([True, True])");
  CHECK(tl::to_string(tl::from<std::int64_t>({{1, -20}, {300, 4}})) == "tensor([[  1, -20],\n        [300,   4]])");
  CHECK(tl::to_string(tl::from<std::int32_t>({1, 2})) == "tensor([1, 2], dtype=tl.int32)");
  CHECK(tl::to_string(tl::from<std::int64_t>({{{1, 2}}, {{3, 4}}})) == "tensor([[[1, 2]],\n\n        [[3, 4]]])");
}

TEST_CASE("print complex tensors") {
  using c64 = tl::complex<float>;
  CHECK(tl::to_string(tl::from<c64>({c64(1, 2), c64(3, -4)})) == "tensor([1.+2.j, 3.-4.j])");
  CHECK(tl::to_string(tl::from<c64>({c64(1, 2), c64(3, -4)}).conj()) == "tensor([1.-2.j, 3.+4.j])");
  CHECK(tl::to_string(tl::from<tl::complex<double>>({tl::complex<double>(0.5, 0)})) ==
        "tensor([0.5000+0.j], dtype=tl.complex128)");
  CHECK(tl::to_string(tl::from<c64>({c64(1.5f, -0.25f), c64(-1, 2)})) == "tensor([ 1.5000-0.2500j, -1.0000+2.0000j])");
}

TEST_CASE("print strided views") {
  auto m = tl::from<float>({{0, 1, 2}, {3, 4, 5}});
  CHECK(tl::to_string(m.t()) == "tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]])");
  CHECK(tl::to_string(m.select(1, 1)) == "tensor([1., 4.])");
  CHECK(tl::to_string(m.flip(1).slice(1, 0, 3, 2)) == "tensor([[2., 0.],\n        [5., 3.]])");
  CHECK(tl::to_string(m.expand(2, 2, 3).select(1, 0)) == "tensor([[0., 1., 2.],\n        [0., 1., 2.]])");
}

TEST_CASE("print wraps long rows at 80 columns") {
  // Width 3 ("29."), 5 characters per element, (80 - 7) / 5 = 14 per line.
  CHECK(tl::to_string(tl::arange<float>(30)) ==
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
        "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
        "        28., 29.])");
  // A suffix that does not fit on the last line goes to its own line.
  CHECK(tl::to_string(tl::arange<double>(14)) ==
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.],\n"
        "       dtype=tl.float64)");
}

TEST_CASE("print summarizes tensors with more than 1000 elements") {
  CHECK(tl::to_string(tl::arange<float>(1001)) == "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])");
  // Exactly 1000 elements are printed in full.
  const std::string full = tl::to_string(tl::arange<float>(1000));
  CHECK(full.find("...") == std::string::npos);
  CHECK(full.rfind("997., 998., 999.])") == full.size() - 18);
  CHECK(tl::to_string(tl::arange(2000).reshape(2, 1000)) ==
        "tensor([[   0,    1,    2,  ...,  997,  998,  999],\n"
        "        [1000, 1001, 1002,  ..., 1997, 1998, 1999]])");
  CHECK(tl::to_string(tl::arange(1100).reshape(100, 11)) ==
        "tensor([[   0,    1,    2,  ...,    8,    9,   10],\n"
        "        [  11,   12,   13,  ...,   19,   20,   21],\n"
        "        [  22,   23,   24,  ...,   30,   31,   32],\n"
        "        ...,\n"
        "        [1067, 1068, 1069,  ..., 1075, 1076, 1077],\n"
        "        [1078, 1079, 1080,  ..., 1086, 1087, 1088],\n"
        "        [1089, 1090, 1091,  ..., 1097, 1098, 1099]])");
}

TEST_CASE("print options") {
  const auto saved = tl::get_printoptions();
  tl::print_options o = saved;
  o.precision = 2;
  tl::set_printoptions(o);
  CHECK(tl::to_string(tl::from<float>({1.25f, 2.5f})) == "tensor([1.25, 2.50])");
  tl::set_printoptions(saved);
  CHECK(tl::to_string(tl::from<float>({1.25f, 2.5f})) == "tensor([1.2500, 2.5000])");
}
