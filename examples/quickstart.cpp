// Quickstart: creation, fused expressions, broadcasting, views, reductions and printing.
#include <iostream>

#include <tl/tensor.hpp>

int main() {
  tl::manual_seed(0);
  auto x = tl::randn<float>(4, 3);                 // tl::tensor<float, 2>
  auto w = tl::from<float>({0.5f, -1.0f, 2.0f});   // broadcast along the rows

  // One fused pass: no temporaries for sin(x) * w or the + 1.
  tl::tensor<float, 2> y = tl::sin(x) * w + 1.0f;

  // Reductions consume expressions directly: sum(y * y) never materializes y * y.
  auto energy = tl::sum(y * y).item();
  tl::tensor<float, 2> centered = y - tl::mean(y, -1, tl::keepdim);
  auto probs = tl::softmax(y, -1);

  // Views share storage: slices, transposes, python-style indexing.
  auto first_col = y(tl::all, 0);                  // y[:, 0]
  auto yt = y.t();                                 // transpose, no copy
  y.slice(0, 0, 2) *= 0.5f;                        // in place through a view

  std::cout << "y =\n" << y << "\n";
  std::cout << "energy = " << energy << "\n";
  std::cout << "row means of centered (about 0):\n" << tl::mean(centered, -1) << "\n";
  std::cout << "softmax rows sum to " << tl::sum(probs, -1) << "\n";
  std::cout << "first column: " << first_col << "\n";
  std::cout << "y.t() shape: [" << yt.extent(0) << ", " << yt.extent(1) << "]\n";
  return 0;
}
