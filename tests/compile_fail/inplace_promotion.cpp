// expect: tl: an in-place update cannot change the tensor's dtype
// int += float would need a float result (torch raises the same at run time).
#include <tl/tensor.hpp>
int main() {
  tl::tensor<int, 1> i(tl::shape_t<1>{3});
  tl::tensor<float, 1> f(tl::shape_t<1>{3});
  i += f;
}
