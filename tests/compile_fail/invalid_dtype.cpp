// expect: tl: unsupported element type
// Only bool, int32_t, int64_t, float, double and tl::complex<float/double> are tensor dtypes.
#include <tl/tensor.hpp>
int main() {
  tl::tensor<char, 1> t;
  (void)t;
}
