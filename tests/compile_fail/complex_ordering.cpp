// expect: tl: complex numbers have no ordering
#include <tl/tensor.hpp>
int main() {
  tl::tensor<tl::complex<float>, 1> z(tl::shape_t<1>{3});
  tl::tensor<bool, 1> b = z < z;
  (void)b;
}
