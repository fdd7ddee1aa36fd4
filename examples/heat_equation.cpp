// Explicit finite differences for the 2-D heat equation u_t = alpha (u_xx + u_yy) on the unit
// square with u = 0 on the boundary. Each step is one fused pass over slices of u (views, no
// copies): the five-point stencil reads shifted views of the same tensor and writes the interior.
//
// The initial condition sin(pi x) sin(pi y) decays exactly like exp(-2 pi^2 alpha t), which the
// example checks at the end.
#include <cmath>
#include <iostream>
#include <numbers>

#include <tl/tensor.hpp>

int main() {
  const tl::index_t n = 129;  // grid points per side
  const double h = 1.0 / (n - 1), alpha = 1.0, dt = 0.2 * h * h / alpha;
  const int steps = 500;
  const double pi = std::numbers::pi;

  auto xs = tl::linspace<double>(0.0, 1.0, n);
  // u(x, y) = sin(pi x) sin(pi y): an outer product by broadcasting [n, 1] against [n].
  tl::tensor<double, 2> u = tl::sin(pi * xs.unsqueeze(1)) * tl::sin(pi * xs);
  tl::tensor<double, 2> next = u.clone();

  const double r = alpha * dt / (h * h);
  for (int s = 0; s < steps; ++s) {
    auto c = u(tl::s(1, -1), tl::s(1, -1));
    auto up = u(tl::s(0, -2), tl::s(1, -1));
    auto down = u(tl::s(2, n), tl::s(1, -1));
    auto left = u(tl::s(1, -1), tl::s(0, -2));
    auto right = u(tl::s(1, -1), tl::s(2, n));
    next(tl::s(1, -1), tl::s(1, -1)) = c + r * (up + down + left + right - 4.0 * c);
    std::swap(u, next);
  }

  const double t = steps * dt;
  const double expected = std::exp(-2 * pi * pi * alpha * t);
  const double centre = u(n / 2, n / 2);
  std::cout << "t = " << t << ", u(1/2, 1/2) = " << centre << ", exact decay = " << expected << "\n";
  const double rel = std::abs(centre - expected) / expected;
  std::cout << "relative error " << rel << (rel < 1e-3 ? " (ok)" : " (too large)") << "\n";
  return rel < 1e-3 ? 0 : 1;
}
