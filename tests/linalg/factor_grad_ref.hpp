// Reader for tests/data/linalg/factor_grad_reference.txt (written by gen_factor_grad.py): torch
// 1.13's gradients of sum(Re(f(A) * W)), and the same loss's gradient computed by tl.
#pragma once

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "autograd_test_util.hpp"

namespace tl_linalg_ag_test {

/// Gradients by case name, for real ('r') or complex ('c') inputs; complex values as re, im pairs.
inline const std::map<std::string, std::vector<double>>& factor_grad_reference(bool complex) {
  static const auto read = [](char want) {
    std::map<std::string, std::vector<double>> out;
    std::string f = __FILE__;
    const auto p = f.find_last_of("/\\");
    std::ifstream in((p == std::string::npos ? std::string(".") : f.substr(0, p)) +
                     "/../data/linalg/factor_grad_reference.txt");
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string name;
      char kind = 0;
      std::size_t n = 0;
      ls >> name >> kind >> n;
      std::vector<double> v(n);
      for (auto& x : v) ls >> x;
      if (kind == want) out[name] = std::move(v);
    }
    return out;
  };
  static const auto real = read('r'), cplx = read('c');
  return complex ? cplx : real;
}

template <class V>
double magnitude(const V& z) {
  if constexpr (tl::is_complex_v<V>) return std::hypot(z.re, z.im);
  else return std::abs(z);
}

/// The gradient of sum(Re(f(x) * W)) with W = input(f(x).shape, 0, 1.1), as the generator computes
/// it, compared with the reference of `name`.
template <class F, class X>
void check_reference_grad(const std::string& name, F&& f, const X& x0) {
  using V = typename X::value_type;
  CAPTURE(name);
  const auto& ref = factor_grad_reference(tl::is_complex_v<V>);
  const auto it = ref.find(name);
  REQUIRE(it != ref.end());
  X x = x0.detach().clone();
  x.requires_grad_();
  const auto out = f(x);
  using O = std::remove_cvref_t<decltype(out)>;
  const auto w = input<typename O::value_type, O::rank>(out.shape(), 0, 1.1);
  if constexpr (tl::is_complex_v<typename O::value_type>) tl::sum(tl::real(out * w)).backward();
  else tl::sum(out * w).backward();
  const X g = x.grad().contiguous();
  const std::size_t per = tl::is_complex_v<V> ? 2 : 1;
  REQUIRE(it->second.size() == static_cast<std::size_t>(g.numel()) * per);
  double worst = 0, scale = 1;
  for (index_t i = 0; i < g.numel(); ++i) {
    const V r = [&] {
      if constexpr (tl::is_complex_v<V>) return V(it->second[2 * i], it->second[2 * i + 1]);
      else return it->second[i];
    }();
    worst = std::max(worst, magnitude(g.data()[i] - r));
    scale = std::max(scale, magnitude(r));
  }
  CHECK(worst <= 1e-9 * scale);
}

}  // namespace tl_linalg_ag_test
