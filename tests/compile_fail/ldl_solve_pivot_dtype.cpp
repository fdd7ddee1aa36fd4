// expect: ldl_solve's pivots are an integer tensor
// ldl_solve takes integer pivots (int32 as ldl_factor returns them, or any other integer dtype), as torch.
#include <tl/linalg/ldl_solve.hpp>
int main() {
  tl::tensor<double, 2> a(tl::shape_t<2>{2, 2});
  tl::tensor<float, 1> pivots(tl::shape_t<1>{2});
  (void)tl::linalg::ldl_solve(a, pivots, a);
}
