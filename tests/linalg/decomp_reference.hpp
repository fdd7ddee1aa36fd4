// Reader for tests/data/linalg/decomp_reference.txt (written by gen_linalg_decomp.py): reference
// QR factors, eigenvalues and least-squares solutions, and the matrices they came from.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "linalg_test_util.hpp"

namespace tl_linalg_test {

struct decomp_case {
  std::string op;
  bool cplx = false;
  index_t m = 0, n = 0, k = 0;
  double cond = 1;
  std::vector<cld> a, b, r1, r2;

  /// The input A (or B when `rhs`) as a T tensor.
  template <class T>
  tl::tensor<T, 2> matrix(bool rhs = false) const {
    const index_t rows = m, cols = rhs ? k : n;
    tl::tensor<T, 2> t(tl::shape_t<2>{rows, cols});
    const auto& v = rhs ? b : a;
    for (index_t i = 0; i < rows * cols; ++i) t.data()[i] = from_cld<T>(v[static_cast<std::size_t>(i)]);
    return t;
  }
};

inline std::vector<cld> parse_decomp_values(const std::string& line, bool cplx) {
  std::vector<cld> v;
  if (line == "-") return v;
  std::istringstream is(line);
  std::string re, im;
  while (is >> re) {
    long double x = std::stold(re), y = 0;
    if (cplx && is >> im) y = std::stold(im);
    v.emplace_back(x, y);
  }
  return v;
}

/// Every case of `op` in the reference file.
inline std::vector<decomp_case> load_decomp(const std::string& op) {
  std::string f = __FILE__;
  const auto p = f.find_last_of("/\\");
  const std::string dir = (p == std::string::npos ? std::string(".") : f.substr(0, p)) + "/../data/linalg";
  std::ifstream in(dir + "/decomp_reference.txt");
  REQUIRE(in.good());
  std::vector<decomp_case> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    decomp_case c;
    std::istringstream hs(line);
    std::string kind, cond;
    hs >> c.op >> kind >> c.m >> c.n >> c.k >> cond;
    c.cond = cond == "inf" ? 1e300 : std::stod(cond);
    c.cplx = kind == "c";
    std::string la, lb, l1, l2;
    std::getline(in, la);
    std::getline(in, lb);
    std::getline(in, l1);
    std::getline(in, l2);
    if (c.op != op) continue;
    c.a = parse_decomp_values(la, c.cplx);
    c.b = parse_decomp_values(lb, c.cplx);
    // Eigenvalues and squared residual norms are real even for complex input.
    c.r1 = parse_decomp_values(l1, c.cplx && op != "eigvalsh");
    c.r2 = parse_decomp_values(l2, c.cplx && op == "geqrf");
    out.push_back(std::move(c));
  }
  REQUIRE(!out.empty());
  return out;
}

}  // namespace tl_linalg_test
