// expect: tl::fft: out must have the result's dtype
#include <tl/tensor.hpp>
int main() {
  tl::tensor<tl::complex<float>, 1> x(tl::shape_t<1>{8});
  tl::tensor<tl::complex<double>, 1> out(tl::shape_t<1>{8});
  tl::fft::fft_out(out, x);
}
