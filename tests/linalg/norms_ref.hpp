// Reads the reference files written by tests/data/linalg/gen_linalg_norms.py: cases of
// "<op> <param> <kind> <rank> <extents...>", then the input values, then the result values.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "linalg_test_util.hpp"

namespace tl_linalg_test {

struct ref_case {
  std::string op, param;
  bool cplx = false;
  std::vector<index_t> shape;
  std::vector<cld> in, out;
};

inline std::vector<cld> parse_ref_values(const std::string& line, bool cplx) {
  std::vector<cld> v;
  std::istringstream is(line);
  std::string tok;
  auto num = [](const std::string& t) -> ld {
    if (t == "inf") return std::numeric_limits<ld>::infinity();
    if (t == "-inf") return -std::numeric_limits<ld>::infinity();
    if (t == "nan") return std::numeric_limits<ld>::quiet_NaN();
    return std::stold(t);
  };
  while (is >> tok) {
    const ld re = num(tok);
    ld im = 0;
    if (cplx && is >> tok) im = num(tok);
    v.emplace_back(re, im);
  }
  return v;
}

inline std::vector<ref_case> load_ref_cases(const std::string& file) {
  std::string f = __FILE__;
  const auto p = f.find_last_of("/\\");
  const std::string dir = (p == std::string::npos ? std::string(".") : f.substr(0, p)) + "/../data/linalg/";
  std::ifstream in(dir + file);
  REQUIRE(in.good());
  std::vector<ref_case> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ref_case c;
    std::istringstream hs(line);
    std::string kind;
    std::size_t rank = 0;
    hs >> c.op >> c.param >> kind >> rank;
    c.cplx = kind == "c";
    c.shape.resize(rank);
    for (auto& e : c.shape) hs >> e;
    std::string li, lo;
    std::getline(in, li);
    std::getline(in, lo);
    c.in = parse_ref_values(li, c.cplx);
    c.out = parse_ref_values(lo, false);
    out.push_back(std::move(c));
  }
  REQUIRE(!out.empty());
  return out;
}

/// A rank-R tensor of dtype T holding a case's input (shape padded with leading 1s to rank R).
template <class T, std::size_t R>
tl::tensor<T, R> ref_input(const ref_case& c) {
  tl::shape_t<R> s{};
  for (std::size_t q = 0; q < R; ++q) s[q] = 1;
  for (std::size_t q = 0; q < c.shape.size(); ++q) s[R - c.shape.size() + q] = c.shape[q];
  tl::tensor<T, R> t(s);
  for (index_t i = 0; i < t.numel(); ++i) t.data()[i] = from_cld<T>(c.in[static_cast<std::size_t>(i)]);
  return t;
}

inline double ref_param(const std::string& p) {
  if (p == "inf") return std::numeric_limits<double>::infinity();
  if (p == "-inf") return -std::numeric_limits<double>::infinity();
  return std::stod(p);
}

}  // namespace tl_linalg_test
