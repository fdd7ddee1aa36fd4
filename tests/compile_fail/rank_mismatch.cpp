// expect: tl: the expression's rank differs from the tensor's rank
#include <tl/tensor.hpp>
int main() {
  tl::tensor<float, 2> m(tl::shape_t<2>{2, 2});
  tl::tensor<float, 1> v = m * 2.0f;
  (void)v;
}
