#include <tl/tensor.hpp>

int main() {
  auto a = tl::ones<float>(3);
  tl::tensor<float, 1> b = a + a;
  return b(2) == 2.0f ? 0 : 1;
}
