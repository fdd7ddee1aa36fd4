// Reads tests/data/linalg/svd_eig_reference.txt (written by gen_svd_eig.py) for the svd, eig and
// pinv/matrix_rank/cond tests.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "linalg_test_util.hpp"

namespace tl_linalg_test {

struct svd_eig_case {
  std::string op, p;
  bool cplx = false;
  index_t m = 0, n = 0;
  std::vector<cld> a, res;
};

/// Numbers of one value line as long doubles ("-" for none).
inline std::vector<ld> numbers_of(const std::string& line) {
  std::vector<ld> v;
  std::istringstream is(line == "-" ? std::string() : line);
  for (ld x; is >> x;) v.push_back(x);
  return v;
}

/// Real values, or re im pairs when `pairs`.
inline std::vector<cld> values_of(const std::string& line, bool pairs) {
  const std::vector<ld> x = numbers_of(line);
  std::vector<cld> v;
  const std::size_t step = pairs ? 2 : 1;
  for (std::size_t i = 0; i + step <= x.size(); i += step) v.emplace_back(x[i], pairs ? x[i + 1] : 0);
  return v;
}

/// The cases of one op (three lines each: header, A, result).
inline std::vector<svd_eig_case> load_svd_eig(const std::string& op) {
  std::string f = __FILE__;
  const auto slash = f.find_last_of("/\\");
  const std::string dir = (slash == std::string::npos ? std::string(".") : f.substr(0, slash)) + "/../data/linalg";
  std::ifstream in(dir + "/svd_eig_reference.txt");
  REQUIRE(in.good());
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) lines.push_back(l);
  REQUIRE(lines.size() % 3 == 0);
  std::vector<svd_eig_case> out;
  for (std::size_t q = 0; q < lines.size(); q += 3) {
    svd_eig_case c;
    std::string kind;
    std::istringstream(lines[q]) >> c.op >> kind >> c.m >> c.n >> c.p;
    if (c.op != op) continue;
    c.cplx = kind == "c";
    c.a = values_of(lines[q + 1], c.cplx);
    c.res = values_of(lines[q + 2], c.op == "eigvals");  // singular values and cond numbers are real
    out.push_back(std::move(c));
  }
  REQUIRE(!out.empty());
  return out;
}

/// Case matrix as a tensor of T (complex cases are skipped for real T by the callers).
template <class T>
tl::tensor<T, 2> case_matrix(const svd_eig_case& c) {
  tl::tensor<T, 2> t(tl::shape_t<2>{c.m, c.n});
  for (index_t i = 0; i < c.m * c.n; ++i) t.data()[i] = from_cld<T>(c.a[static_cast<std::size_t>(i)]);
  return t;
}

}  // namespace tl_linalg_test
